import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trashCampaign } from '../../src/db/repositories/trashed-campaigns.js';
import { json, type TestContext, type TestUser } from '../support/app.js';
import { contextWithUsers } from '../support/fixtures.js';

const EMPTY = [{ type: 'paragraph', children: [{ text: '' }] }];
const DOC = [{ type: 'paragraph', children: [{ text: 'The Sword Coast', bold: true }] }, { type: 'image', url: 'https://example.com/x.png', children: [{ text: '' }] }];

let ctx: TestContext;
let owner: TestUser;
let stranger: TestUser;
beforeAll(async () => ({ ctx, owner, stranger } = await contextWithUsers()));
afterAll(() => ctx.close());

async function create(name: string, extra: Record<string, unknown> = {}, user = owner) {
  return ctx.app.inject({ method: 'POST', url: '/api/campaigns', headers: user.headers, payload: { newCampaign: { name, ...extra } } });
}

describe('campaigns', () => {
  it('creates a campaign with the three default thing types in order', async () => {
    const res = await create('  Lost Mine of Phandelver  ', { description: DOC });
    expect(res.statusCode).toBe(201);
    const body = json(res);
    expect(body).toMatchObject({ slug: 'lost-mine-of-phandelver', name: 'Lost Mine of Phandelver', description: DOC, userId: owner.id });
    expect(Object.keys(body).sort()).toEqual(['createdAt', 'defaultVisibility', 'description', 'id', 'name', 'role', 'slug', 'updatedAt', 'userId']);
    expect(body.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(res.headers.location).toBe('/api/campaigns/lost-mine-of-phandelver');
    const types = await ctx.app.inject({ method: 'GET', url: `/api/campaigns/${body.slug}/thing-types`, headers: owner.headers });
    if (types.statusCode === 200) {
      expect(json<{ name: string }[]>(types).map((t) => t.name)).toEqual(['NPCs', 'Locations', 'Items']);
    }
    const stored = await ctx.database.kysely.selectFrom('thing_types').select('name').where('campaign_id', '=', body.id).orderBy('id').execute();
    expect(stored.map((t) => t.name)).toEqual(['NPCs', 'Locations', 'Items']);
  });

  it('reads a never-written description as one empty paragraph', async () => {
    const body = json(await create('Empty Description'));
    expect(body.description).toEqual(EMPTY);
  });

  it('suffixes a colliding campaign slug with a short random part, across users', async () => {
    const a = json(await create('Shared Name'));
    const b = json(await create('Shared Name', {}, stranger));
    expect(a.slug).toBe('shared-name');
    expect(b.slug).toMatch(/^shared-name-[a-z0-9]{6}$/);
  });

  it('lists only the caller’s campaigns, most recently updated first', async () => {
    const first = json(await create('Alpha'));
    await create('Beta');
    // Timestamps are to the millisecond: the update must come in a later one than Beta's creation
    // (in the same one the two tie, and the newer campaign comes first).
    await new Promise((resolve) => setTimeout(resolve, 3));
    await ctx.app.inject({ method: 'PUT', url: `/api/campaigns/${first.slug}`, headers: owner.headers, payload: { updatedCampaign: { name: 'Alpha Prime' } } });
    const list = json<{ name: string; userId: string }[]>(await ctx.app.inject({ method: 'GET', url: '/api/campaigns', headers: owner.headers }));
    expect(list[0]!.name).toBe('Alpha Prime');
    expect(list.every((c) => c.userId === owner.id)).toBe(true);
  });

  it('gets, updates partially with ETag/If-Match, and deletes', async () => {
    const created = json(await create('Curse of Strahd', { description: DOC }));
    const url = `/api/campaigns/${created.slug}`;
    const got = await ctx.app.inject({ method: 'GET', url, headers: owner.headers });
    expect(got.statusCode).toBe(200);
    const etag = got.headers.etag as string;
    expect(etag).toMatch(/^"\d+-\d+-owner"$/);

    const put = await ctx.app.inject({ method: 'PUT', url, headers: { ...owner.headers, 'if-match': etag }, payload: { updatedCampaign: { name: 'Curse of Strahd Revamped' } } });
    expect(put.statusCode).toBe(200);
    expect(json(put)).toMatchObject({ name: 'Curse of Strahd Revamped', slug: created.slug, description: DOC });
    expect(json(put).updatedAt >= created.updatedAt).toBe(true);
    expect(put.headers.etag).not.toBe(etag);

    const stale = await ctx.app.inject({ method: 'PUT', url, headers: { ...owner.headers, 'if-match': etag }, payload: { updatedCampaign: { name: 'Lost' } } });
    expect(stale.statusCode).toBe(412);
    expect(json(await ctx.app.inject({ method: 'GET', url, headers: owner.headers })).name).toBe('Curse of Strahd Revamped');

    const renamed = await ctx.app.inject({ method: 'PUT', url, headers: owner.headers, payload: { updatedCampaign: { slug: 'strahd' } } });
    expect(renamed.statusCode).toBe(200);
    expect((await ctx.app.inject({ method: 'GET', url: '/api/campaigns/strahd', headers: owner.headers })).statusCode).toBe(200);

    const del = await ctx.app.inject({ method: 'DELETE', url: '/api/campaigns/strahd', headers: owner.headers });
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect((await ctx.app.inject({ method: 'GET', url: '/api/campaigns/strahd', headers: owner.headers })).statusCode).toBe(404);
  });

  it('answers 409 to a taken slug and 400 to a malformed one, changing nothing', async () => {
    const a = json(await create('Taken One'));
    const b = json(await create('Taken Two'));
    const conflict = await ctx.app.inject({ method: 'PUT', url: `/api/campaigns/${b.slug}`, headers: owner.headers, payload: { updatedCampaign: { slug: a.slug, name: 'Changed' } } });
    expect(conflict.statusCode).toBe(409);
    expect(json(conflict)).toMatchObject({ status: 409, code: 'slug_taken', title: 'Conflict' });
    expect(conflict.headers['content-type']).toMatch(/^application\/problem\+json/);
    for (const slug of ['Bad Slug', '-x', 'x-', 'a--b', '', 'x'.repeat(101), 5]) {
      const res = await ctx.app.inject({ method: 'PUT', url: `/api/campaigns/${b.slug}`, headers: owner.headers, payload: { updatedCampaign: { slug, name: 'Changed' } } });
      expect(res.statusCode, JSON.stringify(slug)).toBe(400);
      expect(json(res).errors[0].path).toBe('/updatedCampaign/slug');
    }
    expect(json(await ctx.app.inject({ method: 'GET', url: `/api/campaigns/${b.slug}`, headers: owner.headers })).name).toBe('Taken Two');
  });

  it('rejects bad bodies with 400 and pointers, storing nothing', async () => {
    const before = (await ctx.database.kysely.selectFrom('campaigns').select('id').execute()).length;
    const cases: [unknown, string][] = [
      [{}, '/newCampaign'],
      [{ newCampaign: {} }, '/newCampaign/name'],
      [{ newCampaign: { name: '   ' } }, '/newCampaign/name'],
      [{ newCampaign: { name: 'x'.repeat(256) } }, '/newCampaign/name'],
      [{ newCampaign: { name: 42 } }, '/newCampaign/name'],
      [{ newCampaign: { name: 'ok', description: 'plain string' } }, '/newCampaign/description'],
      [{ newCampaign: { name: 'ok', description: [] } }, '/newCampaign/description'],
      [{ newCampaign: { name: 'ok', description: [{ type: 'paragraph', children: [{ text: 1 }] }] } }, '/newCampaign/description/0/children/0/text'],
    ];
    for (const [payload, path] of cases) {
      const res = await ctx.app.inject({ method: 'POST', url: '/api/campaigns', headers: owner.headers, payload: payload as object });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      const body = json(res);
      expect(body).toMatchObject({ type: 'about:blank', title: 'Bad Request', status: 400, code: 'validation_failed' });
      expect(body.errors.map((e: { path: string }) => e.path), JSON.stringify(payload)).toContain(path);
    }
    expect((await ctx.database.kysely.selectFrom('campaigns').select('id').execute()).length).toBe(before);
    expect(json(await create('x'.repeat(255))).name).toHaveLength(255);
  });

  it('ignores unknown body fields', async () => {
    const res = await create('Extra Fields', { userId: 'someone-else', id: 99999, color: 'red' });
    expect(res.statusCode).toBe(201);
    expect(json(res).userId).toBe(owner.id);
  });

  it('answers concurrent deletes of one campaign with one 204 and 404 for the others', async () => {
    const doomed = json(await create('Deleted Twice'));
    const url = `/api/campaigns/${doomed.slug}`;
    const statuses = (await Promise.all(Array.from({ length: 5 }, () => ctx.app.inject({ method: 'DELETE', url, headers: owner.headers })))).map(
      (res) => res.statusCode,
    );
    expect(statuses.sort()).toEqual([204, 404, 404, 404, 404]);
    expect((await ctx.app.inject({ method: 'GET', url, headers: owner.headers })).statusCode).toBe(404);
  });

  it('refuses to delete a campaign that is already in the trash, in the repository itself', async () => {
    const doomed = json(await create('Deleted Before'));
    await trashCampaign(ctx.database, doomed.id, null);
    await expect(trashCampaign(ctx.database, doomed.id, null)).rejects.toMatchObject({ code: 'campaign_not_found' });
  });

  it('hides other users’ campaigns behind 404', async () => {
    const mine = json(await create('Private'));
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await ctx.app.inject({ method, url: `/api/campaigns/${mine.slug}`, headers: stranger.headers, ...(method === 'PUT' ? { payload: { updatedCampaign: { name: 'x' } } } : {}) });
      expect(res.statusCode).toBe(404);
      expect(json(res).code).toBe('campaign_not_found');
    }
    const missing = await ctx.app.inject({ method: 'GET', url: '/api/campaigns/no-such-campaign', headers: stranger.headers });
    expect(json(missing)).toEqual(json(await ctx.app.inject({ method: 'GET', url: '/api/campaigns/no-such-campaign', headers: stranger.headers })));
  });
});
