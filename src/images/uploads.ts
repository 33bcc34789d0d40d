import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/database.js';
import { campaignWrite } from '../db/repositories/common.js';
import {
  confirmAsset,
  createUploadGrant,
  findAssetByImageId,
  findUploadGrant,
  forgetImageRemovals,
  pendingImageRemovals,
  takeExpiredUploadGrants,
} from '../db/repositories/assets.js';
import type { AssetRow, ImageRemovalRow } from '../db/schema.js';
import { AppError, errors } from '../domain/errors.js';
import { addMs, nowIso } from '../domain/time.js';
import { newImageId, type ImageHost, type UploadTicket } from './image-host.js';
import { makeVariants } from './variants.js';

// The upload flow, whatever the host: grant → (client uploads to the host) → confirm → asset.

/** How long an upload URL works, and how long its imageId can be confirmed. */
export const UPLOAD_GRANT_MS = 30 * 60_000;
const SWEEP_BATCH = 500;

export async function grantUpload(
  database: Database,
  host: ImageHost,
  input: { campaignId: number; userId: string; label: string; now: Date },
): Promise<{ imageId: string; uploadURL: string; expiresAt: string }> {
  const imageId = newImageId();
  const createdAt = nowIso(input.now);
  const expiresAt = addMs(createdAt, UPLOAD_GRANT_MS);
  // Signed first: a host that cannot sign leaves no grant behind.
  const uploadURL = await host.uploadUrl({ campaignId: input.campaignId, imageId, expiresAt });
  // A campaign write like any other: the caller's role is checked again as it commits (a game
  // master removed meanwhile gets no grant), and a campaign deleted since the request's own check is 404.
  await campaignWrite(database, input.campaignId, (trx) =>
    createUploadGrant(trx, {
      campaign_id: input.campaignId,
      id: imageId,
      user_id: input.userId,
      label: input.label,
      created_at: createdAt,
      expires_at: expiresAt,
      uploaded_at: null,
    }),
  );
  return { imageId, uploadURL, expiresAt };
}

/**
 * Asks the host whether the upload arrived and is a good image, then records the asset and
 * consumes the grant in one transaction. A repeat returns the asset already made.
 */
export async function confirmUpload(
  database: Database,
  host: ImageHost,
  input: { campaignId: number; userId: string; imageId: string; label: string; now: Date },
  log: FastifyBaseLogger,
): Promise<AssetRow> {
  const { campaignId, userId, imageId } = input;
  // A simultaneous confirmation may finish first: it consumes the grant and drops the staged
  // upload, so before answering "not issued" or "not uploaded" look again for its asset.
  const confirmedAsset = async (): Promise<AssetRow | undefined> => {
    const asset = await findAssetByImageId(database.kysely, campaignId, imageId);
    if (asset && asset.user_id !== userId) throw errors.imageIdNotIssued();
    return asset;
  };
  const existing = await confirmedAsset();
  if (existing) return existing;
  const grant = await findUploadGrant(database.kysely, campaignId, imageId);
  if (!grant || grant.user_id !== userId) {
    const meanwhile = await confirmedAsset();
    if (meanwhile) return meanwhile;
    throw errors.imageIdNotIssued();
  }
  if (Date.parse(grant.expires_at) <= input.now.getTime()) {
    throw errors.uploadExpired();
  }
  const ticket: UploadTicket = { campaignId, imageId, expiresAt: grant.expires_at };

  let outcome;
  try {
    outcome = await host.verify(ticket);
  } catch (error) {
    const meanwhile = await confirmedAsset();
    if (meanwhile) return meanwhile;
    log.error({ err: error, imageId }, 'the image host could not verify an upload');
    throw errors.uploadVerificationFailed();
  }
  switch (outcome.kind) {
    case 'missing': {
      const meanwhile = await confirmedAsset();
      if (meanwhile) return meanwhile;
      throw errors.uploadNotCompleted();
    }
    case 'rejected':
      throw errors.uploadRejected(outcome.reason);
    case 'stored':
      break;
  }

  // Made before the asset is recorded, so its first answer names them (variants.ts); never fails the confirmation.
  const variants = await makeVariants(host, outcome.image, ticket);
  if (!variants.made) log.info({ err: variants.error, imageId, reason: variants.reason }, 'no variants made for an upload');

  let result;
  try {
    result = await confirmAsset(database, {
      campaignId,
      userId,
      imageId,
      label: input.label,
      storageKey: outcome.image.storageKey,
      url: outcome.image.url,
      contentType: outcome.image.contentType,
      byteSize: outcome.image.byteSize,
      dimensions: outcome.image.dimensions,
      hasVariants: variants.made,
      now: nowIso(input.now),
    });
  } catch (error) {
    // Refused (the campaign went, the grant expired or was revoked with the uploader's role): the
    // removals queued meanwhile could not know of what verify and the variants stored, and no asset
    // will name those bytes, so they go now. A failure of another kind keeps them for a retry.
    if (error instanceof AppError && (await findAssetByImageId(database.kysely, campaignId, imageId).catch(() => 'unknown' as const)) === undefined) {
      await host.remove([ticket]).catch((e: unknown) => log.warn({ err: e, imageId }, 'could not remove the image of a refused upload'));
    }
    throw error;
  }
  if (result.created) {
    await host.release(ticket).catch((error: unknown) => log.warn({ err: error, imageId }, 'could not drop a confirmed upload\'s staged copy'));
  }
  return result.asset;
}

/**
 * Removes the bytes of queued removals from the host, then forgets them. When the host fails the
 * rows stay queued for the sweeper; records are never brought back. Never throws.
 */
export async function removeQueuedImages(
  database: Database,
  host: ImageHost,
  removals: readonly ImageRemovalRow[],
  log: FastifyBaseLogger,
): Promise<boolean> {
  if (removals.length === 0) return true;
  try {
    await host.remove(removals.map((r) => ({ campaignId: r.campaign_id, imageId: r.image_id })));
  } catch (error) {
    log.warn({ err: error, images: removals.length }, 'image bytes could not be removed from the image host; the sweeper will retry');
    return false;
  }
  try {
    await forgetImageRemovals(
      database.kysely,
      removals.map((r) => r.id),
    );
  } catch (error) {
    // Removing again is harmless: the sweeper will do it and then forget them.
    log.warn({ err: error }, 'removed image bytes could not be struck from the removal queue');
  }
  return true;
}

/**
 * Expires grants that were never confirmed (queuing their bytes), then removes queued bytes.
 * Safe with any number of instances sweeping at once: each grant is taken by one of them, and
 * removing bytes twice does no harm.
 */
export async function sweepUploads(
  database: Database,
  host: ImageHost,
  now: Date,
  log: FastifyBaseLogger,
): Promise<{ expiredGrants: number; removedImages: number; removalsLeft: boolean }> {
  let expiredGrants = 0;
  for (;;) {
    const taken = await takeExpiredUploadGrants(database, nowIso(now), SWEEP_BATCH);
    expiredGrants += taken.length;
    if (taken.length < SWEEP_BATCH) break;
  }
  let removedImages = 0;
  let removalsLeft = false;
  // A batch the host keeps refusing stays queued without holding up the batches after it.
  for (let afterId = 0; ; ) {
    const pending = await pendingImageRemovals(database.kysely, afterId, SWEEP_BATCH);
    if (pending.length === 0) break;
    if (await removeQueuedImages(database, host, pending, log)) removedImages += pending.length;
    else removalsLeft = true;
    if (pending.length < SWEEP_BATCH) break;
    afterId = pending[pending.length - 1]!.id;
  }
  return { expiredGrants, removedImages, removalsLeft };
}
