import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FORMAT_BY_EXT, IMAGE_FORMATS, SNIFF_BYTES, sniffImage } from '../../src/images/sniff.js';
import { avif, gif, heic, html, jpeg, png, pngOfSize, svg, webp } from '../fixtures/images.js';

describe('sniffImage', () => {
  it.each([
    ['png', png()],
    ['jpeg', jpeg()],
    ['gif', gif()],
    ['webp', webp()],
    ['avif', avif()],
  ] as const)('recognises %s from its bytes', async (format, bytes) => {
    expect(await sniffImage(bytes)).toBe(format);
  });

  it('recognises an AVIF whose major brand is mif1 by its compatible brands', async () => {
    expect(await sniffImage(avif('mif1'))).toBe('avif');
  });

  it('needs only the first SNIFF_BYTES of a large file', async () => {
    const big = pngOfSize(100_000);
    expect(await sniffImage(big.subarray(0, SNIFF_BYTES))).toBe('png');
  });

  it.each([
    ['an empty file', Buffer.alloc(0)],
    ['HTML', html()],
    ['HTML with a BOM and whitespace', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('  \n'), html()])],
    ['SVG', svg()],
    ['SVG without an XML declaration', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')],
    ['HEIC', heic()],
    ['plain text', Buffer.from('just some words')],
    ['a PDF', Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj\n')],
    ['a ZIP', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00])],
    ['HTML after a PNG-looking prefix that is not a signature', Buffer.concat([Buffer.from([0x89, 0x50, 0x4e]), html()])],
    ['"GIF" followed by garbage', Buffer.from('GIF<script>alert(1)</script>')],
    ['a RIFF file that is not WebP', Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ')],
    ['a RIFF/WEBP header without a known chunk', Buffer.from('RIFF\x24\x00\x00\x00WEBP<htm')],
    ['a JPEG marker alone', Buffer.from([0xff, 0xd8])],
  ])('refuses %s', async (_name, bytes) => {
    expect(await sniffImage(bytes)).toBeUndefined();
  });

  it('never throws and only ever answers one of the five formats, whatever the bytes', async () => {
    const formats = Object.keys(IMAGE_FORMATS);
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 256 }), async (bytes) => {
        const found = await sniffImage(bytes);
        expect(found === undefined || formats.includes(found)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a signature recognised whatever follows it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 512 }), async (tail) => {
        expect(await sniffImage(Buffer.concat([png(), tail]))).toBe('png');
        expect(await sniffImage(Buffer.concat([gif(), tail]))).toBe('gif');
      }),
      { numRuns: 100 },
    );
  });

  it('maps every stored extension back to its format', () => {
    for (const [format, { ext }] of Object.entries(IMAGE_FORMATS)) expect(FORMAT_BY_EXT.get(ext)).toBe(format);
    expect(FORMAT_BY_EXT.size).toBe(5);
  });
});
