import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// Search ranks from a bounded candidate set (repositories/search-rank.ts): for each matched word,
// the postings with the most impact first — name hits, then the most occurrences in the name and in
// the text — read from this index, which also holds what filters them (audience, kind, record), so
// a word found in every record costs a short range scan, not all of its postings.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createIndex('search_postings_impact')
    .on('search_postings')
    .columns(['campaign_id', 'term', 'name_tf desc', 'text_tf desc', 'kind', 'record_id', 'audience', 'doc_id'])
    .execute();
}
