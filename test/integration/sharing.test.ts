import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { changeCounts, changedTables, installChangeJournal } from '../support/db-changes.js';
import { joinCampaign } from '../support/sharing.js';

// Members, roles and invitations (CONTRACT "Members and roles"): the invitation lifecycle, each
// member route's rules, and that a change of membership takes effect on the very next request.

let ctx: TestContext;
let owner: TestUser;
let ipCounter = 0;
/** A client address no other test uses, so the per-IP counters of tests never meet. */
const freshIp = () => `203.0.113.${++ipCounter}`;

beforeAll(async () => {
  ctx = await createTestContext({ INVITATION_MAX_FAILURES_PER_IP: '3', INVITATIONS_MAX_PER_USER_PER_HOUR: '40' });
  await installChangeJournal(ctx.database);
  owner = await ctx.createUser();
});
afterAll(async () => {
  await ctx.close();
});

function call(user: TestUser | null, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, extra: Record<string, string> = {}) {
  return ctx.app.inject({
    method,
    url,
    headers: { ...(user?.headers ?? {}), ...extra },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

let campaignCounter = 0;
async function newCampaign(): Promise<{ slug: string; base: string; id: number }> {
  const res = await call(owner, 'POST', '/api/campaigns', { newCampaign: { name: `Shared ${++campaignCounter}` } });
  const campaign = json<{ slug: string; id: number }>(res);
  return { slug: campaign.slug, id: campaign.id, base: `/api/campaigns/${campaign.slug}` };
}

async function invite(by: TestUser, base: string, body: Record<string, unknown>) {
  const res = await call(by, 'POST', `${base}/invitations`, body);
  expect(res.statusCode, res.body).toBe(201);
  return json<{ id: number; token: string; url: string; role: string; maxUses: number; uses: number; expiresAt: string }>(res);
}

function accept(user: TestUser, token: string, ip = '192.0.2.1') {
  return ctx.app.inject({ method: 'POST', url: '/api/invitations/accept', headers: user.headers, remoteAddress: ip, payload: { token } });
}

function expectProblem(res: LightMyRequestResponse, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(json(res).code).toBe(code);
}

describe('invitations', () => {
  it('creates a link with the token once, lists it without the token, and lets a user join with its role', async () => {
    const c = await newCampaign();
    const before = Date.now();
    const created = await invite(owner, c.base, { role: 'player' });
    expect(created).toMatchObject({ role: 'player', maxUses: 1, uses: 0 });
    expect(created.token).toMatch(/^lfi_[A-Za-z0-9_-]{43}$/);
    expect(created.url).toBe(`${ctx.config.publicBaseUrl}/join#${created.token}`);
    // Seven days by default.
    expect(Math.abs(Date.parse(created.expiresAt) - (before + 7 * 86_400_000))).toBeLessThan(60_000);
    const stored = await ctx.database.kysely.selectFrom('invitations').select('secret_hash').where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(stored.secret_hash).not.toContain(created.token);

    const listed = await call(owner, 'GET', `${c.base}/invitations`);
    expect(listed.statusCode).toBe(200);
    expect(listed.body).not.toContain(created.token);
    expect(json(listed)).toEqual([{ id: created.id, role: 'player', expiresAt: created.expiresAt, maxUses: 1, uses: 0, createdAt: expect.any(String) as unknown, createdBy: owner.id }]);

    const player = await ctx.createUser();
    expect((await call(player, 'GET', c.base)).statusCode).toBe(404);
    const accepted = await accept(player, created.token);
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(json(accepted)).toMatchObject({ role: 'player', campaign: { slug: c.slug, role: 'player' } });
    expect(json(await call(player, 'GET', c.base))).toMatchObject({ slug: c.slug, role: 'player', userId: owner.id });
    const mine = json<{ slug: string; role: string }[]>(await call(player, 'GET', '/api/campaigns'));
    expect(mine.map((x) => [x.slug, x.role])).toEqual([[c.slug, 'player']]);
    // Used up: no longer listed, and no second person gets in.
    expect(json(await call(owner, 'GET', `${c.base}/invitations`))).toEqual([]);
    expectProblem(await accept(await ctx.createUser(), created.token), 410, 'invitation_unavailable');
  });

  it('admits maxUses people and no more; accepting twice uses nothing and changes nothing', async () => {
    const c = await newCampaign();
    const created = await invite(owner, c.base, { role: 'player', maxUses: 2 });
    const first = await ctx.createUser();
    const second = await ctx.createUser();
    expect((await accept(first, created.token)).statusCode).toBe(200);
    expect((await accept(first, created.token)).statusCode).toBe(200);
    expect(json(await call(owner, 'GET', `${c.base}/invitations`))).toMatchObject([{ uses: 1 }]);
    expect((await accept(second, created.token)).statusCode).toBe(200);
    expectProblem(await accept(await ctx.createUser(), created.token), 410, 'invitation_unavailable');
    const members = json<{ userId: string; role: string }[]>(await call(owner, 'GET', `${c.base}/members`));
    expect(members.map((m) => m.role)).toEqual(['owner', 'player', 'player']);
  });

  it('refuses an expired invitation and a revoked one with 410, and creates no member', async () => {
    const c = await newCampaign();
    const expiring = await invite(owner, c.base, { role: 'player', expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    await ctx.database.kysely.updateTable('invitations').set({ expires_at: '2020-01-01T00:00:00.000Z' }).where('id', '=', expiring.id).execute();
    const revoked = await invite(owner, c.base, { role: 'gm' });
    expect((await call(owner, 'DELETE', `${c.base}/invitations/${revoked.id}`)).statusCode).toBe(204);
    expectProblem(await call(owner, 'DELETE', `${c.base}/invitations/${revoked.id}`), 404, 'invitation_not_found');
    const user = await ctx.createUser();
    const before = await changeCounts(ctx.database);
    expectProblem(await accept(user, expiring.token, freshIp()), 410, 'invitation_unavailable');
    expectProblem(await accept(user, revoked.token, freshIp()), 410, 'invitation_unavailable');
    expect(changedTables(before, await changeCounts(ctx.database)).filter((table) => table !== 'rate_limits')).toEqual([]);
    expect((await call(user, 'GET', c.base)).statusCode).toBe(404);
  });

  it('revokes the links of a game master who leaves, is removed or becomes a player', async () => {
    const c = await newCampaign();
    const [leaver, removed, demoted] = [await ctx.createUser(), await ctx.createUser(), await ctx.createUser()];
    const links: string[] = [];
    for (const gm of [leaver, removed, demoted]) {
      await joinCampaign(ctx.app, owner, c.slug, gm, 'gm');
      links.push((await invite(gm, c.base, { role: 'player' })).token);
    }
    const kept = await invite(owner, c.base, { role: 'player' });
    expect((await call(leaver, 'DELETE', `${c.base}/members/${leaver.id}`)).statusCode).toBe(204);
    expect((await call(owner, 'DELETE', `${c.base}/members/${removed.id}`)).statusCode).toBe(204);
    expect((await call(owner, 'PUT', `${c.base}/members/${demoted.id}`, { role: 'player' })).statusCode).toBe(200);
    for (const token of links) expectProblem(await accept(await ctx.createUser(), token, freshIp()), 410, 'invitation_unavailable');
    expect((await accept(await ctx.createUser(), kept.token)).statusCode).toBe(200);
  });

  it('checks the body: role, expiry and uses', async () => {
    const c = await newCampaign();
    for (const body of [
      { role: 'owner' },
      { role: 'admin' },
      {},
      { role: 'player', expiresAt: 'tomorrow' },
      { role: 'player', expiresAt: '2020-01-01T00:00:00Z' },
      { role: 'player', expiresAt: new Date(Date.now() + 400 * 86_400_000).toISOString() },
      { role: 'player', maxUses: 0 },
      { role: 'player', maxUses: 1001 },
      { role: 'player', maxUses: 1.5 },
    ]) {
      const res = await call(owner, 'POST', `${c.base}/invitations`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect(json(await call(owner, 'GET', `${c.base}/invitations`))).toEqual([]);
  });

  it('never lowers the role of a member who accepts, and raises it when the invitation is higher', async () => {
    const c = await newCampaign();
    const user = await ctx.createUser();
    await joinCampaign(ctx.app, owner, c.slug, user, 'gm');
    const lower = await invite(owner, c.base, { role: 'player' });
    expect(json(await accept(user, lower.token))).toMatchObject({ role: 'gm' });
    expect(json(await call(owner, 'GET', `${c.base}/invitations`))).toMatchObject([{ id: lower.id, uses: 0 }]);
    // The owner too stays the owner.
    expect(json(await accept(owner, lower.token))).toMatchObject({ role: 'owner' });

    const player = await ctx.createUser();
    await joinCampaign(ctx.app, owner, c.slug, player, 'player');
    const higher = await invite(owner, c.base, { role: 'gm' });
    expect(json(await accept(player, higher.token))).toMatchObject({ role: 'gm' });
    expect(json(await call(player, 'GET', c.base))).toMatchObject({ role: 'gm' });
  });

  it('counts failed tries per IP against guessing: beyond the limit even a good token waits', async () => {
    const c = await newCampaign();
    const good = await invite(owner, c.base, { role: 'player' });
    const user = await ctx.createUser();
    const ip = freshIp();
    for (let i = 0; i < 3; i++) expectProblem(await accept(user, `lfi_guess${i}`, ip), 410, 'invitation_unavailable');
    const limited = await accept(user, good.token, ip);
    expectProblem(limited, 429, 'rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another address is not held back, and a success does not count.
    expect((await accept(user, good.token, freshIp())).statusCode).toBe(200);
  });

  it('limits new invitations per user per hour', async () => {
    const c = await newCampaign();
    const inviter = await ctx.createUser();
    await joinCampaign(ctx.app, owner, c.slug, inviter, 'gm');
    let last: LightMyRequestResponse | undefined;
    for (let i = 0; i < 41; i++) last = await call(inviter, 'POST', `${c.base}/invitations`, { role: 'player' });
    expectProblem(last!, 429, 'rate_limited');
  });
});

describe('roles', () => {
  it('lets players read and nothing else: 403 role_forbidden before the body is read', async () => {
    const c = await newCampaign();
    const player = await ctx.createUser();
    await joinCampaign(ctx.app, owner, c.slug, player, 'player');
    const before = await changeCounts(ctx.database);
    // A body that is not even JSON: the role is refused before it is read.
    const res = await ctx.app.inject({ method: 'POST', url: `${c.base}/things`, headers: { ...player.headers, 'content-type': 'application/json' }, payload: '{not json' });
    expectProblem(res, 403, 'role_forbidden');
    expectProblem(await call(player, 'PUT', c.base, { updatedCampaign: { name: 'Mine now' } }), 403, 'role_forbidden');
    expectProblem(await call(player, 'GET', `${c.base}/assets`), 403, 'role_forbidden');
    expectProblem(await call(player, 'GET', `${c.base}/invitations`), 403, 'role_forbidden');
    expectProblem(await call(player, 'POST', `${c.base}/invitations`, { role: 'player' }), 403, 'role_forbidden');
    expect(changedTables(before, await changeCounts(ctx.database))).toEqual([]);
    expect((await call(player, 'GET', `${c.base}/things`)).statusCode).toBe(200);
  });

  it('lets game masters do everything but delete, transfer and change roles; they invite players only', async () => {
    const c = await newCampaign();
    const gm = await ctx.createUser();
    await joinCampaign(ctx.app, owner, c.slug, gm, 'gm');
    const types = json<{ id: number }[]>(await call(gm, 'GET', `${c.base}/thing-types`));
    expect((await call(gm, 'POST', `${c.base}/things`, { newThing: { name: 'Vecna', typeId: types[0]!.id, visibility: 'gm' } })).statusCode).toBe(201);
    expect((await call(gm, 'PUT', c.base, { updatedCampaign: { name: 'Renamed by GM' } })).statusCode).toBe(200);
    expectProblem(await call(gm, 'DELETE', c.base), 403, 'role_forbidden');
    expectProblem(await call(gm, 'POST', `${c.base}/transfer`, { userId: gm.id }), 403, 'role_forbidden');
    expectProblem(await call(gm, 'PUT', `${c.base}/members/${gm.id}`, { role: 'gm' }), 403, 'role_forbidden');
    expectProblem(await call(gm, 'POST', `${c.base}/invitations`, { role: 'gm' }), 403, 'role_forbidden');
    expect((await call(gm, 'POST', `${c.base}/invitations`, { role: 'player' })).statusCode).toBe(201);
    // As a player (the view switch), a game master is a player in everything.
    expectProblem(await call(gm, 'PUT', c.base, { updatedCampaign: { name: 'x' } }, { 'loreforge-view': 'player' }), 403, 'role_forbidden');
    expect(json(await call(gm, 'GET', c.base, undefined, { 'loreforge-view': 'player' }))).toMatchObject({ role: 'player' });
  });

  it('shows members to members, emails to the owner and game masters only', async () => {
    const c = await newCampaign();
    const gm = await ctx.createUser();
    const player = await ctx.createUser();
    await joinCampaign(ctx.app, owner, c.slug, gm, 'gm');
    await joinCampaign(ctx.app, owner, c.slug, player, 'player');
    const asGm = json<{ userId: string; role: string; email?: string; name: string; joinedAt: string }[]>(await call(gm, 'GET', `${c.base}/members`));
    expect(asGm.map((m) => [m.userId, m.role, m.email])).toEqual([
      [owner.id, 'owner', owner.email],
      [gm.id, 'gm', gm.email],
      [player.id, 'player', player.email],
    ]);
    const asPlayer = await call(player, 'GET', `${c.base}/members`);
    expect(json<{ email?: string }[]>(asPlayer).every((m) => m.email === undefined)).toBe(true);
    for (const user of [owner, gm, player]) expect(asPlayer.body).not.toContain(user.email);
  });

  it('applies removal, leaving and role changes on the very next request', async () => {
    const c = await newCampaign();
    const gm = await ctx.createUser();
    const gm2 = await ctx.createUser();
    const player = await ctx.createUser();
    const leaver = await ctx.createUser();
    await joinCampaign(ctx.app, owner, c.slug, gm, 'gm');
    await joinCampaign(ctx.app, owner, c.slug, gm2, 'gm');
    await joinCampaign(ctx.app, owner, c.slug, player, 'player');
    await joinCampaign(ctx.app, owner, c.slug, leaver, 'player');

    expectProblem(await call(player, 'DELETE', `${c.base}/members/${leaver.id}`), 403, 'role_forbidden');
    expectProblem(await call(gm, 'DELETE', `${c.base}/members/${gm2.id}`), 403, 'role_forbidden');
    expectProblem(await call(gm, 'DELETE', `${c.base}/members/${owner.id}`), 403, 'role_forbidden');
    expectProblem(await call(owner, 'DELETE', `${c.base}/members/${owner.id}`), 409, 'owner_must_transfer');
    expectProblem(await call(owner, 'PUT', `${c.base}/members/${owner.id}`, { role: 'gm' }), 409, 'owner_must_transfer');
    expectProblem(await call(owner, 'PUT', `${c.base}/members/nobody`, { role: 'gm' }), 404, 'member_not_found');
    expect((await call(owner, 'PUT', `${c.base}/members/${player.id}`, { role: 'owner' })).statusCode).toBe(400);

    // Leaving.
    expect((await call(leaver, 'DELETE', `${c.base}/members/${leaver.id}`)).statusCode).toBe(204);
    expectProblem(await call(leaver, 'GET', c.base), 404, 'campaign_not_found');
    // A game master removes a player; the player's next request is a stranger's.
    expect((await call(player, 'GET', `${c.base}/things`)).statusCode).toBe(200);
    expect((await call(gm, 'DELETE', `${c.base}/members/${player.id}`)).statusCode).toBe(204);
    expectProblem(await call(player, 'GET', `${c.base}/things`), 404, 'campaign_not_found');
    expect(json<unknown[]>(await call(player, 'GET', '/api/campaigns'))).toEqual([]);
    // Promotion and demotion.
    const promoted = await call(owner, 'PUT', `${c.base}/members/${gm2.id}`, { role: 'player' });
    expect(json(promoted)).toMatchObject({ userId: gm2.id, role: 'player' });
    expectProblem(await call(gm2, 'PUT', c.base, { updatedCampaign: { name: 'x' } }), 403, 'role_forbidden');
    expect(json(await call(gm2, 'GET', c.base))).toMatchObject({ role: 'player' });
  });

  it('transfers ownership to a member: the old owner becomes a game master', async () => {
    const c = await newCampaign();
    const heir = await ctx.createUser();
    await joinCampaign(ctx.app, owner, c.slug, heir, 'player');
    const stranger = await ctx.createUser();
    expect((await call(owner, 'POST', `${c.base}/transfer`, { userId: stranger.id })).statusCode).toBe(400);
    const before = json<{ version?: number; updatedAt: string }>(await call(owner, 'GET', c.base));
    const res = await call(owner, 'POST', `${c.base}/transfer`, { userId: heir.id });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toMatchObject({ userId: heir.id, role: 'gm' });
    expect(json<{ updatedAt: string }>(res).updatedAt >= before.updatedAt).toBe(true);
    expect(json(await call(heir, 'GET', c.base))).toMatchObject({ role: 'owner', userId: heir.id });
    expectProblem(await call(owner, 'DELETE', c.base), 403, 'role_forbidden');
    const members = json<{ userId: string; role: string }[]>(await call(heir, 'GET', `${c.base}/members`));
    expect(members.map((m) => [m.userId, m.role])).toEqual([
      [heir.id, 'owner'],
      [owner.id, 'gm'],
    ]);
    // The previous owner may now leave.
    expect((await call(owner, 'DELETE', `${c.base}/members/${owner.id}`)).statusCode).toBe(204);
    expect((await call(heir, 'DELETE', c.base)).statusCode).toBe(204);
  });
});
