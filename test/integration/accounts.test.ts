import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/accounts/accounts.js';
import { runCli } from '../../src/cli.js';
import { createUser } from '../../src/db/repositories/users.js';
import { hashSecret } from '../../src/domain/secrets.js';
import { createTestContext, json, setPremium, type TestContext, type TestUser } from '../support/app.js';
import { databaseForCli, newCampaign, problemOf, type TestCampaign } from '../support/fixtures.js';
import { joinCampaign } from '../support/sharing.js';
import { png } from '../fixtures/images.js';
import { sweepTrash } from '../../src/history/trash-sweeper.js';

// CONTRACT "# Phase 3" › "Accounts": password change, sign out everywhere, reset links, account
// deletion, the invitation preview, session-only token creation, sign-in limits per account and
// address, and EVERYONE_PREMIUM. Accounts here are registered through the API (real passwords).

const COOKIE = 'loreforge_session';
const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a new staple of batteries';

let ctx: TestContext;
let dataDir: string;
let ipCounter = 0;
/** A client address of its own, so no per-address counter of one test meets another's. */
const freshIp = () => `203.0.113.${++ipCounter}`;

/** A registered account: its session cookie as request headers, and a TestUser view of that session. */
interface Account extends TestUser {
  cookie: { cookie: string };
}

function sessionOf(res: LightMyRequestResponse): string {
  const raw = res.headers['set-cookie'];
  const lines = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const line = lines.find((l) => l.startsWith(`${COOKIE}=`));
  if (!line) throw new Error(`no session cookie: ${res.statusCode} ${res.body}`);
  return line.split(';')[0]!;
}

let accountCounter = 0;
async function signUp(label = 'user', app = ctx.app): Promise<Account> {
  const email = `${label}-${++accountCounter}-${Math.random().toString(36).slice(2, 8)}@example.test`;
  const res = await app.inject({ method: 'POST', url: '/api/auth/register', remoteAddress: freshIp(), payload: { email, password: PASSWORD } });
  expect(res.statusCode, res.body).toBe(201);
  const cookie = { cookie: sessionOf(res) };
  // A token made by the session, for the fixtures that take a TestUser.
  const created = await app.inject({ method: 'POST', url: '/api/auth/tokens', headers: cookie, payload: { name: 'fixtures' } });
  expect(created.statusCode, created.body).toBe(201);
  const token = json<{ token: string }>(created).token;
  return { id: json<{ user: { id: string } }>(res).user.id, email, token, headers: { authorization: `Bearer ${token}` }, cookie };
}

function login(email: string, password: string, ip = freshIp()) {
  return ctx.app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: ip, payload: { email, password } });
}

async function signIn(account: Account): Promise<{ cookie: string }> {
  const res = await login(account.email, PASSWORD);
  expect(res.statusCode, res.body).toBe(200);
  return { cookie: sessionOf(res) };
}

const me = (headers: Record<string, string>) => ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers });

function changePassword(headers: Record<string, string>, payload: Record<string, unknown>, ip = '192.0.2.1') {
  return ctx.app.inject({ method: 'PUT', url: '/api/auth/password', headers, remoteAddress: ip, payload });
}

function expectProblem(res: LightMyRequestResponse, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(problemOf(res).code).toBe(code);
}

const tokenRows = (userId: string) => ctx.database.kysely.selectFrom('api_tokens').select('id').where('user_id', '=', userId).execute();

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-accounts-'));
  ctx = await createTestContext({ DATA_DIR: dataDir, PUBLIC_BASE_URL: 'https://lore.example.test' });
});
afterAll(async () => {
  await ctx.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('PUT /api/auth/password', () => {
  it('changes the password and ends every other session, keeping this one and the API tokens', async () => {
    const account = await signUp('change');
    const elsewhere = await signIn(account);
    const res = await changePassword(account.cookie, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(res.statusCode, res.body).toBe(204);
    expect((await me(account.cookie)).statusCode).toBe(200);
    expectProblem(await me(elsewhere), 401, 'unauthenticated');
    expect((await me(account.headers)).statusCode).toBe(200);
    expect((await login(account.email, PASSWORD)).statusCode).toBe(401);
    expect((await login(account.email, NEW_PASSWORD)).statusCode).toBe(200);
  });

  it('called with an API token, ends every session of the user and keeps the tokens', async () => {
    const account = await signUp('bytoken');
    const res = await changePassword(account.headers, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(res.statusCode, res.body).toBe(204);
    expectProblem(await me(account.cookie), 401, 'unauthenticated');
    expect((await me(account.headers)).statusCode).toBe(200);
  });

  it('refuses a wrong current password with 400 invalid_password and changes nothing', async () => {
    const account = await signUp('wrong');
    const elsewhere = await signIn(account);
    const res = await changePassword(account.cookie, { currentPassword: 'not the password', newPassword: NEW_PASSWORD });
    expectProblem(res, 400, 'invalid_password');
    expect(problemOf(res).errors?.map((e) => e.path)).toEqual(['/currentPassword']);
    expect((await me(elsewhere)).statusCode).toBe(200);
    expect((await login(account.email, PASSWORD)).statusCode).toBe(200);
  });

  it('refuses a new password that is too short with 400 at /newPassword, checking nothing else', async () => {
    const account = await signUp('short');
    const res = await changePassword(account.cookie, { currentPassword: PASSWORD, newPassword: 'short' });
    expectProblem(res, 400, 'validation_failed');
    expect(problemOf(res).errors?.map((e) => e.path)).toEqual(['/newPassword']);
    expect((await login(account.email, PASSWORD)).statusCode).toBe(200);
  });

  it('counts wrong current passwords as failed sign-ins: 429 after the limit, even for the right one', async () => {
    const account = await signUp('guess');
    const ip = freshIp();
    for (let i = 0; i < ctx.config.loginMaxFailuresPerAccount; i++) {
      expectProblem(await changePassword(account.cookie, { currentPassword: `guess ${i}`, newPassword: NEW_PASSWORD }, ip), 400, 'invalid_password');
    }
    const limited = await changePassword(account.cookie, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }, ip);
    expectProblem(limited, 429, 'rate_limited');
    expect(limited.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect((await login(account.email, PASSWORD)).statusCode).toBe(200);
  });
});

describe('DELETE /api/auth/sessions (sign out everywhere)', () => {
  it('ends every session of the user, this one included, and clears the cookie; tokens and other users stay', async () => {
    const account = await signUp('everywhere');
    const elsewhere = await signIn(account);
    const bystander = await signUp('bystander');
    const res = await ctx.app.inject({ method: 'DELETE', url: '/api/auth/sessions', headers: account.cookie });
    expect(res.statusCode, res.body).toBe(204);
    expect(String(res.headers['set-cookie'])).toMatch(new RegExp(`^${COOKIE}=;`));
    expectProblem(await me(account.cookie), 401, 'unauthenticated');
    expectProblem(await me(elsewhere), 401, 'unauthenticated');
    expect((await me(account.headers)).statusCode).toBe(200);
    expect((await me(bystander.cookie)).statusCode).toBe(200);
    const left = await ctx.database.kysely.selectFrom('sessions').select('id').where('user_id', '=', account.id).execute();
    expect(left).toEqual([]);
  });
});

describe('password reset links', () => {
  const accounts = () => new Accounts(ctx.database, ctx.config);
  const tokenOf = (url: string) => url.slice(url.indexOf('#') + 1);
  const reset = (token: string, newPassword = NEW_PASSWORD) =>
    ctx.app.inject({ method: 'POST', url: '/api/auth/password-reset', payload: { token, newPassword } });

  it('issues a link to the web app’s reset page, stored hashed, that sets the password once and ends every session', async () => {
    const account = await signUp('reset');
    const elsewhere = await signIn(account);
    const issued = (await accounts().issuePasswordReset(account.email.toUpperCase()))!;
    expect(issued.url).toMatch(/^https:\/\/lore\.example\.test\/reset-password#lfr_[A-Za-z0-9_-]{22,}$/);
    const token = tokenOf(issued.url);
    const stored = await ctx.database.kysely.selectFrom('password_resets').selectAll().where('user_id', '=', account.id).execute();
    expect(stored.map((r) => r.secret_hash)).toEqual([hashSecret(token)]);
    expect(Date.parse(issued.expiresAt) - Date.now()).toBeGreaterThan(59 * 60_000);
    expect(Date.parse(issued.expiresAt) - Date.now()).toBeLessThanOrEqual(60 * 60_000);

    expect((await reset(token)).statusCode).toBe(204);
    expectProblem(await me(account.cookie), 401, 'unauthenticated');
    expectProblem(await me(elsewhere), 401, 'unauthenticated');
    expect((await login(account.email, PASSWORD)).statusCode).toBe(401);
    expect((await login(account.email, NEW_PASSWORD)).statusCode).toBe(200);
    expectProblem(await reset(token, 'yet another password'), 410, 'reset_token_unavailable');
    expect((await login(account.email, NEW_PASSWORD)).statusCode).toBe(200);
  });

  it('answers an expired, an unknown and a replaced link with 410, changing nothing', async () => {
    const account = await signUp('expired');
    const first = tokenOf((await accounts().issuePasswordReset(account.email))!.url);
    const second = tokenOf((await accounts().issuePasswordReset(account.email))!.url);
    expectProblem(await reset(first), 410, 'reset_token_unavailable');
    await ctx.database.kysely.updateTable('password_resets').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('user_id', '=', account.id).execute();
    expectProblem(await reset(second), 410, 'reset_token_unavailable');
    expectProblem(await reset('lfr_never-issued-to-anyone'), 410, 'reset_token_unavailable');
    expect((await me(account.cookie)).statusCode).toBe(200);
    expect((await login(account.email, PASSWORD)).statusCode).toBe(200);
  });

  it('lets one of two simultaneous uses of a link win; the other is 410', async () => {
    const account = await signUp('race');
    const token = tokenOf((await accounts().issuePasswordReset(account.email))!.url);
    const answers = await Promise.all([reset(token, 'first racer password'), reset(token, 'second racer password')]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([204, 410]);
    const winner = answers.findIndex((r) => r.statusCode === 204) === 0 ? 'first racer password' : 'second racer password';
    expect((await login(account.email, winner)).statusCode).toBe(200);
  });

  it('checks the new password before using the link up', async () => {
    const account = await signUp('resetshort');
    const token = tokenOf((await accounts().issuePasswordReset(account.email))!.url);
    expectProblem(await reset(token, 'short'), 400, 'validation_failed');
    expect((await reset(token)).statusCode).toBe(204);
  });

  it('is printed by `npm run cli -- user reset-password <email>`; an unknown email is exit status 1', async () => {
    const target = await databaseForCli();
    try {
      const lines: string[] = [];
      const errors: string[] = [];
      const io = { out: (l: string) => lines.push(l), err: (l: string) => errors.push(l) };
      const env = { ...target.env, PUBLIC_BASE_URL: 'https://campaigns.example.test/' };
      const owner = (await createUser(target.database.kysely, { email: 'cli@example.test', name: 'CLI', passwordHash: 'not-a-real-hash', now: new Date().toISOString() })).id;
      expect(await runCli(['user', 'reset-password', 'CLI@example.test'], env, io)).toBe(0);
      const link = lines.find((l) => l.startsWith('https://'))!;
      expect(link).toMatch(/^https:\/\/campaigns\.example\.test\/reset-password#lfr_/);
      const rows = await target.database.kysely.selectFrom('password_resets').select(['user_id', 'secret_hash']).execute();
      expect(rows).toEqual([{ user_id: owner, secret_hash: hashSecret(tokenOf(link)) }]);
      expect(await runCli(['user', 'reset-password', 'nobody@example.test'], env, io)).toBe(1);
      expect(errors.join('\n')).toContain('no user has the email address "nobody@example.test"');
      expect(await runCli(['user', 'reset-password'], env, io)).toBe(2);
    } finally {
      await target.close();
    }
  });
});

describe('DELETE /api/auth/me', () => {
  const remove = (headers: Record<string, string>, password: string) =>
    ctx.app.inject({ method: 'DELETE', url: '/api/auth/me', headers, remoteAddress: '192.0.2.9', payload: { password } });

  async function uploadImage(user: TestUser, campaign: TestCampaign): Promise<{ id: number; file: string }> {
    const grant = await ctx.app.inject({ method: 'POST', url: `${campaign.base}/assets/upload-url`, headers: user.headers, payload: { label: 'Map' } });
    expect(grant.statusCode, grant.body).toBe(200);
    const { uploadURL, imageId } = json<{ uploadURL: string; imageId: string }>(grant);
    const put = await ctx.app.inject({ method: 'PUT', url: new URL(uploadURL).pathname, payload: png(), headers: { 'content-type': 'image/png' } });
    expect(put.statusCode, put.body).toBe(200);
    const confirmed = await ctx.app.inject({ method: 'POST', url: `${campaign.base}/assets/confirm-upload`, headers: user.headers, payload: { imageId, label: 'Map' } });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    return { id: json<{ asset: { id: number } }>(confirmed).asset.id, file: path.join(dataDir, 'images', String(campaign.id), `${imageId}.png`) };
  }

  it('refuses a wrong password with 400 invalid_password and deletes nothing', async () => {
    const account = await signUp('keep');
    expectProblem(await remove(account.cookie, 'not the password'), 400, 'invalid_password');
    expect((await me(account.cookie)).statusCode).toBe(200);
  });

  it('refuses while the user owns a campaign others share: 409 owner_of_shared_campaign listing it, nothing deleted', async () => {
    const account = await signUp('sharer');
    const friend = await signUp('friend');
    const shared = await newCampaign(ctx.app, account, 'The Lost Mine');
    const alone = await newCampaign(ctx.app, account, 'Solo notes');
    await joinCampaign(ctx.app, account, shared.slug, friend, 'player');
    const res = await remove(account.cookie, PASSWORD);
    expectProblem(res, 409, 'owner_of_shared_campaign');
    expect(problemOf(res).errors).toEqual([{ path: `/campaigns/${shared.slug}`, message: 'The Lost Mine' }]);
    expect(problemOf(res).detail).toContain('The Lost Mine');
    expect((await me(account.cookie)).statusCode).toBe(200);
    expect((await ctx.app.inject({ method: 'GET', url: alone.base, headers: account.headers })).statusCode).toBe(200);

    // Once transferred, the account goes, and the campaign stays with its new owner.
    const transfer = await ctx.app.inject({ method: 'POST', url: `${shared.base}/transfer`, headers: account.headers, payload: { userId: friend.id } });
    expect(transfer.statusCode, transfer.body).toBe(200);
    expect((await remove(account.cookie, PASSWORD)).statusCode).toBe(204);
    const members = await ctx.app.inject({ method: 'GET', url: `${shared.base}/members`, headers: friend.headers });
    expect(json<{ userId: string; role: string }[]>(members).map((m) => [m.userId, m.role])).toEqual([[friend.id, 'owner']]);
  });

  it('a trashed asset of a member whose account went comes back, held by the campaign’s owner', async () => {
    const host = await signUp('asset-host');
    await setPremium(ctx.app, ctx.database, host.email, '2999-01-01T00:00:00Z');
    const member = await signUp('asset-member');
    await setPremium(ctx.app, ctx.database, member.email, '2999-01-01T00:00:00Z');
    const c = await newCampaign(ctx.app, host, 'Their maps');
    await joinCampaign(ctx.app, host, c.slug, member, 'gm');
    const image = await uploadImage(member, c);
    expect((await ctx.app.inject({ method: 'DELETE', url: `${c.base}/assets/${image.id}`, headers: host.headers })).statusCode).toBe(204);
    expect((await remove(member.cookie, PASSWORD)).statusCode).toBe(204);
    const restored = await ctx.app.inject({ method: 'POST', url: `${c.base}/trash/asset/${image.id}/restore`, headers: host.headers });
    expect(restored.statusCode, restored.body).toBe(200);
    expect(json<{ record: { id: number; userId: string } }>(restored).record).toMatchObject({ id: image.id, userId: host.id });
    expect(fs.existsSync(image.file)).toBe(true);
  });

  it('the trash sweeper never erases what a restore brought back after it listed the expired entries', async () => {
    const host = await signUp('sweep-race');
    await setPremium(ctx.app, ctx.database, host.email, '2999-01-01T00:00:00Z');
    const c = await newCampaign(ctx.app, host, 'Race');
    const image = await uploadImage(host, c);
    expect((await ctx.app.inject({ method: 'DELETE', url: `${c.base}/assets/${image.id}`, headers: host.headers })).statusCode).toBe(204);
    await ctx.database.kysely.updateTable('trash').set({ deleted_at: '2000-01-01T00:00:00.000Z' }).where('campaign_id', '=', c.id).execute();
    // The restore commits between the sweeper's listing and its erasing transaction.
    const write = ctx.database.write.bind(ctx.database);
    let first = true;
    ctx.database.write = (async (fn: Parameters<typeof write>[0]) => {
      if (first) {
        first = false;
        const res = await ctx.app.inject({ method: 'POST', url: `${c.base}/trash/asset/${image.id}/restore`, headers: host.headers });
        expect(res.statusCode, res.body).toBe(200);
      }
      return write(fn);
    }) as typeof ctx.database.write;
    try {
      await sweepTrash(ctx.database, ctx.app.imageHost, new Date(), ctx.app.log);
    } finally {
      ctx.database.write = write;
    }
    expect(fs.existsSync(image.file)).toBe(true);
    expect(json<{ id: number }[]>(await ctx.app.inject({ method: 'GET', url: `${c.base}/assets`, headers: host.headers })).map((a) => a.id)).toEqual([image.id]);
  });

  it('erases the campaigns in its trash with the account, shared or not, stored images included', async () => {
    const account = await signUp('trasher');
    await setPremium(ctx.app, ctx.database, account.email, '2999-01-01T00:00:00Z');
    const friend = await signUp('trash-friend');
    const binned = await newCampaign(ctx.app, account, 'Binned and shared');
    await joinCampaign(ctx.app, account, binned.slug, friend, 'player');
    const image = await uploadImage(account, binned);
    expect((await ctx.app.inject({ method: 'DELETE', url: binned.base, headers: account.headers })).statusCode).toBe(204);
    expect((await remove(account.cookie, PASSWORD)).statusCode).toBe(204);
    expect(await ctx.database.kysely.selectFrom('campaigns').select('id').where('id', '=', binned.id).execute()).toEqual([]);
    expect(fs.existsSync(image.file)).toBe(false);
  });

  it('deletes the account, its sessions, tokens and reset links, erases the campaigns it owns alone with their images, and ends its memberships', async () => {
    const account = await signUp('leaver');
    await setPremium(ctx.app, ctx.database, account.email, '2999-01-01T00:00:00Z');
    const host = await signUp('host');
    await setPremium(ctx.app, ctx.database, host.email, '2999-01-01T00:00:00Z');
    const elsewhere = await signIn(account);
    const mine = await newCampaign(ctx.app, account, 'Mine alone');
    const myImage = await uploadImage(account, mine);
    const theirs = await newCampaign(ctx.app, host, 'Their table');
    await joinCampaign(ctx.app, host, theirs.slug, account, 'gm');
    const imageThere = await uploadImage(account, theirs);
    const invited = await ctx.app.inject({ method: 'POST', url: `${theirs.base}/invitations`, headers: account.headers, payload: { role: 'player' } });
    expect(invited.statusCode, invited.body).toBe(201);
    const preview = () => ctx.app.inject({ method: 'POST', url: '/api/invitations/preview', payload: { token: json<{ token: string }>(invited).token } });
    expect((await preview()).statusCode).toBe(200);
    await new Accounts(ctx.database, ctx.config).issuePasswordReset(account.email);
    expect(fs.existsSync(myImage.file)).toBe(true);

    const res = await remove(account.cookie, PASSWORD);
    expect(res.statusCode, res.body).toBe(204);
    expect(String(res.headers['set-cookie'])).toMatch(new RegExp(`^${COOKIE}=;`));

    for (const headers of [account.cookie, elsewhere, account.headers]) expectProblem(await me(headers), 401, 'unauthenticated');
    const db = ctx.database.kysely;
    expect(await db.selectFrom('users').select('id').where('id', '=', account.id).execute()).toEqual([]);
    expect(await db.selectFrom('sessions').select('id').where('user_id', '=', account.id).execute()).toEqual([]);
    expect(await tokenRows(account.id)).toEqual([]);
    expect(await db.selectFrom('password_resets').select('id').where('user_id', '=', account.id).execute()).toEqual([]);
    expect(await db.selectFrom('campaigns').select('id').where('id', '=', mine.id).execute()).toEqual([]);
    expect(fs.existsSync(myImage.file)).toBe(false);
    expect(await db.selectFrom('image_removals').select('id').execute()).toEqual([]);

    // The other campaign keeps everything, the image the member uploaded included, in the owner's name.
    const members = await ctx.app.inject({ method: 'GET', url: `${theirs.base}/members`, headers: host.headers });
    expect(json<{ userId: string }[]>(members).map((m) => m.userId)).toEqual([host.id]);
    const assets = json<{ id: number; userId: string }[]>(await ctx.app.inject({ method: 'GET', url: `${theirs.base}/assets`, headers: host.headers }));
    expect(assets.map((a) => [a.id, a.userId])).toEqual([[imageThere.id, host.id]]);
    expect(fs.existsSync(imageThere.file)).toBe(true);
    // Nobody gets in by the links of someone who is gone.
    expectProblem(await preview(), 410, 'invitation_unavailable');

    // The address is free again.
    const again = await ctx.app.inject({ method: 'POST', url: '/api/auth/register', remoteAddress: freshIp(), payload: { email: account.email, password: PASSWORD } });
    expect(again.statusCode, again.body).toBe(201);
  });
});

describe('API tokens are created only by a session (regression: a leaked token minted tokens that outlived it)', () => {
  it('refuses a bearer-token call of POST /api/auth/tokens with 403 session_required and stores nothing', async () => {
    const account = await signUp('minting');
    const before = await tokenRows(account.id);
    const res = await ctx.app.inject({ method: 'POST', url: '/api/auth/tokens', headers: account.headers, payload: { name: 'persistence' } });
    expectProblem(res, 403, 'session_required');
    expect(await tokenRows(account.id)).toEqual(before);
    // Revoking the leaked token leaves the thief nothing.
    const [leaked] = json<{ id: number }[]>(await ctx.app.inject({ method: 'GET', url: '/api/auth/tokens', headers: account.cookie }));
    expect((await ctx.app.inject({ method: 'DELETE', url: `/api/auth/tokens/${leaked!.id}`, headers: account.cookie })).statusCode).toBe(204);
    expect(await tokenRows(account.id)).toEqual([]);
    expectProblem(await me(account.headers), 401, 'unauthenticated');
  });
});

describe('sign-in limits per account and address (regression: ten bad passwords from anywhere locked any account)', () => {
  it('does not lock the account for address B after ten failures from address A', async () => {
    const account = await signUp('lockout');
    const a = freshIp();
    const b = freshIp();
    for (let i = 0; i < 10; i++) expect((await login(account.email, `wrong ${i}`, a)).statusCode).toBe(401);
    expectProblem(await login(account.email, PASSWORD, a), 429, 'rate_limited');
    expect((await login(account.email, PASSWORD, b)).statusCode).toBe(200);
  });
});

describe('POST /api/invitations/preview', () => {
  const preview = (token: string, headers: Record<string, string> = {}) =>
    ctx.app.inject({ method: 'POST', url: '/api/invitations/preview', headers, payload: { token } });

  async function invite(owner: TestUser, campaign: TestCampaign, body: Record<string, unknown> = { role: 'gm' }) {
    const res = await ctx.app.inject({ method: 'POST', url: `${campaign.base}/invitations`, headers: owner.headers, payload: body });
    expect(res.statusCode, res.body).toBe(201);
    return json<{ id: number; token: string; expiresAt: string }>(res);
  }

  it('names the campaign, the inviter and the role without a caller, using nothing', async () => {
    const owner = await signUp('inviter');
    const campaign = await newCampaign(ctx.app, owner, 'Curse of Strahd');
    const invitation = await invite(owner, campaign);
    const res = await preview(invitation.token);
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({ campaignName: 'Curse of Strahd', invitedBy: owner.email.split('@')[0], role: 'gm', expiresAt: invitation.expiresAt });
    const listed = json<{ uses: number }[]>(await ctx.app.inject({ method: 'GET', url: `${campaign.base}/invitations`, headers: owner.headers }));
    expect(listed.map((i) => i.uses)).toEqual([0]);
    const members = json<unknown[]>(await ctx.app.inject({ method: 'GET', url: `${campaign.base}/members`, headers: owner.headers }));
    expect(members).toHaveLength(1);
  });

  it('answers 410 invitation_unavailable as accepting would: unknown, used up, revoked, expired', async () => {
    const owner = await signUp('gone');
    const campaign = await newCampaign(ctx.app, owner);
    expectProblem(await preview('lfi_no-such-invitation'), 410, 'invitation_unavailable');

    const used = await invite(owner, campaign, { role: 'player' });
    const joiner = await signUp('joiner');
    expect((await ctx.app.inject({ method: 'POST', url: '/api/invitations/accept', headers: joiner.headers, payload: { token: used.token } })).statusCode).toBe(200);
    expectProblem(await preview(used.token), 410, 'invitation_unavailable');

    const revoked = await invite(owner, campaign, { role: 'player' });
    expect((await ctx.app.inject({ method: 'DELETE', url: `${campaign.base}/invitations/${revoked.id}`, headers: owner.headers })).statusCode).toBe(204);
    expectProblem(await preview(revoked.token), 410, 'invitation_unavailable');

    const expired = await invite(owner, campaign, { role: 'player' });
    await ctx.database.kysely.updateTable('invitations').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', expired.id).execute();
    expectProblem(await preview(expired.token), 410, 'invitation_unavailable');
  });
});

describe('limits and settings that need their own server', () => {
  it('counts failed previews on the same per-address counter as failed accepts', async () => {
    const limited = await createTestContext({ INVITATION_MAX_FAILURES_PER_IP: '3' });
    try {
      const owner = await limited.createUser();
      const campaign = await newCampaign(limited.app, owner);
      const created = await limited.app.inject({ method: 'POST', url: `${campaign.base}/invitations`, headers: owner.headers, payload: { role: 'player' } });
      const token = json<{ token: string }>(created).token;
      const ip = '198.51.100.77';
      const previewFrom = (t: string) => limited.app.inject({ method: 'POST', url: '/api/invitations/preview', remoteAddress: ip, payload: { token: t } });
      expect((await previewFrom('lfi_guess-1')).statusCode).toBe(410);
      expect((await previewFrom('lfi_guess-2')).statusCode).toBe(410);
      const guesser = await limited.createUser();
      const accept = await limited.app.inject({ method: 'POST', url: '/api/invitations/accept', remoteAddress: ip, headers: guesser.headers, payload: { token: 'lfi_guess-3' } });
      expect(accept.statusCode).toBe(410);
      const refused = await previewFrom(token);
      expectProblem(refused, 429, 'rate_limited');
      expect(refused.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      expect((await limited.app.inject({ method: 'POST', url: '/api/invitations/preview', remoteAddress: '198.51.100.78', payload: { token } })).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('with EVERYONE_PREMIUM=true makes every account premium: GET /me and the upload routes', async () => {
    const everyone = await createTestContext({ EVERYONE_PREMIUM: 'true' });
    try {
      const user = await everyone.createUser();
      const res = await everyone.app.inject({ method: 'GET', url: '/api/auth/me', headers: user.headers });
      expect(json(res)).toMatchObject({ premium: true, premiumUntil: null });
      const campaign = await newCampaign(everyone.app, user);
      const grant = await everyone.app.inject({ method: 'POST', url: `${campaign.base}/assets/upload-url`, headers: user.headers, payload: { label: 'Map' } });
      expect(grant.statusCode, grant.body).toBe(200);
    } finally {
      await everyone.close();
    }
  });

  it('without it, an account without premium is not premium, and the refusal says to ask the administrator, never to subscribe', async () => {
    const user = await ctx.createUser();
    expect(json(await me(user.headers))).toMatchObject({ premium: false });
    const campaign = await newCampaign(ctx.app, user);
    const res = await ctx.app.inject({ method: 'POST', url: `${campaign.base}/assets/upload-url`, headers: user.headers, payload: { label: 'Map' } });
    expectProblem(res, 403, 'premium_required');
    expect(problemOf(res).detail).toMatch(/administrator/);
    expect(problemOf(res).detail).not.toMatch(/subscri/i);
  });
});
