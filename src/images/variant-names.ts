import type { ImageDimensions } from './dimensions.js';

// The names, sizes and URLs of an image's variants (variants.ts makes them): pure, so the renderer
// and the hosts share them without loading sharp.

/** The widths variants are made at; a slot at or past the original's width holds a full-size WebP. */
export const VARIANT_SLOTS = [480, 960, 1600] as const;
export type VariantSlot = (typeof VARIANT_SLOTS)[number];

export interface Variant {
  slot: VariantSlot;
  width: number;
  height: number;
}

/** The variants an image of these dimensions has, smallest first: a slot per width below the original's, then one at its full width. */
export function variantsFor(dimensions: ImageDimensions): Variant[] {
  const variants: Variant[] = [];
  for (const slot of VARIANT_SLOTS) {
    const width = Math.min(slot, dimensions.width);
    variants.push({ slot, width, height: Math.max(1, Math.round((dimensions.height * width) / dimensions.width)) });
    if (slot >= dimensions.width) break;
  }
  return variants;
}

/** A variant's file name at its host: the image's id and its slot. */
export const variantName = (imageId: string, slot: VariantSlot): string => `${imageId}-${slot}.webp`;

/** A variant's public URL: the original's, its extension replaced by the slot and `.webp`. */
export function variantUrl(originalUrl: string, slot: VariantSlot): string {
  return originalUrl.replace(/\.[a-z0-9]+$/, `-${slot}.webp`);
}

/** What clients are told of an asset's variants: none unless they were made and its dimensions are known. */
export function assetVariants(asset: { url: string; width?: number | null; height?: number | null; has_variants?: number | null }): { width: number; height: number; url: string }[] {
  if (!asset.has_variants || typeof asset.width !== 'number' || typeof asset.height !== 'number') return [];
  return variantsFor({ width: asset.width, height: asset.height }).map((v) => ({ width: v.width, height: v.height, url: variantUrl(asset.url, v.slot) }));
}
