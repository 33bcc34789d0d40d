import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { ImageDimensions } from './dimensions.js';
import type { ImageFormat } from './sniff.js';
import type { VariantSlot } from './variant-names.js';

// Where uploaded image bytes live. The database holds grants and asset records; an ImageHost only
// moves bytes. Every image is named at its host by its campaign and its random image id, so any
// instance can find (and remove) the bytes of any grant or asset from the database rows alone.

export interface ImageRef {
  campaignId: number;
  /** 32 lowercase hex digits: 128 random bits. */
  imageId: string;
}

export interface UploadTicket extends ImageRef {
  /** ISO instant after which the upload URL no longer works. */
  expiresAt: string;
}

export interface StoredImage {
  /** The image's name at its host (a path or an object key). */
  storageKey: string;
  /** Where anyone can fetch it. */
  url: string;
  contentType: string;
  byteSize: number;
  /** Read from the image's header (dimensions.ts); null when it does not say. */
  dimensions: ImageDimensions | null;
}

export type VerifyOutcome =
  | { kind: 'missing' }
  | { kind: 'rejected'; reason: string }
  | { kind: 'stored'; image: StoredImage };

/** An imported image's bytes, held by the host before any record names them (see ImageHost.stage). */
export interface StagedImage {
  /** Where the host holds it meanwhile (a temporary file, an object key). */
  key: string;
  format: ImageFormat;
  byteSize: number;
  dimensions: ImageDimensions | null;
}

export type StageOutcome = { kind: 'staged'; image: StagedImage } | { kind: 'too_large' } | { kind: 'unsupported'; reason: string };

export interface ImageHost {
  readonly kind: 'local' | 's3';
  /** The URL the client sends the bytes to, valid until the ticket expires. */
  uploadUrl(ticket: UploadTicket): Promise<string>;
  /**
   * Whether the upload arrived and is an accepted image. Bytes that fail the checks are removed
   * (rejected); good ones are made available at their public URL (stored). Safe to repeat.
   * Throws ImageHostError when the host cannot be asked or answers nonsense.
   */
  verify(ticket: UploadTicket): Promise<VerifyOutcome>;
  /** Drops what an upload leaves behind once its asset record is committed (S3: the staged object). */
  release(ref: ImageRef): Promise<void>;
  /** Removes every byte stored for these images, staged or public. Idempotent. Throws ImageHostError. */
  remove(refs: readonly ImageRef[]): Promise<void>;
  /**
   * Import, step one: takes an image's bytes (`byteSize` of them, as the archive says) before the
   * campaign they are for exists, and checks them as an upload is checked (at most the upload limit,
   * an accepted format recognised from the bytes). Anything but `staged` leaves nothing behind.
   */
  stage(source: Readable, byteSize: number): Promise<StageOutcome>;
  /** Import, step two: makes a staged image this image, quickly (a rename, a server-side copy). */
  placeStaged(staged: StagedImage, ref: ImageRef): Promise<StoredImage>;
  /** Drops a staged image that will not be placed. Idempotent. */
  discardStaged(staged: StagedImage): Promise<void>;
  /**
   * Removes staged bytes older than `olderThan` that nothing will place any more (left by a crash
   * mid-import or mid-upload); returns how many. Throws ImageHostError.
   */
  sweepStaged(olderThan: Date): Promise<number>;
  /**
   * Stores a smaller WebP copy of an image beside it (variants.ts), public at the original's URL with
   * `-<slot>.webp` for its extension; removing the image removes it. Throws ImageHostError.
   */
  storeVariant(ref: ImageRef, slot: VariantSlot, bytes: Buffer): Promise<void>;
  /** The bytes of a stored image, by its storage key (an export streams them). Throws ImageHostError. */
  read(storageKey: string): Promise<Readable>;
  close(): Promise<void>;
}

/** The image host could not be reached or did not do what it was asked. */
export class ImageHostError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ImageHostError';
  }
}

export const IMAGE_ID_PATTERN = /^[0-9a-f]{32}$/;

/** A new image id: 128 random bits as 32 hex digits (safe in paths, object keys and URLs). */
export function newImageId(): string {
  return randomBytes(16).toString('hex');
}

// Campaign ids in paths and keys: PostgreSQL integers, written in plain decimal.
const CAMPAIGN_ID_PATTERN = /^[1-9][0-9]{0,9}$/;
const MAX_CAMPAIGN_ID = 2_147_483_647;

/** An ImageRef from the text of a URL, or undefined when either part is not well-formed. */
export function parseImageRef(campaignIdText: string, imageId: string): ImageRef | undefined {
  if (!CAMPAIGN_ID_PATTERN.test(campaignIdText) || !IMAGE_ID_PATTERN.test(imageId)) return undefined;
  const campaignId = Number(campaignIdText);
  return campaignId <= MAX_CAMPAIGN_ID ? { campaignId, imageId } : undefined;
}

/** Long-lived and immutable: an image id is never reused, so its bytes never change. */
export const IMAGE_CACHE_CONTROL = 'public, max-age=31536000, immutable';
