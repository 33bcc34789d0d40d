import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// A counter every write inside a campaign bumps (in the same transaction, as its first statement:
// see beginCampaignWrite). Cached responses are keyed by it, so a write through any instance
// invalidates every instance's cache: the version lives in the database, not in memory.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('campaigns')
    .addColumn('content_version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
