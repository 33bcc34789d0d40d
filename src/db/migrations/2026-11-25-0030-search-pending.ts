import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// Search indexing moves after the commit (issue 28): a write of a record's searchable text no
// longer re-indexes it inside its transaction; it adds (or bumps) the record's row here, in that
// transaction, so the row commits with the change or not at all. Each instance indexes what is
// pending shortly after its writes, a search first indexes what its campaign has pending, and a
// restart finishes what a crash left (db/indexes/search-queue.ts). `seq` counts the writes queued
// since the row was added: the indexer deletes the row only if no write bumped it meanwhile.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('search_pending')
    .addColumn('campaign_id', 'integer', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
    .addColumn('kind', 'integer', (c) => c.notNull())
    .addColumn('record_id', 'integer', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull().defaultTo(1))
    .addPrimaryKeyConstraint('search_pending_pkey', ['campaign_id', 'kind', 'record_id'])
    .execute();
}
