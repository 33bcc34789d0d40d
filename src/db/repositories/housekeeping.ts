import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';

/**
 * Deletes expired sessions and rate-limit windows that ended more than `longestWindowMs` ago.
 * Plain idempotent deletes, so any number of instances may run it at once.
 */
export async function sweepExpired(db: Kysely<DB>, now: Date, longestWindowMs: number) {
  const sessions = await db.deleteFrom('sessions').where('expires_at', '<=', now.toISOString()).executeTakeFirst();
  const windows = await db
    .deleteFrom('rate_limits')
    .where('window_start', '<=', new Date(now.getTime() - longestWindowMs).toISOString())
    .executeTakeFirst();
  return { sessions: Number(sessions.numDeletedRows), rateLimitWindows: Number(windows.numDeletedRows) };
}
