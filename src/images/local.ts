import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  ImageHostError,
  parseImageRef,
  type ImageHost,
  type ImageRef,
  type StagedImage,
  type StageOutcome,
  type StoredImage,
  type UploadTicket,
  type VerifyOutcome,
} from './image-host.js';
import { DIMENSION_BYTES, headOfFile, readDimensions, type ImageDimensions } from './dimensions.js';
import { FORMAT_BY_EXT, IMAGE_FORMATS, SNIFF_BYTES, sniffImage, type ImageFormat } from './sniff.js';
import { VARIANT_SLOTS, variantName, type VariantSlot } from './variant-names.js';
import { isMissing, removeFile, sweepFolder, writeInPlace } from './local-files.js';

// Images as files under DATA_DIR/images: `<campaignId>/<imageId>.<ext>`, served by Loreforge
// itself. An upload streams into `.tmp/` (same file system) and is renamed into place only once
// it has passed every check, so a reader never sees half a file and a refused upload leaves nothing.

export interface LocalImageHostOptions {
  /** The folder holding the images (created on first use). */
  root: string;
  /** The service's public origin, without a trailing slash. */
  publicBaseUrl: string;
  maxBytes: number;
}

export type Reception =
  | { kind: 'received'; tempPath: string; format: ImageFormat; byteSize: number }
  | { kind: 'too_large' }
  | { kind: 'unsupported'; reason: string };

export interface ServedImage {
  stream: Readable;
  byteSize: number;
  contentType: string;
  etag: string;
  close(): Promise<void>;
}

class TooLarge extends Error {}

const EXTENSIONS = [...FORMAT_BY_EXT.keys()];
// Removals run this many images' unlinks at a time.
const REMOVE_BATCH = 100;


export class LocalImageHost implements ImageHost {
  readonly kind = 'local' as const;
  readonly root: string;
  readonly tempDir: string;

  constructor(private readonly options: LocalImageHostOptions) {
    this.root = path.resolve(options.root);
    this.tempDir = path.join(this.root, '.tmp');
  }

  get maxBytes(): number {
    return this.options.maxBytes;
  }

  uploadUrl(ticket: UploadTicket): Promise<string> {
    return Promise.resolve(`${this.options.publicBaseUrl}/images/uploads/${ticket.campaignId}/${ticket.imageId}`);
  }

  campaignDir(campaignId: number): string {
    return path.join(this.root, String(campaignId));
  }

  private finalPath(ref: ImageRef, ext: string): string {
    return path.join(this.campaignDir(ref.campaignId), `${ref.imageId}.${ext}`);
  }

  /** Every file an image may have: the original under each extension, and each variant. */
  private allPaths(ref: ImageRef): string[] {
    const dir = this.campaignDir(ref.campaignId);
    return [...EXTENSIONS.map((ext) => this.finalPath(ref, ext)), ...VARIANT_SLOTS.map((slot) => path.join(dir, variantName(ref.imageId, slot)))];
  }

  /** Written to `.tmp/` and renamed into place, as an upload is. */
  async storeVariant(ref: ImageRef, slot: VariantSlot, bytes: Buffer): Promise<void> {
    const tempPath = path.join(this.tempDir, `${ref.campaignId}-${ref.imageId}-${slot}-${randomBytes(4).toString('hex')}.part`);
    await writeInPlace(tempPath, path.join(this.campaignDir(ref.campaignId), variantName(ref.imageId, slot)), bytes).catch((error: unknown) => {
      throw new ImageHostError('A variant of an image could not be stored.', { cause: error });
    });
  }

  /**
   * Streams an upload into a temporary file, counting bytes as they come (past `maxBytes` it stops
   * reading and answers too_large) and keeping only the first few in memory for the format check.
   * The source is never destroyed here, so the caller can still answer on the same connection.
   * Anything but `received` leaves no file behind.
   */
  async receive(source: Readable, ref: ImageRef, wasTruncated: () => boolean = () => false): Promise<Reception> {
    await fs.mkdir(this.tempDir, { recursive: true });
    const tempPath = path.join(this.tempDir, `${ref.campaignId}-${ref.imageId}-${randomBytes(4).toString('hex')}.part`);
    const max = this.options.maxBytes;
    let byteSize = 0;
    const head: Buffer[] = [];
    let headLength = 0;
    async function* counted() {
      for await (const chunk of source.iterator({ destroyOnReturn: false })) {
        const buffer = chunk as Buffer;
        byteSize += buffer.length;
        if (byteSize > max) throw new TooLarge();
        if (headLength < SNIFF_BYTES) {
          const part = buffer.subarray(0, SNIFF_BYTES - headLength);
          head.push(Buffer.from(part));
          headLength += part.length;
        }
        yield buffer;
      }
    }

    // Opened here, not by the stream, so the file exists before anything can fail and the
    // cleanup below always finds it.
    const handle = await fs.open(tempPath, 'wx');
    let keep = false;
    try {
      // flush: the bytes are on disk before the file is renamed into place.
      await pipeline(counted(), handle.createWriteStream({ flush: true }));
      if (wasTruncated()) return { kind: 'too_large' };
      if (byteSize === 0) return { kind: 'unsupported', reason: 'The file is empty.' };
      const format = await sniffImage(Buffer.concat(head));
      if (format === undefined) return { kind: 'unsupported', reason: 'The file is not an image in an accepted format.' };
      keep = true;
      return { kind: 'received', tempPath, format, byteSize };
    } catch (error) {
      if (error instanceof TooLarge) return { kind: 'too_large' };
      throw error;
    } finally {
      // The stream closes the handle when it ends or fails; this covers a failure before it ran.
      await handle.close().catch(() => {});
      if (!keep) await removeFile(tempPath);
    }
  }

  /** Moves a received upload into place under its final name, atomically (a rename). */
  async place(reception: { tempPath: string; format: ImageFormat }, ref: ImageRef): Promise<void> {
    const target = this.finalPath(ref, IMAGE_FORMATS[reception.format].ext);
    for (let attempt = 1; ; attempt++) {
      await fs.mkdir(this.campaignDir(ref.campaignId), { recursive: true });
      try {
        await fs.rename(reception.tempPath, target);
        return;
      } catch (error) {
        // A removal may have just taken the campaign's last image and its (then empty) folder.
        if (!isMissing(error) || attempt === 2) throw error;
      }
    }
  }

  async stage(source: Readable, _byteSize: number): Promise<StageOutcome> {
    const reception = await this.receive(source, { campaignId: 0, imageId: 'import' });
    if (reception.kind !== 'received') return reception;
    const dimensions = readDimensions(await headOfFile(reception.tempPath, DIMENSION_BYTES), reception.format);
    return { kind: 'staged', image: { key: reception.tempPath, format: reception.format, byteSize: reception.byteSize, dimensions } };
  }

  async placeStaged(staged: StagedImage, ref: ImageRef): Promise<StoredImage> {
    try {
      await this.place({ tempPath: staged.key, format: staged.format }, ref);
    } catch (error) {
      throw new ImageHostError('An imported image could not be moved into place.', { cause: error });
    }
    return this.storedImage(ref, staged.format, staged.byteSize, staged.dimensions);
  }

  discardStaged(staged: StagedImage): Promise<void> {
    return removeFile(staged.key);
  }

  /** Files of `.tmp/` (uploads and imports being received or staged) older than `olderThan`. */
  async sweepStaged(olderThan: Date): Promise<number> {
    return sweepFolder(this.tempDir, olderThan).catch((error: unknown) => {
      throw new ImageHostError('The local image folder could not be read.', { cause: error });
    });
  }

  private storedImage(ref: ImageRef, format: ImageFormat, byteSize: number, dimensions: ImageDimensions | null): StoredImage {
    const { ext, mime } = IMAGE_FORMATS[format];
    return {
      storageKey: `${ref.campaignId}/${ref.imageId}.${ext}`,
      url: `${this.options.publicBaseUrl}/images/${ref.campaignId}/${ref.imageId}.${ext}`,
      contentType: mime,
      byteSize,
      dimensions,
    };
  }

  discard(reception: { tempPath: string }): Promise<void> {
    return removeFile(reception.tempPath);
  }

  async verify(ticket: UploadTicket): Promise<VerifyOutcome> {
    try {
      const found = await this.findStored(ticket);
      if (!found) return { kind: 'missing' };
      const head = await headOfFile(found.file, DIMENSION_BYTES);
      // The name was chosen from the bytes when they were received; a file that no longer
      // matches it was changed behind our back and is not served as an image.
      if ((await sniffImage(head)) !== found.format) {
        await this.remove([ticket]);
        return { kind: 'rejected', reason: 'The stored file is not the image it was received as.' };
      }
      return { kind: 'stored', image: this.storedImage(ticket, found.format, found.size, readDimensions(head, found.format)) };
    } catch (error) {
      if (error instanceof ImageHostError) throw error;
      throw new ImageHostError('The local image folder could not be read.', { cause: error });
    }
  }

  private async findStored(ref: ImageRef): Promise<{ file: string; format: ImageFormat; size: number } | undefined> {
    const candidates = await Promise.all(
      EXTENSIONS.map(async (ext) => {
        const file = this.finalPath(ref, ext);
        try {
          const stat = await fs.stat(file);
          return stat.isFile() ? { file, format: FORMAT_BY_EXT.get(ext)!, size: stat.size } : undefined;
        } catch (error) {
          if (isMissing(error)) return undefined;
          throw error;
        }
      }),
    );
    return candidates.find((c) => c !== undefined);
  }

  release(): Promise<void> {
    return Promise.resolve();
  }

  async remove(refs: readonly ImageRef[]): Promise<void> {
    const failures: unknown[] = [];
    for (let start = 0; start < refs.length; start += REMOVE_BATCH) {
      const batch = refs.slice(start, start + REMOVE_BATCH);
      await Promise.all(
        batch.flatMap((ref) => this.allPaths(ref).map((file) => removeFile(file).catch((error: unknown) => failures.push(error)))),
      );
    }
    // A campaign folder left empty goes too; rmdir refuses one that still holds images.
    const campaignIds = [...new Set(refs.map((r) => r.campaignId))];
    await Promise.all(campaignIds.map((id) => fs.rmdir(this.campaignDir(id)).catch(() => {})));
    if (failures.length > 0) {
      throw new ImageHostError(`${failures.length} image file(s) could not be removed.`, { cause: failures[0] });
    }
  }

  async read(storageKey: string): Promise<Readable> {
    const file = path.resolve(this.root, storageKey);
    if (!file.startsWith(`${this.root}${path.sep}`)) throw new ImageHostError(`No stored image ${storageKey}.`);
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(file, 'r');
    } catch (error) {
      throw new ImageHostError(`The stored image ${storageKey} cannot be read.`, { cause: error });
    }
    return handle.createReadStream();
  }

  /** The stored image behind a public URL's last two segments, or undefined when there is none. */
  async open(campaignIdText: string, fileName: string): Promise<ServedImage | undefined> {
    // The original (`<imageId>.<ext>`) or a variant (`<imageId>-<slot>.webp`).
    const match = /^([0-9a-f]{32})(?:-([0-9]{3,4}))?\.([a-z]{3,4})$/.exec(fileName);
    const slot = match?.[2] === undefined ? undefined : VARIANT_SLOTS.find((s) => String(s) === match[2]);
    const format = match ? FORMAT_BY_EXT.get(match[3]!) : undefined;
    const ref = match ? parseImageRef(campaignIdText, match[1]!) : undefined;
    if (!ref || !format || (match?.[2] !== undefined && (slot === undefined || format !== 'webp'))) return undefined;
    const file = slot === undefined ? this.finalPath(ref, IMAGE_FORMATS[format].ext) : path.join(this.campaignDir(ref.campaignId), variantName(ref.imageId, slot));
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(file, 'r');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    const stat = await handle.stat();
    return {
      stream: handle.createReadStream(),
      byteSize: stat.size,
      contentType: IMAGE_FORMATS[format].mime,
      etag: slot === undefined ? `"${ref.imageId}"` : `"${ref.imageId}-${slot}"`,
      close: () => handle.close().catch(() => {}),
    };
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
