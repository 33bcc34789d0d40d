// The changes feed's vocabulary and its query (CONTRACT "Portability"): record kinds, the opaque
// cursor (a position in the feed's order: version, kind, record, other record), and `since`/`limit`.
import type { Parsed } from './query-params.js';
import { queryObject, singleValue } from './query-params.js';
import type { FieldIssue } from './errors.js';

export const CHANGE_KINDS = ['campaign', 'thing-type', 'thing', 'arc', 'link', 'asset'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** How each kind is stored (changes.kind). */
export const CHANGE_KIND_CODES: Record<ChangeKind, number> = { campaign: 1, 'thing-type': 2, thing: 3, arc: 4, link: 5, asset: 6 };

export function changeKindOf(code: number): ChangeKind {
  return CHANGE_KINDS[code - 1] ?? 'campaign';
}

export interface ChangePosition {
  version: number;
  kind: number;
  recordId: number;
  otherId: number;
}

/** Before every change: where a client without `since` starts. */
export const FEED_START: ChangePosition = { version: -1, kind: 0, recordId: 0, otherId: 0 };

export const DEFAULT_CHANGES_LIMIT = 100;
export const MAX_CHANGES_LIMIT = 1000;

const CURSOR = /^c1\.(-1|\d{1,15})\.(\d{1,2})\.(\d{1,15})\.(\d{1,15})$/;

export function encodeChangeCursor(position: ChangePosition): string {
  return Buffer.from(`c1.${position.version}.${position.kind}.${position.recordId}.${position.otherId}`, 'utf8').toString('base64url');
}

export function decodeChangeCursor(cursor: string): ChangePosition | undefined {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return undefined;
  const match = CURSOR.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) return undefined;
  const [version, kind, recordId, otherId] = match.slice(1).map(Number) as [number, number, number, number];
  if (kind > CHANGE_KINDS.length) return undefined;
  return { version, kind, recordId, otherId };
}

export interface ChangesQuery {
  since: ChangePosition;
  /** Whether `since` was given (a client continuing) or the feed starts from the beginning. */
  continuing: boolean;
  limit: number;
}

export function parseChangesQuery(raw: unknown): Parsed<ChangesQuery> {
  const query = queryObject(raw);
  const issues: FieldIssue[] = [];
  const since = singleValue(query, 'since', issues);
  const limitText = singleValue(query, 'limit', issues);
  let position = FEED_START;
  if (since !== undefined) {
    const decoded = decodeChangeCursor(since);
    if (decoded) position = decoded;
    else issues.push({ path: '/since', message: 'is not a cursor of this feed: pass back the `cursor` of an earlier answer' });
  }
  let limit = DEFAULT_CHANGES_LIMIT;
  if (limitText !== undefined) {
    if (!/^\d{1,4}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > MAX_CHANGES_LIMIT) {
      issues.push({ path: '/limit', message: `must be an integer from 1 to ${MAX_CHANGES_LIMIT}` });
    } else limit = Number(limitText);
  }
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, value: { since: position, continuing: since !== undefined, limit } };
}
