// Excerpts and highlights of a result, computed from the record's current text with the same
// tokenizer the index uses, so what is shown is exactly what matched.
import { tokenize } from './tokenize.js';

/** A vocabulary word that matched: the query word it stands for, and whether it matched as a completion of it. */
export interface WordMatch {
  query: number;
  prefix: boolean;
}

export type Matches = ReadonlyMap<string, WordMatch>;

/** Longest excerpt, in UTF-16 units, before the ellipses. */
export const EXCERPT_LENGTH = 180;
/** Context kept before the first match of the excerpt. */
const LEAD = 40;
export const MAX_HIGHLIGHTS = 20;
// A passage with more matches than this is judged by its first ones (bounded work per result).
const MAX_SPANS_PER_PASSAGE = 2000;

interface Span {
  start: number;
  end: number;
  queries: Set<number>;
}

/** The matched stretches of `text`; overlapping bigram matches and touching ones merge into one. */
function matchSpans(text: string, matches: Matches): Span[] {
  const spans: Span[] = [];
  for (const token of tokenize(text)) {
    const match = matches.get(token.term);
    if (match === undefined) continue;
    // A one-character query completed to a bigram highlights its own character, not the pair.
    const end = token.kind === 'cjk' && match.prefix ? token.start + String.fromCodePoint(text.codePointAt(token.start) ?? 0).length : token.end;
    const last = spans.at(-1);
    if (last && token.start <= last.end) {
      last.end = Math.max(last.end, end);
      last.queries.add(match.query);
    } else {
      spans.push({ start: token.start, end, queries: new Set([match.query]) });
    }
    if (spans.length >= MAX_SPANS_PER_PASSAGE) break;
  }
  return spans;
}

function passagesOf(texts: readonly string[]): string[] {
  return texts.flatMap((text) => text.split('\n')).filter((line) => line.trim() !== '');
}

interface Window {
  passage: number;
  start: number;
  end: number;
  distinct: number;
  count: number;
}

// The stretch of one passage, at most EXCERPT_LENGTH - LEAD long, with the most distinct query
// words, then the most matches; the earliest such.
function bestWindow(passage: number, spans: Span[]): Window | undefined {
  let best: Window | undefined;
  const counts = new Map<number, number>();
  let j = 0;
  for (let i = 0; i < spans.length; i += 1) {
    if (j < i) j = i;
    while (j < spans.length && spans[j]!.end - spans[i]!.start <= EXCERPT_LENGTH - LEAD) {
      for (const query of spans[j]!.queries) counts.set(query, (counts.get(query) ?? 0) + 1);
      j += 1;
    }
    if (j === i) {
      // One match longer than the window on its own.
      const only = spans[i]!;
      if (!best) best = { passage, start: only.start, end: only.end, distinct: only.queries.size, count: 1 };
      continue;
    }
    const window = { passage, start: spans[i]!.start, end: spans[j - 1]!.end, distinct: counts.size, count: j - i };
    if (!best || window.distinct > best.distinct || (window.distinct === best.distinct && window.count > best.count)) best = window;
    for (const query of spans[i]!.queries) {
      const left = (counts.get(query) ?? 1) - 1;
      if (left === 0) counts.delete(query);
      else counts.set(query, left);
    }
  }
  return best;
}

const LOW_SURROGATE = /[\uDC00-\uDFFF]/;

// Cut points never split a surrogate pair, and prefer a space over the middle of a word.
function cutText(text: string, from: number, to: number): string {
  let start = Math.max(0, from);
  let end = Math.min(text.length, to);
  if (start > 0) {
    const space = text.indexOf(' ', start - 1);
    if (space >= 0 && space < start + 20 && space + 1 < end) start = space + 1;
    if (LOW_SURROGATE.test(text[start] ?? '')) start += 1;
  }
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > start + (end - start) / 2) end = space;
    if (LOW_SURROGATE.test(text[end] ?? '')) end -= 1;
  }
  const body = text.slice(start, end).trim();
  return `${start > 0 ? '…' : ''}${body}${end < text.length ? '…' : ''}`;
}

export interface Presentation {
  excerpt: string;
  highlights: string[];
  /** The alias that matched more query words than the name (the first such, with the most). */
  alias?: string;
}

function excerptFrom(passages: readonly string[], spans: readonly Span[][]): string {
  const first = passages[0];
  if (first === undefined) return '';
  let best: Window | undefined;
  spans.forEach((passageSpans, index) => {
    const window = bestWindow(index, passageSpans);
    if (window && (!best || window.distinct > best.distinct || (window.distinct === best.distinct && window.count > best.count))) {
      best = window;
    }
  });
  if (!best) return cutText(first, 0, EXCERPT_LENGTH);
  const text = passages[best.passage]!;
  const from = Math.max(0, best.start - LEAD);
  return cutText(text, from, from + EXCERPT_LENGTH);
}

function distinctQueries(spans: readonly Span[]): number {
  return new Set(spans.flatMap((span) => [...span.queries])).size;
}

/**
 * The excerpt of a result (a short plain-text passage around its best match, or the beginning of
 * its text when only the name matched), its highlights (the matched words as written, name first,
 * then aliases, each once) and the alias it matched, if one matched more query words than the
 * name. Each text is tokenized once.
 */
export function presentMatches(name: string, texts: readonly string[], matches: Matches, aliases: readonly string[] = []): Presentation {
  const passages = passagesOf(texts);
  const spans = passages.map((passage) => matchSpans(passage, matches));
  const found = new Set<string>();
  const nameSpans = matchSpans(name, matches);
  const aliasSpans = aliases.map((alias): [string, Span[]] => [alias, matchSpans(alias, matches)]);
  let alias: string | undefined;
  let best = distinctQueries(nameSpans);
  for (const [text, textSpans] of aliasSpans) {
    const count = distinctQueries(textSpans);
    if (count > best) {
      alias = text;
      best = count;
    }
  }
  const sources: [string, Span[]][] = [[name, nameSpans], ...aliasSpans, ...passages.map((p, i): [string, Span[]] => [p, spans[i]!])];
  collect: for (const [text, textSpans] of sources) {
    for (const span of textSpans) {
      found.add(text.slice(span.start, span.end));
      if (found.size >= MAX_HIGHLIGHTS) break collect;
    }
  }
  const presentation: Presentation = { excerpt: excerptFrom(passages, spans), highlights: [...found] };
  if (alias !== undefined) presentation.alias = alias;
  return presentation;
}

/** A short plain-text passage around the best match in `texts`, or their beginning when nothing there matched. */
export function excerptOf(texts: readonly string[], matches: Matches): string {
  const passages = passagesOf(texts);
  return excerptFrom(passages, passages.map((passage) => matchSpans(passage, matches)));
}

/** The matched words as written, name first, then text; each once, in order of appearance. */
export function highlightsOf(name: string, texts: readonly string[], matches: Matches): string[] {
  return presentMatches(name, texts, matches).highlights;
}
