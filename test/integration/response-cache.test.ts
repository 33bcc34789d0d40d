import { joinCampaign } from '../support/sharing.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../src/db/database.js';
import type { AppInstance } from '../../src/http/app-types.js';
import { buildCheckedApp, createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { dialect } from '../support/test-db.js';

// The response cache is keyed by the campaign's content_version, which every write bumps in the
// database; these tests hold it to that across two app instances on one database.

let ctx: TestContext;
let owner: TestUser;
let second: AppInstance;
let secondDatabase: Database | undefined;
let slug: string;
let typeId: number;

beforeAll(async () => {
  ctx = await createTestContext();
  owner = await ctx.createUser();
  // A second instance with its own cache (and on PostgreSQL its own connection pool).
  secondDatabase = dialect === 'postgres' ? createDatabase({ url: ctx.database.url }) : undefined;
  second = await buildCheckedApp(ctx.config, { database: secondDatabase ?? ctx.database, logger: false });
  const campaign = json(await post(ctx.app, '/api/campaigns', { newCampaign: { name: 'Cached' } }));
  slug = campaign.slug;
  typeId = json(await get(ctx.app, `/api/campaigns/${slug}/thing-types`))[0].id;
});
afterAll(async () => {
  await second.close();
  await secondDatabase?.close();
  await ctx.close();
});

// On PostgreSQL the caller-and-campaign lookup is kept in memory (db/caller-cache.ts): a request
// whose caller was seen before runs no statement for it; on SQLite it runs one every time.
const lookups = dialect === 'postgres' ? 0 : 1;

// The other instance learns of a write by a notice that arrives asynchronously, within a fraction
// of a millisecond (test/integration/caller-cache.test.ts measures it): wait for it, by a barrier
// rather than a sleep, before asking the other instance.
async function noticed(app: AppInstance = second) {
  await app.callerCache?.notifications.sync();
}

function get(app: AppInstance, url: string, headers: Record<string, string> = {}) {
  return app.inject({ method: 'GET', url, headers: { ...owner.headers, ...headers } });
}
function post(app: AppInstance, url: string, payload: object) {
  return app.inject({ method: 'POST', url, headers: owner.headers, payload });
}

describe('response cache', () => {
  it('answers a repeated list GET from memory with at most one statement (the caller and campaign lookup)', async () => {
    await post(ctx.app, `/api/campaigns/${slug}/things`, { newThing: { name: 'Warm', typeId } });
    const first = await get(ctx.app, `/api/campaigns/${slug}/arcs`);
    expect(first.statusCode).toBe(200);
    ctx.queries.length = 0;
    const again = await get(ctx.app, `/api/campaigns/${slug}/arcs`);
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe(first.body);
    expect(again.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(ctx.queries).toHaveLength(lookups);
  });

  it('builds a list once for many concurrent requests that miss together, and sends them all the same bytes', async () => {
    await post(ctx.app, `/api/campaigns/${slug}/things`, { newThing: { name: 'Crowd Magnet', typeId } });
    const url = `/api/campaigns/${slug}/things?fetchAll=true`;
    ctx.queries.length = 0;
    const responses = await Promise.all(Array.from({ length: 20 }, () => get(ctx.app, url)));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    expect(new Set(responses.map((r) => r.body)).size).toBe(1);
    expect(new Set(responses.map((r) => r.headers.etag)).size).toBe(1);
    expect(json<{ name: string }[]>(responses[0]!).map((t) => t.name)).toContain('Crowd Magnet');
    // 20 caller-and-campaign lookups (none on PostgreSQL: the POST's is kept, its content_version
    // moved on by the write's notice), and the list read by one request only.
    const listReads = ctx.queries.filter((text) => /from "things"/.test(text) && !/"api_tokens"/.test(text));
    expect(listReads.length).toBeGreaterThan(0);
    expect(ctx.queries.length - listReads.length).toBe(20 * lookups);
    const single = await get(ctx.app, url);
    ctx.queries.length = 0;
    expect((await get(ctx.app, url)).body).toBe(single.body);
    expect(ctx.queries).toHaveLength(lookups);
    // The same number of list statements as one request alone would have run.
    ctx.queries.length = 0;
    await post(ctx.app, `/api/campaigns/${slug}/things`, { newThing: { name: 'Version bump', typeId } });
    ctx.queries.length = 0;
    await get(ctx.app, url);
    expect(listReads.length).toBe(ctx.queries.length - lookups);
  });

  it('answers 304 to a matching If-None-Match on lists and records, and 200 after a write', async () => {
    const listUrl = `/api/campaigns/${slug}/things`;
    const list = await get(ctx.app, listUrl);
    const listTag = list.headers.etag as string;
    expect(listTag).toBeTruthy();
    const notModified = await get(ctx.app, listUrl, { 'if-none-match': listTag });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.body).toBe('');
    expect(notModified.headers.etag).toBe(listTag);
    // the other instance agrees: the tag comes from the database's versions
    expect((await get(second, listUrl, { 'if-none-match': listTag })).statusCode).toBe(304);

    const created = json(await post(ctx.app, listUrl, { newThing: { name: 'Record', typeId } }));
    const recordUrl = `${listUrl}/${created.slug}`;
    const record = await get(ctx.app, recordUrl);
    const recordTag = record.headers.etag as string;
    expect(recordTag).toMatch(/^"\d+-\d+"$/);
    await get(ctx.app, recordUrl);
    expect((await get(ctx.app, recordUrl, { 'if-none-match': recordTag })).statusCode).toBe(304);
    expect((await get(ctx.app, recordUrl, { 'if-none-match': `W/${recordTag}` })).statusCode).toBe(304);
    expect((await get(ctx.app, recordUrl, { 'if-none-match': '"1-999"' })).statusCode).toBe(200);

    const after = await get(ctx.app, listUrl, { 'if-none-match': listTag });
    expect(after.statusCode).toBe(200);
    expect(after.headers.etag).not.toBe(listTag);
  });

  it('a write through one instance invalidates cached responses on the other', async () => {
    const listUrl = `/api/campaigns/${slug}/things?fetchAll=true`;
    const arcsUrl = `/api/campaigns/${slug}/arcs`;
    await get(ctx.app, listUrl);
    await get(second, listUrl);
    await get(second, arcsUrl);

    const thing = json(await post(ctx.app, `/api/campaigns/${slug}/things`, { newThing: { name: 'Fresh Face', typeId } }));
    await noticed();
    expect(json<{ slug: string }[]>(await get(second, listUrl)).map((t) => t.slug)).toContain(thing.slug);

    const arc = json(await post(second, arcsUrl, { newArc: { name: 'New Arc' } }));
    await noticed(ctx.app);
    await get(ctx.app, arcsUrl);
    await post(ctx.app, `/api/campaigns/${slug}/things/${thing.slug}/arcs`, { arcSlug: arc.slug });
    await noticed();
    const arcs = json<{ slug: string; things: { slug: string }[] }[]>(await get(second, arcsUrl));
    expect(arcs.find((a) => a.slug === arc.slug)!.things.map((t) => t.slug)).toEqual([thing.slug]);

    const recordUrl = `/api/campaigns/${slug}/things/${thing.slug}`;
    await get(second, recordUrl);
    const renamed = await ctx.app.inject({ method: 'PUT', url: recordUrl, headers: owner.headers, payload: { updatedThing: { name: 'Renamed Face' } } });
    expect(renamed.statusCode).toBe(200);
    await noticed();
    expect(json(await get(second, recordUrl)).name).toBe('Renamed Face');

    const del = await ctx.app.inject({ method: 'DELETE', url: `/api/campaigns/${slug}/thing-types/${typeId}`, headers: owner.headers });
    expect(del.statusCode).toBe(204);
    await noticed();
    expect((await get(second, recordUrl)).statusCode).toBe(404);
    expect(json<unknown[]>(await get(second, listUrl))).toEqual([]);
  });

  it('never serves one campaign’s cached response for another', async () => {
    const other = json(await post(ctx.app, '/api/campaigns', { newCampaign: { name: 'Other Cached' } }));
    const a = await get(ctx.app, `/api/campaigns/${slug}/thing-types`);
    const b = await get(ctx.app, `/api/campaigns/${other.slug}/thing-types`);
    expect(json<{ campaignId: number }[]>(b).every((t) => t.campaignId === other.id)).toBe(true);
    expect(b.body).not.toBe(a.body);
  });
});

// Every write route of a campaign must bump content_version, or the cache would serve stale data.
// Generated from the route table: a new write route fails here until it gets a sample request.
describe('every campaign write bumps the content version', () => {
  // Routes whose data is never served from the response cache.
  const exempt = new Set(['POST /api/campaigns/:campaignSlug/assets/upload-url', 'POST /api/campaigns/:campaignSlug/assets/confirm-upload', 'DELETE /api/campaigns/:campaignSlug/assets/:id']);

  it('for every write route under a campaign', async () => {
    const kysely = ctx.database.kysely;
    const campaign = json(await post(ctx.app, '/api/campaigns', { newCampaign: { name: 'Bumps' } }));
    slug = campaign.slug;
    const types = json<{ id: number }[]>(await get(ctx.app, `/api/campaigns/${slug}/thing-types`));
    const base = `/api/campaigns/${slug}`;
    const thing = json(await post(ctx.app, `${base}/things`, { newThing: { name: 'Bumpy', typeId: types[0]!.id } }));
    const arc = json(await post(ctx.app, `${base}/arcs`, { newArc: { name: 'Bump Arc' } }));
    await post(ctx.app, `${base}/things/${thing.slug}/arcs`, { arcSlug: arc.slug });
    const extraType = json(await post(ctx.app, `${base}/thing-types`, { newThingType: { name: 'Spells' } }));
    const doomedThing = json(await post(ctx.app, `${base}/things`, { newThing: { name: 'Doomed', typeId: types[0]!.id } }));
    const doomedArc = json(await post(ctx.app, `${base}/arcs`, { newArc: { name: 'Doomed Arc' } }));
    const player = await ctx.createUser();
    const leaver = await ctx.createUser();
    await joinCampaign(ctx.app, owner, slug, player, 'player');
    await joinCampaign(ctx.app, owner, slug, leaver, 'player');
    const invitation = json(await post(ctx.app, `${base}/invitations`, { role: 'player' }));
    const firstRevision = async (path: string) => json<{ id: number }[]>(await get(ctx.app, `${base}${path}/revisions`)).at(-1)!.id;
    const revisions = { thing: await firstRevision(`/things/${thing.slug}`), arc: await firstRevision(`/arcs/${arc.slug}`), campaign: await firstRevision('') };

    const samples: Record<string, { url: string; payload?: object; status: number }> = {
      'POST /api/campaigns/:campaignSlug/things': { url: `${base}/things`, payload: { newThing: { name: 'Another', typeId: types[0]!.id } }, status: 201 },
      'PUT /api/campaigns/:campaignSlug/things/:thingSlug': { url: `${base}/things/${thing.slug}`, payload: { updatedThing: { name: 'Bumpier' } }, status: 200 },
      'DELETE /api/campaigns/:campaignSlug/things/:thingSlug': { url: `${base}/things/${doomedThing.slug}`, status: 204 },
      'POST /api/campaigns/:campaignSlug/thing-types': { url: `${base}/thing-types`, payload: { newThingType: { name: 'Deities' } }, status: 201 },
      'PUT /api/campaigns/:campaignSlug/thing-types/:thingTypeId': { url: `${base}/thing-types/${extraType.id}`, payload: { updatedThingType: { name: 'Cantrips' } }, status: 200 },
      'DELETE /api/campaigns/:campaignSlug/thing-types/:thingTypeId': { url: `${base}/thing-types/${extraType.id}`, status: 204 },
      'POST /api/campaigns/:campaignSlug/arcs': { url: `${base}/arcs`, payload: { newArc: { name: 'Second Arc' } }, status: 201 },
      'PUT /api/campaigns/:campaignSlug/arcs/:arcSlug': { url: `${base}/arcs/${arc.slug}`, payload: { updatedArc: { name: 'Bump Arc II' } }, status: 200 },
      'DELETE /api/campaigns/:campaignSlug/arcs/:arcSlug': { url: `${base}/arcs/${doomedArc.slug}`, status: 204 },
      'POST /api/campaigns/:campaignSlug/things/:thingSlug/arcs': { url: `${base}/things/${thing.slug}/arcs`, payload: { arcSlug: arc.slug }, status: 200 },
      'DELETE /api/campaigns/:campaignSlug/things/:thingSlug/arcs/:arcSlug': { url: `${base}/things/${thing.slug}/arcs/${arc.slug}`, status: 204 },
      'POST /api/campaigns/:campaignSlug/invitations': { url: `${base}/invitations`, payload: { role: 'gm' }, status: 201 },
      'DELETE /api/campaigns/:campaignSlug/invitations/:id': { url: `${base}/invitations/${invitation.id}`, status: 204 },
      'PUT /api/campaigns/:campaignSlug/members/:userId': { url: `${base}/members/${player.id}`, payload: { role: 'gm' }, status: 200 },
      'DELETE /api/campaigns/:campaignSlug/members/:userId': { url: `${base}/members/${leaver.id}`, status: 204 },
      // To the owner themselves: the owner stays, for the routes after it.
      'POST /api/campaigns/:campaignSlug/transfer': { url: `${base}/transfer`, payload: { userId: owner.id }, status: 200 },
      // The campaign's own fields are versioned by campaigns.version, also part of the cache key.
      'PUT /api/campaigns/:campaignSlug': { url: base, payload: { updatedCampaign: { name: 'Bumps Renamed' } }, status: 200 },
      // History: naming a revision and restoring one (a change of the record).
      'PUT /api/campaigns/:campaignSlug/things/:thingSlug/revisions/:revisionId': { url: `${base}/things/${thing.slug}/revisions/${revisions.thing}`, payload: { name: 'Named' }, status: 200 },
      'POST /api/campaigns/:campaignSlug/things/:thingSlug/revisions/:revisionId/restore': { url: `${base}/things/${thing.slug}/revisions/${revisions.thing}/restore`, status: 200 },
      'PUT /api/campaigns/:campaignSlug/arcs/:arcSlug/revisions/:revisionId': { url: `${base}/arcs/${arc.slug}/revisions/${revisions.arc}`, payload: { name: 'Named' }, status: 200 },
      'POST /api/campaigns/:campaignSlug/arcs/:arcSlug/revisions/:revisionId/restore': { url: `${base}/arcs/${arc.slug}/revisions/${revisions.arc}/restore`, status: 200 },
      'PUT /api/campaigns/:campaignSlug/revisions/:revisionId': { url: `${base}/revisions/${revisions.campaign}`, payload: { name: 'Named' }, status: 200 },
      'POST /api/campaigns/:campaignSlug/revisions/:revisionId/restore': { url: `${base}/revisions/${revisions.campaign}/restore`, status: 200 },
      // The trash: restoring the thing deleted above, erasing the arc.
      'POST /api/campaigns/:campaignSlug/trash/:kind/:id/restore': { url: `${base}/trash/thing/${doomedThing.id}/restore`, status: 200 },
      'DELETE /api/campaigns/:campaignSlug/trash/:kind/:id': { url: `${base}/trash/arc/${doomedArc.id}`, status: 204 },
      // To the owner's trash: the row stays, its versions moved, for a restore.
      'DELETE /api/campaigns/:campaignSlug': { url: base, status: 204 },
    };

    const writes = ctx.app.routeTable.filter((r) => r.url.startsWith('/api/campaigns/:campaignSlug') && r.method !== 'GET');
    expect(writes.length).toBeGreaterThanOrEqual(13);
    const order = Object.keys(samples);
    writes.sort((a, b) => order.indexOf(`${a.method} ${a.url}`) - order.indexOf(`${b.method} ${b.url}`));
    for (const route of writes) {
      const key = `${route.method} ${route.url}`;
      if (exempt.has(key)) continue;
      const sample = samples[key];
      expect(sample, `no sample request for ${key}: add one so the cache invalidation is checked`).toBeDefined();
      const before = await kysely.selectFrom('campaigns').select(['version', 'content_version']).where('id', '=', campaign.id).executeTakeFirst();
      const res = await ctx.app.inject({ method: route.method as 'POST', url: sample!.url, headers: owner.headers, ...(sample!.payload ? { payload: sample!.payload } : {}) });
      expect(res.statusCode, `${key}: ${res.body}`).toBe(sample!.status);
      const after = await kysely.selectFrom('campaigns').select(['version', 'content_version']).where('id', '=', campaign.id).executeTakeFirst();
      const moved = after!.content_version > before!.content_version || after!.version > before!.version;
      expect(moved, `${key} did not bump the campaign's versions`).toBe(true);
    }
  });
});

describe('cache off', () => {
  it('RESPONSE_CACHE_MB=0 serves every request from the database', async () => {
    const off = await createTestContext({ RESPONSE_CACHE_MB: '0' });
    try {
      const user = await off.createUser();
      const c = json(await off.app.inject({ method: 'POST', url: '/api/campaigns', headers: user.headers, payload: { newCampaign: { name: 'Uncached' } } }));
      await off.app.inject({ method: 'GET', url: `/api/campaigns/${c.slug}/arcs`, headers: user.headers });
      off.queries.length = 0;
      await off.app.inject({ method: 'GET', url: `/api/campaigns/${c.slug}/arcs`, headers: user.headers });
      expect(off.queries.length).toBeGreaterThan(1);
    } finally {
      await off.close();
    }
  });
});
