// A search query: its terms, what to look up in the campaign's vocabulary for each, and how the
// vocabulary words found are matched back to the query words (exact, word form, prefix, typo).
import { allowedEdits, editDistance, MAX_EDITS, typoProbes } from './fuzzy.js';
import { isStemmable, stem, wordForms } from './stem.js';
import { isFuzzyCandidate, nameKey, tokenize, type TokenKind } from './tokenize.js';

/** Query words beyond this many are ignored (a pasted paragraph still searches, by its start). */
export const MAX_QUERY_TERMS = 12;
/** Query text beyond this many UTF-16 units is ignored before tokenizing. */
export const MAX_QUERY_TEXT = 2000;
/** Vocabulary words read per prefix (in code-point order); the shortest are kept. */
export const PREFIX_SCAN = 200;
export const MAX_PREFIX_EXPANSIONS = 16;
export const MAX_FUZZY_EXPANSIONS = 16;
/** Typo candidates read per search, at most. */
export const FUZZY_SCAN = 4000;

export interface QueryTerm {
  /** Position among the query's distinct terms. */
  index: number;
  term: string;
  kind: TokenKind;
  chars: string[];
  /** May be searched as a prefix: always for the last word (typing in progress), else only when the word itself is not in the vocabulary. */
  prefix: boolean;
  last: boolean;
  /** The stem, for word-form matching; null when the word is not stemmed. */
  stem: string | null;
  /** Typos allowed (0: none). Words of four or five letters may take two when nothing closer exists. */
  edits: number;
}

export interface AnalyzedQuery {
  terms: QueryTerm[];
  /** The folded name key of the whole query, for exact-name matches; null when too long to be a name. */
  key: string | null;
}

export function analyzeQuery(text: string): AnalyzedQuery {
  const source = text.length > MAX_QUERY_TEXT ? text.slice(0, MAX_QUERY_TEXT) : text;
  const seen = new Set<string>();
  const terms: QueryTerm[] = [];
  const tokens = tokenize(source).filter((token) => !token.tail);
  const lastTerm = tokens.at(-1)?.term;
  for (const token of tokens) {
    // A run of two or more bigram-script characters is searched by its bigrams only (tails dropped above).
    if (seen.has(token.term)) continue;
    seen.add(token.term);
    const chars = Array.from(token.term);
    const word = token.kind === 'word';
    terms.push({
      index: terms.length,
      term: token.term,
      kind: token.kind,
      chars,
      prefix: (word && chars.length >= 2) || (token.kind === 'cjk' && chars.length === 1),
      last: token.term === lastTerm,
      stem: word && isStemmable(token.term) ? stem(token.term) : null,
      edits: word && isFuzzyCandidate(token.term) ? allowedEdits(chars.length) : 0,
    });
    if (terms.length === MAX_QUERY_TERMS) break;
  }
  const key = text.length <= MAX_QUERY_TEXT ? nameKey(text) : null;
  return { terms, key: key === '' ? null : key };
}

/** The code-point-order upper bound of every string that starts with `prefix` (exclusive). */
export function prefixUpperBound(prefix: string): string | null {
  const points = Array.from(prefix);
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!;
    if (last < 0x10ffff) {
      const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
      return points.join('') + String.fromCodePoint(next);
    }
  }
  return null;
}

/** What to read from the vocabulary for a query. */
export interface VocabularyProbe {
  /** Words looked up as they are: the query words and their word forms. */
  exact: string[];
  /** Ranges [from, to) of words starting with a query word. */
  prefixes: { from: string; to: string | null }[];
  /** Typo keys, per segment (search_terms.typo0, typo1, typo2), of the words within two edits of the query words that may have typos. */
  typos: [string[], string[], string[]];
}

export function vocabularyProbe(query: AnalyzedQuery): VocabularyProbe {
  const exact = new Set<string>();
  const typos = [new Set<string>(), new Set<string>(), new Set<string>()] as const;
  const prefixes: { from: string; to: string | null }[] = [];
  for (const term of query.terms) {
    exact.add(term.term);
    if (term.stem !== null) for (const form of wordForms(term.stem)) exact.add(form);
    if (term.prefix) prefixes.push({ from: term.term, to: prefixUpperBound(term.term) });
    if (term.edits > 0) typoProbes(term.term).forEach((keys, i) => keys.forEach((key) => typos[i]!.add(key)));
  }
  return { exact: [...exact].sort(), prefixes, typos: [[...typos[0]].sort(), [...typos[1]].sort(), [...typos[2]].sort()] };
}

export type MatchKind = 'exact' | 'form' | 'prefix' | 'typo';

/** A vocabulary word standing in for one query term. */
export interface Expansion {
  term: string;
  queryIndex: number;
  match: MatchKind;
  typos: number;
  /** How much a match through this word counts, before its idf: 1 for the word itself. */
  weight: number;
}

const FORM_WEIGHT = 0.9;
const TYPO_WEIGHTS = [1, 0.45, 0.25];

function prefixWeight(query: QueryTerm, word: string[]): number {
  return 0.4 + (0.4 * query.chars.length) / word.length;
}

// What matching needs of a vocabulary word, worked out once per search rather than once per query word.
interface Word {
  term: string;
  chars: string[];
  stem: string | null;
  fuzzy: boolean;
}

function describe(term: string): Word {
  return { term, chars: Array.from(term), stem: isStemmable(term) ? stem(term) : null, fuzzy: isFuzzyCandidate(term) };
}

function classify(query: QueryTerm, word: Word): Expansion | null {
  const base = { term: word.term, queryIndex: query.index };
  if (word.term === query.term) return { ...base, match: 'exact', typos: 0, weight: 1 };
  if (query.stem !== null && word.stem === query.stem) return { ...base, match: 'form', typos: 0, weight: FORM_WEIGHT };
  if (query.prefix && word.term.startsWith(query.term)) return { ...base, match: 'prefix', typos: 0, weight: prefixWeight(query, word.chars) };
  if (query.edits > 0 && word.fuzzy && Math.abs(word.chars.length - query.chars.length) <= MAX_EDITS) {
    const typos = editDistance(query.chars, word.chars, MAX_EDITS);
    if (typos <= MAX_EDITS) return { ...base, match: 'typo', typos, weight: TYPO_WEIGHTS[typos] ?? 0 };
  }
  return null;
}

function byLengthThenWord(a: Expansion, b: Expansion): number {
  return a.term.length - b.term.length || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0);
}

/**
 * Matches the vocabulary words read for a query back to its terms: each word counts for a term at
 * most once, as its best kind of match. Prefix and typo matches are capped per term (shortest
 * completions; fewest typos, closest length); two typos on a word of four or five letters count
 * only when that word has no closer match at all.
 */
export function expandQuery(query: AnalyzedQuery, vocabulary: readonly string[]): Expansion[] {
  const words = [...new Set(vocabulary)].sort().map(describe);
  const result: Expansion[] = [];
  for (const term of query.terms) {
    const direct: Expansion[] = [];
    const prefixes: Expansion[] = [];
    const typos: Expansion[] = [];
    for (const word of words) {
      const found = classify(term, word);
      if (!found) continue;
      if (found.match === 'prefix') prefixes.push(found);
      else if (found.match === 'typo') typos.push(found);
      else direct.push(found);
    }
    prefixes.sort(byLengthThenWord);
    // A complete word before the last one is not also a prefix: "the old tower" must not spread to
    // "their", "older", "towering".
    if (!term.last && direct.length > 0) prefixes.length = 0;
    const close = direct.length > 0 || prefixes.length > 0 || typos.some((t) => t.typos <= term.edits);
    const allowed = close ? term.edits : MAX_EDITS;
    const kept = typos
      .filter((t) => t.typos <= allowed)
      .sort(
        (a, b) =>
          a.typos - b.typos ||
          Math.abs(a.term.length - term.term.length) - Math.abs(b.term.length - term.term.length) ||
          byLengthThenWord(a, b),
      );
    result.push(...direct, ...prefixes.slice(0, MAX_PREFIX_EXPANSIONS), ...kept.slice(0, MAX_FUZZY_EXPANSIONS));
  }
  return result;
}

/** A word in more records than this is common: its completions and typo matches add cost, not meaning. */
export function commonThreshold(documents: number): number {
  return Math.max(250, Math.ceil(documents * 0.05));
}

/** A query word written as it is in this many records is taken to be meant as written: no typo matches. */
export const ESTABLISHED_WORD_DOCUMENTS = 3;

/** From this many records on, a query word found in more than half of them may be left out (see below). */
export const UBIQUITOUS_MIN_DOCUMENTS = 1000;

export interface PrunedExpansions {
  expansions: Expansion[];
  /** How many query words take part in ranking (the tier-2 and coverage counts). */
  termCount: number;
}

/**
 * Prepares the matches of a query for ranking, knowing in how many records each word occurs:
 *  - a word found in no record (its records were deleted since it entered the vocabulary) goes;
 *  - completions and typo matches found in more records than commonThreshold go when their query
 *    word has a closer or rarer match: they would cost a scan of much of the campaign for nothing
 *    (their idf is near zero);
 *  - typo matches go when the query word, as written or in another form, is in at least
 *    ESTABLISHED_WORD_DOCUMENTS records: "dragon" then means dragon, not also wagon (a word
 *    misspelled once or twice in the campaign's own text still gets its typo matches);
 *  - in a campaign of UBIQUITOUS_MIN_DOCUMENTS records or more, a query word all of whose matches
 *    are in more than half of the records ("the", "and" in most languages) is left out, unless
 *    every query word is like that. It would match nearly every record and move none.
 * Within a small campaign only the first rule ever applies.
 */
export function pruneCommonExpansions(
  query: AnalyzedQuery,
  candidates: readonly Expansion[],
  frequency: ReadonlyMap<string, number>,
  documents: number,
): PrunedExpansions {
  const df = (e: Expansion) => frequency.get(e.term) ?? 0;
  const threshold = commonThreshold(documents);
  const direct = (e: Expansion) => e.match === 'exact' || e.match === 'form';
  const found = candidates.filter((e) => df(e) > 0);
  const anchored = new Set<number>();
  for (const e of found) if (direct(e) || df(e) <= threshold) anchored.add(e.queryIndex);
  const directDocuments = new Map<number, number>();
  for (const e of found) if (direct(e)) directDocuments.set(e.queryIndex, (directDocuments.get(e.queryIndex) ?? 0) + df(e));
  const established = (e: Expansion) => (directDocuments.get(e.queryIndex) ?? 0) >= ESTABLISHED_WORD_DOCUMENTS;
  let expansions = found.filter(
    (e) => direct(e) || ((df(e) <= threshold || !anchored.has(e.queryIndex)) && !(e.match === 'typo' && established(e))),
  );

  let termCount = query.terms.length;
  if (documents >= UBIQUITOUS_MIN_DOCUMENTS) {
    const matched = new Set(expansions.map((e) => e.queryIndex));
    const telling = new Set(expansions.filter((e) => df(e) * 2 <= documents).map((e) => e.queryIndex));
    const ubiquitous = [...matched].filter((index) => !telling.has(index));
    if (telling.size > 0 && ubiquitous.length > 0) {
      const left = new Set(ubiquitous);
      expansions = expansions.filter((e) => !left.has(e.queryIndex));
      termCount -= ubiquitous.length;
    }
  }
  return { expansions, termCount };
}
