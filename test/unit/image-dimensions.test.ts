import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readDimensions } from '../../src/images/dimensions.js';
import { sniffImage, type ImageFormat } from '../../src/images/sniff.js';
import { gifSized, jpegSized, pngClaiming, pngSized, webpSized } from '../fixtures/images.js';

// readDimensions reads a header and nothing else: any bytes give a size a browser can use
// (whole pixels, 1 to 2^31 - 1, which both databases store) or null, and never an exception.

const FORMATS: ImageFormat[] = ['png', 'jpeg', 'gif', 'webp', 'avif'];
const side = fc.integer({ min: 1, max: 16_383 });
const makers: [ImageFormat, (w: number, h: number) => Buffer][] = [
  ['png', pngClaiming],
  ['jpeg', (w, h) => jpegSized(w, h)],
  ['gif', gifSized],
  ['webp', webpSized],
];

function expectUsable(size: ReturnType<typeof readDimensions>): void {
  if (size === null) return;
  for (const n of [size.width, size.height]) {
    expect(Number.isInteger(n)).toBe(true);
    expect(n).toBeGreaterThanOrEqual(1);
    expect(n).toBeLessThanOrEqual(2_147_483_647);
  }
}

describe('image dimensions from header bytes', () => {
  it('are exactly what each format’s header says', () => {
    fc.assert(
      fc.property(side, side, fc.constantFrom(...makers), (w, h, [format, make]) => {
        expect(readDimensions(make(w, h), format)).toEqual({ width: w, height: h });
      }),
    );
  });

  it('are a usable size or null for any bytes, whole or cut short, under any format, and never throw', () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 200 }),
      fc.tuple(side, side, fc.constantFrom(...makers), fc.nat()).map(([w, h, [, make], cut]) => {
        const whole = make(w, h);
        return whole.subarray(0, cut % (whole.length + 1));
      }),
      // A real header with its bytes after the signature scrambled.
      fc.tuple(fc.constantFrom(...makers), fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.nat()).map(([[, make], noise, at]) => {
        const image = Buffer.from(make(640, 480));
        const offset = 8 + (at % (image.length - 8));
        image.set(noise.subarray(0, image.length - offset), offset);
        return image;
      }),
    );
    fc.assert(
      fc.property(bytes, fc.constantFrom(...FORMATS), (input, format) => {
        expectUsable(readDimensions(input, format));
      }),
      { numRuns: 2000 },
    );
  });

  it('are null when the header names another format than the one the bytes were accepted as', async () => {
    const png = pngSized(3, 2);
    expect(await sniffImage(png)).toBe('png');
    expect(readDimensions(png, 'jpeg')).toBeNull();
    expect(readDimensions(gifSized(5, 5), 'webp')).toBeNull();
  });
});
