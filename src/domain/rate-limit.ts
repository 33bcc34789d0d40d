import type { Kysely } from 'kysely';
import { hit, peek, clear, type WindowState } from '../db/repositories/rate-limits.js';
import type { DB } from '../db/schema.js';
import { hashSecret } from './secrets.js';

// The limits of the account routes, on top of the fixed-window counters in the database (shared by
// every instance). A limit answers "go on" or "wait this many seconds"; the HTTP layer turns the
// latter into 429 with Retry-After.

export interface Limit {
  /** Counter key, e.g. `login:ip:203.0.113.7`. */
  key: string;
  max: number;
  windowMs: number;
}

export type LimitDecision = { limited: false } | { limited: true; retryAfterSeconds: number };

// Keys hold no personal data and stay short whatever the client sent: an email is hashed (a
// login may name any string, and the key is an indexed primary key).
export const limitKeys = {
  registerByIp: (ip: string) => `register:ip:${ip}`,
  loginFailuresByIp: (ip: string) => `login:ip:${ip}`,
  loginFailuresByAccount: (normalizedEmail: string) => `login:account:${hashSecret(normalizedEmail)}`,
  tokensByUser: (userId: string) => `tokens:user:${userId}`,
};

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;

/** Whole seconds until the window ends, at least 1 (a client told "0" would retry at once). */
export function retryAfterSeconds(resetAt: string, now: Date): number {
  return Math.max(1, Math.ceil((Date.parse(resetAt) - now.getTime()) / 1000));
}

function decide(state: WindowState, over: boolean, now: Date): LimitDecision {
  return over ? { limited: true, retryAfterSeconds: retryAfterSeconds(state.resetAt, now) } : { limited: false };
}

/**
 * Counts this attempt, then says whether it is beyond the limit. Counting first makes the limit
 * exact under concurrency: two simultaneous requests can never both take the last slot.
 */
export async function takeSlot(db: Kysely<DB>, limit: Limit, now = new Date()): Promise<LimitDecision> {
  const state = await hit(db, limit.key, limit.windowMs, now);
  return decide(state, state.hits > limit.max, now);
}

/** Whether the limit is already used up, without counting anything. */
export async function isExhausted(db: Kysely<DB>, limit: Limit, now = new Date()): Promise<LimitDecision> {
  const state = await peek(db, limit.key, limit.windowMs, now);
  return decide(state, state.hits >= limit.max, now);
}

/** Counts one event (e.g. a failed login) without deciding anything. */
export async function count(db: Kysely<DB>, limit: Limit, now = new Date()): Promise<void> {
  await hit(db, limit.key, limit.windowMs, now);
}

export async function reset(db: Kysely<DB>, limit: Limit): Promise<void> {
  await clear(db, limit.key);
}
