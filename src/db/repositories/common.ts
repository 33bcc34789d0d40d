import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../database.js';
import type { DB } from '../schema.js';

export type Db = Kysely<DB> | Transaction<DB>;

/**
 * Serialises writers of one campaign that must see a consistent set of its rows (generated slugs,
 * the arc tree). SQLite already runs one write transaction at a time; on PostgreSQL we lock the
 * campaign row, which also makes a concurrent campaign delete wait for us or us for it.
 * Returns false when the campaign no longer exists.
 */
export async function lockCampaign(trx: Transaction<DB>, database: Database, campaignId: number): Promise<boolean> {
  if (database.dialect === 'sqlite') {
    const row = await trx.selectFrom('campaigns').select('id').where('id', '=', campaignId).executeTakeFirst();
    return row !== undefined;
  }
  const result = await sql<{ id: number }>`select id from campaigns where id = ${campaignId} for update`.execute(trx);
  return result.rows.length > 0;
}

/** Runs `fn` in a transaction; on SQLite as BEGIN IMMEDIATE so a reader never has to upgrade to a writer mid-way. */
export function writeTransaction<T>(database: Database, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  return database.kysely.transaction().execute(fn);
}

// A suffixed slug keeps at least this much of its base: withSuffix cuts the base to make room for
// `-<counter>`, and a counter of up to 14 digits leaves 85 characters (less at most one hyphen).
const SUFFIXED_BASE_KEEPS = 85;

/**
 * Every slug of the campaign's things or arcs that a slug generated from `base` could collide
 * with, in one query. Call with the campaign locked (see lockCampaign).
 */
export async function takenSlugs(trx: Transaction<DB>, table: 'things' | 'arcs', campaignId: number, base: string): Promise<string[]> {
  const prefix = base.length > SUFFIXED_BASE_KEEPS ? base.slice(0, SUFFIXED_BASE_KEEPS) : `${base}-`;
  const rows = await trx
    .selectFrom(table)
    .select('slug')
    .where('campaign_id', '=', campaignId)
    .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', `${prefix}%`)]))
    .execute();
  return rows.map((r) => r.slug);
}

/** Strong ETag for a record: its id and its version, so a re-created record never matches an old tag. */
export function etagOf(id: number, version: number): string {
  return `"${id}-${version}"`;
}

/** Whether an If-Match header value admits the record's current ETag (RFC 9110 strong comparison). */
export function ifMatchAdmits(header: string | undefined, id: number, version: number): boolean {
  if (header === undefined) return true;
  const value = header.trim();
  if (value === '*') return true;
  const current = etagOf(id, version);
  return value.split(',').some((tag) => tag.trim() === current);
}
