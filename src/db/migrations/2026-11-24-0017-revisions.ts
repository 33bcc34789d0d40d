import { sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// Revisions (CONTRACT "# Phase 3" › "History and trash"): a full snapshot of a thing, an arc or the
// campaign itself after a change, kept by every create and update in its own transaction
// (db/repositories/revisions.ts).
//
//   record_kind 1 thing, 2 arc, 3 campaign; record_id the thing's, arc's or campaign's id.
//
// No foreign key to things or arcs: a trashed record keeps its revisions, and the trash erases them
// with it by (campaign_id, record_kind, record_id). The campaign's deletion cascades. The author is
// a user id without a foreign key (an account's deletion leaves its revisions); author_name is the
// name at write time, shown once the account is gone. `fields` is a JSON array of the names of the
// fields changed from the revision before; `snapshot` the record's JSON, compressed when that pays
// (history/snapshots.ts: a one-byte header says how).
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const ts = dialect === 'postgres' ? ('timestamptz' as const) : ('text' as const);
  const bytes = dialect === 'postgres' ? sql`bytea` : sql`blob`;
  const idColumn = (c: ColumnDefinitionBuilder) =>
    dialect === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement();
  await db.schema
    .createTable('revisions')
    .addColumn('id', 'integer', idColumn)
    .addColumn('campaign_id', 'integer', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
    .addColumn('record_kind', 'integer', (c) => c.notNull())
    .addColumn('record_id', 'integer', (c) => c.notNull())
    .addColumn('author_id', 'text')
    .addColumn('author_name', 'text')
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('fields', 'text', (c) => c.notNull())
    .addColumn('snapshot', bytes, (c) => c.notNull())
    .addCheckConstraint('revisions_record_kind', sql`record_kind in (1, 2, 3)`)
    .execute();
  await db.schema.createIndex('revisions_record').on('revisions').columns(['campaign_id', 'record_kind', 'record_id', 'id']).execute();
}
