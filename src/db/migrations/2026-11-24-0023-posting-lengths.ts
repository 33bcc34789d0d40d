import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// Writes re-index by difference (db/indexes/search-diff.ts): only postings whose values change are
// written. Every posting carries its document's lengths for BM25 (search_postings.name_len and
// text_len, read by ranking), so with exact lengths a one-word edit changed every posting of the
// document. From now on postings carry a lossy length, as Lucene's norms are (search/document.ts
// postingLength: exact up to 16 terms, then rounded to an eighth of an octave, about 9 %), so a
// small edit rarely changes it; search_documents keeps the exact lengths the campaign's averages
// are summed from. The columns keep their names and meaning (a document's length in terms, now
// rounded); the index is rebuilt once with the new lengths (db/indexes/rebuilds.ts).
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await sql`insert into index_rebuilds (name, requested_at) select 'search', ${new Date().toISOString()}
    where not exists (select 1 from index_rebuilds where name = 'search')`.execute(db);
}
