import { sql, type RawBuilder } from 'kysely';
import type { Database } from '../database.js';
import { ARC_TEXT_FIELDS, type CampaignRow } from '../schema.js';
import { AUDIENCE, kindOfCode, plainTextOfStored, structurePassages, type DocumentKind } from '../../search/document.js';
import { parseStoredLabels } from '../../domain/properties.js';
import { mentionsHidden, type View } from '../../access/view.js';
import type { SearchType } from '../../search/params.js';
import {
  analyzeQuery,
  expandQuery,
  FUZZY_SCAN,
  PREFIX_SCAN,
  pruneCommonExpansions,
  vocabularyProbe,
  type AnalyzedQuery,
  type Expansion,
} from '../../search/query.js';
import { idf, type RankKeys } from '../../search/ranking.js';
import { rankCandidates, type RankedRow, type Ranker } from './search-rank.js';
import { indexCampaignPending } from '../indexes/search-queue.js';

// A search is at most four statements whatever the size of the campaign, when its campaign has
// nothing queued for indexing: see that (db/indexes/search-queue.ts), read the vocabulary words
// the query can match, count their documents (and the campaign's lengths, for BM25), then score
// and rank a bounded set of candidates in the database and read the best records (search-rank.ts). Each filters by campaign_id first, and the
// last two by the view's audience (search_documents.audience): a player's search reads only the
// documents made for players, which hold neither GM-only records nor the text of secret blocks.

/** The audience bit of the view's documents. */
function audienceOf(view: View): number {
  return view.players ? AUDIENCE.players : AUDIENCE.gms;
}

export interface SearchHit {
  kind: DocumentKind;
  id: number;
  slug: string;
  name: string;
  /** The record's other names. */
  aliases: string[];
  /** The record's searchable texts, as plain text (description, or an arc's seven fields), then its tags and properties (search/document.ts structurePassages), one per line. */
  texts: string[];
  keys: RankKeys;
}

export interface SearchOutcome {
  query: AnalyzedQuery;
  /** How many query words took part in ranking (see pruneCommonExpansions). */
  termCount: number;
  /** The vocabulary words that matched, each for one query term. */
  expansions: Expansion[];
  hits: SearchHit[];
}

// The vocabulary a query expands over is the view's own: a word counts only when one of the view's
// documents holds it (search_documents.audience), so neither a word of a GM-only record or secret
// block nor a word of deleted text (the vocabulary only grows between rebuilds) takes part for a
// player — not even to crowd out a visible completion or to make a typo "not the closest". The
// filter runs before every cap (PREFIX_SCAN, FUZZY_SCAN, the expansions per word), so a player's
// expansions are exactly those of a campaign in which the hidden content never existed.
async function readVocabulary(database: Database, campaignId: number, query: AnalyzedQuery, audience: number): Promise<string[]> {
  const probe = vocabularyProbe(query);
  const inView = (term: RawBuilder<unknown>) =>
    sql`exists (select 1 from search_postings p where p.campaign_id = ${campaignId} and p.term = ${term} and (p.audience & ${audience}) <> 0)`;
  const parts: RawBuilder<unknown>[] = [];
  if (probe.exact.length > 0) {
    parts.push(
      sql`select term from search_terms t where campaign_id = ${campaignId} and term in (${sql.join(probe.exact)}) and ${inView(sql.ref('t.term'))}`,
    );
  }
  probe.prefixes.forEach((prefix, i) => {
    const upper = prefix.to === null ? sql`` : sql`and term < ${prefix.to}`;
    parts.push(
      sql`select term from (select term from search_terms t where campaign_id = ${campaignId} and term >= ${prefix.from} ${upper} and ${inView(sql.ref('t.term'))} order by term limit ${PREFIX_SCAN}) as ${sql.raw(`prefix_${i}`)}`,
    );
  });
  // Typo candidates: a word whose key of one segment is among the query's keys for it.
  const typoColumns = ['typo0', 'typo1', 'typo2'] as const;
  const typoMatches = probe.typos.flatMap((keys, i) => (keys.length > 0 ? [sql`${sql.ref(`t.${typoColumns[i]!}`)} in (${sql.join(keys)})`] : []));
  if (typoMatches.length > 0) {
    parts.push(
      sql`select term from (select term from search_terms t where campaign_id = ${campaignId} and (${sql.join(typoMatches, sql` or `)}) and ${inView(sql.ref('t.term'))} order by term limit ${FUZZY_SCAN}) as typos`,
    );
  }
  if (parts.length === 0) return [];
  const result = await sql<{ term: string }>`${sql.join(parts, sql` union `)}`.execute(database.kysely);
  return result.rows.map((row) => row.term);
}

interface Statistics {
  documents: number;
  averageNameLength: number;
  averageTextLength: number;
  documentFrequency: Map<string, number>;
}

// One statement: the number of documents of each matched word, and the campaign's totals.
async function readStatistics(database: Database, campaignId: number, terms: string[], audience: number): Promise<Statistics> {
  // One count per word (a scalar subquery each: cheaper than grouping on both databases).
  const result = await sql<{ term: string | null; n: number | string; name_total: number | string; text_total: number | string }>`
    with t (term) as (values ${sql.join(terms.map((term) => sql`(cast(${term} as text))`))})
    select t.term, (select count(*) from search_postings p
        where p.campaign_id = ${campaignId} and p.term = t.term and (p.audience & ${audience}) <> 0) as n, 0 as name_total, 0 as text_total
      from t
    union all
    select null, count(*), coalesce(sum(name_len), 0), coalesce(sum(text_len), 0)
      from search_documents where campaign_id = ${campaignId} and (audience & ${audience}) <> 0`.execute(database.kysely);
  const documentFrequency = new Map<string, number>();
  let documents = 0;
  let nameTotal = 0;
  let textTotal = 0;
  for (const row of result.rows) {
    if (row.term === null) {
      documents = Number(row.n);
      nameTotal = Number(row.name_total);
      textTotal = Number(row.text_total);
    } else {
      documentFrequency.set(row.term, Number(row.n));
    }
  }
  return {
    documents,
    averageNameLength: documents > 0 ? Math.max(1, nameTotal / documents) : 1,
    averageTextLength: documents > 0 ? Math.max(1, textTotal / documents) : 1,
    documentFrequency,
  };
}

function hitOf(row: RankedRow, campaign: CampaignRow, view: View): SearchHit | undefined {
  // Excerpts come from the text the view reads: for a player never from a secret element, at any
  // depth, nor from a mention of a hidden record (removed whole, its label included).
  const hidden = view.hidden;
  const drop = (node: unknown) => hidden === undefined || mentionsHidden(node, hidden);
  const text = (stored: string | null) => plainTextOfStored(stored, !view.players, drop);
  // Tags and properties as the view reads them: a player's never show a GM-only property.
  const structure = (properties: string | null, tags: string | null) => structurePassages({ properties: properties ?? '[]', tags: tags ?? '[]' }, !view.players);
  const keys: RankKeys = {
    exactName: Number(row.exact) === 1,
    nameCoverage: Number(row.name_cov),
    coverage: Number(row.coverage),
    typos: Number(row.typos),
    relevance: Number(row.relevance),
  };
  const kind = kindOfCode(row.kind);
  switch (kind) {
    case 'thing':
      if (row.thing_slug === null || row.thing_name === null) return undefined;
      return {
        kind,
        id: row.record_id,
        slug: row.thing_slug,
        name: row.thing_name,
        aliases: parseStoredLabels(row.thing_aliases),
        texts: [text(row.thing_description), ...structure(row.thing_properties, row.thing_tags)],
        keys,
      };
    case 'arc':
      if (row.arc_slug === null || row.arc_name === null) return undefined;
      return {
        kind,
        id: row.record_id,
        slug: row.arc_slug,
        name: row.arc_name,
        aliases: parseStoredLabels(row.arc_aliases),
        texts: [...ARC_TEXT_FIELDS.map((f) => text(row[f])), ...structure(row.arc_properties, row.arc_tags)],
        keys,
      };
    case 'campaign':
      return { kind, id: campaign.id, slug: campaign.slug, name: campaign.name, aliases: [], texts: [text(campaign.description)], keys };
  }
}

/** Searches what the view may see of one campaign, once what it has queued for indexing is indexed; see search/ranking.ts for the order. */
export async function searchCampaign(
  database: Database,
  campaign: CampaignRow,
  view: View,
  options: { text: string; type: SearchType; limit: number; tags?: readonly string[] },
  ranker: Ranker = rankCandidates,
): Promise<SearchOutcome> {
  const audience = audienceOf(view);
  const query = analyzeQuery(options.text);
  if (query.terms.length === 0) return { query, termCount: 0, expansions: [], hits: [] };
  // The index is brought up to date after each write's commit: what is still queued is indexed
  // first, so no search answers from before a write committed ahead of it (a change of visibility included).
  await indexCampaignPending(database, campaign.id);
  const candidates = expandQuery(query, await readVocabulary(database, campaign.id, query, audience));
  if (candidates.length === 0) return { query, termCount: query.terms.length, expansions: [], hits: [] };

  const stats = await readStatistics(database, campaign.id, [...new Set(candidates.map((e) => e.term))].sort(), audience);
  // Every candidate is in some document of this view (readVocabulary), and the statistics are the
  // view's own: document counts, frequencies and lengths of what it may see.
  const { expansions, termCount } = pruneCommonExpansions(query, candidates, stats.documentFrequency, stats.documents);
  if (expansions.length === 0) return { query, termCount, expansions, hits: [] };
  const weighted = expansions.map((e) => ({
    term: e.term,
    queryIndex: e.queryIndex,
    typos: e.typos,
    weight: e.weight * idf(stats.documents, stats.documentFrequency.get(e.term) ?? 0),
  }));

  const rows = await ranker(database, {
    campaignId: campaign.id,
    nameKey: query.key,
    termCount,
    weighted,
    documentFrequency: stats.documentFrequency,
    averageNameLength: stats.averageNameLength,
    averageTextLength: stats.averageTextLength,
    type: options.type,
    limit: options.limit,
    audience,
    tags: options.tags ?? [],
  });
  const hits = rows.map((row) => hitOf(row, campaign, view)).filter((hit): hit is SearchHit => hit !== undefined);
  return { query, termCount, expansions, hits };
}
