import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, deleteToken } from '../../src/db/repositories/credentials.js';
import { hashSecret, newSecret } from '../../src/domain/secrets.js';
import { createTestContext, createTestUser, json, type TestContext, type TestUser } from '../support/app.js';
import { changeCounts, changedTables, installChangeJournal } from '../support/db-changes.js';
import { seedCampaign, type Seed } from '../support/seed.js';
import { joinCampaign } from '../support/sharing.js';
import { minimalDoc } from '../support/zip.js';
import { atLeast, type Role } from '../../src/access/policy.js';

// Every route of the app's route table × every kind of caller, with the status each must get.
// A route added later is in the matrix without anyone listing it: routes this file knows get an
// exact expected status for their owner; others must at least let their owner past the gate.
//
//   caller            'none' routes            'user' routes           'campaign' routes
//   no caller         what anyone gets         401 unauthenticated     401 unauthenticated
//   malformed token   what anyone gets         401                     401
//   revoked token     what anyone gets         401                     401
//   expired token     what anyone gets         401                     401
//   expired session   what anyone gets         401                     401
//   other user        what anyone gets         as for the owner*       404 campaign_not_found, byte for
//                                                                      byte as for a campaign that does not exist
//   player            -                        -                       below the route's least role: 403
//   gm as player      -                        -                       role_forbidden, nothing changed
//                                                                      (gm as player: every write too);
//   gm                -                        -                       else the route's own status**
//   owner             the route's own status   the route's own status  the route's own status
//
// * except a route naming one of the owner's records (DELETE /api/auth/tokens/:id): 404.
// ** a write a member may make runs on a campaign of its own (seeded alike), so the owner's run
//    still finds what it names. "gm as player" is a game master sending `Loreforge-View: player`.

const PASSWORD = 'correct horse battery';
const PAST = '2020-01-01T00:00:00.000Z';

let ctx: TestContext;
let owner: TestUser;
let other: TestUser;
let gm: TestUser;
type MemberCaller = 'player' | 'gm as player' | 'gm';
const MEMBER_ROLES: Record<MemberCaller, Role> = { player: 'player', 'gm as player': 'player', gm: 'gm' };
type Caller = 'no caller' | 'malformed token' | 'revoked token' | 'expired token' | 'expired session' | 'other user' | 'owner';
const callers: Record<Caller, Record<string, string>> = {} as Record<Caller, Record<string, string>>;
const REJECTED: Caller[] = ['no caller', 'malformed token', 'revoked token', 'expired token', 'expired session'];
let emailCounter = 0;
let sessionUserId: string;
/** An import job of the owner's (GET /api/imports/:importId). */
let importJobId: string;
let expiredSessionHash: string;

// A sign-in sent with the cookie replaces (deletes) the session it names; put it back for the next route.
async function ensureExpiredSession() {
  const kysely = ctx.database.kysely;
  const row = await kysely.selectFrom('sessions').select('id').where('secret_hash', '=', expiredSessionHash).executeTakeFirst();
  if (!row) await createSession(kysely, { userId: sessionUserId, secretHash: expiredSessionHash, now: '2019-12-01T00:00:00.000Z', expiresAt: PAST });
}
const results: { route: string; caller: Caller | MemberCaller | `gm ${'removed' | 'demoted'} in flight`; status: number }[] = [];

/**
 * A request with this header loses its caller's membership ('removed') or game master role
 * ('demoted') after the gate, before its handler runs: what the race of a slow body does (see
 * authorization-race.test.ts for the real one), for every write route at once.
 */
const LOSE_HEADER = 'x-test-lose-membership';

beforeAll(async () => {
  ctx = await createTestContext(
    {},
    {
      beforeReady: (app) =>
        app.addHook('preHandler', async (request) => {
          const lose = request.headers[LOSE_HEADER];
          if (lose === undefined || !request.caller || !request.campaign) return;
          const row = ctx.database.kysely.updateTable('campaign_members').where('campaign_id', '=', request.campaign.id).where('user_id', '=', request.caller.user.id);
          if (lose === 'demoted') await row.set({ role: 'player' }).execute();
          else await ctx.database.kysely.deleteFrom('campaign_members').where('campaign_id', '=', request.campaign.id).where('user_id', '=', request.caller.user.id).execute();
        }),
    },
  );
  await installChangeJournal(ctx.database);
  const kysely = ctx.database.kysely;
  owner = await ctx.createUser();
  other = await ctx.createUser();
  gm = await ctx.createUser();
  // Premium, so the asset routes' own gate (403) does not hide what the matrix looks at.
  await kysely.updateTable('users').set({ premium_until: '2999-01-01T00:00:00.000Z' }).where('id', 'in', [owner.id, other.id, gm.id]).execute();

  const revoked = await createTestUser(ctx.database);
  const revokedToken = await kysely.selectFrom('api_tokens').select('id').where('user_id', '=', revoked.id).executeTakeFirstOrThrow();
  await deleteToken(kysely, revoked.id, revokedToken.id);

  const expired = await createTestUser(ctx.database);
  await kysely.updateTable('api_tokens').set({ expires_at: PAST }).where('user_id', '=', expired.id).execute();

  sessionUserId = (await createTestUser(ctx.database)).id;
  const sessionSecret = newSecret('lfs_');
  expiredSessionHash = hashSecret(sessionSecret);
  await ensureExpiredSession();

  callers['no caller'] = {};
  callers['malformed token'] = { authorization: 'Bearer lf_%%not*a*token%%' };
  callers['revoked token'] = revoked.headers;
  callers['expired token'] = expired.headers;
  callers['expired session'] = { cookie: `loreforge_session=${sessionSecret}` };
  callers['other user'] = other.headers;
  callers.owner = owner.headers;

  const started = await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...owner.headers, 'content-type': 'application/json', prefer: 'respond-async' }, payload: minimalDoc() });
  expect(started.statusCode, started.body).toBe(202);
  importJobId = json<{ id: string }>(started).id;
  for (let polls = 0; ; polls++) {
    const job = json<{ status: string }>(await ctx.app.inject({ method: 'GET', url: `/api/imports/${importJobId}`, headers: owner.headers }));
    if (job.status === 'done') break;
    if (job.status === 'failed' || polls > 500) throw new Error(`the import job did not end well: ${JSON.stringify(job)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
});

afterAll(async () => {
  const routes = new Set(results.map((r) => r.route)).size;
  const kinds = new Set(results.map((r) => r.caller)).size;
  console.log(`authorization matrix: ${routes} routes × up to ${kinds} callers = ${results.length} requests checked`);
  await ctx.close();
});

interface Plan {
  /** The owner's status when the route is called with this body and query. */
  expect?: number;
  payload?: unknown;
  query?: string;
  /** Path values that differ from the seed's. */
  params?: Record<string, string>;
  /** Refused to every bearer-token caller with 403 session_required (a session is needed). */
  sessionOnly?: boolean;
  /** A game master's status where it differs from the owner's. */
  gmExpect?: number;
}

// What each known route needs for its owner to succeed (or fail in its own known way).
function plans(seed: Seed): Record<string, Plan> {
  const freshEmail = () => `matrix-${++emailCounter}-${Date.now()}@example.test`;
  return {
    'GET /api/health': { expect: 200 },
    'GET /api/openapi.json': { expect: 200 },
    'GET /api/docs': { expect: 200 },
    'GET /api/docs/json': { expect: 200 },
    'GET /api/docs/yaml': { expect: 200 },
    'GET /api/docs/static/index.html': { expect: 302 },
    'GET /api/docs/static/swagger-initializer.js': { expect: 200 },
    'GET /api/docs/static/*': { expect: 200, params: { '*': 'index.css' } },
    'POST /api/auth/register': { expect: 201, get payload() { return { email: freshEmail(), password: PASSWORD }; } },
    'POST /api/auth/login': { expect: 401, payload: { email: 'nobody@example.test', password: 'not the password' } },
    'POST /api/auth/logout': { expect: 204 },
    'GET /api/auth/me': { expect: 200 },
    // Only a session mints tokens, and every caller here signs in by token (auth.test.ts and
    // accounts.test.ts create them by cookie).
    'POST /api/auth/tokens': { expect: 403, sessionOnly: true, payload: { name: 'matrix' } },
    // A wrong password: the route's own 400, which only a signed-in caller reaches (the right one
    // would end the owner's account or sessions midway through the matrix).
    'PUT /api/auth/password': { expect: 400, payload: { currentPassword: 'not the password', newPassword: PASSWORD } },
    'DELETE /api/auth/sessions': { expect: 204 },
    'DELETE /api/auth/me': { expect: 400, payload: { password: 'not the password' } },
    'POST /api/auth/password-reset': { expect: 410, payload: { token: 'lfr_not-a-reset-link', newPassword: PASSWORD } },
    'GET /api/auth/tokens': { expect: 200 },
    'DELETE /api/auth/tokens/:id': { expect: 204 },
    'GET /api/campaigns': { expect: 200 },
    'POST /api/campaigns': { expect: 201, payload: { newCampaign: { name: 'Matrix' } } },
    'GET /api/campaigns/:campaignSlug': { expect: 200 },
    'PUT /api/campaigns/:campaignSlug': { expect: 200, payload: { updatedCampaign: { name: 'Renamed' } } },
    'DELETE /api/campaigns/:campaignSlug': { expect: 204 },
    'GET /api/campaigns/:campaignSlug/thing-types': { expect: 200 },
    'POST /api/campaigns/:campaignSlug/thing-types': { expect: 201, payload: { newThingType: { name: 'Spells' } } },
    'GET /api/campaigns/:campaignSlug/thing-types/:thingTypeId': { expect: 200 },
    'PUT /api/campaigns/:campaignSlug/thing-types/:thingTypeId': { expect: 200, payload: { updatedThingType: { name: 'Gods' } } },
    'DELETE /api/campaigns/:campaignSlug/thing-types/:thingTypeId': { expect: 204 },
    'GET /api/campaigns/:campaignSlug/things': { expect: 200 },
    'POST /api/campaigns/:campaignSlug/things': { expect: 201, payload: { newThing: { name: 'Nundro', typeId: seed.hints.integers[0] } } },
    'GET /api/campaigns/:campaignSlug/things/:thingSlug': { expect: 200 },
    'PUT /api/campaigns/:campaignSlug/things/:thingSlug': { expect: 200, payload: { updatedThing: { name: 'Gundren the Elder' } } },
    'DELETE /api/campaigns/:campaignSlug/things/:thingSlug': { expect: 204 },
    'GET /api/campaigns/:campaignSlug/arcs': { expect: 200 },
    'POST /api/campaigns/:campaignSlug/arcs': { expect: 201, payload: { newArc: { name: 'Tresendar Manor' } } },
    'GET /api/campaigns/:campaignSlug/arcs/:arcSlug': { expect: 200 },
    'PUT /api/campaigns/:campaignSlug/arcs/:arcSlug': { expect: 200, payload: { updatedArc: { name: 'Cragmaw Castle' } } },
    'DELETE /api/campaigns/:campaignSlug/arcs/:arcSlug': { expect: 204 },
    'GET /api/campaigns/:campaignSlug/things/:thingSlug/arcs': { expect: 200 },
    'POST /api/campaigns/:campaignSlug/things/:thingSlug/arcs': { expect: 200, payload: { arcSlug: seed.params.arcSlug } },
    'DELETE /api/campaigns/:campaignSlug/things/:thingSlug/arcs/:arcSlug': { expect: 204 },
    'GET /api/campaigns/:campaignSlug/search': { expect: 200, query: 'q=gundren' },
    'GET /api/campaigns/:campaignSlug/assets': { expect: 200 },
    'POST /api/campaigns/:campaignSlug/assets/upload-url': { expect: 200, payload: { label: 'Map of Phandalin' } },
    // An imageId never issued: the route's own 400, which only a caller past the gate can reach.
    'POST /api/campaigns/:campaignSlug/assets/confirm-upload': { expect: 400, payload: { imageId: '0'.repeat(32), label: 'Map' } },
    'DELETE /api/campaigns/:campaignSlug/assets/:id': { expect: 404, params: { id: '999999' } },
    'GET /api/campaigns/:campaignSlug/members': { expect: 200 },
    'PUT /api/campaigns/:campaignSlug/members/:userId': { expect: 200, payload: { role: 'gm' } },
    'DELETE /api/campaigns/:campaignSlug/members/:userId': { expect: 204 },
    'POST /api/campaigns/:campaignSlug/transfer': { expect: 200, payload: { userId: seed.params.userId } },
    'POST /api/campaigns/:campaignSlug/invitations': { expect: 201, payload: { role: 'player' } },
    'GET /api/campaigns/:campaignSlug/invitations': { expect: 200 },
    // The seed's pending invitation is the owner's: a game master revokes only their own.
    'DELETE /api/campaigns/:campaignSlug/invitations/:id': { expect: 204, gmExpect: 403, params: { id: seed.params.invitationId! } },
    // A token no invitation has: the route's own 410, which only a signed-in caller reaches.
    'POST /api/invitations/accept': { expect: 410, payload: { token: 'lfi_not-an-invitation' } },
    'POST /api/invitations/preview': { expect: 410, payload: { token: 'lfi_not-an-invitation' } },
    'GET /api/campaigns/:campaignSlug/trash': { expect: 200 },
    'POST /api/campaigns/:campaignSlug/trash/:kind/:id/restore': { expect: 200, params: { kind: 'thing', id: seed.params.trashedThingId! } },
    'DELETE /api/campaigns/:campaignSlug/trash/:kind/:id': { expect: 204, params: { kind: 'thing', id: seed.params.trashedThingId! } },
    'GET /api/trash/campaigns': { expect: 200 },
    'POST /api/trash/campaigns/:id/restore': { expect: 200, params: { id: seed.params.trashedCampaignId! } },
    'DELETE /api/trash/campaigns/:id': { expect: 204, params: { id: seed.params.trashedCampaignId! } },
    'GET /api/imports/:importId': { expect: 200, params: { importId: importJobId } },
    ...revisionPlans(seed),
  };
}

// The revision routes of a thing, an arc and the campaign, each with the first revision of its record.
function revisionPlans(seed: Seed): Record<string, Plan> {
  const entries: [string, string][] = [
    ['/api/campaigns/:campaignSlug/things/:thingSlug/revisions', seed.params.thingRevisionId!],
    ['/api/campaigns/:campaignSlug/arcs/:arcSlug/revisions', seed.params.arcRevisionId!],
    ['/api/campaigns/:campaignSlug/revisions', seed.params.campaignRevisionId!],
  ];
  return Object.fromEntries(
    entries.flatMap(([path, revisionId]) => [
      [`GET ${path}`, { expect: 200 }],
      [`GET ${path}/:revisionId`, { expect: 200, params: { revisionId } }],
      [`PUT ${path}/:revisionId`, { expect: 200, params: { revisionId }, payload: { name: 'Before the ambush' } }],
      [`POST ${path}/:revisionId/restore`, { expect: 200, params: { revisionId } }],
    ]),
  );
}

function requestFor(route: { method: string; url: string }, seed: Seed, plan: Plan, headers: Record<string, string>, campaignSlug?: string): InjectOptions {
  const values: Record<string, string> = { ...seed.params, ...plan.params, ...(campaignSlug ? { campaignSlug } : {}) };
  const path = route.url
    .replace(/\*$/, () => values['*'] ?? 'index.css')
    .replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(values[name] ?? '1'));
  const payload = plan.payload;
  const writes = ['POST', 'PUT', 'PATCH'].includes(route.method);
  return {
    method: route.method,
    url: plan.query ? `${path}?${plan.query}` : path,
    headers,
    ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : writes ? { payload: {} } : {}),
  };
}

/** A campaign slug no one has, as long as `slug`, so the two answers can be compared byte for byte. */
function missingSlugLike(slug: string): string {
  return 'q'.repeat(slug.length);
}

function expectUnauthenticated(res: LightMyRequestResponse, where: string) {
  expect(res.statusCode, where).toBe(401);
  expect(res.headers['content-type'], where).toMatch(/^application\/problem\+json/);
  expect(json(res).code, where).toBe('unauthenticated');
}

function comparableHeaders(res: LightMyRequestResponse) {
  const { date: _date, ...rest } = res.headers;
  return rest;
}

/** The headers of each member caller on the seed's campaign (the seed's player; `gm` joins it here). */
async function memberHeaders(seed: Seed): Promise<Record<MemberCaller, Record<string, string>>> {
  await joinCampaign(ctx.app, owner, seed.params.campaignSlug!, gm, 'gm');
  return { player: seed.player.headers, 'gm as player': { ...gm.headers, 'loreforge-view': 'player' }, gm: gm.headers };
}

// The rows for the player, the game master viewing as a player and the game master (see the table).
async function checkMembers(route: { method: string; url: string; role?: Role }, seed: Seed, key: string) {
  const least = route.role!;
  const headers = await memberHeaders(seed);
  for (const caller of ['player', 'gm as player', 'gm'] as const) {
    const where = (res: LightMyRequestResponse) => `${key} as ${caller}: ${res.body.slice(0, 300)}`;
    // Viewing as a player is read-only: every write is refused, the member routes' included.
    const viewOnlyWrite = caller === 'gm as player' && !['GET', 'HEAD'].includes(route.method);
    if (viewOnlyWrite || !atLeast(MEMBER_ROLES[caller], least)) {
      const before = await changeCounts(ctx.database);
      const res = await ctx.app.inject(requestFor(route, seed, plans(seed)[key] ?? {}, headers[caller]));
      results.push({ route: key, caller, status: res.statusCode });
      expect(res.statusCode, where(res)).toBe(403);
      expect(json(res).code, where(res)).toBe('role_forbidden');
      expect(changedTables(before, await changeCounts(ctx.database)), `${key}: a refused ${caller} changed data`).toEqual([]);
      continue;
    }
    if (caller === 'gm' && route.method !== 'GET') await checkLosesRole(route, key);
    // Allowed: a write runs on a campaign of its own, seeded alike.
    const own = route.method === 'GET' ? seed : await seedCampaign(ctx.app, ctx.database, owner.id, owner.headers);
    const ownHeaders = route.method === 'GET' ? headers : await memberHeaders(own);
    const plan = plans(own)[key] ?? {};
    // A member's own removal is the member removing themselves (leaving).
    const res = await ctx.app.inject(requestFor(route, own, plan, caller === 'player' ? own.player.headers : ownHeaders[caller]));
    results.push({ route: key, caller, status: res.statusCode });
    const expected = caller === 'gm' && plan.gmExpect !== undefined ? plan.gmExpect : plan.expect;
    if (expected !== undefined) expect(res.statusCode, where(res)).toBe(expected);
    else expect([401, 403, 404], where(res)).not.toContain(res.statusCode);
  }
}

// A game master removed (404) or made a player (403) after the gate and before the write commits:
// the write is refused and changes nothing but that membership (CONTRACT "Authorization holds for
// the whole request"). Every write goes through beginCampaignWrite, which checks it again.
async function checkLosesRole(route: { method: string; url: string }, key: string) {
  for (const lose of ['removed', 'demoted'] as const) {
    const own = await seedCampaign(ctx.app, ctx.database, owner.id, owner.headers);
    const headers = await memberHeaders(own);
    const before = await changeCounts(ctx.database);
    const res = await ctx.app.inject(requestFor(route, own, plans(own)[key] ?? {}, { ...headers.gm, [LOSE_HEADER]: lose }));
    const where = `${key} as a gm ${lose} in flight: ${res.body.slice(0, 300)}`;
    results.push({ route: key, caller: `gm ${lose} in flight`, status: res.statusCode });
    const plan = plans(own)[key] ?? {};
    // A route that refuses the planned request on its own before writing (its 4xx) writes nothing either.
    const refusesAnyway = plan.expect !== undefined && plan.expect >= 400 && res.statusCode === plan.expect;
    if (!refusesAnyway) {
      expect(res.statusCode, where).toBe(lose === 'removed' ? 404 : 403);
      expect(json(res).code, where).toBe(lose === 'removed' ? 'campaign_not_found' : 'role_forbidden');
    }
    expect(changedTables(before, await changeCounts(ctx.database)), where).toEqual(['campaign_members']);
  }
}

describe('the authorization matrix, generated from the route table', () => {
  it('has every route in it, and every campaign route requires a caller', () => {
    expect(ctx.app.routeTable.length).toBeGreaterThanOrEqual(30);
    for (const route of ctx.app.routeTable.filter((r) => r.url.startsWith('/api/campaigns'))) {
      expect(route.auth, `${route.method} ${route.url}`).toBe(route.url.includes(':campaignSlug') ? 'campaign' : 'user');
    }
    for (const route of ctx.app.routeTable.filter((r) => r.url.startsWith('/api/auth/'))) {
      const open = ['/api/auth/register', '/api/auth/login', '/api/auth/password-reset'].includes(route.url);
      expect(route.auth, `${route.method} ${route.url}`).toBe(open ? 'none' : 'user');
    }
  });

  it('answers every route for every caller as the table above says', async () => {
    for (const route of ctx.app.routeTable) {
      const key = `${route.method} ${route.url}`;
      // A fresh campaign per route: the owner's own request may delete what it names.
      const seed = await seedCampaign(ctx.app, ctx.database, owner.id, owner.headers);
      await ensureExpiredSession();
      const plan = plans(seed)[key] ?? {};
      const send = async (caller: Caller, campaignSlug?: string) => {
        const res = await ctx.app.inject(requestFor(route, seed, plan, callers[caller], campaignSlug));
        if (campaignSlug === undefined) results.push({ route: key, caller, status: res.statusCode });
        return res;
      };
      const before = await changeCounts(ctx.database);

      if (route.auth === 'none') {
        const anyone = await send('no caller');
        for (const caller of Object.keys(callers) as Caller[]) {
          if (caller === 'no caller') continue;
          const res = await send(caller);
          expect(res.statusCode, `${key} as ${caller}`).toBe(anyone.statusCode);
        }
        if (plan.expect !== undefined) expect(anyone.statusCode, key).toBe(plan.expect);
        continue;
      }

      for (const caller of REJECTED) expectUnauthenticated(await send(caller), `${key} as ${caller}`);
      expect(changedTables(before, await changeCounts(ctx.database)), `${key}: a rejected caller changed data`).toEqual([]);

      const stranger = await send('other user');
      if (route.auth === 'campaign') {
        const where = `${key} as another user`;
        expect(stranger.statusCode, where).toBe(404);
        expect(json(stranger).code, where).toBe('campaign_not_found');
        // Exactly what a campaign that does not exist gets: status, headers and body.
        const missing = missingSlugLike(seed.params.campaignSlug!);
        const nobody = await send('other user', missing);
        expect(nobody.statusCode, where).toBe(stranger.statusCode);
        expect(comparableHeaders(nobody), where).toEqual(comparableHeaders(stranger));
        expect(nobody.body.replaceAll(missing, seed.params.campaignSlug!), where).toBe(stranger.body);
        expect(changedTables(before, await changeCounts(ctx.database)), `${key}: another user changed the owner's data`).toEqual([]);
      } else if (plan.sessionOnly) {
        expect(stranger.statusCode, `${key} as another user`).toBe(403);
        expect(json(stranger).code, `${key} as another user`).toBe('session_required');
      } else if (route.url.includes('/:')) {
        // The route names one of the owner's records, which is not the other user's to touch.
        expect(stranger.statusCode, `${key} as another user`).toBe(404);
      } else {
        expect([401, 403], `${key} as another user: ${stranger.body}`).not.toContain(stranger.statusCode);
      }

      if (route.auth === 'campaign') await checkMembers(route, seed, key);

      const mine = await send('owner');
      const where = `${key} as the owner: ${mine.body.slice(0, 300)}`;
      if (plan.expect !== undefined) {
        expect(mine.statusCode, where).toBe(plan.expect);
      } else {
        // A route this file does not know yet: its owner at least gets past the gate.
        expect([401, 403], where).not.toContain(mine.statusCode);
        if (mine.statusCode === 404) expect(json(mine).code, where).not.toBe('campaign_not_found');
      }
    }
    expect(new Set(results.map((r) => r.route)).size).toBe(ctx.app.routeTable.length);
  }, 240_000);

  it('answers 401 to every other unreadable credential on every protected route', async () => {
    const seed = await seedCampaign(ctx.app, ctx.database, owner.id, owner.headers);
    const variants: Record<string, string>[] = [
      { authorization: 'Bearer' },
      { authorization: 'Bearer ' },
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: `Bearer ${owner.token} extra` },
      { authorization: `bearer ${owner.token.slice(0, -1)}` },
      { cookie: 'loreforge_session=forged' },
      { cookie: `loreforge_session=${owner.token}` },
    ];
    for (const route of ctx.app.routeTable.filter((r) => r.auth !== 'none')) {
      for (const headers of variants) {
        const res = await ctx.app.inject(requestFor(route, seed, {}, headers));
        expectUnauthenticated(res, `${route.method} ${route.url} with ${JSON.stringify(headers)}`);
      }
    }
  });

  it('treats a token as its owner, whatever the case of "Bearer" or the spaces around it', async () => {
    for (const authorization of [`bearer ${owner.token}`, `BEARER   ${owner.token}`, `Bearer ${owner.token}  `]) {
      expect((await ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization } })).statusCode, authorization).toBe(200);
    }
  });
});
