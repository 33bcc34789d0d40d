import { sql, type Kysely } from 'kysely';
import type { DB } from '../schema.js';

// Fixed-window counters kept in the database, so every instance sees the same counts.

export interface WindowState {
  hits: number;
  /** When the current window ends (ISO). */
  resetAt: string;
}

/** Adds one hit to `key` and returns the window's count after it. */
export async function hit(db: Kysely<DB>, key: string, windowMs: number, now: Date): Promise<WindowState> {
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

/** The live window's count for `key` without adding to it (0 when none). */
export async function peek(db: Kysely<DB>, key: string, windowMs: number, now: Date): Promise<WindowState> {
  const row = await db
    .selectFrom('rate_limits')
    .select(['hits', 'window_start'])
    .where('key', '=', key)
    .where('window_start', '>', new Date(now.getTime() - windowMs).toISOString())
    .executeTakeFirst();
  if (!row) return { hits: 0, resetAt: now.toISOString() };
  return { hits: Number(row.hits), resetAt: new Date(Date.parse(row.window_start) + windowMs).toISOString() };
}

export async function clear(db: Kysely<DB>, key: string) {
  await db.deleteFrom('rate_limits').where('key', '=', key).execute();
}
