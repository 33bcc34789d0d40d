// The query string of the search route, parsed by hand like the things list (domain/list-cursor.ts):
// every bad value gets a message and a JSON pointer into the query object, a repeated parameter is
// refused rather than guessed at. The search text itself is never invalid: any characters are
// searched as text.
import { parseIdText } from '../domain/ids.js';
import type { FieldIssue } from '../domain/errors.js';
import { queryObject, singleValue, tagFilter, type Parsed } from '../domain/query-params.js';

export const DEFAULT_SEARCH_LIMIT = 20;
export const MAX_SEARCH_LIMIT = 100;
export const SEARCH_TYPES = ['thing', 'arc', 'any'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

export interface SearchParams {
  text: string;
  type: SearchType;
  limit: number;
  /** Only records with every one of these tags (ignoring case); none: no filter. */
  tags: string[];
}

function isSearchType(value: string): value is SearchType {
  return (SEARCH_TYPES as readonly string[]).includes(value);
}

export function parseSearchParams(raw: unknown): Parsed<SearchParams> {
  const query = queryObject(raw);
  const issues: FieldIssue[] = [];
  const result: SearchParams = { text: '', type: 'any', limit: DEFAULT_SEARCH_LIMIT, tags: [] };

  const q = singleValue(query, 'q', issues);
  const alias = singleValue(query, 'query', issues);
  const given = Object.hasOwn(query, 'q') || Object.hasOwn(query, 'query');
  if (q !== undefined && alias !== undefined) {
    issues.push({ path: '/query', message: 'is another name for q: give one of them, not both' });
  } else if (q !== undefined || alias !== undefined) {
    const name = q !== undefined ? 'q' : 'query';
    const text = (q ?? alias)!;
    if (text.trim() === '') issues.push({ path: `/${name}`, message: 'must not be empty: give the text to search for' });
    else result.text = text;
  } else if (!given) {
    issues.push({ path: '/q', message: 'is required: the text to search for (q or query)' });
  }

  const type = singleValue(query, 'type', issues);
  if (type !== undefined) {
    if (isSearchType(type)) result.type = type;
    else issues.push({ path: '/type', message: 'must be thing, arc or any' });
  }

  const limit = singleValue(query, 'limit', issues);
  if (limit !== undefined) {
    const n = parseIdText(limit) ?? NaN;
    if (n >= 1 && n <= MAX_SEARCH_LIMIT) result.limit = n;
    else issues.push({ path: '/limit', message: `must be an integer from 1 to ${MAX_SEARCH_LIMIT}, written in decimal digits` });
  }

  // As on the things list (domain/list-cursor.ts): repeatable, each trimmed, 1–50 characters.
  result.tags = tagFilter(query, issues);

  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: result };
}
