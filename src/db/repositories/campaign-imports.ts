// A campaign while its import writes it (portability/write-plan.ts; the table's migration
// 2026-11-24-0021 says why): marked in `campaign_imports`, with no member until its import ends,
// so no request finds it half written. These statements take the import's transactions.
import type { Transaction } from 'kysely';
import type { Db } from '../database.js';
import type { CampaignRow, DB, ImageRemovalRow } from '../schema.js';
import { nowIso } from '../../domain/time.js';
import { queueImageRemovals } from './assets.js';
import { deleteCampaignChanges } from './changes.js';
import { addCampaignMember } from './members.js';

/** Marks the new campaign as being imported, with the ids of the images that will be placed for it. */
export async function markCampaignImport(db: Db, campaignId: number, imageIds: readonly string[], now: string): Promise<void> {
  await db.insertInto('campaign_imports').values({ campaign_id: campaignId, image_ids: JSON.stringify(imageIds), heartbeat_at: now }).execute();
}

/** The import is still writing (each of its transactions says so): the sweep leaves it alone. */
export async function touchCampaignImport(db: Db, campaignId: number, now: string): Promise<void> {
  await db.updateTable('campaign_imports').set({ heartbeat_at: now }).where('campaign_id', '=', campaignId).execute();
}

/**
 * Ends the import: the owner becomes the campaign's member (from this commit on, the campaign is
 * theirs to see) and the mark goes. Returns the campaign, or undefined when it was erased meanwhile
 * (its import was taken for dead).
 */
export async function finishCampaignImport(trx: Transaction<DB>, campaignId: number, ownerId: string, now: string): Promise<CampaignRow | undefined> {
  const marked = await trx.deleteFrom('campaign_imports').where('campaign_id', '=', campaignId).executeTakeFirst();
  if (Number(marked.numDeletedRows) === 0) return undefined;
  await addCampaignMember(trx, { campaign_id: campaignId, user_id: ownerId, role: 'owner', joined_at: now });
  return trx.selectFrom('campaigns').selectAll().where('id', '=', campaignId).executeTakeFirst();
}

/** Campaigns whose import last wrote before `before` (its process died), up to `limit`. */
export async function staleCampaignImports(db: Db, before: string, limit: number): Promise<number[]> {
  const rows = await db.selectFrom('campaign_imports').select('campaign_id').where('heartbeat_at', '<', before).orderBy('heartbeat_at').limit(limit).execute();
  return rows.map((row) => row.campaign_id);
}

/**
 * Deletes up to `limit` things, or else arcs, of a campaign still marked as being imported (and,
 * given `staleBefore`, whose import last wrote before then); their index rows and links go with
 * them (cascades). Returns how many: erasing a large campaign this way, a slice a transaction,
 * keeps the write lock short before eraseCampaignImport takes the rest.
 */
export async function deleteImportedRecords(trx: Transaction<DB>, campaignId: number, limit: number, staleBefore?: string): Promise<number> {
  let mark = trx.selectFrom('campaign_imports').select('campaign_id').where('campaign_id', '=', campaignId);
  if (staleBefore !== undefined) mark = mark.where('heartbeat_at', '<', staleBefore);
  if (!(await mark.executeTakeFirst())) return 0;
  for (const table of ['things', 'arcs'] as const) {
    const ids = (await trx.selectFrom(table).select('id').where('campaign_id', '=', campaignId).orderBy('id').limit(limit).execute()).map((row) => row.id);
    if (ids.length === 0) continue;
    await trx.deleteFrom(table).where('campaign_id', '=', campaignId).where('id', 'in', ids).execute();
    return ids.length;
  }
  return 0;
}

/**
 * Erases a campaign still marked as being imported (and, given `staleBefore`, only if its import
 * last wrote before then): every row of it (cascades) and its changes feed rows, and queues the
 * images placed for it for removal (image_removals: the caller removes them, or the upload
 * sweeper does). Undefined when it is not (its import finished, wrote again, or it was erased
 * already). Taking the mark first settles a race with finishCampaignImport: whichever deletes the
 * mark goes on.
 */
export async function eraseCampaignImport(trx: Transaction<DB>, campaignId: number, staleBefore?: string): Promise<ImageRemovalRow[] | undefined> {
  let mark = trx.deleteFrom('campaign_imports').where('campaign_id', '=', campaignId);
  if (staleBefore !== undefined) mark = mark.where('heartbeat_at', '<', staleBefore);
  const taken = await mark.returning('image_ids').executeTakeFirst();
  if (!taken) return undefined;
  const now = nowIso();
  const removals = await queueImageRemovals(
    trx,
    (JSON.parse(taken.image_ids) as string[]).map((imageId) => ({ campaignId, imageId })),
    now,
  );
  await trx.deleteFrom('campaigns').where('id', '=', campaignId).execute();
  await deleteCampaignChanges(trx, campaignId);
  return removals;
}
