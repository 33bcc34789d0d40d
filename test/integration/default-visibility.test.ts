import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { joinCampaign } from '../support/sharing.js';

// CONTRACT "New records' visibility": a campaign's `defaultVisibility` ("all" by default, or "gm"),
// set by the owner or a game master with PUT the campaign, answered in every campaign record, taken
// by a thing or arc created without `visibility`, and carried by the changes feed and export/import.

let ctx: TestContext;
let owner: TestUser;
let gm: TestUser;
let player: TestUser;

beforeAll(async () => {
  ctx = await createTestContext();
  owner = await ctx.createUser();
  gm = await ctx.createUser();
  player = await ctx.createUser();
});
afterAll(() => ctx.close());

function send(user: TestUser, method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, headers: Record<string, string> = {}) {
  return ctx.app.inject({ method, url, headers: { ...user.headers, ...headers }, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
}

let counter = 0;
async function newCampaign(): Promise<{ slug: string; base: string; typeId: number; record: Record<string, unknown> }> {
  const res = await send(owner, 'POST', '/api/campaigns', { newCampaign: { name: `Defaults ${++counter}` } });
  expect(res.statusCode).toBe(201);
  const record = json<Record<string, unknown> & { slug: string }>(res);
  await joinCampaign(ctx.app, owner, record.slug, gm, 'gm');
  await joinCampaign(ctx.app, owner, record.slug, player, 'player');
  const base = `/api/campaigns/${record.slug}`;
  const types = json<{ id: number }[]>(await send(owner, 'GET', `${base}/thing-types`));
  return { slug: record.slug, base, typeId: types[0]!.id, record };
}

describe('defaultVisibility', () => {
  it('is "all" on a new campaign, in every campaign record', async () => {
    const c = await newCampaign();
    expect(c.record.defaultVisibility).toBe('all');
    expect(json(await send(player, 'GET', c.base)).defaultVisibility).toBe('all');
    const listed = json<{ slug: string; defaultVisibility: string }[]>(await send(gm, 'GET', '/api/campaigns'));
    expect(listed.find((x) => x.slug === c.slug)?.defaultVisibility).toBe('all');
  });

  it('is set by the owner or a game master; a player (or the view as player) gets 403 and changes nothing; another value is 400', async () => {
    const c = await newCampaign();
    const byPlayer = await send(player, 'PUT', c.base, { updatedCampaign: { defaultVisibility: 'gm' } });
    expect(byPlayer.statusCode).toBe(403);
    expect(json(byPlayer).code).toBe('role_forbidden');
    expect((await send(gm, 'PUT', c.base, { updatedCampaign: { defaultVisibility: 'gm' } }, { 'loreforge-view': 'player' })).statusCode).toBe(403);
    expect((await send(owner, 'PUT', c.base, { updatedCampaign: { defaultVisibility: 'players' } })).statusCode).toBe(400);
    expect(json(await send(owner, 'GET', c.base)).defaultVisibility).toBe('all');
    const byGm = await send(gm, 'PUT', c.base, { updatedCampaign: { defaultVisibility: 'gm' } });
    expect(byGm.statusCode, byGm.body).toBe(200);
    expect(json(byGm).defaultVisibility).toBe('gm');
    const byOwner = await send(owner, 'PUT', c.base, { updatedCampaign: { defaultVisibility: 'all' } });
    expect(json(byOwner).defaultVisibility).toBe('all');
  });

  it('is what a thing or an arc created without visibility takes; a visibility given wins', async () => {
    const c = await newCampaign();
    await send(owner, 'PUT', c.base, { updatedCampaign: { defaultVisibility: 'gm' } });
    const hidden = json(await send(gm, 'POST', `${c.base}/things`, { newThing: { name: 'Nezznar', typeId: c.typeId } }));
    const shown = json(await send(gm, 'POST', `${c.base}/things`, { newThing: { name: 'Sildar', typeId: c.typeId, visibility: 'all' } }));
    const hiddenArc = json(await send(owner, 'POST', `${c.base}/arcs`, { newArc: { name: 'Wave Echo Cave' } }));
    const shownArc = json(await send(owner, 'POST', `${c.base}/arcs`, { newArc: { name: 'Phandalin', visibility: 'all' } }));
    expect([hidden.visibility, shown.visibility, hiddenArc.visibility, shownArc.visibility]).toEqual(['gm', 'all', 'gm', 'all']);
    expect((await send(player, 'GET', `${c.base}/things/${hidden.slug}`)).statusCode).toBe(404);
    expect((await send(player, 'GET', `${c.base}/arcs/${hiddenArc.slug}`)).statusCode).toBe(404);
    await send(owner, 'PUT', c.base, { updatedCampaign: { defaultVisibility: 'all' } });
    const later = json(await send(gm, 'POST', `${c.base}/things`, { newThing: { name: 'Gundren', typeId: c.typeId } }));
    expect(later.visibility).toBe('all');
  });

  it('is in the changes feed’s campaign record', async () => {
    const c = await newCampaign();
    await send(owner, 'PUT', c.base, { updatedCampaign: { defaultVisibility: 'gm' } });
    const feed = json<{ changes: { kind: string; record?: { defaultVisibility?: string } }[] }>(await send(owner, 'GET', `${c.base}/changes?limit=1000`));
    const campaign = feed.changes.find((change) => change.kind === 'campaign');
    expect(campaign?.record?.defaultVisibility).toBe('gm');
  });

  it('survives the json export and import, and the export of the import is equal', async () => {
    const c = await newCampaign();
    await send(owner, 'PUT', c.base, { updatedCampaign: { defaultVisibility: 'gm' } });
    await send(owner, 'POST', `${c.base}/things`, { newThing: { name: 'Glasstaff', typeId: c.typeId } });
    const exported = await send(owner, 'GET', `${c.base}/export?format=json`);
    const doc = json<{ campaign: Record<string, unknown> }>(exported);
    expect(doc.campaign.defaultVisibility).toBe('gm');
    const imported = await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...owner.headers, 'content-type': 'application/json' }, payload: exported.rawPayload });
    expect(imported.statusCode, imported.body).toBe(201);
    const record = json<{ slug: string; defaultVisibility: string }>(imported);
    expect(record.defaultVisibility).toBe('gm');
    const again = json<{ campaign: Record<string, unknown> }>(await send(owner, 'GET', `/api/campaigns/${record.slug}/export?format=json`));
    const comparable = ({ id: _id, slug: _slug, ...rest }: Record<string, unknown>) => rest;
    expect(comparable(again.campaign)).toEqual(comparable(doc.campaign));
  });

  it('is "all" for a document exported before it existed', async () => {
    const c = await newCampaign();
    await send(owner, 'PUT', c.base, { updatedCampaign: { defaultVisibility: 'gm' } });
    const doc = json<{ campaign: Record<string, unknown> }>(await send(owner, 'GET', `${c.base}/export?format=json`));
    delete doc.campaign.defaultVisibility;
    const imported = await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...owner.headers, 'content-type': 'application/json' }, payload: JSON.stringify(doc) });
    expect(imported.statusCode, imported.body).toBe(201);
    expect(json(imported).defaultVisibility).toBe('all');
  });
});
