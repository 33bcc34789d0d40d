// A deleted campaign goes to its owner's trash (CONTRACT "History and trash"): the row stays, marked
// with deleted_at, its slug replaced by `~<id>` so it is free at once and no request can name it
// (see migrations/2026-11-24-0016-trash.ts). While marked it is not found for every member: the
// caller's lookup goes by slug, the campaign list and invitations skip it, and beginCampaignWrite
// refuses writes to it.
import type { Transaction } from 'kysely';
import type { Database, Db } from '../database.js';
import type { CampaignRow, DB, ImageRemovalRow } from '../schema.js';
import { classifyDatabaseError } from '../errors.js';
import { errors } from '../../domain/errors.js';
import { MAX_RECORD_ID } from '../../domain/ids.js';
import { withSuffix } from '../../domain/slugs.js';
import { nowIso } from '../../domain/time.js';
import { queueCampaignImageRemovals } from './assets.js';
import { deleteCampaignChanges } from './changes.js';
import { beginCampaignWrite } from './common.js';

export interface TrashedCampaign {
  id: number;
  slug: string;
  name: string;
  deleted_at: string;
  deleted_by: string | null;
  deleted_by_name: string | null;
}

/** Moves the campaign to its owner's trash (the owner's request: checked again at commit). */
export function trashCampaign(database: Database, campaignId: number, deletedBy: string | null): Promise<void> {
  return database.write(async (trx) => {
    // Gone or trashed meanwhile (a concurrent delete committed first): 404, as for any write to it.
    if (!(await beginCampaignWrite(trx, campaignId))) throw errors.campaignNotFound();
    await trx
      .updateTable('campaigns')
      .set((eb) => ({ deleted_at: nowIso(), deleted_by: deletedBy, trashed_slug: eb.ref('slug'), slug: `~${campaignId}` }))
      .where('id', '=', campaignId)
      .execute();
  });
}

/** The campaigns in the user's trash (they own them), most recently deleted first. */
export function listTrashedCampaigns(db: Db, userId: string): Promise<TrashedCampaign[]> {
  return db
    .selectFrom('campaigns as c')
    .innerJoin('campaign_members as m', (join) => join.onRef('m.campaign_id', '=', 'c.id').on('m.user_id', '=', userId).on('m.role', '=', 'owner'))
    .leftJoin('users as u', 'u.id', 'c.deleted_by')
    .select(['c.id', 'c.trashed_slug', 'c.name', 'c.deleted_at', 'c.deleted_by', 'u.name as deleted_by_name'])
    .where('c.deleted_at', 'is not', null)
    .orderBy('c.deleted_at', 'desc')
    .orderBy('c.id', 'desc')
    .execute()
    .then((rows) =>
      rows.map((row) => ({ id: row.id, slug: row.trashed_slug ?? '', name: row.name, deleted_at: row.deleted_at ?? '', deleted_by: row.deleted_by, deleted_by_name: row.deleted_by_name })),
    );
}

/**
 * Takes the row lock of a campaign in the trash, as beginCampaignWrite does for live ones (bumping
 * content_version): only if it is still there, the owner's (`ownerId`) and deleted before
 * `deletedBefore`, when given. Undefined otherwise.
 */
function lockTrashed(trx: Transaction<DB>, id: number, only: { ownerId?: string; deletedBefore?: string } = {}): Promise<CampaignRow | undefined> {
  if (id > MAX_RECORD_ID) return Promise.resolve(undefined);
  let query = trx
    .updateTable('campaigns')
    .set((eb) => ({ content_version: eb('content_version', '+', 1) }))
    .where('id', '=', id)
    .where('deleted_at', 'is not', null);
  const { ownerId, deletedBefore } = only;
  if (ownerId !== undefined) {
    query = query.where((eb) => eb.exists(eb.selectFrom('campaign_members').select('user_id').where('campaign_id', '=', id).where('user_id', '=', ownerId).where('role', '=', 'owner')));
  }
  if (deletedBefore !== undefined) query = query.where('deleted_at', '<', deletedBefore);
  return query.returningAll().executeTakeFirst();
}

/** Takes the row lock of a campaign in the trash (whoever's); false if it is not there. */
export async function lockTrashedCampaignRow(trx: Transaction<DB>, id: number): Promise<boolean> {
  return (await lockTrashed(trx, id)) !== undefined;
}

/** Takes the row lock of a campaign in the user's trash; 404 unless it is there and theirs. */
async function lockTrashedCampaign(trx: Transaction<DB>, userId: string, id: number): Promise<CampaignRow> {
  const found = await lockTrashed(trx, id, { ownerId: userId });
  if (!found) throw errors.trashedCampaignNotFound(id);
  return found;
}

/**
 * Brings a campaign back from its owner's trash with everything in it; its slug, unless another
 * campaign took it meanwhile: then `<slug>-2`, `-3`… Returns the campaign and the slug it had.
 */
export async function restoreTrashedCampaign(database: Database, userId: string, id: number): Promise<{ campaign: CampaignRow; previousSlug: string | null }> {
  // Campaign slugs are unique across the service and no lock covers them: a campaign created or
  // renamed with the slug between our check and our update makes it a unique violation, and the
  // restore looks again (as createCampaign does).
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await restoreOnce(database, userId, id);
    } catch (error) {
      if (classifyDatabaseError(error) !== 'unique' || attempt >= 8) throw error;
    }
  }
}

function restoreOnce(database: Database, userId: string, id: number): Promise<{ campaign: CampaignRow; previousSlug: string | null }> {
  return database.write(async (trx) => {
    const trashed = await lockTrashedCampaign(trx, userId, id);
    const wanted = trashed.trashed_slug ?? `campaign-${id}`;
    let slug = wanted;
    for (let n = 2; await trx.selectFrom('campaigns').select('id').where('slug', '=', slug).executeTakeFirst(); n += 1) slug = withSuffix(wanted, String(n));
    const campaign = await trx
      .updateTable('campaigns')
      .set((eb) => ({ slug, deleted_at: null, deleted_by: null, trashed_slug: null, version: eb('version', '+', 1), updated_at: nowIso(), players_updated_at: null }))
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { campaign, previousSlug: slug === wanted ? null : wanted };
  });
}

/**
 * Erases a campaign and everything in it. Returns the removals queued for its stored images
 * (trashed assets' included), for the caller to carry out once this has committed.
 */
async function eraseCampaignRows(trx: Transaction<DB>, campaignId: number): Promise<ImageRemovalRow[]> {
  const removals = await queueCampaignImageRemovals(trx, campaignId, nowIso());
  await trx.deleteFrom('campaigns').where('id', '=', campaignId).execute();
  await deleteCampaignChanges(trx, campaignId);
  return removals;
}

/** Erases a campaign of the user's trash now. */
export function eraseTrashedCampaign(database: Database, userId: string, id: number): Promise<ImageRemovalRow[]> {
  return database.write(async (trx) => {
    await lockTrashedCampaign(trx, userId, id);
    return eraseCampaignRows(trx, id);
  });
}

/** Erases campaigns trashed before `before` (the sweeper), up to `limit`, each in its own transaction. */
export async function sweepTrashedCampaigns(database: Database, before: string, limit: number): Promise<{ erased: number; removals: ImageRemovalRow[] }> {
  const expired = await database.kysely.selectFrom('campaigns').select('id').where('deleted_at', '<', before).orderBy('deleted_at').limit(limit).execute();
  const removals: ImageRemovalRow[] = [];
  let erased = 0;
  for (const { id } of expired) {
    // Counted once it committed: a transaction may run again (Database.write on a deadlock).
    const done = await database.write(async (trx) => {
      // Restored meanwhile: it stays.
      if (!(await lockTrashed(trx, id, { deletedBefore: before }))) return undefined;
      return eraseCampaignRows(trx, id);
    });
    if (done === undefined) continue;
    erased += 1;
    removals.push(...done);
  }
  return { erased, removals };
}
