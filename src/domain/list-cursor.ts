// The query of the things list (count, fetchAll, typeId, tag, sort, fields, cursor) and its opaque keyset cursor.
// Parsed by hand rather than by ajv coercion so every bad value gets a clear message and a JSON
// pointer into the query object, and so a repeated parameter is refused rather than guessed at.
import { isStorableId, parseIdText } from './ids.js';
import type { FieldIssue } from './errors.js';
import { queryObject, singleValue, tagFilter, type Parsed } from './query-params.js';

export const DEFAULT_THING_COUNT = 20;
export const MAX_THING_COUNT = 1000;
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const MAX_CURSOR_LENGTH = 512;

/** A position in the list: the last row of a page, ordered by (updatedAt desc, id desc). */
export interface ListPosition {
  updatedAt: string;
  id: number;
}

/** A position in the list sorted by name: the last row's name and id (ordered by lower(name), id). */
export interface NamePosition {
  name: string;
  id: number;
}

export type ThingSort = 'updatedAt' | 'name';

export interface ThingListQuery {
  /** How many rows the page holds. */
  limit: number;
  /** The parameters as the client gave them (normalised), repeated in the next page's link. */
  count?: number;
  fetchAll?: boolean;
  typeId?: number;
  /** Tags every listed thing has (ignoring case). */
  tags: string[];
  sort?: ThingSort;
  /** `fields=summary`: each thing as {id, slug, name, typeId, visibility, updatedAt} only. */
  summary?: boolean;
  after?: ListPosition;
  afterName?: NamePosition;
}

export type { Parsed };

export function encodeCursor(position: ListPosition | NamePosition): string {
  const value = 'name' in position ? { n: position.name, i: position.id } : { u: position.updatedAt, i: position.id };
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** The position a cursor names, or undefined when it is not one this service issued. */
export function decodeCursor(cursor: string): ListPosition | NamePosition | undefined {
  if (cursor.length > MAX_CURSOR_LENGTH || !BASE64URL.test(cursor)) return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded)) return undefined;
  const { u, n, i } = decoded as { u?: unknown; n?: unknown; i?: unknown };
  if (Object.keys(decoded).length !== 2) return undefined;
  if (n !== undefined) return typeof n === 'string' && n.length <= 255 * 4 && typeof i === 'number' && isStorableId(i) ? { name: n, id: i } : undefined;
  if (typeof u !== 'string' || !ISO_TIMESTAMP.test(u) || Number.isNaN(Date.parse(u))) return undefined;
  // A calendar-impossible date (2026-02-31) parses in some engines; the round trip catches it.
  if (new Date(u).toISOString() !== u) return undefined;
  if (typeof i !== 'number' || !isStorableId(i)) return undefined;
  return { updatedAt: u, id: i };
}

export function parseThingListQuery(raw: unknown): Parsed<ThingListQuery> {
  const query = queryObject(raw);
  const issues: FieldIssue[] = [];
  const result: ThingListQuery = { limit: DEFAULT_THING_COUNT, tags: [] };

  const count = singleValue(query, 'count', issues);
  if (count !== undefined) {
    const n = parseIdText(count) ?? NaN;
    if (!(n >= 1 && n <= MAX_THING_COUNT)) {
      issues.push({ path: '/count', message: `must be an integer from 1 to ${MAX_THING_COUNT}, written in decimal digits` });
    } else {
      result.count = n;
    }
  }

  const fetchAll = singleValue(query, 'fetchAll', issues);
  if (fetchAll !== undefined) {
    if (fetchAll === 'true') result.fetchAll = true;
    else if (fetchAll === 'false') result.fetchAll = false;
    else issues.push({ path: '/fetchAll', message: 'must be true or false' });
  }

  const typeId = singleValue(query, 'typeId', issues);
  if (typeId !== undefined) {
    const id = parseIdText(typeId);
    if (id !== undefined) result.typeId = id;
    else issues.push({ path: '/typeId', message: 'must be a positive integer id' });
  }

  result.tags = tagFilter(query, issues);

  const sort = singleValue(query, 'sort', issues);
  if (sort !== undefined) {
    if (sort === 'updatedAt' || sort === 'name') result.sort = sort;
    else issues.push({ path: '/sort', message: 'must be updatedAt or name' });
  }

  const fields = singleValue(query, 'fields', issues);
  if (fields !== undefined) {
    if (fields === 'summary') result.summary = true;
    else issues.push({ path: '/fields', message: 'must be summary' });
  }

  const cursor = singleValue(query, 'cursor', issues);
  if (cursor !== undefined) {
    const position = decodeCursor(cursor);
    const byName = result.sort === 'name';
    if (position && 'name' in position === byName) {
      if ('name' in position) result.afterName = position;
      else result.after = position;
    } else issues.push({ path: '/cursor', message: 'is not a cursor from this list; follow the Link header of the previous page' });
  }

  if (issues.length > 0) return { ok: false, issues };
  result.limit = result.fetchAll === true ? MAX_THING_COUNT : (result.count ?? DEFAULT_THING_COUNT);
  return { ok: true, value: result };
}

/** The query string of the page after `last`: the same parameters, and the cursor. */
export function nextPageQueryString(query: ThingListQuery, last: ListPosition | NamePosition): string {
  const params = new URLSearchParams();
  if (query.count !== undefined) params.set('count', String(query.count));
  if (query.fetchAll !== undefined) params.set('fetchAll', String(query.fetchAll));
  if (query.typeId !== undefined) params.set('typeId', String(query.typeId));
  for (const tag of query.tags) params.append('tag', tag);
  if (query.sort !== undefined) params.set('sort', query.sort);
  if (query.summary === true) params.set('fields', 'summary');
  params.set('cursor', encodeCursor(last));
  return params.toString();
}
