// The web app served compressed (src/http/web-app.ts): the build's .br and .gz copies
// (scripts/precompress.mjs, run here on a stand-in build as `npm run build` runs it) sent by
// Accept-Encoding with the file's own type and the copy's length and ETag, falling back to the
// file itself; and the page's HTML, which carries a nonce per answer, compressed as it is sent.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { AppInstance } from '../../src/http/app-types.js';
import { buildCheckedApp } from '../support/app.js';
import { createTestDatabase, dialect, type TestDatabase } from '../support/test-db.js';

// Large enough to be compressed (over 1 KiB), as a built bundle and stylesheet are.
const SCRIPT = Array.from({ length: 200 }, (_, i) => `export const npc${i} = { name: "Goblin ${i}", hp: ${i % 13} };`).join('\n');
const STYLE = Array.from({ length: 80 }, (_, i) => `.sheet-${i} { margin: ${i}px; color: var(--ink); }`).join('\n');
const TINY = 'console.log(1);\n';
const HTML = `<!doctype html>\n<html lang="en">\n  <head>\n    <script type="module" crossorigin src="/assets/index-abc123.js"></script>\n  </head>\n  <body><div id="root"></div><!--${'padding '.repeat(200)}--></body>\n</html>\n`;
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

let root: string;
let database: TestDatabase;
let app: AppInstance;
let written: string;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-web-z-'));
  fs.mkdirSync(path.join(root, 'assets'));
  fs.writeFileSync(path.join(root, 'index.html'), HTML);
  fs.writeFileSync(path.join(root, 'assets', 'index-abc123.js'), SCRIPT);
  fs.writeFileSync(path.join(root, 'assets', 'gz-only-abc123.js'), SCRIPT);
  fs.writeFileSync(path.join(root, 'assets', 'index-abc123.css'), STYLE);
  fs.writeFileSync(path.join(root, 'assets', 'tiny-abc123.js'), TINY);
  fs.writeFileSync(path.join(root, 'assets', 'map-abc123.png'), PNG);
  written = execFileSync(process.execPath, ['scripts/precompress.mjs', root], { encoding: 'utf8' });
  fs.rmSync(path.join(root, 'assets', 'gz-only-abc123.js.br'));
  database = await createTestDatabase();
  app = await buildCheckedApp(loadConfig({ LOG_LEVEL: 'silent' }), { database, logger: false, webRoot: root });
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await database.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const asset = (name: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') => app.inject({ method, url: `/assets/${name}`, headers });
const onDisk = (name: string) => fs.readFileSync(path.join(root, 'assets', name));

function decoded(res: LightMyRequestResponse): Buffer {
  const encoding = res.headers['content-encoding'];
  if (encoding === 'br') return zlib.brotliDecompressSync(res.rawPayload);
  if (encoding === 'gzip') return zlib.gunzipSync(res.rawPayload);
  expect(encoding).toBeUndefined();
  return res.rawPayload;
}

describe(`the web app's compressed files on ${dialect}`, () => {
  it('the build writes .br and .gz beside every compressible file of 1 KiB or more, and nothing else', () => {
    const names = fs.readdirSync(path.join(root, 'assets')).sort();
    expect(names).toEqual(['gz-only-abc123.js', 'gz-only-abc123.js.gz', 'index-abc123.css', 'index-abc123.css.br', 'index-abc123.css.gz', 'index-abc123.js', 'index-abc123.js.br', 'index-abc123.js.gz', 'map-abc123.png', 'tiny-abc123.js']);
    expect(fs.existsSync(path.join(root, 'index.html.br'))).toBe(false);
    expect(zlib.brotliDecompressSync(onDisk('index-abc123.js.br')).toString()).toBe(SCRIPT);
    expect(zlib.gunzipSync(onDisk('index-abc123.css.gz')).toString()).toBe(STYLE);
    expect(written).toContain(`assets/index-abc123.js\t${SCRIPT.length}\tbr ${onDisk('index-abc123.js.br').length}\tgz ${onDisk('index-abc123.js.gz').length}`);
  });

  it('sends the .br copy to a client that takes br (preferred), the .gz to one that takes gzip, the file to others', async () => {
    const plain = await asset('index-abc123.js');
    for (const [accept, encoding] of [
      ['gzip, deflate, br, zstd', 'br'],
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
      ['gzip;q=0.5, br;q=0.4', 'gzip'],
      ['identity', undefined],
      ['br;q=0, gzip;q=0', undefined],
      ['', undefined],
    ] as const) {
      const res = await asset('index-abc123.js', { 'accept-encoding': accept });
      expect(res.statusCode, accept).toBe(200);
      expect(res.headers['content-encoding'], accept).toBe(encoding);
      expect(res.headers['content-type']).toBe(plain.headers['content-type']);
      expect(res.headers['content-type']).toMatch(/^(?:application|text)\/javascript/);
      expect(res.headers.vary).toMatch(/accept-encoding/);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['content-security-policy']).toBe(plain.headers['content-security-policy']);
      const file = encoding === undefined ? 'index-abc123.js' : `index-abc123.js.${encoding === 'br' ? 'br' : 'gz'}`;
      expect(Number(res.headers['content-length'])).toBe(onDisk(file).length);
      expect(decoded(res).toString()).toBe(SCRIPT);
      if (encoding !== undefined) expect(res.headers.etag).not.toBe(plain.headers.etag);
    }
    const css = await asset('index-abc123.css', { 'accept-encoding': 'br' });
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    expect(decoded(css).toString()).toBe(STYLE);
  });

  it('falls back to the next encoding, then to the file, when a copy is missing', async () => {
    const gz = await asset('gz-only-abc123.js', { 'accept-encoding': 'br, gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(decoded(gz).toString()).toBe(SCRIPT);
    const brOnly = await asset('gz-only-abc123.js', { 'accept-encoding': 'br' });
    expect(brOnly.headers['content-encoding']).toBeUndefined();
    expect(brOnly.body).toBe(SCRIPT);
    for (const name of ['tiny-abc123.js', 'map-abc123.png']) {
      const res = await asset(name, { 'accept-encoding': 'br, gzip' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.rawPayload.equals(onDisk(name))).toBe(true);
      expect(res.headers.vary).toMatch(/accept-encoding/);
    }
    expect((await asset('missing-abc123.js', { 'accept-encoding': 'br' })).statusCode).toBe(404);
  });

  it('answers HEAD with the compressed copy’s headers and 304 to its own ETag only', async () => {
    const br = await asset('index-abc123.js', { 'accept-encoding': 'br' });
    const head = await asset('index-abc123.js', { 'accept-encoding': 'br' }, 'HEAD');
    expect(head.statusCode).toBe(200);
    expect(head.rawPayload.length).toBe(0);
    expect(head.headers['content-encoding']).toBe('br');
    expect(head.headers['content-length']).toBe(br.headers['content-length']);
    expect(head.headers.etag).toBe(br.headers.etag);
    const notModified = await asset('index-abc123.js', { 'accept-encoding': 'br', 'if-none-match': br.headers.etag as string });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.rawPayload.length).toBe(0);
    // The br copy's tag does not validate the gzip copy: that is sent in full.
    const gzip = await asset('index-abc123.js', { 'accept-encoding': 'gzip', 'if-none-match': br.headers.etag as string });
    expect(gzip.statusCode).toBe(200);
    expect(gzip.headers['content-encoding']).toBe('gzip');
  });

  it('compresses the page as it sends it, its nonce and CSP as without', async () => {
    for (const accept of ['br', 'gzip', 'identity']) {
      const res = await app.inject({ method: 'GET', url: '/campaigns/lost-mine', headers: { 'accept-encoding': accept } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-encoding']).toBe(accept === 'identity' ? undefined : accept);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers.vary).toMatch(/accept-encoding/);
      const page = decoded(res).toString();
      const nonce = /<meta name="csp-nonce" content="([A-Za-z0-9+/=]+)">/.exec(page)?.[1];
      expect(page).toBe(HTML.replace('</head>', `<meta name="csp-nonce" content="${nonce}">\n  </head>`));
      expect(res.headers['content-security-policy']).toContain(`style-src 'self' 'nonce-${nonce}'`);
    }
  });
});
