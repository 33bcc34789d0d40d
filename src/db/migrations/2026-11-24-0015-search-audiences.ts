import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// The typo index moves onto the vocabulary's own rows. A vocabulary word was stored in
// search_term_variants under every string left after deleting up to two of its first seven
// characters: up to 29 rows a word, which made a description of distinct words grow the database
// 125 times its size and hold the writer for seconds. Now each row of search_terms carries three
// typo keys, its length and one segment of the word each (src/search/fuzzy.ts), in typo0, typo1
// and typo2, each indexed with the campaign: a new word costs one row whatever its length.
//
// The columns start empty and search_term_variants goes (a derived index, nothing a user wrote):
// live code rebuilds the search index right after the migrations (db/indexes/rebuilds.ts), which
// fills the keys of every campaign's vocabulary. Until then searches find no typo matches.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  for (const column of ['typo0', 'typo1', 'typo2']) {
    await db.schema.alterTable('search_terms').addColumn(column, 'text').execute();
    await db.schema.createIndex(`search_terms_${column}`).on('search_terms').columns(['campaign_id', column]).execute();
  }
  await db.schema.dropTable('search_term_variants').execute();
  await sql`insert into index_rebuilds (name, requested_at) select 'search', ${new Date().toISOString()}
    where not exists (select 1 from index_rebuilds where name = 'search')`.execute(db);
}
