import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { premiumUser } from '../fixtures/image-app.js';
import { gifSized, IMAGES, jpegSized, pngClaiming, pngSized, webpSized } from '../fixtures/images.js';
import { p, t } from '../fixtures/rich-text.js';
import { newCampaign, type TestCampaign } from '../support/fixtures.js';
import { joinCampaign } from '../support/sharing.js';
import { dialect } from '../support/test-db.js';
import { multipartFile, zipOf } from '../support/zip.js';

// CONTRACT "The web app, phase 3": images carry their dimensions (no layout shift). An upload's
// width and height are read from its header bytes at confirm (and when an import stages it),
// answered with the asset, and rendered as the img's width and height; a header that does not say
// leaves them null, and a player never learns those of an image inside a secret.

interface Asset {
  id: number;
  url: string;
  width: number | null;
  height: number | null;
}

let dataDir: string;
let ctx: TestContext;
let gm: TestUser;
let player: TestUser;
let campaign: TestCampaign;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-dimensions-'));
  ctx = await createTestContext({ DATA_DIR: dataDir });
  gm = await premiumUser(ctx);
  player = await ctx.createUser();
  campaign = await newCampaign(ctx.app, gm, 'Dimensions');
  await joinCampaign(ctx.app, gm, campaign.slug, player, 'player');
});
afterAll(async () => {
  await ctx.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const inject = (method: 'GET' | 'POST' | 'PUT', url: string, user: TestUser | null, payload?: object) =>
  ctx.app.inject({ method, url, headers: user ? user.headers : {}, ...(payload === undefined ? {} : { payload }) });

/** Grant, send the bytes (PUT, or a multipart form), confirm: the asset as confirm-upload answers it. */
async function upload(bytes: Buffer, label: string, by: 'put' | 'form' = 'put', into: TestCampaign = campaign): Promise<Asset> {
  const granted = json<{ imageId: string; uploadURL: string }>(await inject('POST', `${into.base}/assets/upload-url`, gm, { label }));
  const url = new URL(granted.uploadURL).pathname;
  const form = multipartFile(bytes, 'image.bin');
  const sent =
    by === 'put'
      ? await ctx.app.inject({ method: 'PUT', url, payload: bytes, headers: { 'content-type': 'application/octet-stream' } })
      : await ctx.app.inject({ method: 'POST', url, payload: form.payload, headers: form.headers });
  expect(sent.statusCode, sent.body).toBe(200);
  const confirmed = await inject('POST', `${into.base}/assets/confirm-upload`, gm, { imageId: granted.imageId, label });
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  return json<{ asset: Asset }>(confirmed).asset;
}

async function thingWith(description: unknown[], name: string): Promise<string> {
  const res = await inject('POST', `${campaign.base}/things`, gm, { newThing: { name, typeId: campaign.typeId, description } });
  expect(res.statusCode, res.body).toBe(201);
  return json<{ slug: string }>(res).slug;
}

async function rendered(slug: string, user: TestUser, format = 'html', headers: Record<string, string> = {}): Promise<string> {
  const res = await ctx.app.inject({ method: 'GET', url: `${campaign.base}/things/${slug}/rendered?format=${format}`, headers: { ...user.headers, ...headers } });
  expect(res.statusCode, res.body).toBe(200);
  return json<{ fields: { description: string } }>(res).fields.description;
}

const image = (asset: Asset, extra: Record<string, unknown> = {}) => ({ type: 'image', url: asset.url, assetId: asset.id, children: [t('')], ...extra });

describe(`the dimensions of an upload, on ${dialect}`, () => {
  it('are read from the bytes of each accepted format, sent by PUT or as a form, and answered by confirm and the list', async () => {
    const sent = [
      { bytes: pngSized(640, 480), by: 'put', size: [640, 480] },
      { bytes: jpegSized(1024, 768), by: 'form', size: [1024, 768] },
      { bytes: gifSized(300, 200), by: 'put', size: [300, 200] },
      { bytes: webpSized(1600, 900), by: 'form', size: [1600, 900] },
    ] as const;
    const assets: Asset[] = [];
    for (const [i, s] of sent.entries()) {
      const asset = await upload(s.bytes, `Image ${i}`, s.by);
      expect([asset.width, asset.height]).toEqual(s.size);
      assets.push(asset);
    }
    const list = json<Asset[]>(await inject('GET', `${campaign.base}/assets`, gm));
    for (const asset of assets) expect(list.find((a) => a.id === asset.id)).toMatchObject({ width: asset.width, height: asset.height });
  });

  it('follow a JPEG’s EXIF orientation: a picture turned a quarter is as tall as it was wide', async () => {
    expect(await upload(jpegSized(1024, 768, 6), 'Portrait')).toMatchObject({ width: 768, height: 1024 });
    expect(await upload(jpegSized(1024, 768, 3), 'Upside down')).toMatchObject({ width: 1024, height: 768 });
  });

  it('are null for an accepted image whose header does not say them, which is stored as before', async () => {
    // An arithmetic-coded JPEG (SOF9) and an AVIF with no image properties: accepted images either.
    for (const bytes of [IMAGES.jpeg.bytes, IMAGES.avif.bytes, jpegSized(800, 600).subarray(0, 26)]) {
      const asset = await upload(bytes, 'Unknown size');
      expect(asset).toMatchObject({ width: null, height: null });
      const served = await ctx.app.inject({ method: 'GET', url: new URL(asset.url).pathname });
      expect(served.statusCode).toBe(200);
      expect(served.rawPayload.equals(bytes)).toBe(true);
    }
  });

  it('are stored as a hostile header claims them (never decoded), and null past what a 32-bit integer holds', async () => {
    const claiming = pngClaiming(100_000, 100_000);
    const huge = await upload(claiming, 'Claims to be huge');
    expect(huge).toMatchObject({ width: 100_000, height: 100_000 });
    const served = await ctx.app.inject({ method: 'GET', url: new URL(huge.url).pathname });
    expect(served.rawPayload.equals(claiming)).toBe(true);
    // A PNG header holds up to 2^32 - 1: beyond the column, so unknown (and never a 500 on PostgreSQL).
    expect(await upload(pngClaiming(2 ** 32 - 1, 7), 'Past the range')).toMatchObject({ width: null, height: null });
    expect(await upload(pngClaiming(0, 7), 'Zero wide')).toMatchObject({ width: null, height: null });
  });
});

describe(`rendered images, on ${dialect}`, () => {
  it('carry an uploaded image’s width and height, by assetId and by the text convention; external ones carry none', async () => {
    const map = await upload(pngSized(320, 200), 'Map of Phandalin');
    const unknown = await upload(IMAGES.avif.bytes, 'No size');
    const slug = await thingWith(
      [image(map), p(t(`Also: ![whatever](${map.url})`)), image(unknown), { type: 'image', url: 'https://example.test/far.png', alt: 'Far', children: [t('')] }],
      'Illustrated',
    );
    const html = await rendered(slug, gm);
    // Its one variant (a full-width WebP: 320 is below the first slot) is its srcset; the first image of the text is eager.
    const sized = `<img src="${map.url}" alt="Map of Phandalin" width="320" height="200" srcset="${map.url.replace(/\.png$/, '-480.webp')} 320w" sizes="min(100vw, 320px)"`;
    expect(html.split(`${sized} fetchpriority="high">`)).toHaveLength(2);
    expect(html.split(`${sized} loading="lazy">`)).toHaveLength(2);
    expect(html).toContain(`<img src="${unknown.url}" alt="No size" loading="lazy">`);
    expect(html).toContain('<img src="https://example.test/far.png" alt="Far" loading="lazy">');
    expect(html.match(/width=/g)).toHaveLength(2);
    // Markdown has no place for them.
    // (Addresses left out: a port or an image id may hold those digits.)
    expect((await rendered(slug, gm, 'markdown')).replace(/\]\([^)]*\)/g, '](…)')).not.toMatch(/320|200/);
  });

  it('never tell a player the dimensions of an image inside a secret, nor anything else of it', async () => {
    const secretMap = await upload(pngSized(321, 123), 'The lich’s lair');
    const open = await upload(pngSized(77, 55), 'Town square');
    const slug = await thingWith(
      [p(t('Everyone reads this.')), image(open), { type: 'block-quote', isSecret: true, children: [p(t('GM: ')), image(secretMap)] }, image(secretMap, { isSecret: true })],
      'Secret map',
    );
    const forGm = await rendered(slug, gm);
    expect(forGm).toContain('width="321" height="123"');
    const asPlayer = [await rendered(slug, player), await rendered(slug, gm, 'html', { 'loreforge-view': 'player' })];
    for (const html of asPlayer) {
      expect(html).toContain('width="77" height="55"');
      // (Addresses left out: a port or an image id may hold those digits; the secret image's address is checked below.)
      expect(html.replace(/(src|srcset)="[^"]*"/g, '$1="…"')).not.toMatch(/321|123|lich|lair/);
      expect(html).not.toContain(secretMap.url);
    }
    expect(asPlayer[0]).toBe(asPlayer[1]);
  });
});

describe(`imported images, on ${dialect}`, () => {
  it('keep their dimensions, from a vault’s attachments and through our own archive', async () => {
    const vault = await zipOf([
      { name: 'Lore/Places/Neverwinter.md', data: 'The city.\n\n![[walls.png]]\n\n![[gate.webp]]\n' },
      { name: 'Lore/attachments/walls.png', data: pngSized(48, 36) },
      { name: 'Lore/attachments/gate.webp', data: webpSized(200, 150) },
    ]);
    const form = multipartFile(vault, 'vault.zip');
    const res = await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...gm.headers, ...form.headers }, payload: form.payload });
    expect(res.statusCode, res.body).toBe(201);
    const imported = json<{ slug: string }>(res);
    const sizes = (assets: Asset[]) => assets.map((a) => [a.width, a.height]).sort((a, b) => a[0]! - b[0]!);
    const assets = json<Asset[]>(await inject('GET', `/api/campaigns/${imported.slug}/assets`, gm));
    expect(sizes(assets)).toEqual([
      [48, 36],
      [200, 150],
    ]);

    const archive = (await inject('GET', `/api/campaigns/${imported.slug}/export?format=archive`, gm)).rawPayload;
    const again = multipartFile(archive, 'backup.zip');
    const restored = await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...gm.headers, ...again.headers }, payload: again.payload });
    expect(restored.statusCode, restored.body).toBe(201);
    const restoredAssets = json<Asset[]>(await inject('GET', `/api/campaigns/${json<{ slug: string }>(restored).slug}/assets`, gm));
    expect(sizes(restoredAssets)).toEqual(sizes(assets));
  });
});
