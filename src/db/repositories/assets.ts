import type { Insertable, Transaction } from 'kysely';
import { insertSlices } from '../chunks.js';
import type { Database, Db } from '../database.js';
import type { AssetRow, AssetsTable, DB, ImageRemovalRow, UploadGrantRow } from '../schema.js';
import { errors } from '../../domain/errors.js';
import { campaignWrite } from './common.js';

// Upload grants, asset records and the queue of image bytes to remove from the image host.
// Rows only: moving bytes is the image host's business (src/images).

const INSERT_BATCH = 500;

/** Inserts one asset (in the caller's transaction) and returns its row. */
export function insertAsset(db: Db, row: Insertable<AssetsTable>): Promise<AssetRow> {
  return db.insertInto('assets').values(row).returningAll().executeTakeFirstOrThrow();
}

/** Inserts assets (an import's), a multi-row statement per slice of the databases' limits. */
export async function insertAssets(db: Db, rows: readonly Insertable<AssetsTable>[]): Promise<void> {
  for (const slice of insertSlices(rows)) await db.insertInto('assets').values(slice).execute();
}

export function createUploadGrant(db: Db, grant: UploadGrantRow): Promise<unknown> {
  return db.insertInto('upload_grants').values(grant).execute();
}

export function findUploadGrant(db: Db, campaignId: number, imageId: string): Promise<UploadGrantRow | undefined> {
  return db.selectFrom('upload_grants').selectAll().where('campaign_id', '=', campaignId).where('id', '=', imageId).executeTakeFirst();
}

/** Records that the local host received the grant's bytes; false when it already had, or the grant expired or is gone. */
export async function markUploadReceived(db: Db, campaignId: number, imageId: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('upload_grants')
    .set({ uploaded_at: now })
    .where('campaign_id', '=', campaignId)
    .where('id', '=', imageId)
    .where('uploaded_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function unmarkUploadReceived(db: Db, campaignId: number, imageId: string): Promise<void> {
  await db.updateTable('upload_grants').set({ uploaded_at: null }).where('campaign_id', '=', campaignId).where('id', '=', imageId).execute();
}

/** Whether a pending grant or an asset still names this image (if neither does, its bytes are unwanted). */
export async function imageIsWanted(db: Db, campaignId: number, imageId: string): Promise<boolean> {
  const grant = db.selectFrom('upload_grants').select('id').where('campaign_id', '=', campaignId).where('id', '=', imageId);
  const asset = db.selectFrom('assets').select('image_id as id').where('campaign_id', '=', campaignId).where('image_id', '=', imageId);
  return (await grant.unionAll(asset).executeTakeFirst()) !== undefined;
}

export function findAssetByImageId(db: Db, campaignId: number, imageId: string): Promise<AssetRow | undefined> {
  return db.selectFrom('assets').selectAll().where('campaign_id', '=', campaignId).where('image_id', '=', imageId).executeTakeFirst();
}

/** The campaign's assets, newest first. */
export function listAssets(db: Db, campaignId: number): Promise<AssetRow[]> {
  return db
    .selectFrom('assets')
    .selectAll()
    .where('campaign_id', '=', campaignId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export interface ConfirmedImage {
  campaignId: number;
  userId: string;
  imageId: string;
  label: string;
  storageKey: string;
  url: string;
  contentType: string;
  byteSize: number;
  dimensions: { width: number; height: number } | null;
  /** Whether its variants were made. */
  hasVariants: boolean;
  now: string;
}

/**
 * Turns a grant into its asset, once: the grant is consumed in the same transaction, and a
 * confirm that finds the asset already made (a repeat, or a concurrent twin that won) returns it.
 */
export function confirmAsset(database: Database, input: ConfirmedImage): Promise<{ asset: AssetRow; created: boolean }> {
  return campaignWrite(database, input.campaignId, async (trx) => {
    const existing = await findAssetByImageId(trx, input.campaignId, input.imageId);
    if (existing) {
      if (existing.user_id !== input.userId) throw errors.imageIdNotIssued();
      return { asset: existing, created: false };
    }
    const consumed = await trx
      .deleteFrom('upload_grants')
      .where('campaign_id', '=', input.campaignId)
      .where('id', '=', input.imageId)
      .where('user_id', '=', input.userId)
      .where('expires_at', '>', input.now)
      .executeTakeFirst();
    if (Number(consumed.numDeletedRows) === 0) {
      throw errors.uploadExpired();
    }
    const asset = await insertAsset(trx, {
        campaign_id: input.campaignId,
        user_id: input.userId,
        image_id: input.imageId,
        label: input.label,
        storage_key: input.storageKey,
        url: input.url,
        content_type: input.contentType,
        byte_size: input.byteSize,
        width: input.dimensions?.width ?? null,
        height: input.dimensions?.height ?? null,
        has_variants: input.hasVariants ? 1 : 0,
        created_at: input.now,
      });
    return { asset, created: true };
  });
}

export async function queueImageRemovals(trx: Transaction<DB>, refs: { campaignId: number; imageId: string }[], now: string): Promise<ImageRemovalRow[]> {
  const queued: ImageRemovalRow[] = [];
  for (let start = 0; start < refs.length; start += INSERT_BATCH) {
    const rows = refs.slice(start, start + INSERT_BATCH).map((r) => ({ campaign_id: r.campaignId, image_id: r.imageId, queued_at: now }));
    queued.push(...(await trx.insertInto('image_removals').values(rows).returningAll().execute()));
  }
  return queued;
}

/**
 * Queues the bytes of every asset, trashed asset and pending upload of a campaign for removal. Call
 * in the transaction that deletes the campaign, before the delete (which cascades to the rows).
 */
export async function queueCampaignImageRemovals(trx: Transaction<DB>, campaignId: number, now: string): Promise<ImageRemovalRow[]> {
  const assets = trx.selectFrom('assets').select('image_id').where('campaign_id', '=', campaignId);
  const grants = trx.selectFrom('upload_grants').select('id as image_id').where('campaign_id', '=', campaignId);
  const trashed = trx.selectFrom('trash').select('image_id').where('campaign_id', '=', campaignId).where('image_id', 'is not', null).$narrowType<{ image_id: string }>();
  const rows = await assets.union(grants).union(trashed).execute();
  return queueImageRemovals(
    trx,
    rows.map((r) => ({ campaignId, imageId: r.image_id })),
    now,
  );
}

/**
 * Queues the bytes of the user's pending uploads, in every campaign, for removal. Call in the
 * transaction that deletes the user, before the delete (which cascades to the grants).
 */
export async function queueUserUploadRemovals(trx: Transaction<DB>, userId: string, now: string): Promise<ImageRemovalRow[]> {
  const rows = await trx.selectFrom('upload_grants').select(['campaign_id', 'id']).where('user_id', '=', userId).execute();
  return queueImageRemovals(
    trx,
    rows.map((r) => ({ campaignId: r.campaign_id, imageId: r.id })),
    now,
  );
}

/**
 * Revokes the upload grants `userId` holds in the campaign (a member removed or made a player):
 * their URLs stop taking uploads and they can no longer be confirmed; bytes already sent are queued
 * for removal. Call inside the transaction that changes the membership.
 */
export async function revokeUploadGrantsOf(trx: Transaction<DB>, campaignId: number, userId: string, now: string): Promise<void> {
  const revoked = await trx.deleteFrom('upload_grants').where('campaign_id', '=', campaignId).where('user_id', '=', userId).returning('id').execute();
  await queueImageRemovals(
    trx,
    revoked.map((g) => ({ campaignId, imageId: g.id })),
    now,
  );
}

/**
 * Deletes up to `limit` grants that expired unconfirmed and queues their bytes for removal, in one
 * transaction. Instances sweeping at once each get their own rows: a row is deleted once.
 */
export function takeExpiredUploadGrants(database: Database, now: string, limit: number): Promise<ImageRemovalRow[]> {
  return database.write(async (trx) => {
    const expired = await trx
      .deleteFrom('upload_grants')
      .where('expires_at', '<=', now)
      .where('id', 'in', (eb) => eb.selectFrom('upload_grants').select('id').where('expires_at', '<=', now).orderBy('expires_at').limit(limit))
      .returning(['campaign_id', 'id'])
      .execute();
    return queueImageRemovals(
      trx,
      expired.map((g) => ({ campaignId: g.campaign_id, imageId: g.id })),
      now,
    );
  });
}

/** The oldest queued removals after the one with id `afterId`. */
export function pendingImageRemovals(db: Db, afterId: number, limit: number): Promise<ImageRemovalRow[]> {
  return db.selectFrom('image_removals').selectAll().where('id', '>', afterId).orderBy('id').limit(limit).execute();
}

export async function forgetImageRemovals(db: Db, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('image_removals').where('id', 'in', ids).execute();
}
