import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// Password resets (CONTRACT "# Phase 3" › "Accounts"): the administrator's command line issues a
// one-time link; only a hash of its secret is stored, with its expiry. Using it deletes the row, so
// a used, expired or unknown secret finds nothing. The account's deletion takes its rows along.
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const ts = dialect === 'postgres' ? ('timestamptz' as const) : ('text' as const);
  const idColumn = (c: ColumnDefinitionBuilder) =>
    dialect === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement();
  await db.schema
    .createTable('password_resets')
    .addColumn('id', 'integer', idColumn)
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('expires_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('password_resets_user').on('password_resets').column('user_id').execute();
}
