import fs from 'node:fs/promises';
import { imageSize } from 'image-size';
import type { ImageFormat } from './sniff.js';

// An image's width and height as a browser lays it out, read from its header bytes only: image-size
// parses headers and decodes nothing, so a file that claims 100000×100000 pixels costs what a
// one-pixel one does, and is recorded as it claims (the browser scales it to the page anyway). A
// header that cannot be read (damaged, cut short, a JPEG whose size comes after DIMENSION_BYTES)
// gives no dimensions; the image is still accepted, as it always was.

export interface ImageDimensions {
  width: number;
  height: number;
}

/**
 * How many leading bytes are read for the dimensions: a JPEG's size follows its metadata segments
 * (EXIF, ICC profile, XMP), which in practice end well within image-size's own 512 KiB.
 */
export const DIMENSION_BYTES = 512 * 1024;

// Stored as a 32-bit integer on both databases; a PNG header can claim up to 2^32 - 1.
const MAX_DIMENSION = 2_147_483_647;

// What image-size calls each accepted format (an AVIF is named by its major brand: avif, mif1…).
const SIZE_TYPES: Record<ImageFormat, readonly string[] | undefined> = { png: ['png'], jpeg: ['jpg'], gif: ['gif'], webp: ['webp'], avif: undefined };

const isDimension = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_DIMENSION;

/** The dimensions an image's first bytes give, for an image already sniffed as `format`; null when they do not say. */
export function readDimensions(head: Uint8Array, format: ImageFormat): ImageDimensions | null {
  let size;
  try {
    size = imageSize(head);
  } catch {
    return null;
  }
  const types = SIZE_TYPES[format];
  if (types !== undefined && !types.includes(size.type ?? '')) return null;
  if (!isDimension(size.width) || !isDimension(size.height)) return null;
  // EXIF orientations 5–8 turn the picture a quarter: browsers show it turned (image-orientation: from-image).
  const turned = size.orientation !== undefined && size.orientation >= 5 && size.orientation <= 8;
  return turned ? { width: size.height, height: size.width } : { width: size.width, height: size.height };
}

/** Up to `length` leading bytes of a file. */
export async function headOfFile(file: string, length: number): Promise<Buffer> {
  const handle = await fs.open(file, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The columns an asset stores for dimensions (both null when unknown). */
export function dimensionColumns(dimensions: ImageDimensions | null): { width: number | null; height: number | null } {
  return { width: dimensions?.width ?? null, height: dimensions?.height ?? null };
}
