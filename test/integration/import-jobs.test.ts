import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMs, nowIso } from '../../src/domain/time.js';
import { IMPORT_JOB_RETENTION_MS, interruptedProblem, sweepImportJobs } from '../../src/portability/import-jobs.js';
import type { AppInstance } from '../../src/http/app-types.js';
import { buildCheckedApp, createScaledOutContext, createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { filesUnder, premiumUser } from '../fixtures/image-app.js';
import { png } from '../fixtures/images.js';
import { problemOf } from '../support/fixtures.js';
import { joinCampaign } from '../support/sharing.js';
import { dialect } from '../support/test-db.js';
import { multipartFile, zipOf, type ZipInput } from '../support/zip.js';

// CONTRACT "Import from elsewhere" › "Dry run and jobs": a dry run answers the report and creates
// nothing; `Prefer: respond-async` answers 202 and imports in the background, followed by
// GET /api/imports/{id} (its owner only); the client may leave; a job whose instance died is failed;
// an `Idempotency-Key` repeat answers the first result; `visibility=gm` hides the whole import from
// players. The instance killed mid-import is in import-jobs-crash.test.ts.

let ctx: TestContext;
let owner: TestUser;
let other: TestUser;
let free: TestUser;
let dataDir: string;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-import-jobs-'));
  ctx = await createTestContext({ DATA_DIR: dataDir });
  owner = await premiumUser(ctx);
  other = await premiumUser(ctx);
  free = await ctx.createUser();
});
afterAll(async () => {
  await ctx.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

interface Report {
  format: string;
  thingTypes: number;
  things: number;
  arcs: number;
  links: number;
  assets: number;
  warnings: { entry: string; problem: string }[];
}
interface Job {
  id: string;
  status: 'queued' | 'running' | 'done' | 'failed';
  progress: { done: number; total: number };
  campaign?: { id: number; slug: string; name: string; role: string };
  report?: Report;
  error?: { status: number; code: string; title: string; detail: string; type: string };
}

/** A vault as people write them: folders of notes, wikilinks with labels and headings, front matter, an image. */
async function vault(notes: number, options: { images?: number } = {}): Promise<Buffer> {
  const entries: ZipInput[] = [];
  for (let i = 0; i < notes; i++) {
    const folder = i % 2 === 0 ? 'NPCs' : 'Locations/Waterdeep';
    const next = `Note ${(i + 1) % notes}`;
    entries.push({ name: `${folder}/Note ${i}.md`, data: `---\ntags: [npc]\naliases: [N${i}]\n---\n# Note ${i}\n\nMeets [[${next}|someone]] at [[${next}#Tavern]].\n\n- [ ] ask about the map\n` });
  }
  for (let i = 0; i < (options.images ?? 0); i++) {
    entries.push({ name: `attachments/map-${i}.png`, data: png([i % 256, 30, 30, 255]) });
    entries.push({ name: `NPCs/With map ${i}.md`, data: `The map: ![[map-${i}.png]]\n` });
  }
  return zipOf(entries);
}

function post(zip: Buffer, options: { user?: TestUser; query?: string; headers?: Record<string, string>; fileName?: string } = {}): Promise<LightMyRequestResponse> {
  const form = multipartFile(zip, options.fileName ?? 'vault.zip');
  return ctx.app.inject({
    method: 'POST',
    url: `/api/campaigns/import${options.query ? `?${options.query}` : ''}`,
    headers: { ...(options.user ?? owner).headers, ...form.headers, ...options.headers },
    payload: form.payload,
  });
}

const getJob = (id: string, user: TestUser = owner) => ctx.app.inject({ method: 'GET', url: `/api/imports/${id}`, headers: user.headers });

/** Polls the job until it has ended; every answer's progress, in order. */
async function untilEnded(id: string, user: TestUser = owner): Promise<{ job: Job; seen: Job['progress'][]; statuses: string[] }> {
  const seen: Job['progress'][] = [];
  const statuses: string[] = [];
  for (let i = 0; i < 10_000; i++) {
    const res = await getJob(id, user);
    expect(res.statusCode, res.body).toBe(200);
    const job = json<Job>(res);
    seen.push(job.progress);
    statuses.push(job.status);
    if (job.status === 'done' || job.status === 'failed') {
      expect(res.headers['retry-after']).toBeUndefined();
      return { job, seen, statuses };
    }
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`job ${id} did not end`);
}

async function count(table: 'campaigns' | 'assets' | 'things' | 'import_jobs'): Promise<number> {
  const row = await ctx.database.kysely.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

const campaignsOf = async (user: TestUser) => json<{ slug: string }[]>(await ctx.app.inject({ method: 'GET', url: '/api/campaigns', headers: user.headers })).map((c) => c.slug);

describe(`dry run, on ${dialect}`, () => {
  it('answers the report the import gives, and creates nothing: no campaign, no image, no staged bytes, no job', async () => {
    const zip = await vault(12, { images: 2 });
    const before = { campaigns: await count('campaigns'), assets: await count('assets'), jobs: await count('import_jobs') };
    const dry = await post(zip, { query: 'dryRun=true', headers: { 'idempotency-key': 'dry-1', prefer: 'respond-async' } });
    expect(dry.statusCode, dry.body).toBe(200);
    // A dry run answers itself, never in the background, and takes no key.
    expect(dry.headers['preference-applied']).toBeUndefined();
    expect(dry.headers.location).toBeUndefined();
    expect({ campaigns: await count('campaigns'), assets: await count('assets'), jobs: await count('import_jobs') }).toEqual(before);
    expect(filesUnder(dataDir)).toEqual([]);
    const report = json<Report>(dry);
    expect(report).toMatchObject({ format: 'markdown', things: 14, assets: 2 });

    const real = await post(zip, { headers: { 'idempotency-key': 'dry-1' } });
    expect(real.statusCode, real.body).toBe(201);
    expect(json<{ import: Report }>(real).import).toEqual(report);
  });

  it('makes every check the import makes, with the same answers', async () => {
    const noVault = await zipOf([{ name: 'readme.txt', data: 'not a vault' }]);
    const cases: { zip: Buffer; user?: TestUser }[] = [{ zip: noVault }, { zip: await vault(2, { images: 1 }), user: free }, { zip: Buffer.from('PK\u0003\u0004 broken') }];
    for (const { zip, user } of cases) {
      const before = await count('campaigns');
      const dry = await post(zip, { query: 'dryRun=true', ...(user ? { user } : {}) });
      const real = await post(zip, user ? { user } : {});
      expect(dry.statusCode, dry.body).toBeGreaterThanOrEqual(400);
      expect(dry.statusCode).toBe(real.statusCode);
      expect(problemOf(dry)).toEqual(problemOf(real));
      expect(await count('campaigns')).toBe(before);
    }
    expect(filesUnder(dataDir).filter((f) => !f.startsWith('images/'))).toEqual([]);
  });

  it('counts against IMPORTS_MAX_PER_USER_PER_HOUR like an import; a repeat answered by its Idempotency-Key does not', async () => {
    const limited = await createTestContext({ DATA_DIR: dataDir, IMPORTS_MAX_PER_USER_PER_HOUR: '3' });
    try {
      const user = await limited.createUser();
      const zip = await vault(2);
      const send = (query: string, headers: Record<string, string> = {}) => {
        const form = multipartFile(zip, 'limited.zip');
        return limited.app.inject({ method: 'POST', url: `/api/campaigns/import${query}`, headers: { ...user.headers, ...form.headers, ...headers }, payload: form.payload });
      };
      const hits = async () => (await limited.database.kysely.selectFrom('rate_limits').select('hits').execute()).map((r) => Number(r.hits));
      expect((await send('?dryRun=true')).statusCode).toBe(200);
      expect(await hits()).toEqual([1]);
      expect((await send('', { 'idempotency-key': 'once' })).statusCode).toBe(201);
      expect((await send('', { 'idempotency-key': 'once' })).statusCode).toBe(201);
      expect((await send('', { 'idempotency-key': 'once', prefer: 'respond-async' })).statusCode).toBe(202);
      expect(await hits()).toEqual([2]);
      const third = await send('?dryRun=true');
      expect(third.statusCode, third.body).toBe(200);
      const past = await send('?dryRun=true');
      expect(past.statusCode).toBe(429);
      expect(problemOf(past).code).toBe('rate_limited');
      // The first result is still answered: reading nothing, it counts nothing.
      expect((await send('', { 'idempotency-key': 'once' })).statusCode).toBe(201);
    } finally {
      await limited.close();
    }
  });

  it('refuses query values it does not know: 400', async () => {
    const zip = await vault(1);
    for (const query of ['dryRun=yes', 'dryRun=', 'visibility=all', 'visibility=GM', 'visibility=']) {
      const res = await post(zip, { query });
      expect(res.statusCode, `${query}: ${res.body}`).toBe(400);
      expect(problemOf(res).errors?.[0]?.path).toBe(`/${query.split('=')[0]}`);
    }
  });
});

describe(`asynchronous imports, on ${dialect}`, () => {
  it('answers 202 with Location and the job, then runs to done with progress that only moves forward, the campaign and the report', async () => {
    const zip = await vault(400, { images: 40 });
    const sync = await post(zip);
    expect(sync.statusCode, sync.body).toBe(201);
    ctx.queries.length = 0;
    const res = await post(zip, { headers: { prefer: 'wait=5, Respond-Async; x=1' } });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.headers['preference-applied']).toBe('respond-async');
    const job = json<Job>(res);
    expect(res.headers.location).toBe(`/api/imports/${job.id}`);
    expect(job.id).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(['queued', 'running']).toContain(job.status);
    expect(job.campaign).toBeUndefined();

    const { job: ended, seen } = await untilEnded(job.id);
    expect(ended.status).toBe('done');
    for (const [i, progress] of seen.entries()) {
      expect(progress.done).toBeLessThanOrEqual(progress.total);
      if (i > 0) expect(progress.done).toBeGreaterThanOrEqual(seen[i - 1]!.done);
    }
    // At least a step per image stored (the readers and the writer add theirs).
    expect(ended.progress.total).toBeGreaterThanOrEqual(40);
    expect(ended.progress.done).toBe(ended.progress.total);
    expect(ended.report).toEqual(json<{ import: Report }>(sync).import);
    expect(ended.campaign).toMatchObject({ role: 'owner' });
    const campaign = await ctx.app.inject({ method: 'GET', url: `/api/campaigns/${ended.campaign!.slug}`, headers: owner.headers });
    expect(ended.campaign).toEqual(json(campaign));
    // The progress is written throttled, never a statement per note.
    const jobWrites = ctx.queries.filter((sql) => /^update "import_jobs"/i.test(sql)).length;
    expect(jobWrites).toBeGreaterThanOrEqual(2);
    expect(jobWrites).toBeLessThan(400 / 4);
  });

  it('shows a job to the user who started it only: 404 to anyone else, as for an id that does not exist; 401 without a caller', async () => {
    const res = await post(await vault(2), { headers: { prefer: 'respond-async' } });
    const { id } = json<Job>(res);
    await untilEnded(id);
    const stranger = await getJob(id, other);
    const missing = await getJob('x'.repeat(id.length), other);
    expect(stranger.statusCode).toBe(404);
    expect(problemOf(stranger).code).toBe('import_job_not_found');
    expect(stranger.body).toBe(missing.body);
    const nobody = await ctx.app.inject({ method: 'GET', url: `/api/imports/${id}` });
    expect(nobody.statusCode).toBe(401);
  });

  it('ends a failing import as failed, with the problem the synchronous import answers, and creates nothing', async () => {
    const zip = await zipOf([{ name: 'readme.txt', data: 'no notes here' }]);
    const sync = await post(zip);
    expect(sync.statusCode).toBe(400);
    const before = await count('campaigns');
    const res = await post(zip, { headers: { prefer: 'respond-async' } });
    expect(res.statusCode, res.body).toBe(202);
    const { job } = await untilEnded(json<Job>(res).id);
    expect(job.status).toBe('failed');
    expect(job.error).toEqual(problemOf(sync));
    expect(job.campaign).toBeUndefined();
    expect(job.report).toBeUndefined();
    expect(await count('campaigns')).toBe(before);
  });

  it('answers the file’s own problems (too large, wrong type) at once, with no job', async () => {
    const jobs = await count('import_jobs');
    const res = await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...owner.headers, prefer: 'respond-async', 'content-type': 'text/plain' }, payload: 'hello' });
    expect(res.statusCode).toBe(415);
    expect(await count('import_jobs')).toBe(jobs);
  });

  it('goes on when its client leaves as soon as it has the 202', async () => {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (ctx.app.server.address() as AddressInfo).port;
    const form = multipartFile(await vault(300), 'leaving.zip');
    const campaigns = (await campaignsOf(owner)).length;
    const id = await new Promise<string>((resolve, reject) => {
      const request = http.request(
        { host: '127.0.0.1', port, method: 'POST', path: '/api/campaigns/import', headers: { ...owner.headers, ...form.headers, prefer: 'respond-async', 'content-length': String(form.payload.length) } },
        (response) => {
          const location = String(response.headers.location);
          // The client goes away at once, without reading the body.
          request.destroy();
          resolve(location.split('/').at(-1)!);
        },
      );
      request.on('error', (error) => (error.message.includes('socket hang up') ? undefined : reject(error)));
      request.end(form.payload);
    });
    const { job } = await untilEnded(id);
    expect(job.status).toBe('done');
    expect(job.report!.things).toBe(300);
    expect((await campaignsOf(owner)).length).toBe(campaigns + 1);
  });

  it('holds the user’s one import slot while it runs: a second import of theirs is 429 import_in_progress', async () => {
    const res = await post(await vault(300), { user: other, headers: { prefer: 'respond-async' } });
    expect(res.statusCode).toBe(202);
    const second = await post(await vault(1), { user: other });
    const { job } = await untilEnded(json<Job>(res).id, other);
    expect(job.status).toBe('done');
    // Unless the job was already over by the time the second arrived.
    if (second.statusCode !== 201) {
      expect(second.statusCode).toBe(429);
      expect(problemOf(second).code).toBe('import_in_progress');
    }
    expect((await post(await vault(1), { user: other })).statusCode).toBe(201);
  });

  it('is recorded as failed, with nothing created, when its instance closes while it runs', async () => {
    const closing = await createTestContext({ DATA_DIR: dataDir });
    try {
      const user = await premiumUser(closing);
      const form = multipartFile(await vault(300, { images: 300 }), 'closing.zip');
      const res = await closing.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...user.headers, ...form.headers, prefer: 'respond-async' }, payload: form.payload });
      expect(res.statusCode, res.body).toBe(202);
      const { id } = json<Job>(res);
      await closing.app.close();
      const row = await closing.database.kysely.selectFrom('import_jobs').select(['status', 'error']).where('id', '=', id).executeTakeFirstOrThrow();
      const campaigns = await closing.database.kysely.selectFrom('campaigns').select('id').where('user_id', '=', user.id).execute();
      // Closed at once after the 202: 300 notes and 300 images are far from read.
      expect(row.status).toBe('failed');
      expect(JSON.parse(row.error!)).toMatchObject({ status: 503, code: 'service_unavailable' });
      expect(campaigns).toEqual([]);
    } finally {
      await closing.database.close();
    }
  });

  it('answers a job whose instance stopped touching it as failed, and stores it so', async () => {
    const id = 'stale-job-of-a-dead-inst';
    const old = addMs(nowIso(), -60_000);
    await ctx.database.kysely
      .insertInto('import_jobs')
      .values({ id, user_id: owner.id, status: 'running', progress_done: 3, progress_total: 10, campaign_id: null, report: null, error: null, idempotency_key: null, instance_id: 'dead', heartbeat_at: old, created_at: old, updated_at: old })
      .execute();
    const res = await getJob(id);
    expect(res.statusCode).toBe(200);
    const job = json<Job>(res);
    expect(job).toMatchObject({ status: 'failed', progress: { done: 3, total: 10 }, error: { status: 503, code: 'service_unavailable' } });
    const row = await ctx.database.kysely.selectFrom('import_jobs').select('status').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.status).toBe('failed');
  });

  it('sweeps: fails stale jobs, erases finished ones after 48 hours, keeps the rest', async () => {
    const at = (ms: number) => addMs(nowIso(), -ms);
    const row = (id: string, status: 'running' | 'done', created: string, heartbeat: string) => ({
      id, user_id: free.id, status, progress_done: 0, progress_total: 0, campaign_id: null, report: null, error: null, idempotency_key: null, instance_id: 'other', heartbeat_at: heartbeat, created_at: created, updated_at: created,
    });
    await ctx.database.kysely
      .insertInto('import_jobs')
      .values([row('sweep-old-done', 'done', at(IMPORT_JOB_RETENTION_MS + 60_000), at(IMPORT_JOB_RETENTION_MS)), row('sweep-young-done', 'done', at(60_000), at(60_000)), row('sweep-stale', 'running', at(120_000), at(60_000)), row('sweep-alive', 'running', at(1_000), at(1_000))])
      .execute();
    const { failed, erased } = await sweepImportJobs(ctx.database, ctx.config.importJobStaleMs);
    expect(failed).toBeGreaterThanOrEqual(1);
    expect(erased).toBeGreaterThanOrEqual(1);
    const left = await ctx.database.kysely.selectFrom('import_jobs').select(['id', 'status']).where('user_id', '=', free.id).orderBy('id').execute();
    expect(left).toEqual([
      { id: 'sweep-alive', status: 'running' },
      { id: 'sweep-stale', status: 'failed' },
      { id: 'sweep-young-done', status: 'done' },
    ]);
  });
});

describe(`Idempotency-Key, on ${dialect}`, () => {
  it('answers a synchronous repeat with the first result: the same campaign as it is now and the same report, once', async () => {
    const zip = await vault(3);
    const before = (await campaignsOf(owner)).length;
    const first = await post(zip, { headers: { 'idempotency-key': 'sync key 1' } });
    expect(first.statusCode, first.body).toBe(201);
    const renamed = await ctx.app.inject({ method: 'PUT', url: `/api/campaigns/${json<{ slug: string }>(first).slug}`, headers: owner.headers, payload: { updatedCampaign: { name: 'Renamed since' } } });
    expect(renamed.statusCode).toBe(200);
    const again = await post(zip, { headers: { 'idempotency-key': 'sync key 1' } });
    expect(again.statusCode, again.body).toBe(201);
    expect(json(again)).toEqual({ ...json<object>(first), name: 'Renamed since', updatedAt: json<{ updatedAt: string }>(renamed).updatedAt });
    expect(again.headers.location).toBe(first.headers.location);
    // The repeat reads nothing: even another file gets the first answer.
    const other = await post(await vault(1), { headers: { 'idempotency-key': 'sync key 1' } });
    expect(json<{ id: number }>(other).id).toBe(json<{ id: number }>(first).id);
    expect((await campaignsOf(owner)).length).toBe(before + 1);
    // Asked for asynchronously, the same import is its job, done.
    const asJob = await post(zip, { headers: { 'idempotency-key': 'sync key 1', prefer: 'respond-async' } });
    expect(asJob.statusCode).toBe(202);
    expect(json<Job>(asJob)).toMatchObject({ status: 'done', campaign: { id: json<{ id: number }>(first).id } });
  });

  it('answers an asynchronous repeat with the same job, and a synchronous one once it is done', async () => {
    const zip = await vault(50);
    const before = (await campaignsOf(owner)).length;
    const first = json<Job>(await post(zip, { headers: { 'idempotency-key': 'async-key', prefer: 'respond-async' } }));
    const again = await post(zip, { headers: { 'idempotency-key': 'async-key', prefer: 'respond-async' } });
    expect(again.statusCode).toBe(202);
    expect(json<Job>(again).id).toBe(first.id);
    const { job } = await untilEnded(first.id);
    const sync = await post(zip, { headers: { 'idempotency-key': 'async-key' } });
    expect(sync.statusCode).toBe(201);
    expect(json<{ id: number; import: Report }>(sync)).toMatchObject({ id: job.campaign!.id, import: job.report });
    expect((await campaignsOf(owner)).length).toBe(before + 1);
  });

  it('answers a repeat while the first still runs: async 202 with its job, sync 409 idempotency_key_in_use', async () => {
    const now = nowIso();
    await ctx.database.kysely
      .insertInto('import_jobs')
      .values({ id: 'running-elsewhere-1', user_id: owner.id, status: 'running', progress_done: 1, progress_total: 5, campaign_id: null, report: null, error: null, idempotency_key: 'busy-key', instance_id: 'another instance', heartbeat_at: now, created_at: now, updated_at: now })
      .execute();
    const zip = await vault(1);
    const asJob = await post(zip, { headers: { 'idempotency-key': 'busy-key', prefer: 'respond-async' } });
    expect(asJob.statusCode).toBe(202);
    expect(json<Job>(asJob)).toMatchObject({ id: 'running-elsewhere-1', status: 'running' });
    const sync = await post(zip, { headers: { 'idempotency-key': 'busy-key' } });
    expect(sync.statusCode).toBe(409);
    expect(problemOf(sync).code).toBe('idempotency_key_in_use');
    expect(problemOf(sync).detail).toContain('/api/imports/running-elsewhere-1');
    // Alive on "another instance", it would hold the owner's one import slot for IMPORT_JOB_STALE_MS.
    await ctx.database.kysely.deleteFrom('import_jobs').where('id', '=', 'running-elsewhere-1').execute();
  });

  it('imports once when the same key arrives at two instances at the same moment', async () => {
    const scaled = await createScaledOutContext();
    try {
      const user = await premiumUser(scaled);
      const zip = await vault(20);
      const send = (i: number) => {
        const form = multipartFile(zip, 'twice.zip');
        const app = scaled.apps[i % scaled.apps.length]!;
        return app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...user.headers, ...form.headers, prefer: 'respond-async', 'idempotency-key': 'at-once' }, payload: form.payload });
      };
      const answers = await Promise.all([send(0), send(1)]);
      const ids = new Set<string>();
      for (const res of answers) {
        // On one instance the second may find the user's slot taken before it finds the key.
        if (res.statusCode === 429) expect(problemOf(res).code).toBe('import_in_progress');
        else {
          expect(res.statusCode, res.body).toBe(202);
          ids.add(json<Job>(res).id);
        }
      }
      expect(ids.size).toBe(1);
      const [id] = [...ids];
      for (let polls = 0; ; polls++) {
        const job = json<Job>(await scaled.app.inject({ method: 'GET', url: `/api/imports/${id}`, headers: user.headers }));
        if (job.status === 'done') break;
        expect(job.status).not.toBe('failed');
        expect(polls).toBeLessThan(1_000);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const campaigns = await scaled.database.kysely.selectFrom('campaigns').select('id').where('user_id', '=', user.id).execute();
      expect(campaigns).toHaveLength(1);
    } finally {
      await scaled.close();
    }
  });

  it('keeps different users’ keys apart', async () => {
    const zip = await vault(1);
    const mine = await post(zip, { headers: { 'idempotency-key': 'shared' } });
    const theirs = await post(zip, { user: other, headers: { 'idempotency-key': 'shared' } });
    expect(mine.statusCode).toBe(201);
    expect(theirs.statusCode).toBe(201);
    expect(json<{ id: number }>(theirs).id).not.toBe(json<{ id: number }>(mine).id);
    expect(json<{ userId: string }>(theirs).userId).toBe(other.id);
  });

  it('imports again after 24 hours, after a failed first attempt, and once the first campaign is gone', async () => {
    const zip = await vault(1);
    const first = json<{ id: number; slug: string }>(await post(zip, { headers: { 'idempotency-key': 'expiring' } }));
    await ctx.database.kysely.updateTable('import_jobs').set({ created_at: addMs(nowIso(), -(24 * 3_600_000 + 60_000)) }).where('idempotency_key', '=', 'expiring').execute();
    const later = await post(zip, { headers: { 'idempotency-key': 'expiring' } });
    expect(later.statusCode).toBe(201);
    expect(json<{ id: number }>(later).id).not.toBe(first.id);

    const bad = await zipOf([{ name: 'readme.txt', data: 'x' }]);
    expect((await post(bad, { headers: { 'idempotency-key': 'failing' } })).statusCode).toBe(400);
    expect((await post(zip, { headers: { 'idempotency-key': 'failing' } })).statusCode).toBe(201);

    const deleted = json<{ id: number; slug: string }>(await post(zip, { headers: { 'idempotency-key': 'deleted' } }));
    expect((await ctx.app.inject({ method: 'DELETE', url: `/api/campaigns/${deleted.slug}`, headers: owner.headers })).statusCode).toBe(204);
    const anew = await post(zip, { headers: { 'idempotency-key': 'deleted' } });
    expect(anew.statusCode).toBe(201);
    expect(json<{ id: number }>(anew).id).not.toBe(deleted.id);
  });

  it('refuses a key that is empty, too long or not printable ASCII: 400', async () => {
    const zip = await vault(1);
    for (const key of ['', 'k'.repeat(256), 'clé']) {
      const res = await post(zip, { headers: { 'idempotency-key': key } });
      expect(res.statusCode, JSON.stringify(key)).toBe(400);
    }
    expect((await post(zip, { headers: { 'idempotency-key': `${'k'.repeat(254)}~` } })).statusCode).toBe(201);
  });
});

describe(`visibility=gm, on ${dialect}`, () => {
  it('makes every imported thing and arc GM-only: a player sees none of it', async () => {
    const at = '2026-01-01T00:00:00.000Z';
    const zip = await vault(6);
    const res = await post(zip, { query: 'visibility=gm', headers: { prefer: 'respond-async' } });
    const { job } = await untilEnded(json<Job>(res).id);
    expect(job.status).toBe('done');
    const slug = job.campaign!.slug;
    const player = await ctx.createUser();
    await joinCampaign(ctx.app, owner, slug, player, 'player');
    const gmThings = json<{ visibility: string }[]>(await ctx.app.inject({ method: 'GET', url: `/api/campaigns/${slug}/things?fetchAll=true`, headers: owner.headers }));
    expect(gmThings).toHaveLength(6);
    expect(gmThings.every((t) => t.visibility === 'gm')).toBe(true);
    const seen = await ctx.app.inject({ method: 'GET', url: `/api/campaigns/${slug}/things?fetchAll=true`, headers: player.headers });
    expect(json(seen)).toEqual([]);
    const search = await ctx.app.inject({ method: 'GET', url: `/api/campaigns/${slug}/search?q=note`, headers: player.headers });
    expect(search.statusCode).toBe(200);
    expect(JSON.stringify(json(search))).not.toContain('Note');
    // An archive's arcs too.
    const doc = {
      format: 'loreforge-campaign', version: 1, exportedAt: at,
      campaign: { id: 1, slug: 'gm-only-doc', name: 'Doc', description: [{ type: 'paragraph', children: [{ text: '' }] }], createdAt: at, updatedAt: at },
      thingTypes: [{ id: 1, name: 'NPCs', createdAt: at, updatedAt: at }],
      things: [{ id: 1, slug: 'ada', typeId: 1, name: 'Ada', description: [{ type: 'paragraph', children: [{ text: 'Ada' }] }], createdAt: at, updatedAt: at }],
      arcs: [{ id: 1, slug: 'the-heist', name: 'The heist', parentArcId: null, createdAt: at, updatedAt: at }],
      links: [{ thingId: 1, arcId: 1, createdAt: at }], assets: [], members: [],
    };
    const imported = await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import?visibility=gm', headers: { ...owner.headers, 'content-type': 'application/json' }, payload: doc });
    expect(imported.statusCode, imported.body).toBe(201);
    const docSlug = json<{ slug: string }>(imported).slug;
    await joinCampaign(ctx.app, owner, docSlug, player, 'player');
    for (const list of ['things', 'arcs']) {
      expect(json(await ctx.app.inject({ method: 'GET', url: `/api/campaigns/${docSlug}/${list}`, headers: player.headers }))).toEqual([]);
      expect(json<unknown[]>(await ctx.app.inject({ method: 'GET', url: `/api/campaigns/${docSlug}/${list}`, headers: owner.headers }))).toHaveLength(1);
    }
  });
});

// A job is its instance's from the insertion of its row (before its body has arrived) until its end
// is recorded: its heartbeat is renewed meanwhile, so neither a repeat, nor a GET, nor a sweep, on
// its own instance or another, takes a slow upload for a dead instance; its end is recorded only
// while it is unfinished, and a job failed meanwhile keeps meaning that nothing was created.
describe(`a job held by its instance from its first byte, on ${dialect}`, () => {
  const STALE_MS = 1_000;
  let slow: TestContext;
  let elsewhere: AppInstance;
  let slowDir: string;

  beforeAll(async () => {
    slowDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-import-slow-'));
    slow = await createTestContext({ DATA_DIR: slowDir, IMPORT_JOB_STALE_MS: String(STALE_MS) });
    // Another instance on the same database, with its own jobs.
    elsewhere = await buildCheckedApp(slow.config, { database: slow.database, logger: false });
    await elsewhere.ready();
    // The first answers of an app in these tests take seconds on one thread (the OpenAPI check
    // compiles its validators), long enough to stop every timer, heartbeats included: past them here.
    const warm = await premiumUser(slow);
    for (const app of [slow.app, elsewhere]) {
      const send = (headers: Record<string, string>) => app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...warm.headers, 'content-type': 'application/zip', ...headers }, payload: Buffer.from('PK broken') });
      expect((await send({})).statusCode).toBe(400);
      const job = json<Job>(await send({ prefer: 'respond-async', 'idempotency-key': `warm-${slow.app === app}` }));
      while (!['done', 'failed'].includes(json<Job>(await app.inject({ method: 'GET', url: `/api/imports/${job.id}`, headers: warm.headers })).status)) await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });
  afterAll(async () => {
    await elsewhere.close();
    await slow.close();
    fs.rmSync(slowDir, { recursive: true, force: true });
  });

  /** An import whose body arrives as the test says: half of it at once, the rest on `finish()`. */
  function slowImport(user: TestUser, zip: Buffer, headers: Record<string, string>) {
    const body = new PassThrough();
    body.write(zip.subarray(0, zip.length >> 1));
    const answer = slow.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...user.headers, 'content-type': 'application/zip', ...headers }, payload: body });
    return { answer, finish: () => body.end(zip.subarray(zip.length >> 1)) };
  }

  /** The user's one job row, once it is there (the upload has begun). */
  async function jobRowOf(user: TestUser) {
    for (let polls = 0; polls < 1_000; polls++) {
      const rows = await slow.database.kysely.selectFrom('import_jobs').selectAll().where('user_id', '=', user.id).execute();
      if (rows.length > 0) {
        expect(rows).toHaveLength(1);
        return rows[0]!;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('the job row never appeared');
  }

  /** Waits past IMPORT_JOB_STALE_MS: a heartbeat not renewed since the row was inserted is stale by then. */
  const pastStale = () => new Promise((resolve) => setTimeout(resolve, 2 * STALE_MS + 200));

  const statusOf = async (id: string) => (await slow.database.kysely.selectFrom('import_jobs').select('status').where('id', '=', id).executeTakeFirst())?.status;
  const campaignsOfUser = async (user: TestUser) => (await slow.database.kysely.selectFrom('campaigns').select('id').where('user_id', '=', user.id).execute()).length;
  const until = async (done: () => boolean) => {
    for (let polls = 0; !done(); polls++) {
      expect(polls, 'waited too long').toBeLessThan(5_000);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  it('keeps a slow upload alive: a repeat of its key on either instance, a GET and the sweeps answer its job, never failed; it imports once', async () => {
    const user = await premiumUser(slow);
    const upload = slowImport(user, await vault(30), { prefer: 'respond-async', 'idempotency-key': 'slow-upload' });
    const row = await jobRowOf(user);
    expect(row.status).toBe('queued');
    await pastStale();
    const repeat = (app: AppInstance) =>
      app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...user.headers, 'content-type': 'application/zip', prefer: 'respond-async', 'idempotency-key': 'slow-upload' }, payload: Buffer.from('not read') });
    for (const app of [slow.app, elsewhere]) {
      const res = await repeat(app);
      expect(res.statusCode, res.body).toBe(202);
      expect(json<Job>(res)).toMatchObject({ id: row.id, status: 'queued' });
      const asked = await app.inject({ method: 'GET', url: `/api/imports/${row.id}`, headers: user.headers });
      expect(json<Job>(asked).status).toBe('queued');
      expect((await app.importJobs.sweep()).failed).toBe(0);
    }
    // The sweep of its own instance spares it even with a heartbeat it would take for dead.
    await slow.database.kysely.updateTable('import_jobs').set({ heartbeat_at: addMs(nowIso(), -60_000) }).where('id', '=', row.id).execute();
    expect(slow.app.importJobs.runsHere(row.id)).toBe(true);
    expect((await slow.app.importJobs.sweep()).failed).toBe(0);
    expect(json<Job>(await slow.app.inject({ method: 'GET', url: `/api/imports/${row.id}`, headers: user.headers })).status).toBe('queued');
    expect(await statusOf(row.id)).toBe('queued');

    upload.finish();
    const res = await upload.answer;
    expect(res.statusCode, res.body).toBe(202);
    expect(json<Job>(res).id).toBe(row.id);
    await until(() => !slow.app.importJobs.runsHere(row.id));
    expect(await statusOf(row.id)).toBe('done');
    expect(await campaignsOfUser(user)).toBe(1);
  });

  it('keeps a slow synchronous keyed upload alive: a repeat is 409 naming its job, and it answers 201', async () => {
    const user = await premiumUser(slow);
    const upload = slowImport(user, await vault(3), { 'idempotency-key': 'slow-sync' });
    const row = await jobRowOf(user);
    await pastStale();
    for (const app of [slow.app, elsewhere]) {
      const res = await app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...user.headers, 'content-type': 'application/zip', 'idempotency-key': 'slow-sync' }, payload: Buffer.from('x') });
      expect(res.statusCode, res.body).toBe(409);
      expect(problemOf(res).detail).toContain(row.id);
    }
    upload.finish();
    expect((await upload.answer).statusCode).toBe(201);
    expect(await statusOf(row.id)).toBe('done');
    expect(await campaignsOfUser(user)).toBe(1);
  });

  it('keeps a job failed meanwhile failed, and erases the campaign its import created: nothing of it remains', async () => {
    const user = await premiumUser(slow);
    const images = () => filesUnder(slowDir).filter((file) => file.startsWith('images/'));
    const imagesBefore = images();
    for (const headers of [{ prefer: 'respond-async' }, { 'idempotency-key': 'failed-meanwhile' }] as Record<string, string>[]) {
      const upload = slowImport(user, await vault(6, { images: 2 }), headers);
      const row = await jobRowOf(user);
      // Another instance took this one for dead (as it would after a pause longer than IMPORT_JOB_STALE_MS).
      const error = JSON.stringify(interruptedProblem());
      await slow.database.kysely.updateTable('import_jobs').set({ status: 'failed', error }).where('id', '=', row.id).execute();
      upload.finish();
      const res = await upload.answer;
      if (headers.prefer) expect(res.statusCode, res.body).toBe(202);
      else {
        expect(res.statusCode, res.body).toBe(503);
        expect(problemOf(res).code).toBe('service_unavailable');
      }
      await until(() => !slow.app.importJobs.runsHere(row.id));
      const after = await slow.database.kysely.selectFrom('import_jobs').select(['status', 'error', 'campaign_id', 'report']).where('id', '=', row.id).executeTakeFirstOrThrow();
      expect(after).toEqual({ status: 'failed', error, campaign_id: null, report: null });
      expect(await campaignsOfUser(user)).toBe(0);
      expect(images()).toEqual(imagesBefore);
      await slow.database.kysely.deleteFrom('import_jobs').where('id', '=', row.id).execute();
    }
  });

  it('refuses an import while the user has a job alive on another instance: 429 import_in_progress; a stale one does not count', async () => {
    const user = await premiumUser(slow);
    const now = nowIso();
    await slow.database.kysely
      .insertInto('import_jobs')
      .values({ id: 'alive-on-another-instance', user_id: user.id, status: 'running', progress_done: 0, progress_total: 9, campaign_id: null, report: null, error: null, idempotency_key: null, instance_id: 'another', heartbeat_at: now, created_at: now, updated_at: now })
      .execute();
    const zip = await vault(1);
    const send = (query = '', headers: Record<string, string> = {}) =>
      slow.app.inject({ method: 'POST', url: `/api/campaigns/import${query}`, headers: { ...user.headers, 'content-type': 'application/zip', ...headers }, payload: zip });
    for (const res of [await send(), await send('?dryRun=true'), await send('', { prefer: 'respond-async' }), await send('', { 'idempotency-key': 'k' })]) {
      expect(res.statusCode, res.body).toBe(429);
      expect(problemOf(res).code).toBe('import_in_progress');
    }
    expect(await campaignsOfUser(user)).toBe(0);
    // Its instance stopped touching it: it no longer holds the user.
    await slow.database.kysely.updateTable('import_jobs').set({ heartbeat_at: addMs(now, -2 * STALE_MS) }).where('id', '=', 'alive-on-another-instance').execute();
    expect((await send()).statusCode).toBe(201);
  });
});
