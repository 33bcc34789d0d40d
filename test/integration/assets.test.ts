import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { loadConfig } from '../../src/config.js';
import { ImageHostError, type ImageRef, type UploadTicket, type VerifyOutcome } from '../../src/images/image-host.js';
import { LocalImageHost } from '../../src/images/local.js';
import { sweepUploads } from '../../src/images/uploads.js';
import type { AppInstance } from '../../src/http/app-types.js';
import { buildCheckedApp, createTestUser, json, setPremium, type TestUser } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/test-db.js';
import { filesUnder, IN_A_YEAR } from '../fixtures/image-app.js';
import { html, IMAGES, png } from '../fixtures/images.js';

// The asset API (upload-url, confirm-upload, list, delete) and its rules: the spec's error table
// in the contract's order, grants, idempotent confirm, a failing image host, campaign deletion
// and the sweeper. Uploads go through the local host, by inject.

/** The local host, with switches that make it fail like an unreachable store. */
class SwitchableHost extends LocalImageHost {
  failVerify = false;
  failRemove = false;
  override verify(ticket: UploadTicket): Promise<VerifyOutcome> {
    if (this.failVerify) return Promise.reject(new ImageHostError('the image host is down'));
    return super.verify(ticket);
  }
  override remove(refs: readonly ImageRef[]): Promise<void> {
    if (this.failRemove) return Promise.reject(new ImageHostError('the image host is down'));
    return super.remove(refs);
  }
}

let dataDir: string;
let database: TestDatabase;
let host: SwitchableHost;
let app: AppInstance;
let gm: TestUser;
let plain: TestUser;
let lapsed: TestUser;
let stranger: TestUser;
let campaign: { id: number; slug: string };

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-assets-'));
  database = await createTestDatabase();
  const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir });
  host = new SwitchableHost({ root: path.join(dataDir, 'images'), publicBaseUrl: config.publicBaseUrl, maxBytes: config.maxUploadBytes });
  app = await buildCheckedApp(config, { database, imageHost: host, logger: false });
  await app.ready();
  gm = await createTestUser(database);
  await setPremium(app, database, gm.email, IN_A_YEAR);
  plain = await createTestUser(database);
  lapsed = await createTestUser(database);
  await setPremium(app, database, lapsed.email, new Date(Date.now() - 1000).toISOString());
  stranger = await createTestUser(database);
  await setPremium(app, database, stranger.email, IN_A_YEAR);
  campaign = await newCampaign(gm, 'Assets');
});
afterAll(async () => {
  await app.close();
  await database.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function newCampaign(user: TestUser, name: string): Promise<{ id: number; slug: string }> {
  return json(await app.inject({ method: 'POST', url: '/api/campaigns', headers: user.headers, payload: { newCampaign: { name } } }));
}

function post(route: 'upload-url' | 'confirm-upload', payload: unknown, user: TestUser | null = gm, slug = campaign.slug, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: `/api/campaigns/${slug}/assets/${route}`,
    headers: { ...(user ? user.headers : {}), ...headers },
    ...(typeof payload === 'string' ? { payload } : payload === undefined ? {} : { payload: payload as object }),
  });
}

function expectProblem(res: LightMyRequestResponse, status: number, code: string, successFlag = true) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = json(res);
  expect(body).toMatchObject({ type: 'about:blank', status, code });
  if (successFlag) expect(body.success).toBe(false);
  else expect(body).not.toHaveProperty('success');
  return body;
}

async function grant(user = gm, slug = campaign.slug, label = 'A map'): Promise<{ imageId: string; uploadURL: string }> {
  const res = await post('upload-url', { label }, user, slug);
  expect(res.statusCode, res.body).toBe(200);
  return json(res);
}

async function upload(uploadURL: string, bytes: Buffer = png()) {
  const res = await app.inject({ method: 'PUT', url: new URL(uploadURL).pathname, payload: bytes, headers: { 'content-type': 'image/png' } });
  expect(res.statusCode, res.body).toBe(200);
}

async function uploaded(user = gm, slug = campaign.slug, bytes: Buffer = png()) {
  const granted = await grant(user, slug);
  await upload(granted.uploadURL, bytes);
  return granted;
}

async function confirmed(label = 'Confirmed', user = gm, slug = campaign.slug) {
  const granted = await uploaded(user, slug);
  const res = await post('confirm-upload', { imageId: granted.imageId, label }, user, slug);
  expect(res.statusCode, res.body).toBe(200);
  const asset = json(res).asset as { id: number; url: string; imageHostId: string; campaignId: number; createdAt: string };
  // imageHostId is the imageId the upload was granted under.
  expect(asset.imageHostId).toBe(granted.imageId);
  return asset;
}

/** Where the local host keeps a confirmed PNG: relative to DATA_DIR/images. */
function storedFile(asset: { campaignId: number; imageHostId: string }): string {
  return path.join(String(asset.campaignId), `${asset.imageHostId}.png`);
}

const counts = async () => ({
  grants: (await database.kysely.selectFrom('upload_grants').select('id').execute()).length,
  assets: (await database.kysely.selectFrom('assets').select('id').execute()).length,
});

const filesOf = (campaignId: number) => filesUnder(path.join(dataDir, 'images', String(campaignId)));

describe('the error table, in the contract’s order', () => {
  it('401 without a caller, on both routes, with success: false', async () => {
    for (const route of ['upload-url', 'confirm-upload'] as const) {
      for (const headers of [{}, { authorization: 'Bearer nope' }, { cookie: 'loreforge_session=forged' }] as Record<string, string>[]) {
        expectProblem(await post(route, { label: 'x', imageId: 'y' }, null, campaign.slug, headers), 401, 'unauthenticated');
      }
      // 401 wins over a missing campaign and a bad body.
      expectProblem(await post(route, '{bad', null, 'no-such-campaign', { 'content-type': 'application/json' }), 401, 'unauthenticated');
    }
    expectProblem(await app.inject({ method: 'GET', url: `/api/campaigns/${campaign.slug}/assets` }), 401, 'unauthenticated', false);
  });

  it('404 for a campaign that is missing or another user’s, before premium and body', async () => {
    for (const route of ['upload-url', 'confirm-upload'] as const) {
      const other = expectProblem(await post(route, { label: 'x' }, stranger), 404, 'campaign_not_found');
      const missing = expectProblem(await post(route, { label: 'x' }, stranger, 'no-such-campaign'), 404, 'campaign_not_found');
      expect(missing.detail.replace('no-such-campaign', campaign.slug)).toBe(other.detail);
      // A non-premium caller with a bad body still learns only that the campaign is not found.
      expectProblem(await post(route, {}, plain), 404, 'campaign_not_found');
    }
  });

  it('403 without an active premium, before the body is looked at', async () => {
    const own = await newCampaign(plain, 'Plain');
    const ownLapsed = await newCampaign(lapsed, 'Lapsed');
    for (const route of ['upload-url', 'confirm-upload'] as const) {
      for (const [user, slug] of [[plain, own.slug], [lapsed, ownLapsed.slug]] as const) {
        expectProblem(await post(route, { label: 'x', imageId: 'a'.repeat(32) }, user, slug), 403, 'premium_required');
        expectProblem(await post(route, {}, user, slug), 403, 'premium_required');
        expectProblem(await post(route, '{bad', user, slug, { 'content-type': 'application/json' }), 403, 'premium_required');
      }
    }
    expect(await database.kysely.selectFrom('upload_grants').select('id').where('campaign_id', 'in', [own.id, ownLapsed.id]).execute()).toEqual([]);
  });

  it('premium follows premiumUntil, as /api/auth/me shows', async () => {
    const me = json(await app.inject({ method: 'GET', url: '/api/auth/me', headers: gm.headers }));
    expect(me).toMatchObject({ premium: true, premiumUntil: IN_A_YEAR });
    expect(json(await app.inject({ method: 'GET', url: '/api/auth/me', headers: lapsed.headers })).premium).toBe(false);
    const soon = await createTestUser(database);
    const own = await newCampaign(soon, 'Soon');
    await setPremium(app, database, soon.email, new Date(Date.now() + 60_000).toISOString());
    expect((await post('upload-url', { label: 'x' }, soon, own.slug)).statusCode).toBe(200);
    await setPremium(app, database, soon.email, null);
    expectProblem(await post('upload-url', { label: 'x' }, soon, own.slug), 403, 'premium_required');
  });

  it('leaves images by external URL open to every user, with no call to the asset routes', async () => {
    const own = await newCampaign(plain, 'Open images');
    const description = [{ type: 'image', url: 'https://example.com/maps/phandalin.png', caption: 'Phandalin', children: [{ text: '' }] }];
    const res = await app.inject({ method: 'PUT', url: `/api/campaigns/${own.slug}`, headers: plain.headers, payload: { updatedCampaign: { description } } });
    expect(res.statusCode).toBe(200);
    expect(json(res).description).toEqual(description);
  });

  it('400 for a missing or invalid label on upload-url, storing nothing', async () => {
    const before = await counts();
    const cases: [unknown, string][] = [
      [{}, '/label'],
      [{ label: '' }, '/label'],
      [{ label: '   ' }, '/label'],
      [{ label: 'x'.repeat(256) }, '/label'],
      [{ label: 42 }, '/label'],
      [{ label: null }, '/label'],
      [[], '/'],
    ];
    for (const [payload, pointer] of cases) {
      const body = expectProblem(await post('upload-url', payload), 400, 'validation_failed');
      expect(body.errors.map((e: { path: string }) => e.path), JSON.stringify(payload)).toContain(pointer);
    }
    expectProblem(await post('upload-url', undefined), 400, 'validation_failed');
    expectProblem(await post('upload-url', '{"label": ', gm, campaign.slug, { 'content-type': 'application/json' }), 400, 'malformed_json');
    expectProblem(await post('upload-url', 'label=x', gm, campaign.slug, { 'content-type': 'application/x-www-form-urlencoded' }), 415, 'unsupported_media_type');
    expect(await counts()).toEqual(before);
  });

  it('400 for missing or malformed parameters on confirm-upload', async () => {
    const granted = await uploaded();
    const cases: [unknown, string[]][] = [
      [{}, ['/imageId', '/label']],
      [{ label: 'x' }, ['/imageId']],
      [{ imageId: granted.imageId }, ['/label']],
      [{ imageId: granted.imageId, label: '  ' }, ['/label']],
      [{ imageId: '../x', label: 'x' }, ['/imageId']],
      [{ imageId: `../../${granted.imageId}`, label: 'x' }, ['/imageId']],
      [{ imageId: granted.imageId.toUpperCase(), label: 'x' }, ['/imageId']],
      [{ imageId: 7, label: 'x' }, ['/imageId']],
    ];
    for (const [payload, pointers] of cases) {
      const body = expectProblem(await post('confirm-upload', payload), 400, 'validation_failed');
      expect(body.errors.map((e: { path: string }) => e.path).sort(), JSON.stringify(payload)).toEqual(pointers);
    }
    expect(await database.kysely.selectFrom('assets').select('id').where('image_id', '=', granted.imageId).execute()).toEqual([]);
  });

  it('400 for an imageId not issued to this caller and campaign, or not uploaded, or expired', async () => {
    const forged = expectProblem(await post('confirm-upload', { imageId: 'f'.repeat(32), label: 'x' }), 400, 'image_id_not_issued');
    expect(forged.detail).toMatch(/not issued/);

    // Another user's grant, in their own campaign.
    const theirs = await newCampaign(stranger, 'Theirs');
    const theirGrant = await uploaded(stranger, theirs.slug);
    expectProblem(await post('confirm-upload', { imageId: theirGrant.imageId, label: 'x' }), 400, 'image_id_not_issued');
    // The caller's own grant, but of another campaign.
    const second = await newCampaign(gm, 'Second');
    const elsewhere = await uploaded(gm, second.slug);
    expectProblem(await post('confirm-upload', { imageId: elsewhere.imageId, label: 'x' }), 400, 'image_id_not_issued');

    const notUploaded = await grant();
    expectProblem(await post('confirm-upload', { imageId: notUploaded.imageId, label: 'x' }), 400, 'upload_not_completed');

    const expired = await uploaded();
    await database.kysely.updateTable('upload_grants').set({ expires_at: new Date(Date.now() - 1).toISOString() }).where('id', '=', expired.imageId).execute();
    expectProblem(await post('confirm-upload', { imageId: expired.imageId, label: 'x' }), 400, 'upload_expired');

    expect(await database.kysely.selectFrom('assets').select('id').where('image_id', 'in', [theirGrant.imageId, elsewhere.imageId, notUploaded.imageId, expired.imageId]).execute()).toEqual([]);
  });

  it('500 with success: false when the image host fails, saving nothing; a retry then succeeds', async () => {
    const granted = await uploaded();
    host.failVerify = true;
    try {
      const body = expectProblem(await post('confirm-upload', { imageId: granted.imageId, label: 'x' }), 500, 'upload_verification_failed');
      expect(body.detail).not.toMatch(/down|stack|\.ts:/);
    } finally {
      host.failVerify = false;
    }
    expect(await database.kysely.selectFrom('assets').select('id').where('image_id', '=', granted.imageId).execute()).toEqual([]);
    expect(await database.kysely.selectFrom('upload_grants').select('id').where('id', '=', granted.imageId).execute()).toHaveLength(1);
    expect((await post('confirm-upload', { imageId: granted.imageId, label: 'x' })).statusCode).toBe(200);
  });

  it('400 upload_rejected for stored bytes that are no longer an image, removing them', async () => {
    const granted = await uploaded();
    const file = path.join(dataDir, 'images', String(campaign.id), `${granted.imageId}.png`);
    fs.writeFileSync(file, html());
    expectProblem(await post('confirm-upload', { imageId: granted.imageId, label: 'x' }), 400, 'upload_rejected');
    expect(fs.existsSync(file)).toBe(false);
    expectProblem(await post('confirm-upload', { imageId: granted.imageId, label: 'x' }), 400, 'upload_not_completed');
  });
});

describe('grants and confirmation', () => {
  it('issues a grant bound to the caller and campaign, expiring in 30 minutes, with a 128-bit random id', async () => {
    const before = Date.now();
    const res = await post('upload-url', { label: '  A portrait  ' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = json(res);
    expect(Object.keys(body).sort()).toEqual(['imageId', 'success', 'uploadURL']);
    expect(body.success).toBe(true);
    expect(body.imageId).toMatch(/^[0-9a-f]{32}$/);
    const row = await database.kysely.selectFrom('upload_grants').selectAll().where('id', '=', body.imageId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ campaign_id: campaign.id, user_id: gm.id, label: 'A portrait', uploaded_at: null });
    expect(Date.parse(row.expires_at) - Date.parse(row.created_at)).toBe(30 * 60_000);
    expect(Date.parse(row.created_at)).toBeGreaterThanOrEqual(before - 5);
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add(json(await post('upload-url', { label: 'x' })).imageId);
    expect(ids.size).toBe(20);
  });

  it('confirms once: a repeat returns the same asset, the grant is consumed', async () => {
    const granted = await uploaded();
    const first = await post('confirm-upload', { imageId: granted.imageId, label: ' The keep ' });
    expect(first.statusCode).toBe(200);
    const body = json(first);
    expect(Object.keys(body).sort()).toEqual(['asset', 'success', 'url']);
    expect(Object.keys(body.asset).sort()).toEqual(['campaignId', 'createdAt', 'height', 'id', 'imageHostId', 'label', 'url', 'userId', 'variants', 'width']);
    expect(body.asset).toMatchObject({ label: 'The keep', campaignId: campaign.id, userId: gm.id, url: body.url });
    expect(await database.kysely.selectFrom('upload_grants').select('id').where('id', '=', granted.imageId).execute()).toEqual([]);
    const again = await post('confirm-upload', { imageId: granted.imageId, label: 'Another label' });
    expect(again.statusCode).toBe(200);
    expect(json(again)).toEqual(body);
    // The upload URL is spent.
    const reupload = await app.inject({ method: 'PUT', url: new URL(granted.uploadURL).pathname, payload: png() });
    expect(reupload.statusCode).toBe(404);
    expect(await database.kysely.selectFrom('assets').select('id').where('image_id', '=', granted.imageId).execute()).toHaveLength(1);
  });

  it('makes one asset of simultaneous confirmations', async () => {
    const granted = await uploaded();
    const results = await Promise.all(Array.from({ length: 4 }, () => post('confirm-upload', { imageId: granted.imageId, label: 'Race' })));
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    expect(new Set(results.map((r) => json(r).asset.id)).size).toBe(1);
    expect(await database.kysely.selectFrom('assets').select('id').where('image_id', '=', granted.imageId).execute()).toHaveLength(1);
  });
});

describe('list and delete', () => {
  it('lists the campaign’s assets newest first, exactly as the spec’s Asset, also to an owner whose premium lapsed', async () => {
    const fresh = await newCampaign(gm, 'Gallery');
    expect(json(await app.inject({ method: 'GET', url: `/api/campaigns/${fresh.slug}/assets`, headers: gm.headers }))).toEqual([]);
    const a = await confirmed('First', gm, fresh.slug);
    const b = await confirmed('Second', gm, fresh.slug);
    const c = await confirmed('Third', gm, fresh.slug);
    const res = await app.inject({ method: 'GET', url: `/api/campaigns/${fresh.slug}/assets`, headers: gm.headers });
    expect(res.statusCode).toBe(200);
    const list = json(res);
    expect(list.map((x: { id: number }) => x.id)).toEqual([c.id, b.id, a.id]);
    expect(list[0]).toEqual(c);
    for (const item of list) expect(Object.keys(item).sort()).toEqual(['campaignId', 'createdAt', 'height', 'id', 'imageHostId', 'label', 'url', 'userId', 'variants', 'width']);
    expect(list.map((x: { label: string }) => x.label)).toEqual(['Third', 'Second', 'First']);

    await setPremium(app, database, gm.email, new Date(Date.now() - 1).toISOString());
    try {
      expect(json(await app.inject({ method: 'GET', url: `/api/campaigns/${fresh.slug}/assets`, headers: gm.headers }))).toHaveLength(3);
    } finally {
      await setPremium(app, database, gm.email, IN_A_YEAR);
    }
    expectProblem(await app.inject({ method: 'GET', url: `/api/campaigns/${fresh.slug}/assets`, headers: stranger.headers }), 404, 'campaign_not_found', false);
  });

  it('deletes an asset to the trash, and its stored image when erased from there; 404 for unknown ids and other campaigns’ assets, 400 for malformed ids', async () => {
    const asset = await confirmed('Doomed');
    const file = path.join(dataDir, 'images', storedFile(asset));
    expect(fs.existsSync(file)).toBe(true);
    const other = await newCampaign(gm, 'Other');
    const url = (slug: string, id: string | number) => `/api/campaigns/${slug}/assets/${id}`;

    expectProblem(await app.inject({ method: 'DELETE', url: url(other.slug, asset.id), headers: gm.headers }), 404, 'asset_not_found', false);
    expectProblem(await app.inject({ method: 'DELETE', url: url(campaign.slug, asset.id), headers: stranger.headers }), 404, 'campaign_not_found', false);
    for (const id of ['abc', '0', '-1', '1.5', '01']) {
      expectProblem(await app.inject({ method: 'DELETE', url: url(campaign.slug, id), headers: gm.headers }), 400, 'invalid_id', false);
    }
    for (const id of ['99999999', '99999999999']) {
      expectProblem(await app.inject({ method: 'DELETE', url: url(campaign.slug, id), headers: gm.headers }), 404, 'asset_not_found', false);
    }
    expect(fs.existsSync(file)).toBe(true);

    const res = await app.inject({ method: 'DELETE', url: url(campaign.slug, asset.id), headers: gm.headers });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    // In the trash: the record is gone, the image waits for the entry's erasure.
    expect(fs.existsSync(file)).toBe(true);
    expect(await database.kysely.selectFrom('assets').select('id').where('id', '=', asset.id).execute()).toEqual([]);
    expectProblem(await app.inject({ method: 'DELETE', url: url(campaign.slug, asset.id), headers: gm.headers }), 404, 'asset_not_found', false);
    // A restore brings it back whole, as the list answered it.
    const restored = await app.inject({ method: 'POST', url: `/api/campaigns/${campaign.slug}/trash/asset/${asset.id}/restore`, headers: gm.headers });
    expect(restored.statusCode, restored.body).toBe(200);
    expect(json(restored).record).toEqual(asset);
    expect(json(await app.inject({ method: 'GET', url: `/api/campaigns/${campaign.slug}/assets`, headers: gm.headers }))).toContainEqual(asset);
    expect((await app.inject({ method: 'DELETE', url: url(campaign.slug, asset.id), headers: gm.headers })).statusCode).toBe(204);
    const erased = await app.inject({ method: 'DELETE', url: `/api/campaigns/${campaign.slug}/trash/asset/${asset.id}`, headers: gm.headers });
    expect(erased.statusCode).toBe(204);
    expect(fs.existsSync(file)).toBe(false);
    expect(await database.kysely.selectFrom('image_removals').selectAll().execute()).toEqual([]);
  });

  it('erases the record even when the host fails; the bytes wait in the queue for the sweeper', async () => {
    const asset = await confirmed('Stubborn');
    const file = path.join(dataDir, 'images', storedFile(asset));
    expect((await app.inject({ method: 'DELETE', url: `/api/campaigns/${campaign.slug}/assets/${asset.id}`, headers: gm.headers })).statusCode).toBe(204);
    host.failRemove = true;
    try {
      expect((await app.inject({ method: 'DELETE', url: `/api/campaigns/${campaign.slug}/trash/asset/${asset.id}`, headers: gm.headers })).statusCode).toBe(204);
    } finally {
      host.failRemove = false;
    }
    expect(await database.kysely.selectFrom('assets').select('id').where('id', '=', asset.id).execute()).toEqual([]);
    expect(fs.existsSync(file)).toBe(true);
    expect(await database.kysely.selectFrom('image_removals').select('campaign_id').execute()).toEqual([{ campaign_id: campaign.id }]);
    const swept = await sweepUploads(database, host, new Date(), app.log);
    expect(swept.removalsLeft).toBe(false);
    expect(swept.removedImages).toBeGreaterThanOrEqual(1);
    expect(fs.existsSync(file)).toBe(false);
    expect(await database.kysely.selectFrom('image_removals').selectAll().execute()).toEqual([]);
  });
});

describe('campaign deletion and the sweeper', () => {
  it('erasing a deleted campaign removes its assets, its trashed assets, its pending uploads and their files', async () => {
    const doomed = await newCampaign(gm, 'Doomed campaign');
    const asset = await confirmed('Kept until the end', gm, doomed.slug);
    const trashed = await confirmed('In the trash', gm, doomed.slug);
    expect((await app.inject({ method: 'DELETE', url: `/api/campaigns/${doomed.slug}/assets/${trashed.id}`, headers: gm.headers })).statusCode).toBe(204);
    const pending = await uploaded(gm, doomed.slug, IMAGES.gif.bytes);
    await grant(gm, doomed.slug);
    // A confirmed image has its variant beside it (a 1×1 PNG: one, at its full width).
    expect(filesOf(doomed.id)).toEqual(
      [`${asset.imageHostId}.png`, `${asset.imageHostId}-480.webp`, `${trashed.imageHostId}.png`, `${trashed.imageHostId}-480.webp`, `${pending.imageId}.gif`].sort(),
    );
    const survivor = await confirmed('Other campaign');

    const res = await app.inject({ method: 'DELETE', url: `/api/campaigns/${doomed.slug}`, headers: gm.headers });
    expect(res.statusCode).toBe(204);
    // In the owner's trash: nothing is erased yet.
    expect(filesOf(doomed.id)).toHaveLength(5);
    expect((await app.inject({ method: 'GET', url: `/api/campaigns/${doomed.slug}`, headers: gm.headers })).statusCode).toBe(404);
    expect((await app.inject({ method: 'DELETE', url: `/api/trash/campaigns/${doomed.id}`, headers: gm.headers })).statusCode).toBe(204);
    expect(filesOf(doomed.id)).toEqual([]);
    expect(fs.existsSync(path.join(dataDir, 'images', String(doomed.id)))).toBe(false);
    expect(await database.kysely.selectFrom('assets').select('id').where('campaign_id', '=', doomed.id).execute()).toEqual([]);
    expect(await database.kysely.selectFrom('upload_grants').select('id').where('campaign_id', '=', doomed.id).execute()).toEqual([]);
    expect(await database.kysely.selectFrom('image_removals').selectAll().execute()).toEqual([]);
    expect(fs.existsSync(path.join(dataDir, 'images', storedFile(survivor)))).toBe(true);
  });

  it('erasing a deleted campaign while the host fails still erases it, leaving the bytes queued', async () => {
    const doomed = await newCampaign(gm, 'Doomed while down');
    await confirmed('x', gm, doomed.slug);
    await uploaded(gm, doomed.slug);
    expect((await app.inject({ method: 'DELETE', url: `/api/campaigns/${doomed.slug}`, headers: gm.headers })).statusCode).toBe(204);
    host.failRemove = true;
    try {
      expect((await app.inject({ method: 'DELETE', url: `/api/trash/campaigns/${doomed.id}`, headers: gm.headers })).statusCode).toBe(204);
    } finally {
      host.failRemove = false;
    }
    expect(await database.kysely.selectFrom('campaigns').select('id').where('id', '=', doomed.id).execute()).toEqual([]);
    expect(filesOf(doomed.id)).toHaveLength(3);
    expect(await database.kysely.selectFrom('image_removals').select('image_id').where('campaign_id', '=', doomed.id).execute()).toHaveLength(2);
    await sweepUploads(database, host, new Date(), app.log);
    expect(filesOf(doomed.id)).toEqual([]);
    expect(await database.kysely.selectFrom('image_removals').selectAll().execute()).toEqual([]);
  });

  it('sweeps grants that expired unconfirmed, with their bytes, once each even with several sweepers', async () => {
    const swept = await newCampaign(gm, 'Swept');
    const kept = await confirmed('Confirmed before expiry', gm, swept.slug);
    const stale = await Promise.all([uploaded(gm, swept.slug), uploaded(gm, swept.slug), grant(gm, swept.slug)]);
    const live = await uploaded(gm, swept.slug);
    const ids = stale.map((g) => g.imageId);
    await database.kysely.updateTable('upload_grants').set({ expires_at: new Date(Date.now() - 60_000).toISOString() }).where('id', 'in', ids).execute();
    expect(filesOf(swept.id)).toHaveLength(5);

    const results = await Promise.all([1, 2, 3].map(() => sweepUploads(database, host, new Date(), app.log)));
    expect(results.reduce((sum, r) => sum + r.expiredGrants, 0)).toBe(3);
    expect(await database.kysely.selectFrom('upload_grants').select('id').where('campaign_id', '=', swept.id).execute()).toEqual([{ id: live.imageId }]);
    expect(filesOf(swept.id)).toEqual([`${kept.imageHostId}.png`, `${kept.imageHostId}-480.webp`, `${live.imageId}.png`].sort());
    expect(await database.kysely.selectFrom('image_removals').selectAll().execute()).toEqual([]);
    for (const g of stale) {
      expectProblem(await post('confirm-upload', { imageId: g.imageId, label: 'late' }, gm, swept.slug), 400, 'image_id_not_issued');
    }
  });
});
