import { fileTypeFromBuffer } from 'file-type';

// What an uploaded file is, decided from its first bytes only: the name and the declared content
// type are the uploader's word and count for nothing. Five raster formats every browser renders;
// everything else (SVG, HTML, PDF, HEIC, an empty file…) is refused.

export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp' | 'avif';

export const IMAGE_FORMATS: Record<ImageFormat, { mime: string; ext: string }> = {
  png: { mime: 'image/png', ext: 'png' },
  jpeg: { mime: 'image/jpeg', ext: 'jpg' },
  gif: { mime: 'image/gif', ext: 'gif' },
  webp: { mime: 'image/webp', ext: 'webp' },
  avif: { mime: 'image/avif', ext: 'avif' },
};

/** Every file extension an image is stored under, with its format. */
export const FORMAT_BY_EXT: ReadonlyMap<string, ImageFormat> = new Map(
  (Object.keys(IMAGE_FORMATS) as ImageFormat[]).map((format) => [IMAGE_FORMATS[format].ext, format]),
);

/** How many leading bytes the sniffer looks at (file-type's own sample size). */
export const SNIFF_BYTES = 4100;

const FORMAT_BY_MIME: Record<string, ImageFormat> = {
  'image/png': 'png',
  'image/apng': 'png',
  'image/jpeg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/avif': 'avif',
};

function ascii(bytes: Uint8Array, start: number, length: number): string {
  return Buffer.from(bytes.subarray(start, start + length)).toString('latin1');
}

// file-type names an ISO-BMFF file by its major brand only; an AVIF written with the generic
// `mif1` major brand lists `avif` among its compatible brands instead.
function hasAvifBrand(head: Uint8Array): boolean {
  if (head.length < 16 || ascii(head, 4, 4) !== 'ftyp') return false;
  const boxSize = Buffer.from(head).readUInt32BE(0);
  const end = Math.min(boxSize, head.length);
  for (let offset = 8; offset + 4 <= end; offset += 4) {
    if (offset === 12) continue; // minor version, not a brand
    const brand = ascii(head, offset, 4);
    if (brand === 'avif' || brand === 'avis') return true;
  }
  return false;
}

// file-type accepts anything starting "GIF" or "RIFF…WEBP"; a real file says more than that.
function confirms(format: ImageFormat, head: Uint8Array): boolean {
  switch (format) {
    case 'gif':
      return ['GIF87a', 'GIF89a'].includes(ascii(head, 0, 6));
    case 'webp':
      return ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 4) === 'WEBP' && ['VP8 ', 'VP8L', 'VP8X'].includes(ascii(head, 12, 4));
    case 'png':
    case 'jpeg':
    case 'avif':
      return true;
  }
}

/** The image format of a file from its first bytes (at least the first SNIFF_BYTES, or the whole file); undefined when not an accepted image. */
export async function sniffImage(head: Uint8Array): Promise<ImageFormat | undefined> {
  if (head.length === 0) return undefined;
  const found = await fileTypeFromBuffer(head);
  let format = found ? FORMAT_BY_MIME[found.mime] : undefined;
  if (format === undefined && found?.ext === 'heic' && hasAvifBrand(head)) format = 'avif';
  return format !== undefined && confirms(format, head) ? format : undefined;
}
