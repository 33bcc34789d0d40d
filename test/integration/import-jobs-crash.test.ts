import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../src/db/database.js';
import { delay } from '../../toolkit/processes.js';
import { killAllStarted, startServer, stopServer, type ServerProcess } from '../../toolkit/server.js';
import { createTestUser, type TestUser } from '../support/app.js';
import { createTestDatabase, dialect } from '../support/test-db.js';
import { png } from '../fixtures/images.js';
import { zipOf, type ZipInput } from '../support/zip.js';

// CONTRACT "Import from elsewhere": an instance killed mid-import leaves a failed job and nothing
// else. The real server runs in a child process on a file SQLite database or a PostgreSQL database;
// a vault is imported with `Prefer: respond-async`; once the job is running and its progress moves,
// the process is killed (SIGKILL: no shutdown hook runs); another instance on the same database
// answers the job as `failed` once its heartbeat is older than IMPORT_JOB_STALE_MS (2 s here), and
// the user has no campaign.

afterAll(killAllStarted);

const STALE_MS = 2_000;

let database: Database;
let testDb: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
let dataDir: string;
let env: Record<string, string>;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-import-crash-'));
  env = { DATA_DIR: dataDir, IMPORT_JOB_STALE_MS: String(STALE_MS), EVERYONE_PREMIUM: 'true' };
  if (dialect === 'postgres') {
    testDb = await createTestDatabase({ migrate: false });
    env = { ...env, DATABASE_URL: testDb.url! };
  }
}, 60_000);

afterAll(async () => {
  for (const server of servers) await stopServer(server, 'SIGKILL');
  if (!testDb) await database?.close();
  await testDb?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** A vault of `notes` notes and `images` images, each image shown by a note of its own. */
async function bigVault(notes: number, images: number): Promise<Buffer> {
  const entries: ZipInput[] = [];
  for (let i = 0; i < notes; i++) entries.push({ name: `NPCs/Person ${i}.md`, data: `# Person ${i}\n\nKnows [[Person ${(i + 1) % notes}]].\n` });
  for (let i = 0; i < images; i++) {
    entries.push({ name: `attachments/portrait-${i}.png`, data: png([i % 256, Math.floor(i / 256) % 256, 7, 255]) });
    entries.push({ name: `Portraits/Portrait ${i}.md`, data: `![[portrait-${i}.png]]\n` });
  }
  return zipOf(entries);
}

interface Job {
  status: string;
  progress: { done: number; total: number };
  error?: { status: number; code: string };
}

async function jobOf(server: ServerProcess, user: TestUser, id: string): Promise<Job> {
  const res = await fetch(`${server.base}/api/imports/${id}`, { headers: user.headers, signal: AbortSignal.timeout(10_000) });
  expect(res.status).toBe(200);
  return (await res.json()) as Job;
}

describe(`an instance killed mid-import, on ${dialect}`, () => {
  it('leaves a failed job, answered by the next instance, and no campaign', async () => {
    const first = await startServer({ env, name: 'import-crash-1' });
    servers.push(first);
    database = testDb ?? createDatabase({ dataDir });
    const user = await createTestUser(database);
    const zip = await bigVault(2_000, 1_500);

    const started = await fetch(`${first.base}/api/campaigns/import`, {
      method: 'POST',
      headers: { ...user.headers, 'content-type': 'application/zip', prefer: 'respond-async' },
      body: zip,
    });
    expect(started.status, await started.clone().text()).toBe(202);
    const { id } = (await started.json()) as { id: string };

    // Running, with its progress seen to move (at most 2,000 polls, 50 ms apart).
    const seen: number[] = [];
    for (let polls = 0; ; polls++) {
      const job = await jobOf(first, user, id);
      expect(['queued', 'running'], `the job ended before it could be killed: ${JSON.stringify(job)}`).toContain(job.status);
      expect(job.progress.done).toBeLessThanOrEqual(job.progress.total);
      if (job.status === 'running' && job.progress.done > 0 && job.progress.done < job.progress.total && job.progress.done !== seen.at(-1)) seen.push(job.progress.done);
      if (seen.length >= 2) break;
      expect(polls, 'the job never showed its progress moving').toBeLessThan(2_000);
      await delay(50);
    }
    expect(seen[1]!).toBeGreaterThan(seen[0]!);

    first.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');

    const second = await startServer({ env, name: 'import-crash-2' });
    servers.push(second);
    // Failed once its heartbeat is older than IMPORT_JOB_STALE_MS: at most a few seconds.
    let job = await jobOf(second, user, id);
    for (let polls = 0; job.status !== 'failed'; polls++) {
      expect(job.status).toBe('running');
      expect(polls, 'the job of the dead instance was never failed').toBeLessThan(200);
      await delay(100);
      job = await jobOf(second, user, id);
    }
    expect(job.error).toMatchObject({ status: 503, code: 'service_unavailable' });

    const campaigns = await fetch(`${second.base}/api/campaigns`, { headers: user.headers });
    expect(await campaigns.json()).toEqual([]);
    const assets = await database.kysely.selectFrom('assets').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(assets.n)).toBe(0);
  }, 180_000);
});
