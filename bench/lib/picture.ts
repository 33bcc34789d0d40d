// Pictures for the web benchmark: RGB PNGs of a given size, built in code (no binary files), with
// smooth shapes and some grain so they weigh what a GM's uploaded portrait or map weighs (hundreds
// of KB), not the few bytes of a flat image.
import { deflateSync } from 'node:zlib';
import { pngChunk as chunk } from '../../test/fixtures/images.js';

/** A `width`×`height` RGB PNG: waves of colour that depend on `seed`, with a grain on one pixel in 64 (about 0.5 bytes a pixel). */
export function picture(width: number, height: number, seed: number): Buffer {
  const row = 1 + width * 3;
  const raw = Buffer.alloc(row * height);
  let state = seed * 2654435761 + 1;
  const noise = () => {
    state = (state * 1103515245 + 12345) >>> 0;
    return ((state >>> 16) & 63) === 0 ? 3 : 0;
  };
  for (let y = 0; y < height; y++) {
    raw[y * row] = 0;
    for (let x = 0; x < width; x++) {
      const at = y * row + 1 + x * 3;
      const wave = Math.sin(x / (40 + seed * 7) + seed) * Math.cos(y / (55 + seed * 5));
      const ridge = Math.sin((x + y) / 90 + seed * 2);
      raw[at] = Math.max(0, Math.min(255, (Math.round(30 + 22 * wave) << 2) + noise()));
      raw[at + 1] = Math.max(0, Math.min(255, (Math.round(28 + 18 * ridge) << 2) + noise()));
      raw[at + 2] = Math.max(0, Math.min(255, (Math.round(22 + 15 * wave * ridge) << 2)));
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
