import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// A campaign being imported (portability/write-plan.ts) is written in several short write
// transactions, so an import never holds SQLite's one write connection for long; it has no member
// until its last transaction, so no request can see it half written. `campaign_imports` marks
// such a campaign while it is written: the images placed for it at the image host (their ids, a
// JSON array), and when its import last wrote. A marked campaign whose import stopped writing (its
// process died) is erased, images included, at start-up and by the sweeper
// (db/repositories/campaign-imports.ts). The mark goes with the campaign (cascade).
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const ts = dialect === 'postgres' ? ('timestamptz' as const) : ('text' as const);
  await db.schema
    .createTable('campaign_imports')
    .addColumn('campaign_id', 'integer', (c) => c.primaryKey().references('campaigns.id').onDelete('cascade'))
    .addColumn('image_ids', 'text', (c) => c.notNull())
    .addColumn('heartbeat_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('campaign_imports_heartbeat').on('campaign_imports').column('heartbeat_at').execute();
}
