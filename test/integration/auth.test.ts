import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/domain/secrets.js';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import type { Problem } from '../support/fixtures.js';

const COOKIE = 'loreforge_session';
const PASSWORD = 'correct horse battery';
const USER_KEYS = ['createdAt', 'email', 'id', 'name', 'premium', 'premiumUntil'];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface ApiUser {
  id: string;
  email: string;
  name: string;
  premium: boolean;
  premiumUntil: string | null;
  createdAt: string;
}
interface NewToken {
  id: number;
  name: string;
  token: string;
  createdAt: string;
  expiresAt: string | null;
}

const userOf = (res: LightMyRequestResponse) => json<{ user: ApiUser }>(res).user;
const problemOf = (res: LightMyRequestResponse) => json<Problem>(res);
const issuePaths = (res: LightMyRequestResponse) => [...new Set((problemOf(res).errors ?? []).map((e) => e.path))].sort();

let ctx: TestContext;
// One registered account shared by the read-only tests, so the argon2 cost is paid once.
let alice: { email: string; cookie: string; id: string };
let other: TestUser;

interface SetCookie {
  name: string;
  value: string;
  attributes: Map<string, string>;
}

/** The Set-Cookie headers of a response, parsed by hand (attribute names lower-cased). */
function setCookies(res: LightMyRequestResponse): SetCookie[] {
  const raw = res.headers['set-cookie'];
  const lines = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return lines.map((line) => {
    const [pair = '', ...attrs] = line.split(';').map((part) => part.trim());
    const eq = pair.indexOf('=');
    const attributes = new Map<string, string>();
    for (const attr of attrs) {
      const i = attr.indexOf('=');
      attributes.set((i < 0 ? attr : attr.slice(0, i)).toLowerCase(), i < 0 ? '' : attr.slice(i + 1));
    }
    return { name: pair.slice(0, eq), value: decodeURIComponent(pair.slice(eq + 1)), attributes };
  });
}

function sessionCookie(res: LightMyRequestResponse): SetCookie {
  const cookie = setCookies(res).find((c) => c.name === COOKIE);
  if (!cookie) throw new Error(`no ${COOKIE} cookie in ${JSON.stringify(res.headers['set-cookie'])}`);
  return cookie;
}

const cookieHeader = (secret: string) => ({ cookie: `${COOKIE}=${encodeURIComponent(secret)}` });

function register(payload: Record<string, unknown>, headers: Record<string, string> = {}) {
  return ctx.app.inject({ method: 'POST', url: '/api/auth/register', headers, payload });
}

function login(email: string, password: string, headers: Record<string, string> = {}) {
  return ctx.app.inject({ method: 'POST', url: '/api/auth/login', headers, payload: { email, password } });
}

function me(headers: Record<string, string>) {
  return ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers });
}

function userCount() {
  return ctx.database.kysely
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n));
}

beforeAll(async () => {
  ctx = await createTestContext();
  other = await ctx.createUser();
  const res = await register({ email: '  Alice@Example.COM ', password: PASSWORD });
  expect(res.statusCode).toBe(201);
  alice = { email: 'Alice@Example.COM', cookie: sessionCookie(res).value, id: userOf(res).id };
});
afterAll(() => ctx.close());

describe('register', () => {
  it('creates the account, answers 201 {user} and sets the session cookie with the right attributes', async () => {
    const res = await register({ email: 'bob@example.com', password: PASSWORD, name: '  Bob the Builder ' });
    expect(res.statusCode).toBe(201);
    expect(Object.keys(json<object>(res))).toEqual(['user']);
    const user = userOf(res);
    expect(Object.keys(user).sort()).toEqual(USER_KEYS);
    expect(user).toMatchObject({ email: 'bob@example.com', name: 'Bob the Builder', premium: false, premiumUntil: null });
    expect(user.id).toEqual(expect.any(String));
    expect(user.createdAt).toMatch(ISO);
    expect(res.headers.location).toBe('/api/auth/me');

    const cookie = sessionCookie(res);
    expect(cookie.value.length).toBeGreaterThanOrEqual(40);
    expect(cookie.attributes.has('httponly')).toBe(true);
    expect(cookie.attributes.get('samesite')?.toLowerCase()).toBe('lax');
    expect(cookie.attributes.get('path')).toBe('/');
    expect(cookie.attributes.get('max-age')).toBe(String(30 * 86_400));
    expect(cookie.attributes.has('secure')).toBe(false);

    const who = await me(cookieHeader(cookie.value));
    expect(who.statusCode).toBe(200);
    expect(json<ApiUser>(who)).toEqual(user);
  });

  it('trims the email, keeps its case for display and names the user after the part before @', async () => {
    const who = json<ApiUser>(await me(cookieHeader(alice.cookie)));
    expect(who).toMatchObject({ id: alice.id, email: 'Alice@Example.COM', name: 'Alice', premium: false, premiumUntil: null });
  });

  it('stores the password only as an argon2id hash and the session secret only hashed', async () => {
    const user = await ctx.database.kysely.selectFrom('users').selectAll().where('id', '=', alice.id).executeTakeFirstOrThrow();
    expect(user.password_hash.startsWith('$argon2id$')).toBe(true);
    expect(user.password_hash).not.toContain(PASSWORD);
    expect(user.email_normalized).toBe('alice@example.com');
    const sessions = await ctx.database.kysely.selectFrom('sessions').select('secret_hash').where('user_id', '=', alice.id).execute();
    expect(sessions.map((s) => s.secret_hash)).toContain(hashSecret(alice.cookie));
    expect(sessions.map((s) => s.secret_hash)).not.toContain(alice.cookie);
  });

  it('refuses an email that is taken in another case with 409 email_taken, storing nothing', async () => {
    const before = await userCount();
    const res = await register({ email: 'ALICE@example.com', password: PASSWORD });
    expect(res.statusCode).toBe(409);
    expect(problemOf(res)).toMatchObject({ status: 409, code: 'email_taken' });
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(await userCount()).toBe(before);
  });

  it.each([
    [{ password: PASSWORD }, ['/email']],
    [{ email: 'x@example.com' }, ['/password']],
    [{ email: 'not-an-email', password: PASSWORD }, ['/email']],
    [{ email: 'two@@example.com', password: PASSWORD }, ['/email']],
    [{ email: 'spa ce@example.com', password: PASSWORD }, ['/email']],
    [{ email: `${'a'.repeat(250)}@example.com`, password: PASSWORD }, ['/email']],
    [{ email: 42, password: PASSWORD }, ['/email']],
    [{ email: 'x@example.com', password: 'short' }, ['/password']],
    [{ email: 'x@example.com', password: '123456789' }, ['/password']],
    [{ email: 'x@example.com', password: 'p'.repeat(1025) }, ['/password']],
    [{ email: 'x@example.com', password: 1234567890 }, ['/password']],
    [{ email: 'x@example.com', password: PASSWORD, name: '   ' }, ['/name']],
    [{ email: 'x@example.com', password: PASSWORD, name: 'n'.repeat(256) }, ['/name']],
    [{ email: 'x@example.com', password: PASSWORD, name: null }, ['/name']],
    [{ email: 'nope', password: 'short', name: '' }, ['/email', '/name', '/password']],
  ])('refuses %j with 400 at %j, storing nothing', async (payload, paths) => {
    const before = await userCount();
    const res = await register(payload);
    expect(res.statusCode).toBe(400);
    expect(problemOf(res).code).toBe('validation_failed');
    expect(issuePaths(res)).toEqual(paths);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(await userCount()).toBe(before);
  });

  it('accepts exactly 10 characters, counted as characters rather than bytes', async () => {
    const res = await register({ email: 'ten@example.com', password: 'ääääääääää' });
    expect(res.statusCode).toBe(201);
  });
});

describe('login', () => {
  it('answers 200 {user} with a new session cookie, matching the email case-insensitively', async () => {
    const res = await login('  alice@EXAMPLE.com ', PASSWORD);
    expect(res.statusCode).toBe(200);
    expect(Object.keys(json<object>(res))).toEqual(['user']);
    expect(Object.keys(userOf(res)).sort()).toEqual(USER_KEYS);
    expect(userOf(res).id).toBe(alice.id);
    const cookie = sessionCookie(res);
    expect(cookie.value).not.toBe(alice.cookie);
    expect(cookie.attributes.has('httponly')).toBe(true);
    expect(cookie.attributes.get('samesite')?.toLowerCase()).toBe('lax');
    expect(cookie.attributes.get('path')).toBe('/');
    expect(json<ApiUser>(await me(cookieHeader(cookie.value))).id).toBe(alice.id);
    // The old session is still alive: signing in elsewhere does not sign out this browser.
    expect((await me(cookieHeader(alice.cookie))).statusCode).toBe(200);
  });

  it('replaces the session the browser presented when signing in again', async () => {
    const first = sessionCookie(await login(alice.email, PASSWORD)).value;
    const second = await login(alice.email, PASSWORD, cookieHeader(first));
    expect(second.statusCode).toBe(200);
    expect((await me(cookieHeader(first))).statusCode).toBe(401);
    expect((await me(cookieHeader(sessionCookie(second).value))).statusCode).toBe(200);
  });

  it('answers a wrong password and an unknown email with identical 401 bodies and no cookie', async () => {
    const wrong = await login(alice.email, 'not the password');
    const unknown = await login('nobody@example.com', PASSWORD);
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(problemOf(wrong)).toEqual(problemOf(unknown));
    expect(problemOf(wrong)).toMatchObject({ code: 'invalid_credentials', status: 401, title: 'Unauthorized' });
    expect(wrong.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    expect(unknown.headers['set-cookie']).toBeUndefined();
    // An absurdly long password is simply wrong, with the same answer.
    const long = await login(alice.email, 'x'.repeat(5000));
    expect(problemOf(long)).toEqual(problemOf(wrong));
  });

  it('refuses a body without email or password with 400', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: alice.email } });
    expect(res.statusCode).toBe(400);
    expect(issuePaths(res)).toEqual(['/password']);
    const notJson = await ctx.app.inject({ method: 'POST', url: '/api/auth/login', headers: { 'content-type': 'text/plain' }, payload: 'x' });
    expect(notJson.statusCode).toBe(415);
  });
});

describe('me and logout', () => {
  it('answers /auth/me by cookie and by bearer token, and 401 without credentials', async () => {
    const byToken = await me(other.headers);
    expect(byToken.statusCode).toBe(200);
    expect(Object.keys(json<ApiUser>(byToken)).sort()).toEqual(USER_KEYS);
    expect(json<ApiUser>(byToken)).toMatchObject({ id: other.id, email: other.email, premium: false, premiumUntil: null });
    const none = await me({});
    expect(none.statusCode).toBe(401);
    expect(problemOf(none).code).toBe('unauthenticated');
    expect((await me(cookieHeader('lfs_forged'))).statusCode).toBe(401);
    expect((await me({ authorization: 'Bearer lf_forged' })).statusCode).toBe(401);
    expect((await me({ authorization: 'Basic abc' })).statusCode).toBe(401);
  });

  it('shows premium while premiumUntil is in the future', async () => {
    const db = ctx.database.kysely;
    const future = new Date(Date.now() + 86_400_000).toISOString();
    await db.updateTable('users').set({ premium_until: future }).where('id', '=', other.id).execute();
    await ctx.app.callerCache?.notifications.sync(); // the change applied, as a moment after the command
    expect(json<ApiUser>(await me(other.headers))).toMatchObject({ premium: true, premiumUntil: future });
    const past = new Date(Date.now() - 1000).toISOString();
    await db.updateTable('users').set({ premium_until: past }).where('id', '=', other.id).execute();
    await ctx.app.callerCache?.notifications.sync();
    expect(json<ApiUser>(await me(other.headers))).toMatchObject({ premium: false, premiumUntil: past });
    await db.updateTable('users').set({ premium_until: null }).where('id', '=', other.id).execute();
  });

  it('logs out: 204, the session is deleted server-side, the cookie cleared and then refused', async () => {
    const secret = sessionCookie(await login(alice.email, PASSWORD)).value;
    const res = await ctx.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { ...cookieHeader(secret), 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    const cleared = sessionCookie(res);
    expect(cleared.value).toBe('');
    expect(cleared.attributes.get('path')).toBe('/');
    expect(cleared.attributes.get('max-age') === '0' || Date.parse(cleared.attributes.get('expires') ?? '') <= Date.now()).toBe(true);
    const stored = await ctx.database.kysely.selectFrom('sessions').select('id').where('secret_hash', '=', hashSecret(secret)).execute();
    expect(stored).toEqual([]);
    expect((await me(cookieHeader(secret))).statusCode).toBe(401);
    // Other sessions of the same user live on.
    expect((await me(cookieHeader(alice.cookie))).statusCode).toBe(200);
  });

  it('logs out a bearer-token caller with a plain 204 that revokes nothing', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/api/auth/logout', headers: other.headers });
    expect(res.statusCode).toBe(204);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect((await me(other.headers)).statusCode).toBe(200);
  });

  it('refuses logout without credentials (401) and a cross-site cookie logout (403), keeping the session', async () => {
    expect((await ctx.app.inject({ method: 'POST', url: '/api/auth/logout' })).statusCode).toBe(401);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: { ...cookieHeader(alice.cookie), 'sec-fetch-site': 'cross-site' },
    });
    expect(res.statusCode).toBe(403);
    expect(problemOf(res).code).toBe('cross_site_request');
    expect((await me(cookieHeader(alice.cookie))).statusCode).toBe(200);
  });
});

describe('API tokens', () => {
  const TOKEN_KEYS = ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name'];

  function createToken(payload: Record<string, unknown>, headers: Record<string, string> = cookieHeader(alice.cookie)) {
    return ctx.app.inject({ method: 'POST', url: '/api/auth/tokens', headers, payload });
  }
  function listTokens(headers: Record<string, string> = cookieHeader(alice.cookie)) {
    return ctx.app.inject({ method: 'GET', url: '/api/auth/tokens', headers });
  }
  function revoke(id: string | number, headers: Record<string, string> = cookieHeader(alice.cookie)) {
    return ctx.app.inject({ method: 'DELETE', url: `/api/auth/tokens/${id}`, headers: { ...headers, 'content-type': 'application/json' } });
  }
  function tokenCount() {
    return ctx.database.kysely
      .selectFrom('api_tokens')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', alice.id)
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n));
  }

  it('creates a token shown once, stored only hashed, usable as a bearer token, listed without secret, revocable at once', async () => {
    const res = await createToken({ name: '  CI deploys ' });
    expect(res.statusCode).toBe(201);
    const created = json<NewToken>(res);
    expect(Object.keys(created).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'name', 'token']);
    expect(created).toMatchObject({ name: 'CI deploys', expiresAt: null });
    expect(created.createdAt).toMatch(ISO);
    expect(created.token).toMatch(/^lf_[A-Za-z0-9_-]{43}$/);
    expect(res.headers.location).toBe(`/api/auth/tokens/${created.id}`);
    expect(res.headers['cache-control']).toBe('no-store');

    const stored = await ctx.database.kysely.selectFrom('api_tokens').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(stored.secret_hash).toBe(hashSecret(created.token));
    expect(stored.secret_hash).not.toBe(created.token);

    const bearer = { authorization: `Bearer ${created.token}` };
    const who = await me(bearer);
    expect(who.statusCode).toBe(200);
    expect(json<ApiUser>(who).id).toBe(alice.id);

    const list = await listTokens();
    expect(list.statusCode).toBe(200);
    const entries = json<Record<string, unknown>[]>(list);
    const entry = entries.find((t) => t.id === created.id);
    expect(entry).toBeDefined();
    expect(Object.keys(entry!).sort()).toEqual(TOKEN_KEYS);
    expect(entry).toMatchObject({ name: 'CI deploys', createdAt: created.createdAt, expiresAt: null });
    expect(entry!.lastUsedAt).toMatch(ISO);
    expect(list.body).not.toContain(created.token);
    expect(list.body).not.toContain(stored.secret_hash);

    const gone = await revoke(created.id);
    expect(gone.statusCode).toBe(204);
    expect(gone.body).toBe('');
    expect((await me(bearer)).statusCode).toBe(401);
    expect(json<{ id: number }[]>(await listTokens()).some((t) => t.id === created.id)).toBe(false);
    const again = await revoke(created.id);
    expect(again.statusCode).toBe(404);
    expect(problemOf(again).code).toBe('token_not_found');
  });

  it('lists the newest token first and only the caller’s', async () => {
    const first = json<NewToken>(await createToken({ name: 'first' }));
    const second = json<NewToken>(await createToken({ name: 'second' }));
    const ids = json<{ id: number }[]>(await listTokens()).map((t) => t.id);
    expect(ids.indexOf(second.id)).toBeLessThan(ids.indexOf(first.id));
    const theirs = json<{ id: number }[]>(await listTokens(other.headers)).map((t) => t.id);
    expect(theirs).not.toContain(first.id);
    expect(theirs).not.toContain(second.id);
  });

  it('takes an expiry in the future, normalised to UTC with milliseconds, and null for none', async () => {
    const res = await createToken({ name: 'expiring', expiresAt: '2099-06-30T14:00:00+02:00' });
    expect(res.statusCode).toBe(201);
    expect(json<NewToken>(res).expiresAt).toBe('2099-06-30T12:00:00.000Z');
    const never = await createToken({ name: 'forever', expiresAt: null });
    expect(never.statusCode).toBe(201);
    expect(json<NewToken>(never).expiresAt).toBeNull();
  });

  it('stops accepting a token once its expiry has passed', async () => {
    const created = json<NewToken>(await createToken({ name: 'short-lived', expiresAt: '2099-01-01T00:00:00Z' }));
    const bearer = { authorization: `Bearer ${created.token}` };
    expect((await me(bearer)).statusCode).toBe(200);
    await ctx.database.kysely
      .updateTable('api_tokens')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', created.id)
      .execute();
    await ctx.app.callerCache?.notifications.sync();
    expect((await me(bearer)).statusCode).toBe(401);
  });

  it.each([
    [{}, ['/name']],
    [{ name: '   ' }, ['/name']],
    [{ name: 'n'.repeat(256) }, ['/name']],
    [{ name: 7 }, ['/name']],
    [{ name: 'ok', expiresAt: '2000-01-01T00:00:00Z' }, ['/expiresAt']],
    [{ name: 'ok', expiresAt: 'tomorrow' }, ['/expiresAt']],
    [{ name: 'ok', expiresAt: '2099-02-30T00:00:00Z' }, ['/expiresAt']],
    [{ name: 'ok', expiresAt: '2099-01-01T00:00:00' }, ['/expiresAt']],
    [{ name: 'ok', expiresAt: '2099-01-01T24:00:00Z' }, ['/expiresAt']],
    [{ name: 'ok', expiresAt: 1_900_000_000_000 }, ['/expiresAt']],
    [{ name: '', expiresAt: 'soon' }, ['/expiresAt', '/name']],
  ])('refuses %j with 400 at %j, storing nothing', async (payload, paths) => {
    const before = await tokenCount();
    const res = await createToken(payload);
    expect(res.statusCode).toBe(400);
    expect(problemOf(res).code).toBe('validation_failed');
    expect(issuePaths(res)).toEqual(paths);
    expect(await tokenCount()).toBe(before);
  });

  it('answers another user’s token id with 404 and leaves that token working', async () => {
    const mine = json<NewToken>(await createToken({ name: 'mine' }));
    const res = await revoke(mine.id, other.headers);
    expect(res.statusCode).toBe(404);
    expect(problemOf(res).code).toBe('token_not_found');
    expect((await me({ authorization: `Bearer ${mine.token}` })).statusCode).toBe(200);
  });

  it('answers malformed ids with 400 invalid_id and out-of-range ids with 404', async () => {
    for (const id of ['abc', '0', '-1', '01', '1.5', '12345678901234567']) {
      const res = await revoke(id);
      expect(res.statusCode, id).toBe(400);
      expect(problemOf(res).code).toBe('invalid_id');
    }
    for (const id of ['2147483648', '9999999999999999', '999999']) {
      const res = await revoke(id);
      expect(res.statusCode, id).toBe(404);
      expect(problemOf(res).code).toBe('token_not_found');
    }
  });

  it('answers the Location of a new token with that token, never its secret, and only to its owner', async () => {
    const created = await createToken({ name: 'located' });
    const location = created.headers.location as string;
    const token = json<NewToken>(created);
    const res = await ctx.app.inject({ method: 'GET', url: location, headers: cookieHeader(alice.cookie) });
    expect(res.statusCode).toBe(200);
    const body = json<Record<string, unknown>>(res);
    expect(Object.keys(body).sort()).toEqual(TOKEN_KEYS);
    expect(body).toMatchObject({ id: token.id, name: 'located', createdAt: token.createdAt, expiresAt: null, lastUsedAt: null });
    expect(res.body).not.toContain(token.token);

    const foreign = await ctx.app.inject({ method: 'GET', url: location, headers: other.headers });
    expect(foreign.statusCode).toBe(404);
    expect(problemOf(foreign).code).toBe('token_not_found');
    for (const id of ['abc', '0', '01']) {
      const bad = await ctx.app.inject({ method: 'GET', url: `/api/auth/tokens/${id}`, headers: cookieHeader(alice.cookie) });
      expect(bad.statusCode, id).toBe(400);
      expect(problemOf(bad).code).toBe('invalid_id');
    }
    expect((await ctx.app.inject({ method: 'GET', url: '/api/auth/tokens/2147483648', headers: cookieHeader(alice.cookie) })).statusCode).toBe(404);
    expect((await ctx.app.inject({ method: 'GET', url: location })).statusCode).toBe(401);
    // Revoked: gone from this route too.
    expect((await revoke(token.id)).statusCode).toBe(204);
    expect((await ctx.app.inject({ method: 'GET', url: location, headers: cookieHeader(alice.cookie) })).statusCode).toBe(404);
  });

  it('requires a caller on every token route', async () => {
    expect((await createToken({ name: 'x' }, {})).statusCode).toBe(401);
    expect((await listTokens({})).statusCode).toBe(401);
    expect((await revoke(1, {})).statusCode).toBe(401);
  });
});

describe('cross-site write guard', () => {
  // A session of its own, so that a write the guard lets through (a logout) cannot end alice's.
  let cookie: string;
  beforeAll(async () => {
    const res = await register({ email: 'guarded@example.com', password: PASSWORD });
    expect(res.statusCode).toBe(201);
    cookie = sessionCookie(res).value;
  });

  async function campaignFor(headers: Record<string, string>) {
    const res = await ctx.app.inject({ method: 'POST', url: '/api/campaigns', headers, payload: { newCampaign: { name: 'Guarded' } } });
    expect(res.statusCode).toBe(201);
    return json<{ slug: string }>(res).slug;
  }
  const exists = async (slug: string) =>
    (await ctx.app.inject({ method: 'GET', url: `/api/campaigns/${slug}`, headers: cookieHeader(cookie) })).statusCode === 200;
  const deleteWith = (slug: string, headers: Record<string, string>) =>
    ctx.app.inject({ method: 'DELETE', url: `/api/campaigns/${slug}`, headers: { ...cookieHeader(cookie), ...headers } });
  const own = () => new URL(ctx.config.publicBaseUrl).origin;

  // Sec-Fetch-Site decides when present, whatever Origin says; Origin decides only without it.
  const cases: { name: string; headers: () => Record<string, string>; passes: boolean }[] = [
    { name: 'Sec-Fetch-Site: cross-site', headers: () => ({ 'sec-fetch-site': 'cross-site' }), passes: false },
    { name: 'Sec-Fetch-Site: same-site', headers: () => ({ 'sec-fetch-site': 'same-site' }), passes: false },
    { name: 'Sec-Fetch-Site: same-origin', headers: () => ({ 'sec-fetch-site': 'same-origin' }), passes: true },
    { name: 'Sec-Fetch-Site: none (typed or bookmarked)', headers: () => ({ 'sec-fetch-site': 'none' }), passes: true },
    { name: 'Sec-Fetch-Site: same-origin with a foreign Origin', headers: () => ({ 'sec-fetch-site': 'same-origin', origin: 'https://evil.example' }), passes: true },
    { name: 'Sec-Fetch-Site: cross-site with this service’s Origin', headers: () => ({ 'sec-fetch-site': 'cross-site', origin: own() }), passes: false },
    { name: 'a foreign Origin', headers: () => ({ origin: 'https://evil.example' }), passes: false },
    { name: 'Origin: null (sandboxed or opaque page)', headers: () => ({ origin: 'null' }), passes: false },
    { name: 'this service’s Origin', headers: () => ({ origin: own() }), passes: true },
    { name: 'neither header (curl, scripts)', headers: () => ({}), passes: true },
  ];

  for (const { name, headers, passes } of cases) {
    it(`${passes ? 'lets through' : 'refuses (403, changing nothing)'} a cookie DELETE with ${name}`, async () => {
      const slug = await campaignFor(cookieHeader(cookie));
      const res = await deleteWith(slug, headers());
      if (passes) {
        expect(res.statusCode).toBe(204);
        expect(await exists(slug)).toBe(false);
      } else {
        expect(res.statusCode).toBe(403);
        expect(problemOf(res)).toMatchObject({ code: 'cross_site_request', status: 403 });
        expect(await exists(slug)).toBe(true);
      }
    });
  }

  it('answers a cross-site cookie write with 403 before anything else: a missing campaign, a bad body', async () => {
    const missing = await deleteWith('no-such-campaign', { 'sec-fetch-site': 'cross-site' });
    expect(problemOf(missing).code).toBe('cross_site_request');
    const form = await ctx.app.inject({
      method: 'POST',
      url: '/api/campaigns',
      headers: { ...cookieHeader(cookie), origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'name=x',
    });
    expect(problemOf(form).code).toBe('cross_site_request');
  });

  it('never checks safe methods: a cross-site GET by cookie is answered', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/campaigns', headers: { ...cookieHeader(cookie), 'sec-fetch-site': 'cross-site' } });
    expect(res.statusCode).toBe(200);
  });

  it('never applies to bearer-token requests, whatever their headers say', async () => {
    for (const headers of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }, { origin: 'null' }]) {
      const slug = await campaignFor(other.headers);
      const res = await ctx.app.inject({ method: 'DELETE', url: `/api/campaigns/${slug}`, headers: { ...other.headers, ...headers } });
      expect(res.statusCode).toBe(204);
    }
  });

  it('answers what a terminal sends by cookie as it would by token: curl -X DELETE, a form body, a missing campaign', async () => {
    // curl -b jar -X DELETE …/campaigns/{slug}: no Origin, no Sec-Fetch-Site, no body.
    const slug = await campaignFor(cookieHeader(cookie));
    expect((await deleteWith(slug, {})).statusCode).toBe(204);
    // curl -b jar -d 'name=x' …: a form body is 415, not 403.
    const form = await ctx.app.inject({
      method: 'POST',
      url: '/api/campaigns',
      headers: { ...cookieHeader(cookie), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'name=x',
    });
    expect(form.statusCode).toBe(415);
    // curl -b jar -X DELETE of a campaign that does not exist: 404.
    const missing = await deleteWith('no-such-campaign', {});
    expect(missing.statusCode).toBe(404);
    expect(problemOf(missing).code).toBe('campaign_not_found');
  });

  it('lets a terminal log out by cookie: curl -b jar -X POST /api/auth/logout', async () => {
    const res = await register({ email: 'terminal@example.com', password: PASSWORD });
    const terminal = sessionCookie(res).value;
    const out = await ctx.app.inject({ method: 'POST', url: '/api/auth/logout', headers: cookieHeader(terminal) });
    expect(out.statusCode).toBe(204);
    expect((await me(cookieHeader(terminal))).statusCode).toBe(401);
  });
});

describe('with COOKIE_SECURE=true and SESSION_DAYS=7', () => {
  let secure: TestContext;
  beforeAll(async () => {
    secure = await createTestContext({ COOKIE_SECURE: 'true', SESSION_DAYS: '7' });
  });
  afterAll(() => secure.close());

  it('marks the session cookie Secure and gives it the configured lifetime', async () => {
    const res = await secure.app.inject({ method: 'POST', url: '/api/auth/register', payload: { email: 'sec@example.com', password: PASSWORD } });
    expect(res.statusCode).toBe(201);
    const cookie = sessionCookie(res);
    expect(cookie.attributes.has('secure')).toBe(true);
    expect(cookie.attributes.get('max-age')).toBe(String(7 * 86_400));
    const session = await secure.database.kysely
      .selectFrom('sessions')
      .select(['created_at', 'expires_at'])
      .where('secret_hash', '=', hashSecret(cookie.value))
      .executeTakeFirstOrThrow();
    expect(Date.parse(session.expires_at) - Date.parse(session.created_at)).toBe(7 * 86_400_000);
  });
});
