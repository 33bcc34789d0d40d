import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppInstance } from '../../src/http/app-types.js';
import { createSession } from '../../src/db/repositories/credentials.js';
import { hashSecret, newSecret } from '../../src/domain/secrets.js';
import { nowIso } from '../../src/domain/time.js';
import { buildCheckedApp, createTestContext, json, type TestContext, type TestUser } from '../support/app.js';

const PASSWORD = 'correct horse battery';
const LOGIN_WINDOW_S = 15 * 60;
const HOUR_S = 3600;

let ctx: TestContext;
let second: AppInstance;
let ipCounter = 0;
/** A client address no other test uses, so the per-IP counters of tests never meet. */
const freshIp = () => `198.51.100.${++ipCounter}`;

beforeAll(async () => {
  ctx = await createTestContext({
    LOGIN_MAX_FAILURES_PER_ACCOUNT: '3',
    LOGIN_MAX_FAILURES_PER_IP: '5',
    REGISTER_MAX_PER_IP_PER_HOUR: '3',
    TOKENS_MAX_PER_USER_PER_HOUR: '3',
  });
  // A second instance over the same database, as when several run behind a load balancer.
  second = await buildCheckedApp(ctx.config, { database: ctx.database, logger: false });
  await second.ready();
});
afterAll(async () => {
  await second.close();
  await ctx.close();
});

function register(payload: Record<string, unknown>, ip: string, app: AppInstance = ctx.app) {
  return app.inject({ method: 'POST', url: '/api/auth/register', remoteAddress: ip, payload });
}

function login(email: string, password: string, ip: string, app: AppInstance = ctx.app) {
  return app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: ip, payload: { email, password } });
}

/** A session of `user` (only a session creates tokens), straight in the database. */
async function sessionOf(user: TestUser): Promise<Record<string, string>> {
  const secret = newSecret('lfs_');
  await createSession(ctx.database.kysely, { userId: user.id, secretHash: hashSecret(secret), now: nowIso(), expiresAt: new Date(Date.now() + HOUR_S * 1000).toISOString() });
  return { cookie: `loreforge_session=${secret}` };
}

function newToken(headers: Record<string, string>, app: AppInstance = ctx.app, name = 'ci') {
  return app.inject({ method: 'POST', url: '/api/auth/tokens', headers, payload: { name } });
}

/** A 429 problem with a Retry-After of 1 to `maxSeconds` seconds; returns that number. */
function expectRateLimited(res: LightMyRequestResponse, maxSeconds: number): number {
  expect(res.statusCode).toBe(429);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = json<{ detail: string }>(res);
  expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'status', 'title', 'type']);
  expect(body).toMatchObject({ type: 'about:blank', status: 429, title: 'Too Many Requests', code: 'rate_limited' });
  const retryAfter = res.headers['retry-after'];
  expect(retryAfter).toMatch(/^[1-9]\d*$/);
  const seconds = Number(retryAfter);
  expect(seconds).toBeLessThanOrEqual(maxSeconds);
  expect(body.detail).toContain(`${seconds} second`);
  return seconds;
}

/** Moves the window of the counter `key` back so that it ends `secondsLeft` seconds from now. */
async function ageWindow(key: string, windowSeconds: number, secondsLeft: number) {
  const start = new Date(Date.now() - (windowSeconds - secondsLeft) * 1000).toISOString();
  const result = await ctx.database.kysely.updateTable('rate_limits').set({ window_start: start }).where('key', '=', key).executeTakeFirst();
  expect(Number(result.numUpdatedRows)).toBe(1);
}

function userCount() {
  return ctx.database.kysely
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n));
}

describe('registration limit (per IP per hour)', () => {
  it('counts every attempt, even one whose body fails validation, then answers 429 with Retry-After and stores nothing', async () => {
    const ip = freshIp();
    expect((await register({ email: 'not-an-email', password: 'short' }, ip)).statusCode).toBe(400);
    expect((await register({ password: 42 }, ip)).statusCode).toBe(400);
    expect((await register({ email: 'taken-or-not@example.com', password: 'short' }, ip)).statusCode).toBe(400);
    const before = await userCount();
    expectRateLimited(await register({ email: 'late@example.com', password: PASSWORD }, ip), HOUR_S);
    expect(await userCount()).toBe(before);
    // Another address is not affected.
    expect((await register({ email: 'other-ip@example.com', password: PASSWORD }, freshIp())).statusCode).toBe(201);
  });

  it('gives Retry-After as the whole seconds left in the window, and lets the address in again once it ends', async () => {
    const ip = freshIp();
    for (let i = 0; i < 3; i++) await register({}, ip);
    expect((await register({}, ip)).statusCode).toBe(429);
    await ageWindow(`register:ip:${ip}`, HOUR_S, 4.5);
    const seconds = expectRateLimited(await register({}, ip), HOUR_S);
    expect(seconds).toBeGreaterThanOrEqual(3);
    expect(seconds).toBeLessThanOrEqual(5);
    await ageWindow(`register:ip:${ip}`, HOUR_S, 0);
    expect((await register({}, ip)).statusCode).toBe(400);
  });
});

describe('login limits', () => {
  const victim = 'victim@example.com';
  const friend = 'friend@example.com';
  beforeAll(async () => {
    expect((await register({ email: victim, password: PASSWORD }, freshIp())).statusCode).toBe(201);
    expect((await register({ email: friend, password: PASSWORD }, freshIp())).statusCode).toBe(201);
  });

  it('refuses an account from an address after 3 failures from it, even with the right password', async () => {
    const ip = freshIp();
    for (let i = 0; i < 3; i++) expect((await login(victim, `wrong password ${i}`, ip)).statusCode).toBe(401);
    expectRateLimited(await login(victim.toUpperCase(), PASSWORD, ip), LOGIN_WINDOW_S);
    expect((await login(victim, PASSWORD, ip)).statusCode).toBe(429);
    // Other accounts, from the same address, are not affected.
    expect((await login(friend, PASSWORD, ip)).statusCode).toBe(200);
  });

  it('never locks the account for other addresses: failures count per account and address pair', async () => {
    const attacker = freshIp();
    for (let i = 0; i < 3; i++) expect((await login(friend, `wrong password ${i}`, attacker)).statusCode).toBe(401);
    expect((await login(friend, PASSWORD, attacker)).statusCode).toBe(429);
    expect((await login(friend, PASSWORD, freshIp())).statusCode).toBe(200);
    // Spread over addresses, guesses still meet each address's own limit (the per-address one stands).
    for (let i = 0; i < 3; i++) expect((await login(friend, `wrong password ${i}`, freshIp())).statusCode).toBe(401);
  });

  it('counts unknown emails like known ones, so the limit tells nothing about which exist', async () => {
    const ip = freshIp();
    for (let i = 0; i < 3; i++) expect((await login('ghost@example.com', PASSWORD, ip)).statusCode).toBe(401);
    expectRateLimited(await login('ghost@example.com', PASSWORD, ip), LOGIN_WINDOW_S);
  });

  it('clears the account counter on a successful sign-in', async () => {
    const ip = freshIp();
    for (let round = 0; round < 2; round++) {
      expect((await login(friend, 'wrong password', ip)).statusCode).toBe(401);
      expect((await login(friend, 'wrong password', ip)).statusCode).toBe(401);
      expect((await login(friend, PASSWORD, ip)).statusCode).toBe(200);
    }
  });

  it('refuses an address after 5 failures across accounts, then lets it in again once the window ends', async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) expect((await login(`nobody${i}@example.com`, PASSWORD, ip)).statusCode).toBe(401);
    expectRateLimited(await login(friend, PASSWORD, ip), LOGIN_WINDOW_S);
    expect((await login(friend, PASSWORD, freshIp())).statusCode).toBe(200);
    await ageWindow(`login:ip:${ip}`, LOGIN_WINDOW_S, 0);
    expect((await login(friend, PASSWORD, ip)).statusCode).toBe(200);
  });

  it('does not count successful sign-ins against the address', async () => {
    const ip = freshIp();
    for (let i = 0; i < 6; i++) expect((await login(friend, PASSWORD, ip)).statusCode).toBe(200);
  });
});

describe('token creation limit (per user per hour)', () => {
  it('allows 3 new tokens an hour, then 429; invalid requests do not count; other users are not affected', async () => {
    const user = await ctx.createUser();
    const session = await sessionOf(user);
    expect((await newToken(session, ctx.app, '   ')).statusCode).toBe(400);
    for (let i = 0; i < 3; i++) expect((await newToken(session)).statusCode).toBe(201);
    const stored = async () =>
      (await ctx.database.kysely.selectFrom('api_tokens').select('id').where('user_id', '=', user.id).execute()).length;
    const before = await stored();
    expectRateLimited(await newToken(session), HOUR_S);
    expect(await stored()).toBe(before);
    const someoneElse = await ctx.createUser();
    expect((await newToken(await sessionOf(someoneElse))).statusCode).toBe(201);
  });
});

describe('counters shared between instances on one database', () => {
  it('sums failed logins made through either instance', async () => {
    const account = 'shared-ghost@example.com';
    const ip = freshIp();
    expect((await login(account, 'nope', ip, ctx.app)).statusCode).toBe(401);
    expect((await login(account, 'nope', ip, second)).statusCode).toBe(401);
    expect((await login(account, 'nope', ip, ctx.app)).statusCode).toBe(401);
    expectRateLimited(await login(account, 'nope', ip, second), LOGIN_WINDOW_S);
    expectRateLimited(await login(account, 'nope', ip, ctx.app), LOGIN_WINDOW_S);
  });

  it('sums registrations and new tokens made through either instance', async () => {
    const ip = freshIp();
    await register({}, ip, ctx.app);
    await register({}, ip, second);
    await register({}, ip, ctx.app);
    expectRateLimited(await register({}, ip, second), HOUR_S);

    const session = await sessionOf(await ctx.createUser());
    expect((await newToken(session, ctx.app)).statusCode).toBe(201);
    expect((await newToken(session, second)).statusCode).toBe(201);
    expect((await newToken(session, second)).statusCode).toBe(201);
    expectRateLimited(await newToken(session, ctx.app), HOUR_S);
  });
});

describe('concurrency', () => {
  it('never lets parallel guesses at one account past its limit', async () => {
    const account = 'parallel@example.com';
    const ip = freshIp();
    const results = await Promise.all(Array.from({ length: 8 }, () => login(account, 'nope', ip)));
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes).toEqual([401, 401, 401, 429, 429, 429, 429, 429]);
  });
});
