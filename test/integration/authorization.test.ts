import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteToken } from '../../src/db/repositories/credentials.js';
import { createTestContext, createTestUser, json, type TestContext, type TestUser } from '../support/app.js';

// Generated from the app's own route table: a route added later is covered without anyone
// remembering to add it here. A new path parameter makes the test fail until it gets a value.

let ctx: TestContext;
let owner: TestUser;
let stranger: TestUser;
let revoked: TestUser;
let params: Record<string, string>;

beforeAll(async () => {
  ctx = await createTestContext();
  owner = await ctx.createUser();
  stranger = await ctx.createUser();
  revoked = await createTestUser(ctx.database);
  const tokenRow = await ctx.database.kysely.selectFrom('api_tokens').select(['id', 'user_id']).where('user_id', '=', revoked.id).executeTakeFirstOrThrow();
  await deleteToken(ctx.database.kysely, tokenRow.user_id, tokenRow.id);

  const kysely = ctx.database.kysely;
  const campaign = json(await ctx.app.inject({ method: 'POST', url: '/api/campaigns', headers: owner.headers, payload: { newCampaign: { name: 'Owned' } } }));
  const type = await kysely.selectFrom('thing_types').select('id').where('campaign_id', '=', campaign.id).orderBy('id').executeTakeFirstOrThrow();
  const now = new Date().toISOString();
  const thing = await kysely
    .insertInto('things')
    .values({ campaign_id: campaign.id, type_id: type.id, slug: 'gundren', name: 'Gundren', description: null, version: 1, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  const arc = await kysely
    .insertInto('arcs')
    .values({ campaign_id: campaign.id, slug: 'rescue', name: 'Rescue', parent_arc_id: null, hook: null, protagonist: null, antagonist: null, problem: null, key: null, outcome: null, notes: null, version: 1, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  await kysely.insertInto('arc_things').values({ campaign_id: campaign.id, arc_id: arc.id, thing_id: thing.id, created_at: now }).execute();
  const token = await kysely.selectFrom('api_tokens').select('id').where('user_id', '=', owner.id).executeTakeFirstOrThrow();
  params = {
    campaignSlug: campaign.slug as string,
    thingSlug: 'gundren',
    arcSlug: 'rescue',
    thingTypeId: String(type.id),
    id: String(token.id),
  };
});
afterAll(() => ctx.close());

function protectedRoutes() {
  return ctx.app.routeTable.filter((r) => r.url.startsWith('/api/campaigns') || (r.url.startsWith('/api/auth') && r.auth !== 'none'));
}

function fill(url: string): string {
  return url.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`authorization.test.ts has no value for the path parameter :${name} of ${url}`);
    return encodeURIComponent(value);
  });
}

function request(route: { method: string; url: string }, headers: Record<string, string>) {
  const hasBody = route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH';
  return ctx.app.inject({
    method: route.method as 'GET',
    url: fill(route.url),
    headers,
    ...(hasBody ? { payload: {} } : {}),
  });
}

describe('authorization, generated from the route table', () => {
  it('covers every campaign route, all of which require a caller', () => {
    const routes = protectedRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(5);
    for (const route of routes.filter((r) => r.url.startsWith('/api/campaigns'))) {
      expect(route.auth, `${route.method} ${route.url}`).not.toBe('none');
    }
  });

  it('answers 401 to no caller and to a malformed or revoked token on every protected route', async () => {
    for (const route of protectedRoutes()) {
      for (const headers of [{} as Record<string, string>, { authorization: `Bearer ${revoked.token}` }, { authorization: 'Bearer' }, { authorization: 'Basic dXNlcjpwYXNz' }, { cookie: 'loreforge_session=forged' }]) {
        const res = await request(route, headers);
        expect(res.statusCode, `${route.method} ${route.url} with ${JSON.stringify(headers)}`).toBe(401);
        expect(json(res).code).toBe('unauthenticated');
      }
    }
  });

  it('answers 404 to another user on every campaign route, exactly as for a missing campaign', async () => {
    const scoped = protectedRoutes().filter((r) => r.url.includes(':campaignSlug'));
    expect(scoped.length).toBeGreaterThanOrEqual(3);
    for (const route of scoped) {
      const res = await request(route, stranger.headers);
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(404);
      const body = json(res);
      expect(body.code).toBe('campaign_not_found');
      const missing = await ctx.app.inject({
        method: route.method as 'GET',
        url: fill(route.url).replace(`/campaigns/${params.campaignSlug}`, '/campaigns/no-such-campaign'),
        headers: stranger.headers,
        ...(['POST', 'PUT'].includes(route.method) ? { payload: {} } : {}),
      });
      expect(json(missing).detail.replace('no-such-campaign', params.campaignSlug!)).toBe(body.detail);
    }
    // Nothing the stranger sent changed the owner's data.
    const kysely = ctx.database.kysely;
    expect(await kysely.selectFrom('campaigns').select('id').where('slug', '=', params.campaignSlug!).executeTakeFirst()).toBeDefined();
    expect(await kysely.selectFrom('things').select('id').where('slug', '=', 'gundren').executeTakeFirst()).toBeDefined();
    expect(await kysely.selectFrom('arcs').select('id').where('slug', '=', 'rescue').executeTakeFirst()).toBeDefined();
    expect(await kysely.selectFrom('arc_things').select('arc_id').execute()).toHaveLength(1);
  });

  it('lets the owner through on every campaign route (no 401/403/404 campaign_not_found)', async () => {
    for (const route of protectedRoutes().filter((r) => r.url.includes(':campaignSlug') && r.method === 'GET')) {
      const res = await request(route, owner.headers);
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(200);
    }
  });
});
