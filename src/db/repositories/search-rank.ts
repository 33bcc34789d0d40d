import { sql, type RawBuilder } from 'kysely';
import type { Database } from '../database.js';
import { ARC_TEXT_FIELDS } from '../schema.js';
import { KIND_CODES } from '../../search/document.js';
import { tagKeyPattern } from '../../domain/properties.js';
import type { SearchType } from '../../search/params.js';
import { BM25_K1, CANDIDATES_PER_TERM, NAME_B, NAME_BOOST, RELEVANCE_DECIMALS, TEXT_B } from '../../search/ranking.js';

// The last statement of a search: choose the candidate documents, score them (BM25F per posting,
// the best match per query word, summed), rank them by the keys of search/ranking.ts and read the
// records of the best.
//
// Candidates, not every match. A word in at most CANDIDATES_PER_TERM of the view's documents has
// all its postings scored, as before. Of a more common word only the candidates' postings are: the
// documents of the rare words, the documents whose name is the whole query, and for each common
// word its CANDIDATES_PER_TERM postings of most impact (the word in the name first, then the most
// occurrences in the name, then in the text, then by kind and record as results are), read in that
// order from search_postings_impact (migration 0024) with the type and tag filters applied while
// reading. Each candidate is thus scored from all its postings of the query's words: its keys
// (tier, coverage, typos, relevance) are those that scoring every match gives it. When no word is
// common, the statement scores every match, exactly as before.

/** What ranking needs of a search, worked out by repositories/search.ts. */
export interface RankInput {
  campaignId: number;
  /** The folded name key of the whole query (exact-name matches); null when it cannot be a name. */
  nameKey: string | null;
  termCount: number;
  weighted: Weighted[];
  /** In how many of the view's documents each matched word is. */
  documentFrequency: ReadonlyMap<string, number>;
  averageNameLength: number;
  averageTextLength: number;
  type: SearchType;
  limit: number;
  audience: number;
  tags: readonly string[];
}

export interface Weighted {
  term: string;
  queryIndex: number;
  weight: number;
  typos: number;
}

export interface RankedRow {
  doc_id: number;
  kind: number;
  record_id: number;
  coverage: number | string;
  name_cov: number | string;
  typos: number | string;
  relevance: number | string;
  exact: number | string;
  thing_slug: string | null;
  thing_name: string | null;
  thing_description: string | null;
  thing_properties: string | null;
  thing_tags: string | null;
  thing_aliases: string | null;
  arc_slug: string | null;
  arc_name: string | null;
  arc_properties: string | null;
  arc_tags: string | null;
  arc_aliases: string | null;
  hook: string | null;
  protagonist: string | null;
  antagonist: string | null;
  problem: string | null;
  key: string | null;
  outcome: string | null;
  notes: string | null;
}

export type Ranker = (database: Database, input: RankInput) => Promise<RankedRow[]>;

const double = (value: number) => sql`cast(${value} as double precision)`;

/** The parts of the ranking statement that do not depend on how the matches to score are chosen. */
export interface RankParts {
  /** The weighted words as VALUES rows (term, qi, w, typos); `only`: those of these words. */
  values: (only?: readonly string[]) => RawBuilder<unknown>;
  terms: RawBuilder<unknown>;
  kindFilter: (alias: string) => RawBuilder<unknown>;
  /** All of the view's tags on the record of `kind`/`record` (true when there are none). */
  tagged: (kind: RawBuilder<unknown>, record: RawBuilder<unknown>) => RawBuilder<unknown>;
  /** BM25F's normalised term frequency of a posting `p`. */
  tfn: RawBuilder<unknown>;
  order: RawBuilder<unknown>;
}

export function rankParts(input: RankInput): RankParts {
  const { campaignId, tags } = input;
  const tagOn = (table: 'things' | 'arcs', record: RawBuilder<unknown>) =>
    sql`exists (select 1 from ${sql.table(table)} x where x.campaign_id = ${campaignId} and x.id = ${record} and ${sql.join(
      tags.map((tag) => sql`x.tag_keys like ${tagKeyPattern(tag)} escape '\\'`),
      sql` and `,
    )})`;
  return {
    values: (only) =>
      sql.join(
        input.weighted
          .filter((w) => only === undefined || only.includes(w.term))
          .map((w) => sql`(cast(${w.term} as text), cast(${w.queryIndex} as integer), ${double(w.weight)}, cast(${w.typos} as integer))`),
      ),
    terms: sql.join([...new Set(input.weighted.map((w) => w.term))]),
    kindFilter: (alias) => (input.type === 'any' ? sql`` : sql`and ${sql.ref(`${alias}.kind`)} = ${KIND_CODES[input.type]}`),
    // Tags (all must match, case ignored): one LIKE per tag on the record's tag_keys
    // (domain/properties.ts); the campaign description has none.
    tagged: (kind, record) =>
      tags.length === 0
        ? sql`1 = 1`
        : sql`((${kind} = ${KIND_CODES.thing} and ${tagOn('things', record)}) or (${kind} = ${KIND_CODES.arc} and ${tagOn('arcs', record)}))`,
    tfn: sql`${double(NAME_BOOST)} * p.name_tf / (${double(1 - NAME_B)} + ${double(NAME_B)} * p.name_len / ${double(input.averageNameLength)})
        + cast(p.text_tf as double precision) / (${double(1 - TEXT_B)} + ${double(TEXT_B)} * p.text_len / ${double(input.averageTextLength)})`,
    order: sql`exact desc, case when name_cov >= ${input.termCount} then 1 else 0 end desc, coverage desc, typos asc, relevance desc, kind asc, record_id asc`,
  };
}

/** Groups the scored matches `m` by document, ranks them and reads the records of the best `limit`. */
export function rankedStatement(input: RankInput, parts: RankParts, ctes: RawBuilder<unknown>): RawBuilder<RankedRow> {
  const { campaignId, audience } = input;
  // Rounded in floating point on both dialects (PostgreSQL's numeric would cost more than the sum).
  const scale = double(10 ** RELEVANCE_DECIMALS);
  const a = (column: string) => sql.ref(`a.${column}`);
  return sql<RankedRow>`
    with ${ctes},
    h as (
      select doc_id, qi, max(kind) as kind, max(record_id) as record_id,
        max(w * tfn / (${double(BM25_K1)} + tfn)) as s,
        max(case when name_tf > 0 then 1 else 0 end) as in_name,
        min(typos) as typos
      from m group by doc_id, qi
    ),
    r as (
      select doc_id, max(kind) as kind, max(record_id) as record_id, count(*) as coverage,
        sum(in_name) as name_cov, sum(typos) as typos, round(sum(s) * ${scale}) / ${scale} as relevance
      from h group by doc_id
    ),
    ranked as (
      select r.doc_id, r.kind, r.record_id, r.coverage, r.name_cov, r.typos, r.relevance,
        case when r.doc_id in (
          select id from search_documents where campaign_id = ${campaignId} and name_key = ${input.nameKey} and (audience & ${audience}) <> 0
        ) then 1 else 0 end as exact
      from r where ${parts.tagged(sql.ref('r.kind'), sql.ref('r.record_id'))} order by ${parts.order} limit ${input.limit}
    )
    select ranked.*, t.slug as thing_slug, t.name as thing_name, t.description as thing_description,
      t.properties as thing_properties, t.tags as thing_tags, t.aliases as thing_aliases,
      a.slug as arc_slug, a.name as arc_name, a.properties as arc_properties, a.tags as arc_tags, a.aliases as arc_aliases, ${sql.join(ARC_TEXT_FIELDS.map((field) => sql`${a(field)} as ${sql.ref(field)}`))}
    from ranked
    left join things t on ranked.kind = ${KIND_CODES.thing} and t.campaign_id = ${campaignId} and t.id = ranked.record_id
    left join arcs a on ranked.kind = ${KIND_CODES.arc} and a.campaign_id = ${campaignId} and a.id = ranked.record_id
    order by ${parts.order}`;
}

/** Ranks the candidates (see above): one statement. */
export const rankCandidates: Ranker = async (database, input) => {
  const { campaignId, audience } = input;
  const parts = rankParts(input);
  const distinct = [...new Set(input.weighted.map((w) => w.term))];
  // A word in no more records than CANDIDATES_PER_TERM has all its postings scored, as they are;
  // a more common one only those of the candidates.
  const common = distinct.filter((term) => (input.documentFrequency.get(term) ?? 0) > CANDIDATES_PER_TERM);
  const rare = distinct.filter((term) => !common.includes(term));
  const matches = (from: RawBuilder<unknown>, where: RawBuilder<unknown>) =>
    sql`select p.doc_id, p.kind, p.record_id, p.name_tf, q.qi, q.w, q.typos, ${parts.tfn} as tfn
      from ${from} where ${where} and (p.audience & ${audience}) <> 0 ${parts.kindFilter('p')}`;
  const every =
    rare.length === 0
      ? []
      : [matches(sql`search_postings p join qr as q on q.term = p.term`, sql`p.campaign_id = ${campaignId} and p.term in (${sql.join(rare)})`)];
  const rareValues = rare.length === 0 ? sql`` : sql`qr (term, qi, w, typos) as (values ${parts.values(rare)}),`;
  if (common.length === 0) {
    return (await rankedStatement(input, parts, sql`${rareValues} m as (${every[0]!})`).execute(database.kysely)).rows;
  }
  // `kind + 0`: compared as an expression, so that SQLite still reads the index in its order
  // (an equality on the kind column would make it sort what follows it in the key).
  const kindOf = input.type === 'any' ? sql`` : sql`and p.kind + 0 = ${KIND_CODES[input.type]}`;
  const best = common.map(
    (term, i) => sql`select doc_id from (
      select p.doc_id from search_postings p
      where p.campaign_id = ${campaignId} and p.term = ${term} and (p.audience & ${audience}) <> 0 ${kindOf}
        and ${parts.tagged(sql.ref('p.kind'), sql.ref('p.record_id'))}
      order by p.name_tf desc, p.text_tf desc, p.kind asc, p.record_id asc limit ${CANDIDATES_PER_TERM}) as ${sql.raw(`best_${i}`)}`,
  );
  if (rare.length > 0) {
    best.push(sql`select p.doc_id from search_postings p where p.campaign_id = ${campaignId} and p.term in (${sql.join(rare)}) and (p.audience & ${audience}) <> 0`);
  }
  if (input.nameKey !== null) {
    best.push(sql`select id from search_documents where campaign_id = ${campaignId} and name_key = ${input.nameKey} and (audience & ${audience}) <> 0`);
  }
  const probed = matches(
    sql`c cross join qc as q join search_postings p on p.campaign_id = ${campaignId} and p.term = q.term and p.doc_id = c.doc_id`,
    sql`1 = 1`,
  );
  const ctes = sql`${rareValues} qc (term, qi, w, typos) as (values ${parts.values(common)}),
    c (doc_id) as (${sql.join(best, sql` union `)}),
    m as (${sql.join([...every, probed], sql` union all `)})`;
  return (await rankedStatement(input, parts, ctes).execute(database.kysely)).rows;
};
