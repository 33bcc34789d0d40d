import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { premiumUser } from '../fixtures/image-app.js';
import { pngClaiming, pngSized } from '../fixtures/images.js';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { dialect } from '../support/test-db.js';
import { minimalDoc, multipartFile, zipOf } from '../support/zip.js';

// Issue 27, images for phones (src/images/variants.ts) on the S3 host, against s3rver: the variants
// are public objects beside the original (`images/<campaignId>/<imageId>-<slot>.webp`), made at
// confirm and at import, and deleted with the image.

const BUCKET = 'loreforge';

let s3dir: string;
let s3: S3rver;
let endpoint: string;
let ctx: TestContext;
let gm: TestUser;
let campaign: { id: number; slug: string };

beforeAll(async () => {
  s3dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-s3rver-variants-'));
  s3 = new S3rver({ port: 0, address: '127.0.0.1', directory: s3dir, silent: true, configureBuckets: [{ name: BUCKET }] });
  endpoint = `http://127.0.0.1:${(await s3.run()).port}`;
  ctx = await createTestContext({
    IMAGE_HOST: 's3',
    S3_ENDPOINT: endpoint,
    S3_BUCKET: BUCKET,
    S3_REGION: 'eu-west-1',
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    S3_FORCE_PATH_STYLE: 'true',
  });
  gm = await premiumUser(ctx);
  campaign = json(await ctx.app.inject({ method: 'POST', url: '/api/campaigns', headers: gm.headers, payload: { newCampaign: { name: 'S3 variants' } } }));
});
afterAll(async () => {
  await ctx?.close();
  await s3?.close();
  fs.rmSync(s3dir, { recursive: true, force: true });
});

interface Asset {
  id: number;
  url: string;
  imageHostId: string;
  variants: { width: number; height: number; url: string }[];
}

const inject = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) => ctx.app.inject({ method, url, headers: gm.headers, ...(payload === undefined ? {} : { payload }) });

async function upload(bytes: Buffer, label: string): Promise<Asset> {
  const granted = json<{ imageId: string; uploadURL: string }>(await inject('POST', `/api/campaigns/${campaign.slug}/assets/upload-url`, { label }));
  expect((await fetch(granted.uploadURL, { method: 'PUT', body: bytes })).status).toBe(200);
  const confirmed = await inject('POST', `/api/campaigns/${campaign.slug}/assets/confirm-upload`, { imageId: granted.imageId, label });
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  return json<{ asset: Asset }>(confirmed).asset;
}

/** The keys s3rver holds under `prefix`. */
const keysUnder = (prefix: string): string[] =>
  fs
    .readdirSync(path.join(s3dir, BUCKET), { recursive: true })
    .map((name) => String(name).split(path.sep).join('/'))
    .filter((name) => name.startsWith(prefix) && name.endsWith('._S3rver_object'))
    .map((name) => name.replace(/\._S3rver_object$/, ''))
    .sort();

describe(`image variants on the S3 host, on ${dialect}`, () => {
  it('are public WebP objects beside the original, listed with the asset, deleted with it', async () => {
    const asset = await upload(pngSized(1200, 900), 'Wide map');
    const prefix = `images/${campaign.id}/${asset.imageHostId}`;
    expect(keysUnder(prefix)).toEqual([`${prefix}-1600.webp`, `${prefix}-480.webp`, `${prefix}-960.webp`, `${prefix}.png`]);
    expect(asset.variants.map((v) => [v.width, v.height, v.url])).toEqual([
      [480, 360, `${endpoint}/${BUCKET}/${prefix}-480.webp`],
      [960, 720, `${endpoint}/${BUCKET}/${prefix}-960.webp`],
      [1200, 900, `${endpoint}/${BUCKET}/${prefix}-1600.webp`],
    ]);
    for (const v of asset.variants) {
      const res = await fetch(v.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/webp');
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['webp', v.width, v.height]);
    }
    const listed = json<Asset[]>(await inject('GET', `/api/campaigns/${campaign.slug}/assets`)).find((a) => a.id === asset.id);
    expect(listed?.variants).toEqual(asset.variants);

    expect((await inject('DELETE', `/api/campaigns/${campaign.slug}/assets/${asset.id}`)).statusCode).toBe(204);
    expect(keysUnder(prefix)).toHaveLength(4);
    expect((await inject('DELETE', `/api/campaigns/${campaign.slug}/trash/asset/${asset.id}`)).statusCode).toBe(204);
    expect(keysUnder(prefix)).toEqual([]);
  });

  it('are made when an import places an image', async () => {
    const thing = { id: 1, slug: 'holder', typeId: 1, name: 'Holder', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z', description: [{ type: 'paragraph', children: [{ text: 'Holds a picture.' }] }] };
    const asset = { id: 7, label: 'Imported', url: 'https://old.example/7.png', file: 'images/a.png', createdAt: '2026-01-01T00:00:00.000Z' };
    const zip = await zipOf([{ name: 'campaign.json', data: minimalDoc({ things: [thing], assets: [asset] }) }, { name: 'images/a.png', data: pngSized(640, 480) }]);
    const form = multipartFile(zip, 'campaign.zip');
    const res = await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...gm.headers, ...form.headers }, payload: form.payload });
    expect(res.statusCode, res.body).toBe(201);
    const imported = json<{ id: number; slug: string }>(res);
    const [stored] = json<Asset[]>(await inject('GET', `/api/campaigns/${imported.slug}/assets`));
    expect(stored!.variants.map((v) => [v.width, v.height])).toEqual([[480, 360], [640, 480]]);
    const prefix = `images/${imported.id}/${stored!.imageHostId}`;
    expect(keysUnder(prefix)).toEqual([`${prefix}-480.webp`, `${prefix}-960.webp`, `${prefix}.png`]);
    expect(keysUnder('imports/')).toEqual([]);
  });

  it('are not made for a decompression bomb or a cut-short file; the upload succeeds all the same', async () => {
    const whole = pngSized(800, 600);
    for (const bytes of [pngClaiming(100_000, 100_000), whole.subarray(0, Math.floor(whole.length / 2))]) {
      const asset = await upload(bytes, 'Hostile');
      expect(asset.variants).toEqual([]);
      expect(keysUnder(`images/${campaign.id}/${asset.imageHostId}`)).toEqual([`images/${campaign.id}/${asset.imageHostId}.png`]);
      expect(Buffer.from(await (await fetch(asset.url)).arrayBuffer()).equals(bytes)).toBe(true);
    }
  });
});
