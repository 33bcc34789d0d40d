import fs from 'node:fs';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/db/repositories/credentials.js';
import { hashSecret, newSecret } from '../../src/domain/secrets.js';
import { nowIso } from '../../src/domain/time.js';
import { createTestContext } from '../support/app.js';
import { changeCounts, changedTables, installChangeJournal, type ChangeCounts } from '../support/db-changes.js';
import { caseArbitrary, describeCase, routeSpecs, toInject, type RouteSpec } from '../support/fuzz/requests.js';
import { seedCampaign, type Seed } from '../support/seed.js';
import { integrityProblems } from '../support/integrity.js';
import { dialect } from '../support/test-db.js';

// Every route of the app's route table, fuzzed from its own schema (the OpenAPI document Fastify
// generates): schema-shaped bodies with parts broken, malformed, truncated, huge and deeply nested
// JSON, prototype-poisoning keys, invalid UTF-8, odd Unicode, hostile path segments, query strings
// and credentials. For every case: no 5xx; every 4xx a well-formed problem document; a rejected
// request writes no row of any table (a change journal kept by triggers on every table says so in
// one query per case; see test/support/db-changes.ts). A route added later is fuzzed without
// anyone listing it, and a table added later is watched without anyone listing it.
//
// FUZZ_RUNS sets the cases per route (200 in `npm test`; `npm run fuzz` runs a long pass);
// FUZZ_SEED replays a run (fast-check prints the seed of a failure).

const RUNS = Math.max(1, Number(process.env.FUZZ_RUNS ?? 200));
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
// FUZZ_PROGRESS=<file>: one line per route as it finishes (vitest prints a file's output only at its end).
const PROGRESS = process.env.FUZZ_PROGRESS;
// A 4xx answer is a short document, whatever was sent: no echo of a huge body, no list of 10,000 issues.
const MAX_PROBLEM_BYTES = 16 * 1024;

// Rate limits stay on (their 429s are answers like any other), low enough to bound the argon2 work.
const ctx = await createTestContext({ LOGIN_MAX_FAILURES_PER_IP: '25' });
const watchedTables = await installChangeJournal(ctx.database);
// Each route is fuzzed by a user of its own, so lists stay the size one route's cases make them.
let owner = await ctx.createUser();
let ownerHeaders: Record<string, string> = { ...owner.headers };
// After a successful DELETE (or PUT) the seeded records are re-made at most this often: the cases in
// between fuzz the "already gone" answers, and re-seeding every time would dominate the run.
const RESEED_EVERY = 25;
const specs = routeSpecs(ctx.app);

interface RouteStats {
  cases: number;
  statuses: Map<number, number>;
  slowestMs: number;
  slowestLabel: string;
}
const stats = new Map<string, RouteStats>();
/** Routes whose own test failed: the final check does not report them a second time. */
const failedRoutes = new Set<string>();

afterAll(async () => {
  const lines = [...stats].map(([route, s]) => {
    const byClass = (lo: number) => [...s.statuses].filter(([code]) => code >= lo && code < lo + 100).reduce((n, [, c]) => n + c, 0);
    return `  ${route.padEnd(72)} ${String(s.cases).padStart(6)}  2xx ${String(byClass(200)).padStart(5)}  3xx ${String(byClass(300)).padStart(4)}  4xx ${String(byClass(400)).padStart(5)}  5xx ${byClass(500)}`;
  });
  const total = [...stats.values()].reduce((n, s) => n + s.cases, 0);
  console.log(`fuzz (${dialect}): ${total} cases over ${stats.size} routes, ${RUNS} per route\n${lines.join('\n')}`);
  await ctx.close();
});

// The owner's token could itself be revoked by a fuzzed DELETE /api/auth/tokens/:id.
async function ensureOwnerToken(): Promise<void> {
  const token = ownerHeaders.authorization!.slice('Bearer '.length);
  const row = await ctx.database.kysely.selectFrom('api_tokens').select('id').where('secret_hash', '=', hashSecret(token)).executeTakeFirst();
  if (row) return;
  const fresh = newSecret('lf_');
  await createToken(ctx.database.kysely, { userId: owner.id, name: 'fuzz', secretHash: hashSecret(fresh), now: nowIso(), expiresAt: null });
  ownerHeaders = { authorization: `Bearer ${fresh}` };
}

async function spareToken(): Promise<number> {
  const row = await createToken(ctx.database.kysely, { userId: owner.id, name: 'spare', secretHash: hashSecret(newSecret('lf_')), now: nowIso(), expiresAt: null });
  return row.id;
}

async function freshSeed(): Promise<Seed> {
  await ensureOwnerToken();
  return seedCampaign(ctx.app, ctx.database, owner.id, ownerHeaders);
}

function expectProblemDocument(res: LightMyRequestResponse, where: string): void {
  expect(res.headers['content-type'], where).toMatch(/^application\/problem\+json; charset=utf-8$/);
  expect(res.body.length, where).toBeLessThan(MAX_PROBLEM_BYTES);
  const body = JSON.parse(res.body) as Record<string, unknown>;
  expect(body.status, where).toBe(res.statusCode);
  expect(typeof body.type, where).toBe('string');
  expect(typeof body.title === 'string' && body.title.length > 0, where).toBe(true);
  expect(typeof body.detail, where).toBe('string');
  expect(body.code, where).toMatch(/^[a-z][a-z0-9_]*$/);
  if (body.errors !== undefined) {
    expect(Array.isArray(body.errors), where).toBe(true);
    for (const issue of body.errors as { path: unknown; message: unknown }[]) {
      expect(typeof issue.path === 'string' && typeof issue.message === 'string', where).toBe(true);
    }
  }
  // No stack frames, driver codes or SQL error text in an answer.
  expect(res.body, where).not.toMatch(/\bat [^"]*\.(ts|js):\d+|node_modules|SQLITE_[A-Z]|violates .* constraint|syntax error at/);
}

async function fuzzRoute(spec: RouteSpec): Promise<void> {
  const key = `${spec.method} ${spec.url}`;
  const routeStats: RouteStats = { cases: 0, statuses: new Map(), slowestMs: 0, slowestLabel: '' };
  const started = Date.now();
  stats.set(key, routeStats);
  owner = await ctx.createUser();
  ownerHeaders = { ...owner.headers };
  // Premium, so the asset routes are fuzzed past their premium gate too.
  await ctx.database.kysely.updateTable('users').set({ premium_until: '2999-01-01T00:00:00.000Z' }).where('id', '=', owner.id).execute();
  let seed = await freshSeed();
  let before: ChangeCounts = await changeCounts(ctx.database);
  let stale = false;
  let casesSinceSeed = 0;

  const run = await fc.check(
    fc.asyncProperty(caseArbitrary(spec, seed.hints), async (fuzzCase) => {
      casesSinceSeed += 1;
      if (stale && casesSinceSeed >= RESEED_EVERY) {
        seed = await freshSeed();
        before = await changeCounts(ctx.database);
        stale = false;
        casesSinceSeed = 0;
      }
      const options = toInject(spec, fuzzCase, seed.params, ownerHeaders);
      const caseStarted = Date.now();
      const res = await ctx.app.inject(options);
      const tookMs = Date.now() - caseStarted;
      if (tookMs > routeStats.slowestMs) {
        routeStats.slowestMs = tookMs;
        routeStats.slowestLabel = fuzzCase.label;
      }
      routeStats.cases += 1;
      routeStats.statuses.set(res.statusCode, (routeStats.statuses.get(res.statusCode) ?? 0) + 1);
      const where = `[${fuzzCase.label}] ${describeCase(options)} → ${res.statusCode} ${res.body.slice(0, 400)}`;
      expect(res.statusCode, where).toBeLessThan(500);
      const after = await changeCounts(ctx.database);
      if (res.statusCode >= 400) {
        expectProblemDocument(res, where);
        expect(changedTables(before, after), `a rejected request changed the database: ${where}`).toEqual([]);
        return;
      }
      const previous = before;
      const changed = changedTables(previous, after).length > 0;
      before = after;
      // A successful PUT or DELETE may have renamed or removed what the path values name.
      if (changed && (spec.method === 'PUT' || spec.method === 'DELETE')) {
        const tables = changedTables(previous, after);
        if (tables.length === 1 && tables[0] === 'api_tokens') {
          // Only a token went (perhaps the owner's own): a new one is enough.
          await ensureOwnerToken();
          seed = { ...seed, params: { ...seed.params, id: String(await spareToken()) } };
          before = await changeCounts(ctx.database);
        } else {
          stale = true;
        }
      }
    }),
    { numRuns: RUNS, endOnFailure: true, ...(SEED === undefined ? {} : { seed: SEED }) },
  );
  if (run.failed) {
    failedRoutes.add(key);
    // fast-check's own report prints the whole counterexample, which for a huge body is megabytes.
    const cause = run.errorInstance instanceof Error ? run.errorInstance.message : String(run.errorInstance);
    throw new Error(`${key}: failed at case ${run.numRuns} (replay with FUZZ_SEED=${run.seed}):\n${cause.slice(0, 3000)}`);
  }

  if (PROGRESS) {
    fs.appendFileSync(PROGRESS, `${dialect} ${key}: ${routeStats.cases} cases in ${Date.now() - started} ms, slowest ${routeStats.slowestMs} ms (${routeStats.slowestLabel})\n`);
  }
  const health = await ctx.app.inject({ method: 'GET', url: '/api/health' });
  expect(health.statusCode).toBe(200);
}

describe(`fuzzing every route from its schema (${RUNS} cases per route)`, () => {
  it('finds every route of the route table, with the request schemas the OpenAPI document gives, and watches every table', () => {
    expect(watchedTables).toEqual(expect.arrayContaining(['users', 'sessions', 'api_tokens', 'campaigns', 'thing_types', 'things', 'arcs', 'arc_things']));
    expect(specs.length).toBeGreaterThanOrEqual(30);
    const withBodies = specs.filter((s) => s.body !== undefined).map((s) => `${s.method} ${s.url}`);
    expect(withBodies).toEqual(expect.arrayContaining(['POST /api/campaigns', 'PUT /api/campaigns/:campaignSlug/arcs/:arcSlug', 'POST /api/auth/register']));
  });

  for (const spec of specs) {
    it(`${spec.method} ${spec.url}`, () => fuzzRoute(spec), 60_000 + RUNS * 400);
  }

  it(`ran at least ${RUNS} cases on every route, and the database is sound afterwards`, async () => {
    for (const spec of specs) {
      const key = `${spec.method} ${spec.url}`;
      if (!failedRoutes.has(key)) expect(stats.get(key)?.cases ?? 0, key).toBeGreaterThanOrEqual(RUNS);
    }
    expect(await integrityProblems(ctx.database.kysely, ctx.database.dialect)).toEqual([]);
    expect((await ctx.app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
  });
});
