// The ranking before issue 28, kept to compare with (test/integration/search-candidates.test.ts,
// bench/search.ts): every matching posting of the view is scored, no candidate bound.
import { sql } from 'kysely';
import { rankedStatement, rankParts, type Ranker } from '../../src/db/repositories/search-rank.js';

export const scoreEveryMatch: Ranker = async (database, input) => {
  const parts = rankParts(input);
  const ctes = sql`q (term, qi, w, typos) as (values ${parts.values()}),
    m as (
      select p.doc_id, p.kind, p.record_id, p.name_tf, q.qi, q.w, q.typos, ${parts.tfn} as tfn
      from search_postings p join q on q.term = p.term
      where p.campaign_id = ${input.campaignId} and p.term in (${parts.terms}) and (p.audience & ${input.audience}) <> 0 ${parts.kindFilter('p')}
    )`;
  return (await rankedStatement(input, parts, ctes).execute(database.kysely)).rows;
};
