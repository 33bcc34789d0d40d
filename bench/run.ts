// npm run bench [-- --db sqlite|postgres --duration N --connections N --quick --no-growth]
//
// Builds and starts the production server, seeds a campaign through the public API, drives every
// scenario with autocannon, measures the physical limit (bench/baseline.ts serving the same bytes)
// in the same run, then the growth of the GET routes with the size of a campaign, and the server's
// memory throughout. Prints the tables and writes them as JSON to bench/results/.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFlags, runCommand, UsageError } from './lib/args.js';
import { kib, num } from './lib/format.js';
import { Api, createAccount } from '../toolkit/http.js';
import { errorsOf, measure, unloadedLatency, type LoadRequest, type LoadSpec, type LoadStats } from './lib/load.js';
import { analyzePostgres, providePostgres, type PostgresServer } from '../toolkit/postgres.js';
import { freePort, RssSampler, startProcess, waitUntilIdle, type ManagedProcess } from '../toolkit/processes.js';
import { budgetTable, cpuMicrosPerRequest, growthTable, mainTable, type GrowthPoint, type ScenarioResult } from './lib/report.js';
import { capture, probeSearch, readScenarios, type Captured } from './lib/scenarios.js';
import { captureWrites, writeScenarios, type CapturedWrite } from './lib/writes.js';
import { buildServer, repoRoot, startServer, tempDir, waitForHealth, type ServerProcess } from '../toolkit/server.js';
import { seedCampaign, type SeedSize, type SeededCampaign } from './seed.js';

const USAGE = `npm run bench -- [options]

  --db sqlite|postgres   database (default sqlite; postgres starts a throwaway embedded server
                         unless DATABASE_URL is set, which is then written to)
  --duration N           seconds per measured scenario (default 10; --quick 2)
  --warmup N             seconds of warm-up before each (default 3; --quick 1)
  --connections N        concurrent connections (default 50)
  --growth-duration N    seconds per scenario in the growth table (default 5; --quick 2)
  --no-growth            skip the growth table
  --properties N         give every seeded thing N properties (mixed kinds, two links to other
                         things, one GM-only) and three tags (default 0: none)
  --quick                tiny campaigns and 2 s runs: a smoke check, not a measurement
  --only TEXT            only the scenarios whose name contains TEXT (e.g. "/arcs"; several
                         separated by |: "/things?|GET /arcs"; a TEXT ending in $ must end the
                         name: "GET /things$" is the list alone)
  --cache-off            run the server with RESPONSE_CACHE_MB=0: no response cache, every GET
                         read and serialized anew
  --cpu-prof             run the server with node --cpu-prof; the profile is kept in a folder
                         under the system temp dir (printed at the end)
  --log-level L          LOG_LEVEL of the server and the baseline (default warn)
  --max-rss-mb N         stop a scenario when the server's RSS passes this (default 2048)`;

const SEED_CONCURRENCY = 16;
// A response this large is warmed up one request at a time: fifty of them abandoned at the end of
// a warm-up would keep the server busy well into the measured run.
const HEAVY_RESPONSE_BYTES = 1024 * 1024;

interface Options {
  db: 'sqlite' | 'postgres';
  duration: number;
  warmup: number;
  connections: number;
  growth: boolean;
  growthDuration: number;
  growthWarmup: number;
  quick: boolean;
  only: string | undefined;
  cacheOff: boolean;
  cpuProf: boolean;
  logLevel: string;
  maxRssMb: number;
  properties: number;
  mainSize: SeedSize;
  growthSizes: SeedSize[];
}

function readOptions(argv: string[]): Options {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    process.exit(0);
  }
  const flags = parseFlags(argv, {
    db: 'string',
    duration: 'number',
    warmup: 'number',
    connections: 'number',
    growth: 'boolean',
    'growth-duration': 'number',
    quick: 'boolean',
    only: 'string',
    'cache-off': 'boolean',
    'cpu-prof': 'boolean',
    'log-level': 'string',
    'max-rss-mb': 'number',
    properties: 'number',
  });
  const db = flags.db ?? 'sqlite';
  if (db !== 'sqlite' && db !== 'postgres') throw new UsageError('--db is sqlite or postgres');
  const quick = flags.quick ?? false;
  const connections = Math.round(flags.connections ?? 50);
  if (connections < 1 || connections > 1000) throw new UsageError('--connections is 1 to 1000');
  const duration = flags.duration ?? (quick ? 2 : 10);
  const growthDuration = flags['growth-duration'] ?? (quick ? 2 : Math.min(5, duration));
  if (duration < 1 || growthDuration < 1 || duration > 600 || growthDuration > 600) throw new UsageError('durations are 1 to 600 seconds');
  const warmup = Math.min(flags.warmup ?? (quick ? 1 : 3), 60);
  const properties = Math.round(flags.properties ?? 0);
  if (properties > 200) throw new UsageError('--properties is 0 to 200 (the most a record may have)');
  const sizes = (things: number[]): SeedSize[] => things.map((n) => ({ things: n, arcs: Math.max(1, n / 10), linksPerArc: 10, properties }));
  return {
    db,
    duration,
    warmup,
    connections,
    growth: flags.growth ?? true,
    growthDuration,
    growthWarmup: Math.min(warmup, quick ? 1 : 2),
    quick,
    only: flags.only?.toLowerCase(),
    cacheOff: flags['cache-off'] ?? false,
    cpuProf: flags['cpu-prof'] ?? false,
    logLevel: flags['log-level'] ?? 'warn',
    maxRssMb: flags['max-rss-mb'] ?? 2048,
    properties,
    mainSize: quick ? { things: 100, arcs: 10, linksPerArc: 10, properties } : { things: 1000, arcs: 100, linksPerArc: 10, properties },
    growthSizes: sizes(quick ? [10, 50, 100] : [100, 1000, 10_000]),
  };
}

interface Context {
  options: Options;
  server: ServerProcess;
  postgres: PostgresServer | undefined;
  api: Api;
  token: string;
  rss: RssSampler;
  serverCpu: Record<string, () => number[]>;
}

// `--only` takes several texts separated by `|`: a scenario is run when its name contains any of
// them (or, for a text ending in `$`, ends with it).
const selected = (options: Options, name: string) =>
  options.only === undefined ||
  options.only.split('|').some((text) => (text.endsWith('$') ? name.toLowerCase().endsWith(text.slice(0, -1)) : name.toLowerCase().includes(text)));

function loadSpec(context: Context, target: string, requests: LoadRequest[], duration: number, warmup: number, cpu: Record<string, () => number[]>): LoadSpec {
  const { options, rss } = context;
  return {
    url: target,
    connections: options.connections,
    duration,
    warmup,
    headers: { authorization: `Bearer ${context.token}` },
    requests,
    cpu,
    abortWhen: () => (rss.lastMb > options.maxRssMb ? `server RSS ${rss.lastMb.toFixed(0)} MB passed --max-rss-mb ${options.maxRssMb}` : undefined),
  };
}

/** Waits (at most 5 minutes) until the requests a load run abandoned have been served. */
async function settle(pids: () => number[]): Promise<void> {
  const waited = await waitUntilIdle(pids, 300_000);
  if (waited > 2_000) console.log(`  (waited ${(waited / 1000).toFixed(1)} s for the server to finish abandoned requests)`);
}

/** PostgreSQL: the statistics of a running database, not those of tables never analyzed (toolkit/postgres.ts analyzePostgres). */
async function analyzeAfterSeeding(context: Context): Promise<void> {
  if (!context.postgres) return;
  const seconds = await analyzePostgres(context.postgres.url);
  console.log(`  ANALYZE in ${seconds.toFixed(1)} s (what autovacuum does within a minute of the seeding)`);
}

function serverPids(context: Context): () => number[] {
  return () => [context.server.process.pid, ...(context.postgres?.pids() ?? [])];
}

function describeStats(stats: LoadStats): string {
  const errors = errorsOf(stats);
  const codes = Object.entries(stats.statusCodes)
    .map(([code, count]) => `${code}×${count}`)
    .join(' ');
  const cpu = cpuMicrosPerRequest(stats, 'server');
  return (
    `${num(stats.rps)} req/s, p50 ${stats.p50} ms, p99 ${stats.p99} ms${cpu === undefined ? '' : `, ${num(cpu, 0)} µs CPU/req`}` +
    `${errors > 0 ? `, ${errors} errors (${codes}${stats.socketErrors ? `, ${stats.socketErrors} socket errors/timeouts` : ''})` : ''}` +
    `${stats.aborted ? ` — ABORTED: ${stats.aborted}` : ''}`
  );
}

async function startBaseline(captured: (Captured | CapturedWrite)[], dir: string, logLevel: string): Promise<{ url: string; process: ManagedProcess }> {
  const file = path.join(dir, 'baseline-responses.json');
  const stored = captured.map((c) => ({
    url: c.url,
    contentType: c.contentType,
    body: c.body.toString('base64'),
    ...('method' in c ? { method: c.method, requestBody: c.requestBody, status: c.status } : {}),
  }));
  fs.writeFileSync(file, JSON.stringify(stored));
  const port = await freePort();
  const child = startProcess('baseline', process.execPath, ['--import', 'tsx', path.join(repoRoot, 'bench', 'baseline.ts'), file, String(port), logLevel], { cwd: repoRoot });
  const url = `http://127.0.0.1:${port}`;
  await waitForHealth(url, child, 30_000, '/__baseline/ready');
  return { url, process: child };
}

interface Scenario {
  name: string;
  method: string;
  path: string;
  requests: LoadRequest[];
  /** The GET's bytes (a write's answer varies a little with its body). */
  bytes?: number;
  heavy: boolean;
}

/** One scenario on Loreforge, then on the baseline (if there is one), with the server's RSS around it. */
async function runOne(context: Context, scenario: Scenario, baseline: { url: string; process: ManagedProcess } | undefined): Promise<ScenarioResult> {
  const { options, server } = context;
  const pids = serverPids(context);
  const auth = { authorization: `Bearer ${context.token}` };
  const warmup = scenario.heavy ? 0 : options.warmup;
  console.log(`${scenario.name}${scenario.bytes === undefined ? '' : ` (${kib(scenario.bytes)})`}`);
  const rssBefore = context.rss.sample();
  const unloaded = scenario.method === 'GET' ? await unloadedLatency(`${server.base}${scenario.path}`, auth, options.quick ? 0.5 : 2, scenario.heavy ? 5 : 200) : undefined;
  const loreforge = await measure(loadSpec(context, server.base, scenario.requests, options.duration, warmup, context.serverCpu), () => settle(pids));
  console.log(`  loreforge: ${describeStats(loreforge)}${unloaded ? `; alone ${num(unloaded.medianMs)} ms` : ''}`);
  await settle(pids);
  const rssAfter = context.rss.sample();
  let base: LoadStats | undefined;
  if (baseline) {
    const basePids = () => [baseline.process.pid];
    if (scenario.heavy) await unloadedLatency(`${baseline.url}${scenario.path}`, auth, 0.5, 5);
    base = await measure(loadSpec(context, baseline.url, scenario.requests, options.duration, warmup, { server: basePids }), () => settle(basePids));
    console.log(`  baseline:  ${describeStats(base)}`);
    await settle(basePids);
  }
  const lf = cpuMicrosPerRequest(loreforge, 'server');
  const bl = cpuMicrosPerRequest(base, 'server');
  return {
    name: scenario.name,
    method: scenario.method,
    path: scenario.path,
    ...(scenario.bytes === undefined ? {} : { responseBytes: scenario.bytes }),
    ...(unloaded ? { unloadedMs: unloaded.medianMs } : {}),
    ...(scenario.heavy && unloaded ? { warmupNote: `over 1 MiB: warmed up one request at a time (${unloaded.requests} requests), not with every connection` } : {}),
    loreforge,
    ...(base ? { baseline: base } : {}),
    ratio: base && base.rps > 0 ? loreforge.rps / base.rps : undefined,
    cpuRatio: lf && bl ? bl / lf : undefined,
    rssMb: { before: rssBefore, after: rssAfter },
  };
}

/**
 * The first table: every scenario on Loreforge, and each on the baseline right after. The writes'
 * answers are captured first (they change the things the GETs then read), then the GETs' bytes.
 */
async function runScenarios(context: Context, campaign: SeededCampaign, dir: string): Promise<{ results: ScenarioResult[]; skipped: { name: string; reason: string }[] }> {
  const { options, server, api } = context;
  const skipped: { name: string; reason: string }[] = [];
  const searchProblem = await probeSearch(api, campaign);
  if (searchProblem) {
    skipped.push({ name: 'GET /search', reason: searchProblem });
    console.log(`search: skipped — ${searchProblem}`);
  }
  const writes = writeScenarios(campaign).filter((w) => selected(options, w.name));
  const capturedWrites: CapturedWrite[] = [];
  for (const write of writes) capturedWrites.push(...(await captureWrites(server.base, context.token, write)));
  const reads = readScenarios(campaign, searchProblem === undefined).filter((r) => selected(options, r.name));
  // The bytes the baseline will serve, fetched from Loreforge just before (GETs change nothing).
  const captured: Captured[] = [];
  for (const read of reads) captured.push(await capture(server.base, context.token, read.path));
  const baseline = reads.length + writes.length > 0 ? await startBaseline([...captured, ...capturedWrites], dir, options.logLevel) : undefined;
  const results: ScenarioResult[] = [];
  for (const [i, read] of reads.entries()) {
    const bytes = captured[i]?.body.length ?? 0;
    const requests: LoadRequest[] = [{ method: 'GET', path: read.path }];
    results.push(await runOne(context, { name: read.name, method: 'GET', path: read.path, requests, bytes, heavy: bytes > HEAVY_RESPONSE_BYTES }, baseline));
  }
  for (const write of writes) results.push(await runOne(context, { ...write, heavy: false }, baseline));
  await baseline?.process.stop();
  return { results, skipped };
}

/** The second table: the GET scenarios on fresh campaigns of each size. */
async function runGrowth(context: Context, withSearch: boolean): Promise<GrowthPoint[]> {
  const { options, server, api } = context;
  const pids = serverPids(context);
  const auth = { authorization: `Bearer ${context.token}` };
  const points: GrowthPoint[] = [];
  for (const size of options.growthSizes) {
    console.log(`growth: seeding ${num(size.things, 0)} things, ${num(size.arcs, 0)} arcs, ${num(size.arcs * size.linksPerArc, 0)} links…`);
    const campaign = await seedCampaign(api, `Growth ${size.things}`, size, SEED_CONCURRENCY);
    console.log(`  seeded in ${campaign.seconds.toFixed(1)} s; server RSS ${num(context.rss.sample(), 0)} MB`);
    await analyzeAfterSeeding(context);
    await settle(pids);
    const point: GrowthPoint = { size, links: campaign.links, seedSeconds: campaign.seconds, scenarios: [] };
    for (const read of readScenarios(campaign, withSearch).filter((r) => selected(options, r.name))) {
      const captured = await capture(server.base, context.token, read.path);
      const heavy = captured.body.length > HEAVY_RESPONSE_BYTES;
      const unloaded = await unloadedLatency(`${server.base}${read.path}`, auth, options.quick ? 0.5 : 2, heavy ? 5 : 200);
      const spec = loadSpec(context, server.base, [{ method: 'GET', path: read.path }], options.growthDuration, heavy ? 0 : options.growthWarmup, context.serverCpu);
      const stats = await measure(spec, () => settle(pids));
      console.log(`  ${read.name} (${kib(captured.body.length)}): ${describeStats(stats)}; alone ${num(unloaded.medianMs)} ms`);
      await settle(pids);
      point.scenarios.push({ name: read.name, responseBytes: captured.body.length, unloadedMs: unloaded.medianMs, stats });
    }
    points.push(point);
  }
  return points;
}

async function main(): Promise<number> {
  const options = readOptions(process.argv.slice(2));
  const startedAt = new Date();
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const loadStart = os.loadavg();
  console.log(
    `Loreforge benchmark on ${options.db}${options.cacheOff ? ' with the response cache off' : ''}: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), node ${process.version}, ` +
      `load average ${loadStart.map((l) => l.toFixed(2)).join(' ')}${options.quick ? ' — QUICK MODE: smoke check, not a measurement' : ''}`,
  );
  const entry = await buildServer({ web: false });
  const dir = tempDir('loreforge-bench-');
  const postgres = options.db === 'postgres' ? await providePostgres() : undefined;
  const profileDir = options.cpuProf ? path.join(os.tmpdir(), `loreforge-cpu-profile-${stamp}`) : undefined;
  const server = await startServer({
    name: 'loreforge',
    entry,
    env: {
      DATA_DIR: path.join(dir, 'data'),
      LOG_LEVEL: options.logLevel,
      ...(postgres ? { DATABASE_URL: postgres.url } : {}),
      ...(options.cacheOff ? { RESPONSE_CACHE_MB: '0' } : {}),
    },
    ...(profileDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {}),
  });
  console.log(`server: node dist/main.js on ${server.base} (pid ${server.pid})`);
  const rss = new RssSampler(server.process.pid).start();
  const account = await createAccount(server.base, 'main');
  const api = new Api(server.base).withToken(account.token);
  const postgresPids = postgres?.embedded ? () => postgres.pids() : undefined;
  const context: Context = {
    options,
    server,
    postgres,
    api,
    token: account.token,
    rss,
    serverCpu: { server: () => [server.process.pid], ...(postgresPids ? { postgres: postgresPids } : {}) },
  };

  const size = options.mainSize;
  console.log(
    `seeding ${num(size.things, 0)} things${options.properties > 0 ? ` with ${options.properties} properties and 3 tags each` : ''}, ${num(size.arcs, 0)} arcs, ${num(size.arcs * size.linksPerArc, 0)} links (${SEED_CONCURRENCY} requests in flight)…`,
  );
  const campaign = await seedCampaign(api, 'Benchmark campaign', size, SEED_CONCURRENCY);
  const afterSeedingMb = rss.sample();
  console.log(`  seeded in ${campaign.seconds.toFixed(1)} s; server RSS ${num(afterSeedingMb, 0)} MB`);
  await analyzeAfterSeeding(context);
  await settle(serverPids(context));

  const { results, skipped } = await runScenarios(context, campaign, dir);
  const afterRunMb = rss.sample();
  let growth: GrowthPoint[] = [];
  if (options.growth) growth = await runGrowth(context, !skipped.some((s) => s.name === 'GET /search'));
  const afterGrowthMb = options.growth ? rss.sample() : undefined;
  rss.stop();
  const memory = { afterSeedingMb, afterRunMb, afterGrowthMb, peakMb: rss.peakMb };
  if (profileDir) await server.process.stop();

  const loadEnd = os.loadavg();
  const output: string[] = [];
  output.push(mainTable(options, campaign, results, postgresPids !== undefined));
  output.push(budgetTable(options.db, results, options.cacheOff));
  for (const s of skipped) output.push(`Skipped ${s.name}: ${s.reason}.`);
  if (growth.length > 0) output.push(growthTable(options, growth));
  output.push(
    `Server RSS (VmRSS, sampled every second): after seeding ${num(afterSeedingMb, 0)} MB, after the scenarios ${num(afterRunMb, 0)} MB` +
      `${afterGrowthMb === undefined ? '' : `, after the growth runs ${num(afterGrowthMb, 0)} MB`}, peak ${num(rss.peakMb, 0)} MB.`,
  );
  output.push(
    `Load average before ${loadStart.map((l) => l.toFixed(2)).join(' ')}, after ${loadEnd.map((l) => l.toFixed(2)).join(' ')} ` +
      `(${os.cpus().length} CPUs; the load generator and the server share them).`,
  );
  console.log(`\n${output.join('\n\n')}\n`);
  if (profileDir) console.log(`CPU profile of the server: ${profileDir} (open the .cpuprofile in Chrome DevTools or VS Code)`);

  const resultsDir = path.join(repoRoot, 'bench', 'results');
  fs.mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `${options.db}-${stamp}.json`);
  const { mainSize: _m, growthSizes: _g, ...settings } = options;
  fs.writeFileSync(
    file,
    `${JSON.stringify(
      {
        benchmark: 'loreforge',
        db: options.db,
        postgres: postgres ? (postgres.embedded ? 'embedded' : 'DATABASE_URL') : undefined,
        startedAt: startedAt.toISOString(),
        finishedAt: new Date().toISOString(),
        machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, memoryMb: Math.round(os.totalmem() / 1048576), node: process.version, loadStart, loadEnd },
        settings,
        seed: { things: campaign.things.length, propertiesPerThing: options.properties, types: campaign.typeIds.length, arcs: campaign.arcs.length, links: campaign.links, seconds: campaign.seconds },
        scenarios: results,
        skipped,
        growth,
        memory,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`written: ${path.relative(repoRoot, file)}`);
  return 0;
}

runCommand(main, USAGE);
