import { createHash, createHmac } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { sweepUploads } from '../../src/images/uploads.js';
import { call, IN_A_YEAR, premiumUser } from '../fixtures/image-app.js';
import { html, IMAGES, png, pngOfSize, pngSized } from '../fixtures/images.js';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { minimalDoc, multipartFile, zipOf } from '../support/zip.js';

// The S3 image host against s3rver (an S3-compatible server) started here on 127.0.0.1. s3rver
// checks no signatures, so the presigned URL is checked by reading it: method (by recomputing the
// signature), key and expiry.

const LIMIT = 4096;
const BUCKET = 'loreforge';
const KEY_ID = 'S3RVER';
const SECRET = 'S3RVER';

let s3dir: string;
let s3: S3rver;
let endpoint: string;
let ctx: TestContext;
let gm: TestUser;
let campaign: { id: number; slug: string };

function s3Env(endpointUrl: string): Record<string, string> {
  return {
    IMAGE_HOST: 's3',
    S3_ENDPOINT: endpointUrl,
    S3_BUCKET: BUCKET,
    S3_REGION: 'eu-west-1',
    S3_ACCESS_KEY_ID: KEY_ID,
    S3_SECRET_ACCESS_KEY: SECRET,
    S3_FORCE_PATH_STYLE: 'true',
    MAX_UPLOAD_BYTES: String(LIMIT),
  };
}

beforeAll(async () => {
  s3dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-s3rver-'));
  s3 = new S3rver({ port: 0, address: '127.0.0.1', directory: s3dir, silent: true, configureBuckets: [{ name: BUCKET }] });
  const address = await s3.run();
  endpoint = `http://127.0.0.1:${address.port}`;
  ctx = await createTestContext(s3Env(endpoint));
  gm = await premiumUser(ctx);
  campaign = json(await ctx.app.inject({ method: 'POST', url: '/api/campaigns', headers: gm.headers, payload: { newCampaign: { name: 'S3' } } }));
});
afterAll(async () => {
  await ctx?.close();
  await s3?.close();
  fs.rmSync(s3dir, { recursive: true, force: true });
});

function post(route: 'upload-url' | 'confirm-upload', payload: object, app = ctx, slug = campaign.slug) {
  return app.app.inject({ method: 'POST', url: `/api/campaigns/${slug}/assets/${route}`, headers: gm.headers, payload });
}

async function grant(app = ctx, slug = campaign.slug): Promise<{ imageId: string; uploadURL: string }> {
  const res = await post('upload-url', { label: 'A map' }, app, slug);
  expect(res.statusCode, res.body).toBe(200);
  return json(res);
}

const objectUrl = (key: string) => `${endpoint}/${BUCKET}/${key}`;
const stagingKey = (imageId: string, campaignId = campaign.id) => `uploads/${campaignId}/${imageId}`;

async function exists(key: string): Promise<boolean> {
  const res = await fetch(objectUrl(key), { method: 'HEAD' });
  return res.status === 200;
}

function rfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The SigV4 query signature of `url` for `method`, computed from the URL's own parameters. */
function sigV4(method: string, url: URL): string {
  const params = [...url.searchParams.entries()].filter(([k]) => k !== 'X-Amz-Signature');
  const query = params
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonical = [method, url.pathname, query, `host:${url.host}\n`, url.searchParams.get('X-Amz-SignedHeaders'), 'UNSIGNED-PAYLOAD'].join('\n');
  const amzDate = url.searchParams.get('X-Amz-Date')!;
  const [, date, region, service] = url.searchParams.get('X-Amz-Credential')!.split('/');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonical).digest('hex')].join('\n');
  let key: Buffer = createHmac('sha256', `AWS4${SECRET}`).update(date!).digest();
  for (const part of [region!, service!, 'aws4_request']) key = createHmac('sha256', key).update(part).digest();
  return createHmac('sha256', key).update(toSign).digest('hex');
}

describe('the S3 image host against s3rver', () => {
  it('hands out a presigned PUT for the staging key, expiring with the grant', async () => {
    expect(ctx.app.routeTable.some((r) => r.url.startsWith('/images'))).toBe(false);
    const { uploadURL, imageId } = await grant();
    const url = new URL(uploadURL);
    expect(url.origin).toBe(endpoint);
    expect(url.pathname).toBe(`/${BUCKET}/${stagingKey(imageId)}`);
    const q = url.searchParams;
    expect(q.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(q.get('X-Amz-SignedHeaders')).toBe('host');
    expect(q.get('X-Amz-Credential')).toMatch(new RegExp(`^${KEY_ID}/\\d{8}/eu-west-1/s3/aws4_request$`));
    const expires = Number(q.get('X-Amz-Expires'));
    expect(expires).toBeGreaterThan(1790);
    expect(expires).toBeLessThanOrEqual(1800);
    // No checksum the browser would have to send.
    expect([...q.keys()].filter((k) => /checksum/i.test(k))).toEqual([]);
    // The signature is that of a PUT of exactly this key, and of nothing else.
    const signature = q.get('X-Amz-Signature');
    expect(sigV4('PUT', url)).toBe(signature);
    expect(sigV4('GET', url)).not.toBe(signature);
    expect(sigV4('DELETE', url)).not.toBe(signature);
    const row = await ctx.database.kysely.selectFrom('upload_grants').selectAll().where('id', '=', imageId).executeTakeFirstOrThrow();
    const signedAt = Date.parse(q.get('X-Amz-Date')!.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'));
    expect(Math.abs(signedAt + expires * 1000 - Date.parse(row.expires_at))).toBeLessThan(2000);
  });

  it('runs the whole flow: PUT to the presigned URL, confirm, fetch back, list, delete', async () => {
    const { uploadURL, imageId } = await grant();
    const bytes = png([5, 6, 7, 255]);
    const put = await fetch(uploadURL, { method: 'PUT', body: bytes, headers: { 'content-type': 'text/html' } });
    expect(put.status).toBe(200);

    const res = await post('confirm-upload', { imageId, label: 'From the bucket' });
    expect(res.statusCode, res.body).toBe(200);
    const { url, asset } = json(res);
    const key = `images/${campaign.id}/${imageId}.png`;
    expect(url).toBe(objectUrl(key));
    expect(asset).toMatchObject({ imageHostId: imageId, url, label: 'From the bucket', campaignId: campaign.id, userId: gm.id, width: 1, height: 1 });

    const image = await call(url);
    expect(image.status).toBe(200);
    expect(image.bytes.equals(bytes)).toBe(true);
    // The public copy carries the detected type, not the one the uploader declared.
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(image.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await exists(stagingKey(imageId))).toBe(false);

    // A client keeping the presigned URL can only write the staging key, never the public image.
    await fetch(uploadURL, { method: 'PUT', body: html() });
    expect((await call(url)).bytes.equals(bytes)).toBe(true);

    const again = await post('confirm-upload', { imageId, label: 'Twice' });
    expect(json(again)).toEqual(json(res));
    const list = json(await ctx.app.inject({ method: 'GET', url: `/api/campaigns/${campaign.slug}/assets`, headers: gm.headers }));
    expect(list).toContainEqual(asset);

    const del = await ctx.app.inject({ method: 'DELETE', url: `/api/campaigns/${campaign.slug}/assets/${asset.id}`, headers: gm.headers });
    expect(del.statusCode).toBe(204);
    // In the trash the object stays, until the entry is erased.
    expect(await exists(key)).toBe(true);
    const erase = await ctx.app.inject({ method: 'DELETE', url: `/api/campaigns/${campaign.slug}/trash/asset/${asset.id}`, headers: gm.headers });
    expect(erase.statusCode).toBe(204);
    expect(await exists(key)).toBe(false);
    expect(await exists(stagingKey(imageId))).toBe(false);
  });

  it.each(Object.entries(IMAGES))('stores %s under its detected type', async (_name, { bytes, mime, ext }) => {
    const { uploadURL, imageId } = await grant();
    await fetch(uploadURL, { method: 'PUT', body: bytes });
    const res = await post('confirm-upload', { imageId, label: 'x' });
    expect(json(res).url).toBe(objectUrl(`images/${campaign.id}/${imageId}.${ext}`));
    expect((await call(json(res).url)).headers.get('content-type')).toBe(mime);
  });

  it('answers 400 upload_not_completed before anything was uploaded', async () => {
    const { imageId } = await grant();
    const res = await post('confirm-upload', { imageId, label: 'x' });
    expect(res.statusCode).toBe(400);
    expect(json(res)).toMatchObject({ code: 'upload_not_completed', success: false });
  });

  it.each([
    ['an HTML page', html()],
    ['an empty file', Buffer.alloc(0)],
    ['a file one byte over the limit', pngOfSize(LIMIT + 1)],
  ])('refuses %s at confirm, deleting the object; the grant then takes a good file', async (_name, bytes) => {
    const { uploadURL, imageId } = await grant();
    expect((await fetch(uploadURL, { method: 'PUT', body: bytes })).status).toBe(200);
    expect(await exists(stagingKey(imageId))).toBe(true);
    const res = await post('confirm-upload', { imageId, label: 'x' });
    expect(res.statusCode).toBe(400);
    expect(json(res)).toMatchObject({ code: 'upload_rejected', success: false });
    expect(await exists(stagingKey(imageId))).toBe(false);
    expect(await ctx.database.kysely.selectFrom('assets').select('id').where('image_id', '=', imageId).execute()).toEqual([]);

    await fetch(uploadURL, { method: 'PUT', body: pngOfSize(LIMIT) });
    const retry = await post('confirm-upload', { imageId, label: 'x' });
    expect(retry.statusCode).toBe(200);
    expect((await call(json(retry).url)).bytes.length).toBe(LIMIT);
  });

  it('erasing a deleted campaign removes its images and staged uploads from the bucket', async () => {
    const doomed = json(await ctx.app.inject({ method: 'POST', url: '/api/campaigns', headers: gm.headers, payload: { newCampaign: { name: 'Doomed' } } }));
    const done = await grant(ctx, doomed.slug);
    await fetch(done.uploadURL, { method: 'PUT', body: png() });
    const asset = json(await post('confirm-upload', { imageId: done.imageId, label: 'x' }, ctx, doomed.slug)).asset;
    const pending = await grant(ctx, doomed.slug);
    await fetch(pending.uploadURL, { method: 'PUT', body: png() });
    expect(await exists(`images/${doomed.id}/${asset.imageHostId}.png`)).toBe(true);
    expect(await exists(stagingKey(pending.imageId, doomed.id))).toBe(true);

    expect((await ctx.app.inject({ method: 'DELETE', url: `/api/campaigns/${doomed.slug}`, headers: gm.headers })).statusCode).toBe(204);
    // In its owner's trash nothing is removed; erased (now, or by the sweeper), everything is.
    expect(await exists(`images/${doomed.id}/${asset.imageHostId}.png`)).toBe(true);
    expect((await ctx.app.inject({ method: 'DELETE', url: `/api/trash/campaigns/${doomed.id}`, headers: gm.headers })).statusCode).toBe(204);
    expect(await exists(`images/${doomed.id}/${asset.imageHostId}.png`)).toBe(false);
    expect(await exists(stagingKey(pending.imageId, doomed.id))).toBe(false);
    expect(await ctx.database.kysely.selectFrom('image_removals').selectAll().execute()).toEqual([]);
  });

  it('sweeps the staged object of a grant that expired unconfirmed', async () => {
    const { uploadURL, imageId } = await grant();
    await fetch(uploadURL, { method: 'PUT', body: png() });
    await ctx.database.kysely.updateTable('upload_grants').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', imageId).execute();
    const result = await sweepUploads(ctx.database, ctx.app.imageHost, new Date(), ctx.app.log);
    expect(result.expiredGrants).toBeGreaterThanOrEqual(1);
    expect(result.removalsLeft).toBe(false);
    expect(await exists(stagingKey(imageId))).toBe(false);
  });
});

describe('importing into the S3 host', () => {
  const keysUnder = (prefix: string): string[] =>
    fs
      .readdirSync(path.join(s3dir, BUCKET), { recursive: true })
      .map((name) => String(name).split(path.sep).join('/'))
      .filter((name) => name.startsWith(prefix) && name.endsWith('._S3rver_object'));
  const asset = (id: number, file: string) => ({ id, label: `Image ${id}`, url: `https://old.example/${id}.png`, file, createdAt: '2026-01-01T00:00:00.000Z' });

  it('stages an archive’s images, places them under the new campaign with their dimensions, and leaves nothing staged; a refused file leaves nothing at all', async () => {
    const bytes = pngSized(24, 18);
    const thing = { id: 1, slug: 'map-holder', typeId: 1, name: 'Map holder', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z', description: [{ type: 'image', assetId: 7, url: 'https://old.example/7.png', children: [{ text: '' }] }] };
    const good = await zipOf([{ name: 'campaign.json', data: minimalDoc({ things: [thing], assets: [asset(7, 'images/a.png')] }) }, { name: 'images/a.png', data: bytes }]);
    const form = multipartFile(good, 'good.zip');
    const res = await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...gm.headers, ...form.headers }, payload: form.payload });
    expect(res.statusCode, res.body).toBe(201);
    const imported = json<{ id: number; slug: string; import: { assets: number } }>(res);
    expect(imported.import.assets).toBe(1);
    const [stored] = json<{ id: number; url: string; width: number; height: number }[]>(await ctx.app.inject({ method: 'GET', url: `/api/campaigns/${imported.slug}/assets`, headers: gm.headers }));
    expect([stored!.width, stored!.height]).toEqual([24, 18]);
    expect(stored!.url).toMatch(new RegExp(`/images/${imported.id}/[0-9a-f]{32}\\.png$`));
    expect(Buffer.from(await (await fetch(stored!.url)).arrayBuffer())).toEqual(bytes);
    const description = json<{ description: { assetId: number; url: string }[] }>(await ctx.app.inject({ method: 'GET', url: `/api/campaigns/${imported.slug}/things/map-holder`, headers: gm.headers })).description;
    expect(description[0]).toMatchObject({ assetId: stored!.id, url: stored!.url });
    expect(keysUnder('imports/')).toEqual([]);

    const before = keysUnder('images/').length;
    const bad = await zipOf([
      { name: 'campaign.json', data: minimalDoc({ assets: [asset(1, 'images/a.png'), asset(2, 'images/b.png')] }) },
      { name: 'images/a.png', data: bytes },
      { name: 'images/b.png', data: html() },
    ]);
    const badForm = multipartFile(bad, 'bad.zip');
    const refused = await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...gm.headers, ...badForm.headers }, payload: badForm.payload });
    expect(refused.statusCode, refused.body).toBe(400);
    expect(json<{ detail: string }>(refused).detail).toMatch(/^images\/b\.png: The file is not an image/);
    expect(keysUnder('imports/')).toEqual([]);
    expect(keysUnder('images/').length).toBe(before);
  });

  it('sweeps staged objects a crash left behind, and nothing else', async () => {
    expect((await fetch(objectUrl('imports/leftover'), { method: 'PUT', body: png() })).status).toBe(200);
    const images = keysUnder('images/').length;
    expect(await ctx.app.imageHost.sweepStaged(new Date(Date.now() - 86_400_000))).toBe(0);
    expect(keysUnder('imports/')).toHaveLength(1);
    expect(await ctx.app.imageHost.sweepStaged(new Date(Date.now() + 60_000))).toBe(1);
    expect(keysUnder('imports/')).toEqual([]);
    expect(keysUnder('images/').length).toBe(images);
  });
});

describe('an S3 host that fails', () => {
  async function failingApp(endpointUrl: string) {
    const app = await createTestContext(s3Env(endpointUrl));
    const user = await premiumUser(app, IN_A_YEAR);
    const own = json(await app.app.inject({ method: 'POST', url: '/api/campaigns', headers: user.headers, payload: { newCampaign: { name: 'Failing' } } }));
    const granted = json(await app.app.inject({ method: 'POST', url: `/api/campaigns/${own.slug}/assets/upload-url`, headers: user.headers, payload: { label: 'x' } }));
    const res = await app.app.inject({ method: 'POST', url: `/api/campaigns/${own.slug}/assets/confirm-upload`, headers: user.headers, payload: { imageId: granted.imageId, label: 'x' } });
    const assets = await app.database.kysely.selectFrom('assets').select('id').execute();
    const grants = await app.database.kysely.selectFrom('upload_grants').select('id').execute();
    await app.close();
    return { res, assets, grants };
  }

  it('answers 500 with success: false when the store does not answer, saving nothing', async () => {
    // A port that was just free: nothing listens there.
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const { res, assets, grants } = await failingApp(`http://127.0.0.1:${port}`);
    expect(res.statusCode).toBe(500);
    expect(json(res)).toMatchObject({ code: 'upload_verification_failed', success: false });
    expect(res.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|stack/);
    expect(assets).toEqual([]);
    expect(grants).toHaveLength(1);
  });

  it('answers 500 when the store answers nonsense', async () => {
    const server = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html>not S3</html>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { res, assets } = await failingApp(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      expect(res.statusCode).toBe(500);
      expect(json(res)).toMatchObject({ code: 'upload_verification_failed', success: false });
      expect(assets).toEqual([]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('S3 settings', () => {
  it('reads them, with defaults for the region, the addressing style and the public URL', () => {
    expect(loadConfig({}).maxUploadBytes).toBe(10 * 1024 * 1024);
    expect(loadConfig({}).s3).toBeUndefined();
    expect(loadConfig({ IMAGE_HOST: 's3', S3_BUCKET: 'maps' }).s3).toEqual({
      endpoint: undefined,
      bucket: 'maps',
      region: 'us-east-1',
      accessKeyId: undefined,
      secretAccessKey: undefined,
      forcePathStyle: false,
      publicBaseUrl: 'https://maps.s3.us-east-1.amazonaws.com',
    });
    const minio = loadConfig({ ...s3Env('http://minio.internal:9000/'), S3_BUCKET: 'maps', MAX_UPLOAD_BYTES: '2048' });
    expect(minio.s3).toMatchObject({ endpoint: 'http://minio.internal:9000', publicBaseUrl: 'http://minio.internal:9000/maps', forcePathStyle: true, accessKeyId: KEY_ID });
    expect(minio.maxUploadBytes).toBe(2048);
    const virtual = loadConfig({ IMAGE_HOST: 's3', S3_BUCKET: 'maps', S3_ENDPOINT: 'https://objects.example.com', S3_REGION: 'auto' });
    expect(virtual.s3?.publicBaseUrl).toBe('https://maps.objects.example.com');
    const cdn = loadConfig({ IMAGE_HOST: 's3', S3_BUCKET: 'maps', S3_PUBLIC_BASE_URL: 'https://img.example.com/lore/' });
    expect(cdn.s3?.publicBaseUrl).toBe('https://img.example.com/lore');
  });

  it.each([
    ['S3_BUCKET', { IMAGE_HOST: 's3' }],
    ['S3_BUCKET', { IMAGE_HOST: 's3', S3_BUCKET: 'Not_A_Bucket' }],
    ['S3_REGION', { IMAGE_HOST: 's3', S3_BUCKET: 'maps', S3_REGION: 'eu west' }],
    ['S3_ENDPOINT', { IMAGE_HOST: 's3', S3_BUCKET: 'maps', S3_ENDPOINT: 'minio:9000' }],
    ['S3_ENDPOINT', { IMAGE_HOST: 's3', S3_BUCKET: 'maps', S3_ENDPOINT: 'ftp://minio' }],
    ['S3_SECRET_ACCESS_KEY', { IMAGE_HOST: 's3', S3_BUCKET: 'maps', S3_ACCESS_KEY_ID: 'key' }],
    ['S3_ACCESS_KEY_ID', { IMAGE_HOST: 's3', S3_BUCKET: 'maps', S3_SECRET_ACCESS_KEY: 'secret' }],
    ['S3_FORCE_PATH_STYLE', { IMAGE_HOST: 's3', S3_BUCKET: 'maps', S3_FORCE_PATH_STYLE: 'sometimes' }],
    ['S3_PUBLIC_BASE_URL', { IMAGE_HOST: 's3', S3_BUCKET: 'maps', S3_PUBLIC_BASE_URL: 'img.example.com' }],
    ['MAX_UPLOAD_BYTES', { MAX_UPLOAD_BYTES: '10MB' }],
    ['MAX_UPLOAD_BYTES', { MAX_UPLOAD_BYTES: '100' }],
  ])('stops on a bad %s with one line naming it', (name, env) => {
    let error: unknown;
    try {
      loadConfig(env);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(name);
    expect((error as Error).message).not.toContain('\n');
  });
});
