import type { Readable } from 'node:stream';
import sharp from 'sharp';
import type { ImageHost, ImageRef, StoredImage } from './image-host.js';
import { variantsFor, type Variant } from './variant-names.js';

export { VARIANT_SLOTS, assetVariants, variantName, variantUrl, variantsFor, type Variant, type VariantSlot } from './variant-names.js';

// Smaller copies of an uploaded image for phones: WebP at a few widths, never wider than the
// original. Each is stored by the image's host beside the original under a name fixed by its slot
// (`<imageId>-480.webp`, `-960.webp`, `-1600.webp`), so whatever removes an image's bytes (an asset
// removed, the trash emptied, a campaign deleted) removes its variants from the image id alone. The
// slots an image has follow from its width (variantsFor), so the database records only whether they
// were made (assets.has_variants). They are made when an upload is confirmed and when an import
// places an image, before its asset is recorded: confirm waits for them (sharp works on its own
// threads, off the event loop), at most VARIANT_SECONDS per variant. Anything sharp refuses (a
// decompression bomb, a damaged or cut-short file, an animation) or that takes too long gives no
// variants: the image is stored as before and its original is what clients show.

/** Images with more pixels than this are not decoded (sharp's own default is 268 MP). */
export const VARIANT_MAX_PIXELS = 24_000_000;
/** The most bytes read from the host to make variants (uploads are bounded below this by MAX_UPLOAD_BYTES). */
const MAX_SOURCE_BYTES = 64 * 1024 * 1024;
const VARIANT_SECONDS = 10;
const WEBP_QUALITY = 75;

class TooLargeSource extends Error {}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of stream) {
      length += (chunk as Buffer).length;
      if (length > MAX_SOURCE_BYTES) throw new TooLargeSource();
      chunks.push(chunk as Buffer);
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks);
}

const SOURCE_OPTIONS = { limitInputPixels: VARIANT_MAX_PIXELS, failOn: 'truncated', autoOrient: true } as const;

/** Decodes and encodes: the WebP bytes of one variant (sharp's threads; bounded in pixels and time). */
async function encode(source: Buffer, variant: Variant): Promise<Buffer> {
  return sharp(source, SOURCE_OPTIONS)
    .resize({ width: variant.width, height: variant.height, fit: 'fill' })
    .webp({ quality: WEBP_QUALITY })
    .timeout({ seconds: VARIANT_SECONDS })
    .toBuffer();
}

export type VariantOutcome = { made: true } | { made: false; reason: string; error?: unknown };

/**
 * Makes and stores the variants of a stored image. Never throws: any failure leaves the image as it
 * is, with no variants to announce (a variant stored before the failure stays unannounced and goes
 * with the image's other bytes).
 */
export async function makeVariants(host: ImageHost, image: StoredImage, ref: ImageRef): Promise<VariantOutcome> {
  const dimensions = image.dimensions;
  if (!dimensions) return { made: false, reason: 'dimensions unknown' };
  if (image.contentType === 'image/gif') return { made: false, reason: 'GIFs keep their animation' };
  if (dimensions.width * dimensions.height > VARIANT_MAX_PIXELS) return { made: false, reason: 'too many pixels' };
  try {
    const source = await readAll(await host.read(image.storageKey));
    const meta = await sharp(source, SOURCE_OPTIONS).metadata();
    if ((meta.pages ?? 1) > 1) return { made: false, reason: 'an animation' };
    const shown = meta.autoOrient;
    // What the header said when the image was stored must be what sharp decodes.
    if (shown.width !== dimensions.width || shown.height !== dimensions.height) return { made: false, reason: 'dimensions differ from the header' };
    for (const variant of variantsFor(dimensions)) {
      await host.storeVariant(ref, variant.slot, await encode(source, variant));
    }
    return { made: true };
  } catch (error) {
    return { made: false, reason: error instanceof TooLargeSource ? 'source too large' : 'sharp or the host failed', error };
  }
}
