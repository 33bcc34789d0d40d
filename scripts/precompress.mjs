// Precompression of the built web app (CONTRACT "The web app, phase 3"): next to every compressible
// file of at least PRECOMPRESS_MIN_BYTES, file.br (Brotli, quality 11) and file.gz (gzip, level 9),
// which the server sends by Accept-Encoding (@fastify/static's preCompressed, src/http/web-app.ts).
// A compressed copy that would not be smaller is not written. The root index.html is left out: the
// server adds a nonce to it per answer and compresses it then.
//   node scripts/precompress.mjs DIR     (scripts/build.mjs calls precompress() after Vite)
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

export const PRECOMPRESS_MIN_BYTES = 1024;
const COMPRESSIBLE = /\.(?:js|mjs|cjs|css|html|svg|json|map|txt|xml|webmanifest|ico|wasm|md)$/i;

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

async function filesUnder(dir) {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

/** Writes the .br and .gz copies under `dir`; returns what it wrote, file by file. */
export async function precompress(dir) {
  const files = (await filesUnder(dir)).filter((file) => COMPRESSIBLE.test(file) && file !== path.join(dir, 'index.html'));
  const written = [];
  await Promise.all(
    files.map(async (file) => {
      const bytes = await readFile(file);
      if (bytes.length < PRECOMPRESS_MIN_BYTES) return;
      const [br, gz] = await Promise.all([
        brotli(bytes, {
          params: {
            [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
            [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
            [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
          },
        }),
        gzip(bytes, { level: 9 }),
      ]);
      const entry = { file: path.relative(dir, file), bytes: bytes.length };
      if (br.length < bytes.length) {
        await writeFile(`${file}.br`, br);
        entry.br = br.length;
      }
      if (gz.length < bytes.length) {
        await writeFile(`${file}.gz`, gz);
        entry.gz = gz.length;
      }
      written.push(entry);
    }),
  );
  return written.sort((a, b) => a.file.localeCompare(b.file));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: node scripts/precompress.mjs DIR');
  for (const entry of await precompress(dir)) process.stdout.write(`${entry.file}\t${entry.bytes}\tbr ${entry.br ?? '-'}\tgz ${entry.gz ?? '-'}\n`);
}
