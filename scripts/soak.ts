// npm run soak [-- --duration 60 --connections 200 --db sqlite|postgres]
//
// Builds and starts the production server as its own process, seeds a campaign through the API,
// then drives 60 s of mixed load (8 reads to 2 writes: lists, single records, creates, updates,
// links) over 200 connections with autocannon. Every 10 s it prints the requests so far, the errors (non-2xx answers
// and failed requests) and the server's resident memory; at the end the totals, and the health of
// the server afterwards. Exits 1 if any request failed.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { api, registerWithToken } from '../toolkit/http.js';
import { startScriptPostgres } from '../test/support/script-postgres.js';
import { buildServer, killAllStarted, startServer, stopServer } from '../toolkit/server.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '60' },
    connections: { type: 'string', default: '200' },
    db: { type: 'string', default: 'sqlite' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
if (!(duration >= 1) || !(connections >= 1) || !['sqlite', 'postgres'].includes(values.db)) {
  console.error('usage: npm run soak -- [--duration 60] [--connections 200] [--db sqlite|postgres]');
  process.exit(2);
}

// The parts of autocannon used here (the package ships no types).
interface SoakRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: SoakRequest) => SoakRequest;
}
interface Instance {
  on(event: 'response', listener: (client: unknown, statusCode: number) => void): void;
  on(event: 'reqError', listener: (error: Error) => void): void;
  on(event: 'done', listener: (result: { requests: { total: number; average: number }; latency: { p50: number; p99: number } }) => void): void;
}
type Autocannon = (options: { url: string; connections: number; duration: number; requests: SoakRequest[]; timeout: number }) => Instance;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

process.on('exit', killAllStarted);

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return Math.round(kb / 1024);
}

const entry = await buildServer({ web: false });
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-soak-'));
const postgres = values.db === 'postgres' ? await startScriptPostgres() : undefined;
const env: Record<string, string> = { DATA_DIR: dataDir };
if (postgres) env.DATABASE_URL = await postgres.newDatabase();
const server = await startServer({ env, entry });
const pid = server.pid;
try {
  // Seed: a campaign with 200 things in 3 types, 20 arcs, and links.
  const token = await registerWithToken(server.base, 'soak@example.test');
  const auth = { authorization: `Bearer ${token}` };
  const campaign = (await api(server.base, 'POST', '/api/campaigns', { token, json: { newCampaign: { name: 'Soak' } } })).body as { slug: string };
  const base = `/api/campaigns/${campaign.slug}`;
  const types = (await api(server.base, 'GET', `${base}/thing-types`, { token })).body as { id: number }[];
  const things: string[] = [];
  for (let i = 0; i < 200; i++) {
    const description = [{ type: 'paragraph', children: [{ text: `Thing ${i} of the soak, with a few words of description.` }] }];
    const res = await api(server.base, 'POST', `${base}/things`, { token, json: { newThing: { name: `Seeded ${i}`, typeId: types[i % 3]!.id, description } } });
    things.push((res.body as { slug: string }).slug);
  }
  const arcs: string[] = [];
  for (let i = 0; i < 20; i++) {
    const res = await api(server.base, 'POST', `${base}/arcs`, { token, json: { newArc: { name: `Arc ${i}` } } });
    arcs.push((res.body as { slug: string }).slug);
    for (let k = 0; k < 5; k++) await api(server.base, 'POST', `${base}/things/${things[(i * 5 + k) % things.length]}/arcs`, { token, json: { arcSlug: arcs[i] } });
  }
  const rssAfterSeed = rssMb(pid);

  let counter = 0;
  const any = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)]!;
  const json = { ...auth, 'content-type': 'application/json' };
  // One pass of each connection's cycle, a game master's mix: 8 reads, 2 writes (a create, and an
  // update or a link). All writes of an SQLite database go through its one writer, so a write-heavy
  // mix at 200 connections measures queueing, not stability.
  const requests: SoakRequest[] = [
    { method: 'GET', path: `${base}/things`, headers: auth },
    { method: 'GET', path: `${base}/things/x`, headers: auth, setupRequest: (r) => ({ ...r, path: `${base}/things/${any(things)}` }) },
    { method: 'GET', path: `${base}/arcs`, headers: auth },
    { method: 'GET', path: `${base}/arcs/x`, headers: auth, setupRequest: (r) => ({ ...r, path: `${base}/arcs/${any(arcs)}` }) },
    { method: 'GET', path: `${base}/thing-types`, headers: auth },
    { method: 'GET', path: `${base}/things?count=100`, headers: auth },
    { method: 'GET', path: `${base}/things/x/arcs`, headers: auth, setupRequest: (r) => ({ ...r, path: `${base}/things/${any(things)}/arcs` }) },
    { method: 'GET', path: base, headers: auth },
    {
      method: 'POST',
      path: `${base}/things`,
      headers: json,
      setupRequest: (r) => ({ ...r, body: JSON.stringify({ newThing: { name: `Soak ${++counter}`, typeId: any(types).id } }) }),
    },
    {
      method: 'PUT',
      path: `${base}/things/x`,
      headers: json,
      setupRequest: (r) =>
        ++counter % 2 === 0
          ? { ...r, method: 'PUT', path: `${base}/things/${any(things)}`, body: JSON.stringify({ updatedThing: { description: [{ type: 'paragraph', children: [{ text: `Edit ${counter}` }] }] } }) }
          : { ...r, method: 'POST', path: `${base}/things/${any(things)}/arcs`, body: JSON.stringify({ arcSlug: any(arcs) }) },
    },
  ];

  console.log(`soak: ${duration} s of mixed load at ${connections} connections against ${values.db} (server pid ${pid}, ${rssAfterSeed} MB after seeding)`);
  console.log('  time   requests   errors   rss');
  let total = 0;
  let errors = 0;
  const byStatus = new Map<string, number>();
  const started = Date.now();
  const instance = autocannon({ url: server.base, connections, duration, requests, timeout: 30 });
  instance.on('response', (_client, statusCode) => {
    total += 1;
    if (statusCode < 200 || statusCode >= 300) {
      errors += 1;
      byStatus.set(String(statusCode), (byStatus.get(String(statusCode)) ?? 0) + 1);
    }
  });
  instance.on('reqError', (error) => {
    errors += 1;
    byStatus.set(error.message, (byStatus.get(error.message) ?? 0) + 1);
  });
  let peakRss = rssAfterSeed;
  const ticker = setInterval(() => {
    const rss = rssMb(pid);
    peakRss = Math.max(peakRss, rss);
    const seconds = Math.round((Date.now() - started) / 1000);
    console.log(`  ${String(seconds).padStart(3)} s ${String(total).padStart(10)} ${String(errors).padStart(8)}   ${rss} MB`);
  }, 10_000);
  const result = await new Promise<{ requests: { total: number; average: number }; latency: { p50: number; p99: number } }>((resolve) => instance.on('done', resolve));
  clearInterval(ticker);
  const rssEnd = rssMb(pid);
  const health = await api(server.base, 'GET', '/api/health');
  // Memory that is garbage, not leaked, is given back once the load stops; a leak stays.
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  const rssIdle = rssMb(pid);
  console.log(
    [
      `soak done: ${total} requests (${Math.round(result.requests.average)} req/s), ${errors} errors${byStatus.size > 0 ? ` ${JSON.stringify(Object.fromEntries(byStatus))}` : ''}`,
      `  latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`,
      `  server RSS: ${rssAfterSeed} MB after seeding, ${Math.max(peakRss, rssEnd)} MB peak (sampled), ${rssEnd} MB at the end, ${rssIdle} MB after 10 s idle`,
      `  health afterwards: ${health.status} ${JSON.stringify(health.body)}`,
    ].join('\n'),
  );
  process.exitCode = errors > 0 || health.status !== 200 ? 1 : 0;
} finally {
  await stopServer(server);
  await postgres?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
