import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type TestUser } from '../support/app.js';
import { premiumUser, startImageApp, type ImageApp } from '../fixtures/image-app.js';
import { gifSized, pngClaiming, pngSized } from '../fixtures/images.js';
import { p, t } from '../fixtures/rich-text.js';
import { newCampaign, type TestCampaign } from '../support/fixtures.js';
import { dialect } from '../support/test-db.js';
import { joinCampaign } from '../support/sharing.js';
import { multipartFile } from '../support/zip.js';

// Issue 27, images for phones (src/images/variants.ts) on the local host: WebP variants at 480, 960
// and 1600 pixels wide (never wider than the original) are made when an upload is confirmed and when
// an import places an image, served at the original's URL with `-<slot>.webp`, listed with the asset,
// given as srcset in rendered HTML, and removed with the image. A file sharp refuses gets none, and
// its upload still succeeds.

interface Variant {
  width: number;
  height: number;
  url: string;
}
interface Asset {
  id: number;
  url: string;
  imageHostId: string;
  width: number | null;
  height: number | null;
  variants: Variant[];
}

let image: ImageApp;
let gm: TestUser;
let campaign: TestCampaign;

beforeAll(async () => {
  image = await startImageApp();
  gm = await premiumUser(image.ctx);
  campaign = await newCampaign(image.ctx.app, gm, 'Variants');
});
afterAll(async () => {
  await image?.close();
});

const inject = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
  image.ctx.app.inject({ method, url, headers: gm.headers, ...(payload === undefined ? {} : { payload }) });

/** Grant, PUT the bytes, confirm: the answer of confirm-upload. */
async function upload(bytes: Buffer, label: string, into: TestCampaign = campaign): Promise<Asset> {
  const granted = json<{ imageId: string; uploadURL: string }>(await inject('POST', `${into.base}/assets/upload-url`, { label }));
  const sent = await image.ctx.app.inject({ method: 'PUT', url: new URL(granted.uploadURL).pathname, payload: bytes, headers: { 'content-type': 'application/octet-stream' } });
  expect(sent.statusCode, sent.body).toBe(200);
  const confirmed = await inject('POST', `${into.base}/assets/confirm-upload`, { imageId: granted.imageId, label });
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  return json<{ asset: Asset }>(confirmed).asset;
}

const filesOf = (campaignId: number, imageId: string): string[] => {
  const dir = path.join(image.imagesDir, String(campaignId));
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => name.startsWith(imageId)).sort() : [];
};

/** Fetches a variant over HTTP and decodes it: its type, cache header and real pixel size. */
async function fetchVariant(v: Variant): Promise<{ type: string | null; cache: string | null; width: number | undefined; height: number | undefined; bytes: number }> {
  const res = await fetch(v.url);
  expect(res.status, v.url).toBe(200);
  const bytes = Buffer.from(await res.arrayBuffer());
  const meta = await sharp(bytes).metadata();
  expect(meta.format).toBe('webp');
  return { type: res.headers.get('content-type'), cache: res.headers.get('cache-control'), width: meta.width, height: meta.height, bytes: bytes.length };
}

describe(`image variants on the local host, on ${dialect}`, () => {
  it('are made at each slot below the original’s width and one at its full width, served as WebP, listed with the asset', async () => {
    const asset = await upload(pngSized(1200, 900), 'Wide map');
    expect(asset.variants.map((v) => [v.width, v.height])).toEqual([[480, 360], [960, 720], [1200, 900]]);
    expect(asset.variants.map((v) => v.url)).toEqual([480, 960, 1600].map((slot) => asset.url.replace(/\.png$/, `-${slot}.webp`)));
    for (const v of asset.variants) {
      expect(await fetchVariant(v)).toMatchObject({ type: 'image/webp', cache: 'public, max-age=31536000, immutable', width: v.width, height: v.height });
    }
    expect(filesOf(campaign.id, asset.imageHostId)).toEqual([`${asset.imageHostId}-1600.webp`, `${asset.imageHostId}-480.webp`, `${asset.imageHostId}-960.webp`, `${asset.imageHostId}.png`]);
    const listed = json<Asset[]>(await inject('GET', `${campaign.base}/assets`)).find((a) => a.id === asset.id);
    expect(listed?.variants).toEqual(asset.variants);

    // A portrait narrower than the second slot: 480, then itself at 600.
    const portrait = await upload(pngSized(600, 800), 'Portrait');
    expect(portrait.variants.map((v) => [v.width, v.height])).toEqual([[480, 640], [600, 800]]);
    // Past the last slot the original stays the widest: 1600 is the largest variant.
    const large = await upload(pngSized(2000, 500), 'Panorama');
    expect(large.variants.map((v) => v.width)).toEqual([480, 960, 1600]);
  });

  it('are the srcset of rendered HTML; the first image of a text is eager and asked for first', async () => {
    const portrait = await upload(pngSized(600, 800), 'Sildar');
    const map = await upload(pngSized(2000, 500), 'Panorama');
    const img = (a: Asset) => ({ type: 'image', url: a.url, assetId: a.id, children: [t('')] });
    const created = await inject('POST', `${campaign.base}/things`, { newThing: { name: 'Sildar', typeId: campaign.typeId, description: [img(portrait), p(t('Between')), img(map)] } });
    expect(created.statusCode, created.body).toBe(201);
    const res = await inject('GET', `${campaign.base}/things/${json<{ slug: string }>(created).slug}/rendered`);
    const html = json<{ fields: { description: string } }>(res).fields.description;
    const v = (a: Asset, i: number) => a.variants[i]!.url;
    expect(html).toContain(`<img src="${portrait.url}" alt="Sildar" width="600" height="800" srcset="${v(portrait, 0)} 480w, ${v(portrait, 1)} 600w" sizes="min(100vw, 600px)" fetchpriority="high">`);
    expect(html).toContain(`<img src="${map.url}" alt="Panorama" width="2000" height="500" srcset="${v(map, 0)} 480w, ${v(map, 1)} 960w, ${v(map, 2)} 1600w, ${map.url} 2000w" sizes="min(100vw, 832px)" loading="lazy">`);
  });

  it('go with their image: erased from the trash, and with a deleted campaign', async () => {
    const asset = await upload(pngSized(1000, 700), 'Doomed');
    expect(filesOf(campaign.id, asset.imageHostId)).toHaveLength(4);
    expect((await inject('DELETE', `${campaign.base}/assets/${asset.id}`)).statusCode).toBe(204);
    expect(filesOf(campaign.id, asset.imageHostId)).toHaveLength(4);
    expect((await inject('DELETE', `${campaign.base}/trash/asset/${asset.id}`)).statusCode).toBe(204);
    expect(filesOf(campaign.id, asset.imageHostId)).toEqual([]);
    expect((await fetch(asset.variants[0]!.url)).status).toBe(404);

    const doomed = await newCampaign(image.ctx.app, gm, 'Doomed campaign');
    const inDoomed = await upload(pngSized(500, 500), 'Gone with it', doomed);
    expect(filesOf(doomed.id, inDoomed.imageHostId)).toHaveLength(3);
    expect((await inject('DELETE', doomed.base)).statusCode).toBe(204);
    expect((await inject('DELETE', `/api/trash/campaigns/${doomed.id}`)).statusCode).toBe(204);
    expect(fs.existsSync(path.join(image.imagesDir, String(doomed.id)))).toBe(false);
  });

  it('are made again when an exported campaign is imported (the export carries originals only)', async () => {
    const source = await newCampaign(image.ctx.app, gm, 'Exported');
    const asset = await upload(pngSized(800, 600), 'Exported map', source);
    const zip = (await inject('GET', `${source.base}/export`)).rawPayload;
    const form = multipartFile(zip, 'campaign.zip');
    const imported = await image.ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...gm.headers, ...form.headers }, payload: form.payload });
    expect(imported.statusCode, imported.body).toBe(201);
    const slug = json<{ slug: string }>(imported).slug;
    const [copy] = json<Asset[]>(await inject('GET', `/api/campaigns/${slug}/assets`));
    expect(copy!.imageHostId).not.toBe(asset.imageHostId);
    expect(copy!.variants.map((v) => [v.width, v.height])).toEqual([[480, 360], [800, 600]]);
    for (const v of copy!.variants) expect(await fetchVariant(v)).toMatchObject({ width: v.width, height: v.height });
  });

  it('are not made for what sharp refuses or should not flatten; the upload succeeds and its original is what clients get', async () => {
    const whole = pngSized(800, 600);
    const hostile = [
      // A decompression bomb: a few bytes that claim 100,000 × 100,000 pixels.
      ['bomb', pngClaiming(100_000, 100_000), [100_000, 100_000]],
      // Just past the pixel limit (24 MP) by its header, one row of data.
      ['past the limit', pngClaiming(6000, 4001), [6000, 4001]],
      // Cut short: the header and half of the pixel data.
      ['truncated', whole.subarray(0, Math.floor(whole.length / 2)), [800, 600]],
      // An animation would lose its frames.
      ['a GIF', gifSized(300, 200), [300, 200]],
    ] as const;
    for (const [name, bytes, size] of hostile) {
      const asset = await upload(bytes, name);
      expect([asset.width, asset.height], name).toEqual(size);
      expect(asset.variants, name).toEqual([]);
      expect(filesOf(campaign.id, asset.imageHostId).filter((f) => f.endsWith('.webp')), name).toEqual([]);
      const served = await fetch(asset.url);
      expect(served.status, name).toBe(200);
      expect(Buffer.from(await served.arrayBuffer()).equals(bytes), name).toBe(true);
    }
  });

  it('are served only by their slot names: any other variant-like name is 404', async () => {
    const asset = await upload(pngSized(700, 700), 'Names');
    const base = asset.url.replace(/\.png$/, '');
    for (const name of ['-481.webp', '-480.png', '-0480.webp', '-1600.webp', '-480.webp.webp', '--480.webp']) {
      expect((await fetch(`${base}${name}`)).status, name).toBe(404);
    }
    expect((await fetch(`${base}-960.webp`)).status).toBe(200);
  });
});

describe(`image variants of a refused upload, on ${dialect}`, () => {
  it('go with an upload that is refused while they are made (the uploader made a player meanwhile): nothing of it stays served', async () => {
    const uploader = await premiumUser(image.ctx);
    await joinCampaign(image.ctx.app, gm, campaign.slug, uploader, 'gm');
    const as = (method: 'POST' | 'PUT', url: string, payload: object) => image.ctx.app.inject({ method, url, headers: uploader.headers, payload });
    const granted = json<{ imageId: string; uploadURL: string }>(await as('POST', `${campaign.base}/assets/upload-url`, { label: 'Late' }));
    const sent = await image.ctx.app.inject({ method: 'PUT', url: new URL(granted.uploadURL).pathname, payload: pngSized(1200, 900), headers: { 'content-type': 'application/octet-stream' } });
    expect(sent.statusCode, sent.body).toBe(200);
    const host = image.ctx.app.imageHost;
    const storeVariant = host.storeVariant.bind(host);
    let demoted = false;
    host.storeVariant = async (ref, slot, bytes) => {
      if (!demoted) {
        demoted = true;
        const res = await image.ctx.app.inject({ method: 'PUT', url: `${campaign.base}/members/${uploader.id}`, headers: gm.headers, payload: { role: 'player' } });
        expect(res.statusCode, res.body).toBe(200);
        // The revoked grant's removal runs before this variant is written (what the sweeper would do).
        await host.remove([{ campaignId: campaign.id, imageId: granted.imageId }]);
      }
      return storeVariant(ref, slot, bytes);
    };
    try {
      const confirmed = await as('POST', `${campaign.base}/assets/confirm-upload`, { imageId: granted.imageId, label: 'Late' });
      expect(confirmed.statusCode).toBeGreaterThanOrEqual(400);
      expect(confirmed.statusCode).toBeLessThan(500);
    } finally {
      host.storeVariant = storeVariant;
    }
    expect(demoted).toBe(true);
    expect(filesOf(campaign.id, granted.imageId)).toEqual([]);
  });
});
