import type { Transaction } from 'kysely';
import { dialectOf, type Database, type Dialect } from '../database.js';
import type { DB, Role } from '../schema.js';
import { currentActor } from '../../access/acting.js';
import { authorizeWriteAtCommit } from '../../access/policy.js';
import { errors, type RecordKind } from '../../domain/errors.js';
import type { ExpectedVersion } from '../../domain/versions.js';


/**
 * The first statement of every write transaction inside a campaign. It bumps the campaign's
 * content_version, which keys the response cache of every instance (http/response-cache.ts), and
 * its row lock serialises writers of one campaign that must see a consistent set of its rows
 * (generated slugs, the arc tree). Taking the campaign row first in every write also gives all
 * writers one lock order on PostgreSQL, so they cannot deadlock. SQLite runs one writer at a time.
 * Returns false when the campaign no longer exists or is in the trash.
 *
 * Then, for a write a request makes (access/acting.ts), it reads the caller's membership again,
 * under that lock (and on PostgreSQL with a share lock on the membership row, so no change to it
 * can commit before this transaction does), and refuses the write when the caller is no longer
 * allowed to make it (CONTRACT "Authorization holds for the whole request"): every campaign write
 * goes through here, so none can commit for a member removed or demoted while it was in flight.
 */
export async function beginCampaignWrite(trx: Transaction<DB>, campaignId: number): Promise<boolean> {
  const row = await trx
    .updateTable('campaigns')
    .set((eb) => ({ content_version: eb('content_version', '+', 1) }))
    .where('id', '=', campaignId)
    // A campaign in its owner's trash takes no writes: it is not found, as for every member.
    .where('deleted_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  if (row === undefined) return false;
  await checkActorAtCommit(trx, campaignId);
  return true;
}

/**
 * The check of beginCampaignWrite, for a write that locks the campaign row its own way (updating
 * the campaign itself): call it after that lock is taken. On PostgreSQL the membership row is
 * share-locked after the campaign row, in the order every campaign write takes them (a member's
 * removal, too, locks the campaign row first), so the two cannot deadlock.
 */
export async function checkActorAtCommit(trx: Transaction<DB>, campaignId: number): Promise<void> {
  const actor = currentActor();
  if (actor) authorizeWriteAtCommit(actor, campaignId, await roleAtCommit(trx, campaignId, actor.userId));
}

/** The role of `userId` in the campaign as this transaction will commit it (see beginCampaignWrite). */
export async function roleAtCommit(trx: Transaction<DB>, campaignId: number, userId: string): Promise<Role | undefined> {
  let query = trx.selectFrom('campaign_members').select('role').where('campaign_id', '=', campaignId).where('user_id', '=', userId);
  if (dialectOf(trx) === 'postgres') query = query.forShare();
  return (await query.executeTakeFirst())?.role;
}

/**
 * Runs `fn` in a write transaction (Database.write: grouped commits on SQLite) that begins with
 * beginCampaignWrite; 404 when the campaign is gone.
 */
export function campaignWrite<T>(database: Database, campaignId: number, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  return database.write(async (trx) => {
    if (!(await beginCampaignWrite(trx, campaignId))) throw errors.campaignNotFound();
    return fn(trx);
  });
}

/**
 * The visibility a new thing or arc takes when created without one: the campaign's
 * `default_visibility`, as a subquery of the INSERT (the value at commit, no extra round trip).
 */
export function campaignDefaultVisibility(trx: Transaction<DB>, campaignId: number) {
  return trx.selectFrom('campaigns').select('default_visibility').where('id', '=', campaignId);
}

// A suffixed slug keeps at least this much of its base: withSuffix cuts the base to make room for
// `-<counter>`, and a counter of up to 14 digits leaves 85 characters (less at most one hyphen).
const SUFFIXED_BASE_KEEPS = 85;

/**
 * Every slug of the campaign's things or arcs that a slug generated from `base` could collide
 * with, in one query. Call after beginCampaignWrite, which holds the campaign's lock.
 *
 * On SQLite this is one range of the (campaign_id, slug) index: slugs hold only [a-z0-9-], so
 * under SQLite's byte order `base` and `base-…` are exactly the slugs from `base` up to `base.`
 * ('.' follows '-'), and a truncated prefix's are those up to `prefix~`. LIKE would read every
 * slug of the campaign there (SQLite's LIKE is case-insensitive, so it cannot use the index).
 * PostgreSQL keeps LIKE: its collation need not be byte order.
 */
export async function takenSlugs(
  trx: Transaction<DB>,
  dialect: Dialect,
  table: 'things' | 'arcs',
  campaignId: number,
  base: string,
): Promise<string[]> {
  const truncated = base.length > SUFFIXED_BASE_KEEPS;
  const prefix = truncated ? base.slice(0, SUFFIXED_BASE_KEEPS) : `${base}-`;
  let query = trx.selectFrom(table).select('slug').where('campaign_id', '=', campaignId);
  query =
    dialect === 'sqlite'
      ? query.where('slug', '>=', truncated ? prefix : base).where('slug', '<', truncated ? `${prefix}~` : `${base}.`)
      : query.where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', `${prefix}%`)]));
  const rows = await query.execute();
  return rows.map((r) => r.slug).filter((slug) => slug === base || slug.startsWith(prefix));
}

/** Throws precondition_failed when the client expects another version of the record than `current`. */
export function checkExpected(expected: ExpectedVersion | undefined, kind: RecordKind, current: { id: number; version: number }): void {
  if (expected && !expected.admits(current.id, current.version)) throw errors.preconditionFailed(kind);
}
