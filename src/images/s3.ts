import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { randomBytes } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import {
  IMAGE_CACHE_CONTROL,
  ImageHostError,
  type ImageHost,
  type ImageRef,
  type StagedImage,
  type StageOutcome,
  type StoredImage,
  type UploadTicket,
  type VerifyOutcome,
} from './image-host.js';
import { DIMENSION_BYTES, readDimensions } from './dimensions.js';
import { FORMAT_BY_EXT, IMAGE_FORMATS, sniffImage } from './sniff.js';
import { VARIANT_SLOTS, variantName, type VariantSlot } from './variant-names.js';
import { deleteOlderThan, putPublicObject } from './s3-objects.js';

// Any S3-compatible store. The client PUTs to a presigned URL for a staging key
// (`uploads/<campaignId>/<imageId>`); confirm checks the staged object (HEAD for its size, a ranged
// GET for its first bytes) and copies it to its public key (`images/<campaignId>/<imageId>.<ext>`)
// with the detected content type. The presigned URL can only ever write the staging key, so a
// client that keeps it cannot replace a confirmed image with something else.

export interface S3Settings {
  /** Unset: AWS S3 itself. */
  endpoint?: string | undefined;
  bucket: string;
  region: string;
  accessKeyId?: string | undefined;
  secretAccessKey?: string | undefined;
  forcePathStyle: boolean;
  /** Where the bucket's objects are publicly readable, without a trailing slash. */
  publicBaseUrl: string;
}

const EXTENSIONS = [...FORMAT_BY_EXT.keys()];
// DeleteObjects takes at most 1000 keys; each image has one staging key, five possible public keys
// and its variants' keys.
const REFS_PER_DELETE = Math.floor(1000 / (EXTENSIONS.length + 1 + VARIANT_SLOTS.length));

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}

export class S3ImageHost implements ImageHost {
  readonly kind = 's3' as const;
  readonly client: S3Client;

  constructor(
    private readonly settings: S3Settings,
    private readonly maxBytes: number,
    clientOverrides: Partial<S3ClientConfig> = {},
  ) {
    this.client = new S3Client({
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      ...(settings.endpoint !== undefined ? { endpoint: settings.endpoint } : {}),
      ...(settings.accessKeyId !== undefined && settings.secretAccessKey !== undefined
        ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
        : {}),
      // Checksums only where S3 demands them: a presigned PUT must not oblige the browser to
      // send a checksum header, and S3-compatible stores vary in what they return.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // A store that does not answer must fail the request within seconds, not hang it.
      maxAttempts: 2,
      requestHandler: { connectionTimeout: 3_000, requestTimeout: 15_000 },
      ...clientOverrides,
    });
  }

  stagingKey(ref: ImageRef): string {
    return `uploads/${ref.campaignId}/${ref.imageId}`;
  }

  publicKey(ref: ImageRef, ext: string): string {
    return `images/${ref.campaignId}/${ref.imageId}.${ext}`;
  }

  variantKey(ref: ImageRef, slot: VariantSlot): string {
    return `images/${ref.campaignId}/${variantName(ref.imageId, slot)}`;
  }

  async storeVariant(ref: ImageRef, slot: VariantSlot, bytes: Buffer): Promise<void> {
    await putPublicObject(this.client, this.settings.bucket, this.variantKey(ref, slot), bytes, 'image/webp').catch((error: unknown) => {
      throw new ImageHostError('A variant of an image could not be stored.', { cause: error });
    });
  }

  async uploadUrl(ticket: UploadTicket): Promise<string> {
    const seconds = Math.max(1, Math.floor((Date.parse(ticket.expiresAt) - Date.now()) / 1000));
    try {
      return await getSignedUrl(this.client, new PutObjectCommand({ Bucket: this.settings.bucket, Key: this.stagingKey(ticket) }), {
        expiresIn: seconds,
      });
    } catch (error) {
      throw new ImageHostError('The upload URL could not be signed.', { cause: error });
    }
  }

  async verify(ticket: UploadTicket): Promise<VerifyOutcome> {
    const Bucket = this.settings.bucket;
    const Key = this.stagingKey(ticket);
    try {
      let head;
      try {
        head = await this.client.send(new HeadObjectCommand({ Bucket, Key }));
      } catch (error) {
        if (statusOf(error) === 404) return { kind: 'missing' };
        throw error;
      }
      const size = head.ContentLength;
      if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
        throw new ImageHostError('The image host did not say how large the upload is.');
      }
      const refuse = async (reason: string): Promise<VerifyOutcome> => {
        await this.client.send(new DeleteObjectCommand({ Bucket, Key }));
        return { kind: 'rejected', reason };
      };
      if (size === 0) return refuse('The file is empty.');
      if (size > this.maxBytes) return refuse(`The file is larger than ${this.maxBytes} bytes.`);

      let headBytes: Uint8Array;
      try {
        const got = await this.client.send(
          new GetObjectCommand({ Bucket, Key, Range: `bytes=0-${DIMENSION_BYTES - 1}`, ...(head.ETag ? { IfMatch: head.ETag } : {}) }),
        );
        if (!got.Body) throw new ImageHostError('The image host sent no bytes for the upload.');
        headBytes = await got.Body.transformToByteArray();
      } catch (error) {
        // Replaced (412) or removed (404) since the HEAD: the client is still uploading.
        if (statusOf(error) === 412 || statusOf(error) === 404) return { kind: 'missing' };
        throw error;
      }
      if (headBytes.length > Math.min(size, DIMENSION_BYTES)) throw new ImageHostError('The image host sent more bytes than asked for.');
      const format = await sniffImage(headBytes);
      if (format === undefined) return refuse('The file is not an image in an accepted format.');

      const { ext, mime } = IMAGE_FORMATS[format];
      const target = this.publicKey(ticket, ext);
      try {
        await this.client.send(
          new CopyObjectCommand({
            Bucket,
            Key: target,
            CopySource: `${Bucket}/${Key}`,
            // The object we checked, not one swapped in since (stores that ignore this still copy).
            ...(head.ETag ? { CopySourceIfMatch: head.ETag } : {}),
            MetadataDirective: 'REPLACE',
            ContentType: mime,
            CacheControl: IMAGE_CACHE_CONTROL,
            ContentDisposition: 'inline',
          }),
        );
      } catch (error) {
        if (statusOf(error) === 412 || statusOf(error) === 404) return { kind: 'missing' };
        throw error;
      }
      return {
        kind: 'stored',
        image: { storageKey: target, url: `${this.settings.publicBaseUrl}/${target}`, contentType: mime, byteSize: size, dimensions: readDimensions(headBytes, format) },
      };
    } catch (error) {
      if (error instanceof ImageHostError) throw error;
      throw new ImageHostError('The image host could not verify the upload.', { cause: error });
    }
  }

  /** Imported images wait under `imports/<random>` until their campaign exists. */
  async stage(source: Readable, byteSize: number): Promise<StageOutcome> {
    if (byteSize > this.maxBytes) return { kind: 'too_large' };
    if (byteSize === 0) return { kind: 'unsupported', reason: 'The file is empty.' };
    const Bucket = this.settings.bucket;
    const Key = `imports/${randomBytes(16).toString('hex')}`;
    const head: Buffer[] = [];
    let headLength = 0;
    // The first bytes are kept as they pass, for the format check and the dimensions once the object is stored.
    const sniffing = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        if (headLength < DIMENSION_BYTES) {
          const part = chunk.subarray(0, DIMENSION_BYTES - headLength);
          head.push(Buffer.from(part));
          headLength += part.length;
        }
        done(null, chunk);
      },
    });
    try {
      await this.client.send(new PutObjectCommand({ Bucket, Key, Body: source.pipe(sniffing), ContentLength: byteSize }));
    } catch (error) {
      throw new ImageHostError('An imported image could not be stored.', { cause: error });
    }
    const headBytes = Buffer.concat(head);
    const format = await sniffImage(headBytes);
    if (format === undefined) {
      await this.discardStaged({ key: Key, format: 'png', byteSize, dimensions: null });
      return { kind: 'unsupported', reason: 'The file is not an image in an accepted format.' };
    }
    return { kind: 'staged', image: { key: Key, format, byteSize, dimensions: readDimensions(headBytes, format) } };
  }

  async placeStaged(staged: StagedImage, ref: ImageRef): Promise<StoredImage> {
    const Bucket = this.settings.bucket;
    const { ext, mime } = IMAGE_FORMATS[staged.format];
    const target = this.publicKey(ref, ext);
    try {
      await this.client.send(
        new CopyObjectCommand({
          Bucket,
          Key: target,
          CopySource: `${Bucket}/${staged.key}`,
          MetadataDirective: 'REPLACE',
          ContentType: mime,
          CacheControl: IMAGE_CACHE_CONTROL,
          ContentDisposition: 'inline',
        }),
      );
    } catch (error) {
      throw new ImageHostError('An imported image could not be moved into place.', { cause: error });
    }
    await this.discardStaged(staged);
    return { storageKey: target, url: `${this.settings.publicBaseUrl}/${target}`, contentType: mime, byteSize: staged.byteSize, dimensions: staged.dimensions };
  }

  async discardStaged(staged: StagedImage): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: staged.key }));
    } catch (error) {
      throw new ImageHostError('A staged imported image could not be removed.', { cause: error });
    }
  }

  /** Objects under `imports/` older than `olderThan` (a crash between staging and placing leaves them). */
  async sweepStaged(olderThan: Date): Promise<number> {
    return deleteOlderThan(this.client, this.settings.bucket, 'imports/', olderThan).catch((error: unknown) => {
      throw new ImageHostError('Staged imported images could not be swept.', { cause: error });
    });
  }

  async read(storageKey: string): Promise<Readable> {
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: storageKey }));
      if (!(object.Body instanceof Readable)) throw new Error('the store answered without a body');
      return object.Body;
    } catch (error) {
      throw new ImageHostError(`The stored image ${storageKey} cannot be read.`, { cause: error });
    }
  }

  async release(ref: ImageRef): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.stagingKey(ref) }));
    } catch (error) {
      throw new ImageHostError('The staged upload could not be removed.', { cause: error });
    }
  }

  async remove(refs: readonly ImageRef[]): Promise<void> {
    for (let start = 0; start < refs.length; start += REFS_PER_DELETE) {
      const batch = refs.slice(start, start + REFS_PER_DELETE);
      const keys = batch.flatMap((ref) => [
        this.stagingKey(ref),
        ...EXTENSIONS.map((ext) => this.publicKey(ref, ext)),
        ...VARIANT_SLOTS.map((slot) => this.variantKey(ref, slot)),
      ]);
      let result;
      try {
        result = await this.client.send(
          new DeleteObjectsCommand({ Bucket: this.settings.bucket, Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true } }),
        );
      } catch (error) {
        throw new ImageHostError('The images could not be removed from the image host.', { cause: error });
      }
      const failed = (result.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
      if (failed.length > 0) {
        throw new ImageHostError(`${failed.length} object(s) could not be removed from the image host (${failed[0]?.Code ?? 'unknown error'}).`);
      }
    }
  }

  close(): Promise<void> {
    this.client.destroy();
    return Promise.resolve();
  }
}
