import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// The visibility a new thing or arc takes when it is created without one (CONTRACT "New records'
// visibility"): 'all' (every existing campaign, as before) or 'gm'. Same meaning on both dialects.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('campaigns')
    .addColumn('default_visibility', 'text', (c) => c.notNull().defaultTo('all').check(sql`default_visibility in ('all', 'gm')`))
    .execute();
}
