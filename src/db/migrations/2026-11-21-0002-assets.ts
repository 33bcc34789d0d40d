import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// Uploaded images: the grants that let a client upload one (in the database so any instance can
// honour them), the asset records, and a queue of image bytes still to be removed from the image
// host (filled in the same transaction that drops the rows naming them, emptied once the host has
// removed them, retried by the sweeper when it could not).
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const ts = dialect === 'postgres' ? ('timestamptz' as const) : ('text' as const);
  const idColumn = (c: ColumnDefinitionBuilder) =>
    dialect === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement();

  // One row per upload-url call until it is confirmed (then deleted) or expires (then swept).
  await db.schema
    .createTable('upload_grants')
    .addColumn('campaign_id', 'integer', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('expires_at', ts, (c) => c.notNull())
    // Set when the local image host has received the bytes: a grant takes one upload only.
    .addColumn('uploaded_at', ts)
    .addPrimaryKeyConstraint('upload_grants_pk', ['campaign_id', 'id'])
    .execute();
  await db.schema.createIndex('upload_grants_expires').on('upload_grants').column('expires_at').execute();

  await db.schema
    .createTable('assets')
    .addColumn('id', 'integer', idColumn)
    .addColumn('campaign_id', 'integer', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('image_id', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('host_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('byte_size', 'integer', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addUniqueConstraint('assets_campaign_id_id', ['campaign_id', 'id'])
    // One asset per grant, however often (or however concurrently) it is confirmed.
    .addUniqueConstraint('assets_campaign_image', ['campaign_id', 'image_id'])
    .execute();
  await db.schema.createIndex('assets_campaign_created').on('assets').columns(['campaign_id', 'created_at', 'id']).execute();

  // No foreign key: the rows outlive the campaign whose deletion queued them.
  await db.schema
    .createTable('image_removals')
    .addColumn('id', 'integer', idColumn)
    .addColumn('campaign_id', 'integer', (c) => c.notNull())
    .addColumn('image_id', 'text', (c) => c.notNull())
    .addColumn('queued_at', ts, (c) => c.notNull())
    .execute();
}
