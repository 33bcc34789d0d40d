import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { html, IMAGES, png, pngOfSize, svg, heic } from '../fixtures/images.js';
import { call, filesUnder, form, premiumUser, startImageApp, type ImageApp } from '../fixtures/image-app.js';
import type { TestUser } from '../support/app.js';

// The local image host end to end, over real HTTP on 127.0.0.1: grant, upload (PUT and multipart),
// confirm, fetch the image back, list, delete; and every way an upload can go wrong.

const LIMIT = 4096;
let app: ImageApp;
let gm: TestUser;
let campaign: { id: number; slug: string };

beforeAll(async () => {
  app = await startImageApp({ MAX_UPLOAD_BYTES: String(LIMIT) });
  gm = await premiumUser(app.ctx);
  campaign = (await call(`${app.base}/api/campaigns`, { user: gm, json: { newCampaign: { name: 'Images' } } })).body;
});
afterAll(() => app.close());

const api = (rest: string) => `${app.base}/api/campaigns/${campaign.slug}/assets${rest}`;

async function grant(label = 'A map') {
  const res = await call(api('/upload-url'), { user: gm, json: { label } });
  expect(res.status).toBe(200);
  return res.body as { success: true; uploadURL: string; imageId: string };
}

function tmpFiles() {
  return filesUnder(path.join(app.imagesDir, '.tmp'));
}

function campaignFiles(id = campaign.id) {
  return filesUnder(path.join(app.imagesDir, String(id)));
}

async function grantRow(imageId: string) {
  return app.ctx.database.kysely.selectFrom('upload_grants').selectAll().where('id', '=', imageId).executeTakeFirst();
}

/** After a refused upload: nothing on disk for it, and the grant still takes an upload. */
async function expectNothingKept(imageId: string) {
  expect(tmpFiles()).toEqual([]);
  expect(campaignFiles().filter((f) => f.startsWith(imageId))).toEqual([]);
  expect((await grantRow(imageId))?.uploaded_at).toBeNull();
}

describe('the local image host over HTTP', () => {
  it('runs the whole flow: grant, PUT, confirm, fetch back byte for byte, list, delete', async () => {
    const granted = await grant('The Sword Coast');
    expect(Object.keys(granted).sort()).toEqual(['imageId', 'success', 'uploadURL']);
    expect(granted.imageId).toMatch(/^[0-9a-f]{32}$/);
    expect(granted.uploadURL).toBe(`${app.base}/images/uploads/${campaign.id}/${granted.imageId}`);

    const bytes = png([10, 20, 30, 255]);
    const put = await call(granted.uploadURL, { method: 'PUT', body: bytes, headers: { 'content-type': 'image/png' } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ imageId: granted.imageId, contentType: 'image/png', byteSize: bytes.length });
    expect(put.headers.get('access-control-allow-origin')).toBe('*');
    expect(tmpFiles()).toEqual([]);

    const confirmed = await call(api('/confirm-upload'), { user: gm, json: { imageId: granted.imageId, label: '  The Sword Coast, north  ' } });
    expect(confirmed.status).toBe(200);
    const { url, asset } = confirmed.body;
    expect(Object.keys(confirmed.body).sort()).toEqual(['asset', 'success', 'url']);
    expect(confirmed.body.success).toBe(true);
    expect(url).toBe(`${app.base}/images/${campaign.id}/${granted.imageId}.png`);
    expect(asset).toEqual({
      id: expect.any(Number),
      label: 'The Sword Coast, north',
      imageHostId: granted.imageId,
      url,
      campaignId: campaign.id,
      userId: gm.id,
      // A 1×1 PNG: its size read from its header.
      width: 1,
      height: 1,
      // Its one WebP variant, at its full width (images/variants.ts).
      variants: [{ width: 1, height: 1, url: url.replace(/\.png$/, '-480.webp') }],
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });

    const image = await call(url);
    expect(image.status).toBe(200);
    expect(image.bytes.equals(bytes)).toBe(true);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(image.headers.get('content-length')).toBe(String(bytes.length));
    expect(image.headers.get('x-content-type-options')).toBe('nosniff');
    expect(image.headers.get('content-security-policy')).toBe("default-src 'none'");
    expect(image.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const etag = image.headers.get('etag');
    expect(etag).toBe(`"${granted.imageId}"`);
    const again = await call(url, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(again.bytes.length).toBe(0);
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('image/png');

    const list = await call(api(''), { user: gm });
    expect(list.status).toBe(200);
    expect(list.body).toContainEqual(asset);

    const del = await call(api(`/${asset.id}`), { method: 'DELETE', user: gm });
    expect(del.status).toBe(204);
    // In the trash the image stays where it was (a restore brings the asset back whole) …
    expect((await call(url)).status).toBe(200);
    expect((await call(api(''), { user: gm })).body).not.toContainEqual(asset);
    // … until the entry is erased.
    const erase = await call(`${api('').replace(/\/assets$/, '')}/trash/asset/${asset.id}`, { method: 'DELETE', user: gm });
    expect(erase.status).toBe(204);
    expect((await call(url)).status).toBe(404);
    expect(campaignFiles().filter((f) => f.startsWith(granted.imageId))).toEqual([]);
    expect((await call(api(''), { user: gm })).body).not.toContainEqual(asset);
    expect(await app.ctx.database.kysely.selectFrom('image_removals').selectAll().execute()).toEqual([]);
  });

  it('accepts a multipart upload with a "file" field, whatever its declared name and type', async () => {
    const granted = await grant();
    const bytes = IMAGES.webp.bytes;
    const post = await call(granted.uploadURL, { method: 'POST', body: form(bytes, 'holiday.txt', 'text/plain') });
    expect(post.status).toBe(200);
    expect(post.body.contentType).toBe('image/webp');
    const confirmed = await call(api('/confirm-upload'), { user: gm, json: { imageId: granted.imageId, label: 'Multipart' } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.url).toMatch(/\.webp$/);
    const image = await call(confirmed.body.url);
    expect(image.bytes.equals(bytes)).toBe(true);
    expect(image.headers.get('content-type')).toBe('image/webp');
  });

  it.each(Object.entries(IMAGES))('stores and serves %s with its detected type', async (_name, { bytes, mime, ext }) => {
    const granted = await grant();
    // Declared as something else entirely: the bytes decide.
    const put = await call(granted.uploadURL, { method: 'PUT', body: bytes, headers: { 'content-type': 'application/octet-stream' } });
    expect(put.status).toBe(200);
    const confirmed = await call(api('/confirm-upload'), { user: gm, json: { imageId: granted.imageId, label: 'x' } });
    expect(confirmed.body.url).toBe(`${app.base}/images/${campaign.id}/${granted.imageId}.${ext}`);
    const image = await call(confirmed.body.url);
    expect(image.headers.get('content-type')).toBe(mime);
    expect(image.bytes.equals(bytes)).toBe(true);
  });

  it.each([
    ['an HTML file named .png', html(), 'page.png', 'image/png'],
    ['an SVG', svg(), 'drawing.svg', 'image/svg+xml'],
    ['a HEIC photo', heic(), 'photo.heic', 'image/heic'],
    ['a zero-byte file', Buffer.alloc(0), 'empty.png', 'image/png'],
  ])('refuses %s with 415, by PUT and by multipart, keeping nothing', async (_name, bytes, filename, type) => {
    const granted = await grant();
    const put = await call(granted.uploadURL, { method: 'PUT', body: bytes, headers: { 'content-type': type } });
    expect(put.status).toBe(415);
    expect(put.body).toMatchObject({ status: 415, code: 'unsupported_image_type' });
    expect(put.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    await expectNothingKept(granted.imageId);
    const post = await call(granted.uploadURL, { method: 'POST', body: form(bytes, filename, type) });
    expect(post.status).toBe(415);
    await expectNothingKept(granted.imageId);
    const confirm = await call(api('/confirm-upload'), { user: gm, json: { imageId: granted.imageId, label: 'x' } });
    expect(confirm.status).toBe(400);
    expect(confirm.body).toMatchObject({ code: 'upload_not_completed', success: false });
    // The grant still takes a good file.
    expect((await call(granted.uploadURL, { method: 'PUT', body: png() })).status).toBe(200);
  });

  it('takes a file of exactly the limit and refuses one byte more (declared length, chunked, multipart)', async () => {
    const exact = await grant();
    expect((await call(exact.uploadURL, { method: 'PUT', body: pngOfSize(LIMIT) })).status).toBe(200);

    const over = await grant();
    const declared = await call(over.uploadURL, { method: 'PUT', body: pngOfSize(LIMIT + 1) });
    expect(declared.status).toBe(413);
    expect(declared.body).toMatchObject({ code: 'image_too_large' });
    await expectNothingKept(over.imageId);

    // No Content-Length: the limit is enforced while streaming.
    const chunked = await putChunked(over.uploadURL, [pngOfSize(LIMIT + 1).subarray(0, 2000), pngOfSize(LIMIT + 1).subarray(2000)]);
    expect(chunked.status).toBe(413);
    await expectNothingKept(over.imageId);

    const multipart = await call(over.uploadURL, { method: 'POST', body: form(pngOfSize(LIMIT + 1)) });
    expect(multipart.status).toBe(413);
    await expectNothingKept(over.imageId);
    const exactMultipart = await call(over.uploadURL, { method: 'POST', body: form(pngOfSize(LIMIT)) });
    expect(exactMultipart.status).toBe(200);
  });

  it('takes one upload per grant; a second gets 409 and changes nothing', async () => {
    const granted = await grant();
    const first = png([1, 2, 3, 255]);
    expect((await call(granted.uploadURL, { method: 'PUT', body: first })).status).toBe(200);
    const second = await call(granted.uploadURL, { method: 'PUT', body: IMAGES.gif.bytes });
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('upload_already_received');
    expect(campaignFiles().filter((f) => f.startsWith(granted.imageId))).toEqual([`${granted.imageId}.png`]);
    expect(tmpFiles()).toEqual([]);
  });

  it('lets exactly one of two simultaneous uploads to one URL win', async () => {
    const granted = await grant();
    const results = await Promise.all([
      call(granted.uploadURL, { method: 'PUT', body: png() }),
      call(granted.uploadURL, { method: 'PUT', body: IMAGES.gif.bytes }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(campaignFiles().filter((f) => f.startsWith(granted.imageId))).toHaveLength(1);
    expect(tmpFiles()).toEqual([]);
  });

  it('answers 404 to an expired, unknown, forged or path-like upload URL, reading nothing', async () => {
    const expired = await grant();
    await app.ctx.database.kysely.updateTable('upload_grants').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', expired.imageId).execute();
    const urls = [
      expired.uploadURL,
      `${app.base}/images/uploads/${campaign.id}/${'0'.repeat(32)}`,
      `${app.base}/images/uploads/${campaign.id}/..%2Fx`,
      `${app.base}/images/uploads/${campaign.id}/..%2F..%2F..%2Fetc%2Fpasswd`,
      `${app.base}/images/uploads/${campaign.id}/${expired.imageId.toUpperCase()}`,
      `${app.base}/images/uploads/${campaign.id + 1000}/${expired.imageId}`,
      `${app.base}/images/uploads/0/${expired.imageId}`,
      `${app.base}/images/uploads/99999999999/${expired.imageId}`,
    ];
    for (const url of urls) {
      const res = await call(url, { method: 'PUT', body: png() });
      expect(res.status, url).toBe(404);
      expect(res.body.code).toBe('upload_url_not_found');
    }
    expect(tmpFiles()).toEqual([]);
    expect(filesUnder(app.imagesDir).filter((f) => f.includes(expired.imageId))).toEqual([]);
  });

  it('answers 400 to a form without a file field and 415 to a POST that is not a form', async () => {
    const granted = await grant();
    const noFile = await call(granted.uploadURL, { method: 'POST', body: form(png(), 'x.png', 'image/png', 'picture') });
    expect(noFile.status).toBe(400);
    const raw = await call(granted.uploadURL, { method: 'POST', body: png(), headers: { 'content-type': 'image/png' } });
    expect(raw.status).toBe(415);
    await expectNothingKept(granted.imageId);
  });

  it('keeps nothing of an upload whose client disconnects halfway, and takes a retry', async () => {
    const granted = await grant();
    const full = pngOfSize(LIMIT);
    const url = new URL(granted.uploadURL);
    const request = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'PUT', headers: { 'content-length': String(full.length) } });
    request.on('error', () => {});
    request.write(full.subarray(0, LIMIT / 2));
    // The server has begun writing the temporary file…
    await vi.waitFor(() => expect(tmpFiles()).toHaveLength(1), { timeout: 5000, interval: 10 });
    request.destroy();
    // …and removes it once it notices the client is gone.
    await vi.waitFor(() => expect(tmpFiles()).toEqual([]), { timeout: 5000, interval: 10 });
    await expectNothingKept(granted.imageId);
    expect((await call(granted.uploadURL, { method: 'PUT', body: full })).status).toBe(200);
  });

  it('answers a CORS preflight for the upload URL', async () => {
    const granted = await grant();
    const res = await fetch(granted.uploadURL, { method: 'OPTIONS', headers: { origin: 'https://planner.example', 'access-control-request-method': 'PUT' } });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toMatch(/PUT/);
  });

  it('answers 404 for images that do not exist or names that are not image names', async () => {
    for (const name of [`${'a'.repeat(32)}.png`, `${'a'.repeat(32)}.svg`, '..%2F..%2Floreforge.sqlite', `.tmp`, `${'a'.repeat(32)}`]) {
      const res = await call(`${app.base}/images/${campaign.id}/${name}`);
      expect(res.status, name).toBe(404);
    }
    expect((await call(`${app.base}/images/.tmp/x`)).status).toBe(404);
  });
});

function putChunked(target: string, chunks: Buffer[]): Promise<{ status: number; body: any }> {
  const url = new URL(target);
  return new Promise((resolve, reject) => {
    const request = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'PUT', headers: { 'transfer-encoding': 'chunked' } }, (response) => {
      const parts: Buffer[] = [];
      response.on('data', (c: Buffer) => parts.push(c));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString('utf8') || 'null') }));
    });
    request.on('error', reject);
    for (const chunk of chunks) request.write(chunk);
    request.end();
  });
}
