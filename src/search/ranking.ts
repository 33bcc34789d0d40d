// Ranking. Results are ordered by, in turn:
//   1. tier: 3 when the whole query is the record's name (folded: case, accents and punctuation
//      ignored), 2 when every query word matches a word of the name (as written, as another word
//      form, as a prefix or with typos), 1 otherwise;
//   2. coverage: how many query words the record matches anywhere;
//   3. typos: fewer first;
//   4. relevance: BM25F over name and text (name words weigh more), each query word counting once
//      through its best-scoring match, matches other than the word itself weighed down;
//   5. things, then arcs, then the campaign description; then the older record (lower id).
// The database applies the same order (see repositories/search-rank.ts), to a bounded set of
// candidates (CANDIDATES_PER_TERM); relevance is rounded there to
// RELEVANCE_DECIMALS so that both dialects, whose floating-point sums may differ in the last bit,
// order equal scores identically.

export const BM25_K1 = 1.2;
export const NAME_BOOST = 3;
export const NAME_B = 0.5;
export const TEXT_B = 0.75;
export const RELEVANCE_DECIMALS = 6;
/**
 * Postings read per matched word to choose the documents to rank, best first: the word in the name,
 * then the most occurrences in the name, then in the text (repositories/search-rank.ts). Results
 * are exactly those of ranking every match whenever no word has more postings than this.
 */
export const CANDIDATES_PER_TERM = 250;

/** BM25's inverse document frequency (the always-positive variant). */
export function idf(documents: number, documentFrequency: number): number {
  return Math.log(1 + (documents - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

export interface RankKeys {
  exactName: boolean;
  /** Query words matched in the name. */
  nameCoverage: number;
  coverage: number;
  typos: number;
  relevance: number;
}

export function tierOf(keys: RankKeys, queryTerms: number): 1 | 2 | 3 {
  if (keys.exactName) return 3;
  return keys.nameCoverage >= queryTerms ? 2 : 1;
}

/**
 * One number per result that orders results exactly as the rank keys do, for clients: its integer
 * part is the tier; the fraction encodes coverage, then typos, then relevance (squashed into [0, 1)).
 */
export function presentedScore(keys: RankKeys, queryTerms: number): number {
  const n = Math.max(1, queryTerms);
  const squashed = keys.relevance / (keys.relevance + 1);
  const typoPart = (2 * n - Math.min(keys.typos, 2 * n) + squashed) / (2 * n + 1);
  const score = tierOf(keys, queryTerms) + (Math.min(keys.coverage, n) + typoPart) / (n + 1);
  // Cut, not rounded: the integer part must stay the tier.
  return Math.floor(score * 1e6) / 1e6;
}
