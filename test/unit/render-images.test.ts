// Rendered images on a phone (issue 27): the first image of a text is asked for at once and first
// (no loading="lazy", fetchpriority="high"), every later one stays lazy; an asset with variants
// (images/variants.ts) gets them as its srcset, with sizes the width it is shown at.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RichText } from '../../src/domain/rich-text.js';
import { assetVariants, variantsFor, VARIANT_SLOTS } from '../../src/images/variant-names.js';
import { renderRichText, type AssetTarget, type RenderContext } from '../../src/render/index.js';

const PORTRAIT = 'https://img.example.test/images/1/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.png';
const MAP = 'https://img.example.test/images/1/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.jpg';
const OLD = 'https://img.example.test/images/1/cccccccccccccccccccccccccccccccc.png';

const asset = (url: string, label: string, width: number, height: number, hasVariants: number): AssetTarget => ({
  url,
  label,
  width,
  height,
  variants: assetVariants({ url, width, height, has_variants: hasVariants }),
});
const ASSETS = new Map<number, AssetTarget>([
  [1, asset(PORTRAIT, 'Sildar', 600, 800, 1)],
  [2, asset(MAP, 'Map', 2400, 1200, 1)],
  [3, asset(OLD, 'Old', 1200, 900, 0)],
]);

function context(links?: RenderContext['links']): RenderContext {
  return {
    campaignSlug: 'c',
    showSecrets: true,
    things: { byId: new Map(), bySlug: new Map() },
    arcs: { byId: new Map(), bySlug: new Map() },
    assets: { byId: ASSETS, byUrl: new Map([...ASSETS.values()].map((a) => [a.url, a])) },
    links,
  };
}

const image = (assetId: number) => ({ type: 'image', url: 'https://stale.example.test/x.png', assetId, children: [{ text: '' }] });
const p = (text: string) => ({ type: 'paragraph', children: [{ text }] });
const html = (value: unknown[], ctx = context()) => renderRichText(value as RichText, 'html', ctx);

describe('rendered images', () => {
  it('the first is eager and first in line, with its variants as srcset; the original is not repeated at its own width', () => {
    expect(html([p('Intro'), image(1), image(2), image(3)])).toBe(
      '<p>Intro</p>' +
        `<figure><img src="${PORTRAIT}" alt="Sildar" width="600" height="800" srcset="${PORTRAIT.replace('.png', '-480.webp')} 480w, ${PORTRAIT.replace('.png', '-960.webp')} 600w" sizes="min(100vw, 600px)" fetchpriority="high"><figcaption>Sildar</figcaption></figure>` +
        `<figure><img src="${MAP}" alt="Map" width="2400" height="1200" srcset="${MAP.replace('.jpg', '-480.webp')} 480w, ${MAP.replace('.jpg', '-960.webp')} 960w, ${MAP.replace('.jpg', '-1600.webp')} 1600w, ${MAP} 2400w" sizes="min(100vw, 832px)" loading="lazy"><figcaption>Map</figcaption></figure>` +
        `<figure><img src="${OLD}" alt="Old" width="1200" height="900" loading="lazy"><figcaption>Old</figcaption></figure>`,
    );
  });

  it('an image inside a list or a secret section is first too, and an image in the text convention has its variants', () => {
    const value = [{ type: 'bulleted-list', children: [{ type: 'list-item', children: [image(3)] }] }, p(`![x](${PORTRAIT})`)];
    const out = html(value);
    expect(out.match(/fetchpriority="high"/g)).toHaveLength(1);
    expect(out.indexOf('fetchpriority')).toBeLessThan(out.indexOf(PORTRAIT));
    expect(out).toContain(`${PORTRAIT.replace('.png', '-960.webp')} 600w" sizes="min(100vw, 600px)" loading="lazy">`);
  });

  it('an export that links its own files names no variants', () => {
    const links = { mention: () => '#', asset: () => 'images/sildar.png' };
    expect(html([image(1)], context(links))).toBe('<figure><img src="images/sildar.png" alt="Sildar" width="600" height="800" fetchpriority="high"><figcaption>Sildar</figcaption></figure>');
  });
});

describe('variantsFor', () => {
  it('any image: widths rise, none wider than the original, the last at its full width unless it is wider than the largest slot, heights in proportion', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20_000 }), fc.integer({ min: 1, max: 20_000 }), (width, height) => {
        const variants = variantsFor({ width, height });
        expect(variants.length).toBeGreaterThan(0);
        for (const [i, v] of variants.entries()) {
          expect(v.width).toBeLessThanOrEqual(width);
          expect(v.slot).toBe(VARIANT_SLOTS[i]);
          expect(v.height).toBeGreaterThanOrEqual(1);
          const exact = (height * v.width) / width;
          expect(Math.abs(v.height - Math.max(1, exact))).toBeLessThanOrEqual(0.5);
          if (i > 0) expect(v.width).toBeGreaterThan(variants[i - 1]!.width);
        }
        expect(variants[variants.length - 1]!.width).toBe(Math.min(width, VARIANT_SLOTS[VARIANT_SLOTS.length - 1]!));
      }),
    );
  });
});
