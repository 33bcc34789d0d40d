import type { Readable } from 'node:stream';
import type { Database } from '../db/database.js';
import { findUploadGrant, imageIsWanted, markUploadReceived, unmarkUploadReceived } from '../db/repositories/assets.js';
import { errors } from '../domain/errors.js';
import { nowIso } from '../domain/time.js';
import type { ImageRef } from './image-host.js';
import type { LocalImageHost } from './local.js';
import { IMAGE_FORMATS } from './sniff.js';

// The local host's side of an upload: the URL is the credential, the grant row says whether it
// still works, and the database (not the file system) decides which of two racing uploads wins.

/** Checks, before any byte is read, that the grant takes an upload now. */
export async function checkUploadGrant(database: Database, ref: ImageRef, now: Date): Promise<void> {
  const grant = await findUploadGrant(database.kysely, ref.campaignId, ref.imageId);
  if (!grant || Date.parse(grant.expires_at) <= now.getTime()) throw errors.uploadUrlNotFound();
  if (grant.uploaded_at !== null) throw errors.uploadAlreadyReceived();
}

export async function receiveLocalUpload(
  database: Database,
  host: LocalImageHost,
  ref: ImageRef,
  source: Readable,
  wasTruncated: () => boolean,
): Promise<{ imageId: string; contentType: string; byteSize: number }> {
  const reception = await host.receive(source, ref, wasTruncated);
  switch (reception.kind) {
    case 'too_large':
      throw errors.imageTooLarge(host.maxBytes);
    case 'unsupported':
      throw errors.unsupportedImageType(reception.reason);
    case 'received':
      break;
  }

  let claimed: boolean;
  try {
    claimed = await markUploadReceived(database.kysely, ref.campaignId, ref.imageId, nowIso());
  } catch (error) {
    await host.discard(reception);
    throw error;
  }
  if (!claimed) {
    await host.discard(reception);
    const grant = await findUploadGrant(database.kysely, ref.campaignId, ref.imageId);
    throw grant?.uploaded_at ? errors.uploadAlreadyReceived() : errors.uploadUrlNotFound();
  }

  try {
    await host.place(reception, ref);
  } catch (error) {
    await host.discard(reception).catch(() => {});
    await unmarkUploadReceived(database.kysely, ref.campaignId, ref.imageId).catch(() => {});
    throw error;
  }
  // The grant may have been swept, or its campaign deleted, while the file moved into place:
  // their removal ran before the file was there, so only we can remove it now.
  if (!(await imageIsWanted(database.kysely, ref.campaignId, ref.imageId))) {
    await host.remove([ref]);
    throw errors.uploadUrlNotFound();
  }
  return { imageId: ref.imageId, contentType: IMAGE_FORMATS[reception.format].mime, byteSize: reception.byteSize };
}
