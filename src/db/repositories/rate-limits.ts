import { sql } from 'kysely';
import type { Db } from '../database.js';
import { decide, type Limit, type LimitDecision, type WindowState } from '../../domain/rate-limit.js';

// Fixed-window counters kept in the database, so every instance sees the same counts.

/** Adds one hit to `key` and returns the window's count after it. */
async function hit(db: Db, key: string, windowMs: number, now: Date): Promise<WindowState> {
  const nowIso = now.toISOString();
  const windowOpenedAfter = new Date(now.getTime() - windowMs).toISOString();
  // One atomic upsert: a stale window restarts at 1, a live one counts up.
  const row = await db
    .insertInto('rate_limits')
    .values({ key, window_start: nowIso, hits: 1 })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({
        hits: sql<number>`case when rate_limits.window_start <= ${windowOpenedAfter} then 1 else rate_limits.hits + 1 end`,
        window_start: sql<string>`case when rate_limits.window_start <= ${windowOpenedAfter} then ${nowIso} else rate_limits.window_start end`,
      }),
    )
    .returning(['hits', 'window_start'])
    .executeTakeFirstOrThrow();
  return { hits: Number(row.hits), resetAt: new Date(Date.parse(row.window_start) + windowMs).toISOString() };
}

/**
 * Counts this attempt, then says whether it is beyond the limit. Counting first makes the limit
 * exact under concurrency: two simultaneous requests can never both take the last slot.
 */
export async function takeSlot(db: Db, limit: Limit, now = new Date()): Promise<LimitDecision> {
  return decide(limit, await hit(db, limit.key, limit.windowMs, now), true, now);
}

/** Whether the limit is already used up, without counting anything. */
export async function isExhausted(db: Db, limit: Limit, now = new Date()): Promise<LimitDecision> {
  const row = await db
    .selectFrom('rate_limits')
    .select(['hits', 'window_start'])
    .where('key', '=', limit.key)
    .where('window_start', '>', new Date(now.getTime() - limit.windowMs).toISOString())
    .executeTakeFirst();
  const state = row
    ? { hits: Number(row.hits), resetAt: new Date(Date.parse(row.window_start) + limit.windowMs).toISOString() }
    : { hits: 0, resetAt: now.toISOString() };
  return decide(limit, state, false, now);
}

/** Counts one event (e.g. a failed login) without deciding anything. */
export async function count(db: Db, limit: Limit, now = new Date()): Promise<void> {
  await hit(db, limit.key, limit.windowMs, now);
}

export async function reset(db: Db, limit: Limit): Promise<void> {
  await db.deleteFrom('rate_limits').where('key', '=', limit.key).execute();
}
