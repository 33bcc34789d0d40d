// npm run bench:cluster [-- --duration N --connections N --instances N --writes --quick]
//
// Several instances of the production server on one PostgreSQL (a throwaway embedded one, or
// DATABASE_URL): a mixed read/write load through 1, then 2, then 3 running instances at once, then
// checks that every acknowledged write is readable through every instance, that slugs stay unique,
// that nothing answered 5xx, and that rate-limit counters are shared. Exits non-zero on a failure.
// With --writes the load is write-heavy (≈90% writes, mostly PUTs of 2 KiB descriptions), every
// instance writing to every campaign: the same checks prove no acknowledged write was lost.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFlags, runCommand, UsageError } from './lib/args.js';
import { num, table } from './lib/format.js';
import { Api, createAccount } from '../toolkit/http.js';
import { errorsOf, runLoad, type LoadSpec, type LoadStats } from './lib/load.js';
import { mixedRequests, WriteLog, type Mix } from './lib/mixed-load.js';
import { providePostgres, type PostgresServer } from '../toolkit/postgres.js';
import { cpuDelta, cpuMsOfAll, waitUntilIdle } from '../toolkit/processes.js';
import { buildServer, repoRoot, startServer, tempDir, type ServerProcess } from '../toolkit/server.js';
import { verifyCluster, verifySharedRateLimit, type CampaignLoad, type Check } from './lib/verify.js';
import { seedCampaign, type SeedSize, type SeededCampaign } from './seed.js';

const USAGE = `npm run bench:cluster -- [options]

  --duration N      seconds of mixed load with each number of instances (default 30; --quick 5)
  --warmup N        seconds of warm-up before each (default 3; --quick 1)
  --connections N   connections in total, split evenly over the running instances (default 48)
  --instances N     the largest number of instances (default 3)
  --campaigns N     campaigns the load is spread over (default 4; 1 puts every write on one
                    campaign, whose writers are serialised by its row lock)
  --writes          write-heavy load instead of the mixed one: 60% updates of things with 2 KiB
                    descriptions, 20% new things (half with names shared across connections and
                    instances), 10% links, 10% reads
  --quick           a small campaign and short steps: a smoke check, not a measurement
  --log-level L     LOG_LEVEL of the instances (default warn)

PostgreSQL: a throwaway embedded server, or DATABASE_URL (written to) when set.`;

const LOGIN_MAX_FAILURES = 5;
const SEED_CONCURRENCY = 16;

interface Options {
  duration: number;
  warmup: number;
  connections: number;
  instances: number;
  campaigns: number;
  mix: Mix;
  quick: boolean;
  logLevel: string;
  seed: SeedSize;
}

function readOptions(argv: string[]): Options {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    process.exit(0);
  }
  const flags = parseFlags(argv, {
    duration: 'number',
    warmup: 'number',
    connections: 'number',
    instances: 'number',
    campaigns: 'number',
    writes: 'boolean',
    quick: 'boolean',
    'log-level': 'string',
  });
  const quick = flags.quick ?? false;
  const instances = Math.round(flags.instances ?? 3);
  const connections = Math.round(flags.connections ?? 48);
  const duration = flags.duration ?? (quick ? 5 : 30);
  const campaigns = Math.round(flags.campaigns ?? (quick ? 2 : 4));
  if (instances < 1 || instances > 8) throw new UsageError('--instances is 1 to 8');
  if (campaigns < 1 || campaigns > 32) throw new UsageError('--campaigns is 1 to 32');
  if (connections < instances || connections > 1000) throw new UsageError('--connections is at least one per instance and at most 1000');
  if (duration < 1 || duration > 600) throw new UsageError('--duration is 1 to 600 seconds');
  return {
    duration,
    warmup: Math.min(flags.warmup ?? (quick ? 1 : 3), 60),
    connections,
    instances,
    campaigns,
    mix: flags.writes ? 'writes' : 'mixed',
    quick,
    logLevel: flags['log-level'] ?? 'warn',
    seed: quick ? { things: 60, arcs: 6, linksPerArc: 5 } : { things: 300, arcs: 30, linksPerArc: 5 },
  };
}

interface StepResult {
  instances: number;
  seconds: number;
  perInstance: { name: string; url: string; connections: number; stats: LoadStats }[];
  totalRps: number;
  acknowledgedWritesPerSecond: number;
  /** CPU used during the step, in cores (1 = one core busy the whole time). */
  cores: { loreforge: number; postgres?: number; loadGenerator: number };
}

interface Cluster {
  options: Options;
  postgres: PostgresServer;
  servers: ServerProcess[];
  token: string;
  targets: CampaignLoad[];
}

/** Connections per instance: as even as possible, adding up to the total. */
function split(total: number, parts: number): number[] {
  return Array.from({ length: parts }, (_, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0));
}

async function step(cluster: Cluster, count: number): Promise<StepResult> {
  const { options, postgres, token, targets } = cluster;
  const acknowledged = () => targets.reduce((n, t) => n + t.log.acknowledgedWrites(), 0);
  // Connection slot s loads campaign s mod K, as the (s div K)-th of the slots that load it.
  const campaignsCount = targets.length;
  const slotsOf = (c: number) => Math.ceil((options.connections - c) / campaignsCount);
  const active = cluster.servers.slice(0, count);
  const connections = split(options.connections, count);
  const offsets = connections.map((_, k) => connections.slice(0, k).reduce((a, b) => a + b, 0));
  const flushes: (() => void)[] = [];
  const specFor = (k: number, tag: string): LoadSpec => {
    const server = active[k] as ServerProcess;
    let local = 0;
    return {
      url: server.base,
      connections: connections[k] ?? 1,
      duration: options.duration,
      warmup: 0,
      headers: { authorization: `Bearer ${token}` },
      requests: [{ method: 'GET', path: '/api/health' }],
      setupClient: (client) => {
        const slot = (offsets[k] ?? 0) + local++;
        const c = slot % campaignsCount;
        const { campaign, log } = targets[c] as CampaignLoad;
        const { requests, flush } = mixedRequests({ campaign, log, instance: server.name, slot: Math.floor(slot / campaignsCount), slots: slotsOf(c), tag, mix: options.mix });
        flushes.push(flush);
        client.setRequests(requests);
      },
    };
  };
  const everything = () => [...active.map((s) => s.process.pid), ...postgres.pids()];
  const flushAll = () => flushes.splice(0).forEach((flush) => flush());

  if (options.warmup > 0) {
    await Promise.all(active.map((_, k) => runLoad(specFor(k, `w${count}`), options.warmup)));
    flushAll();
    await waitUntilIdle(everything);
  }
  const groups = {
    loreforge: () => active.map((s) => s.process.pid),
    postgres: () => postgres.pids(),
    loadGenerator: () => [process.pid],
  };
  const before = Object.fromEntries(Object.entries(groups).map(([name, pids]) => [name, cpuMsOfAll(pids())]));
  const writesBefore = acknowledged();
  const started = Date.now();
  const stats = await Promise.all(active.map((_, k) => runLoad(specFor(k, `m${count}`), options.duration)));
  const seconds = (Date.now() - started) / 1000;
  flushAll();
  const coresOf = (name: keyof typeof groups) => cpuDelta(before[name] ?? new Map<number, number>(), cpuMsOfAll(groups[name]())) / (seconds * 1000);
  await waitUntilIdle(everything);
  return {
    instances: count,
    seconds,
    perInstance: active.map((server, k) => ({ name: server.name, url: server.base, connections: connections[k] ?? 0, stats: stats[k] as LoadStats })),
    totalRps: stats.reduce((sum, s) => sum + s.rps, 0),
    acknowledgedWritesPerSecond: (acknowledged() - writesBefore) / seconds,
    cores: {
      loreforge: coresOf('loreforge'),
      ...(postgres.embedded ? { postgres: coresOf('postgres') } : {}),
      loadGenerator: coresOf('loadGenerator'),
    },
  };
}

function printSteps(options: Options, campaigns: SeededCampaign[], steps: StepResult[]): string {
  const rows: string[][] = [];
  for (const s of steps) {
    for (const i of s.perInstance) {
      rows.push([String(s.instances), `${i.name} (${i.connections} conn.)`, num(i.stats.rps, 0), String(i.stats.p50), String(i.stats.p99), String(i.stats.non2xx), String(i.stats.socketErrors)]);
    }
    const sum = (f: (stats: LoadStats) => number) => s.perInstance.reduce((total, i) => total + f(i.stats), 0);
    rows.push([String(s.instances), '**total**', `**${num(s.totalRps, 0)}**`, '', '', String(sum((x) => x.non2xx)), String(sum((x) => x.socketErrors))]);
  }
  const first = steps[0]?.totalRps ?? 0;
  const cpuRows = steps.map((s) => [
    String(s.instances),
    num(s.totalRps, 0),
    num(s.acknowledgedWritesPerSecond, 0),
    first > 0 ? `×${(s.totalRps / first).toFixed(2)}` : '–',
    s.cores.loreforge.toFixed(2),
    s.cores.postgres === undefined ? '–' : s.cores.postgres.toFixed(2),
    s.cores.loadGenerator.toFixed(2),
  ]);
  return [
    `${options.mix === 'writes' ? 'Write-heavy load (60% updates with 2 KiB descriptions, 20% new things, 10% links, 10% reads)' : 'Mixed load (≈70% reads: lists and records; ≈30% writes: new things, updates, links)'} on one PostgreSQL; ${campaigns.length} campaign(s) of ` +
      `${campaigns[0]?.things.length ?? 0} things and ${campaigns[0]?.arcs.length ?? 0} arcs at the start; ${options.connections} connections in total, ` +
      `${options.duration} s per step after ${options.warmup} s warm-up`,
    table(['instances', 'instance', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors'], rows),
    `Where the CPU went (cores busy on average; the machine has ${os.cpus().length})`,
    table(['instances', 'total req/s', 'acknowledged writes/s', 'vs 1 instance', 'Loreforge instances', 'PostgreSQL', 'load generator'], cpuRows),
  ].join('\n\n');
}

async function main(): Promise<number> {
  const options = readOptions(process.argv.slice(2));
  const startedAt = new Date();
  const loadStart = os.loadavg();
  console.log(
    `Loreforge cluster benchmark: up to ${options.instances} instances on one PostgreSQL; ${os.cpus().length} CPUs, node ${process.version}, ` +
      `load average ${loadStart.map((l) => l.toFixed(2)).join(' ')}${options.quick ? ' — QUICK MODE: smoke check, not a measurement' : ''}`,
  );
  const entry = await buildServer({ web: false });
  const postgres = await providePostgres();
  const dir = tempDir('loreforge-cluster-');
  const servers: ServerProcess[] = [];
  const startInstance = async () => {
    const n = servers.length + 1;
    const server = await startServer({
      name: `instance ${n}`,
      entry,
      env: {
        DATA_DIR: path.join(dir, `data-${n}`),
        DATABASE_URL: postgres.url,
        LOG_LEVEL: options.logLevel,
        LOGIN_MAX_FAILURES_PER_ACCOUNT: String(LOGIN_MAX_FAILURES),
      },
    });
    console.log(`${server.name}: node dist/main.js on ${server.base} (pid ${server.pid})`);
    servers.push(server);
  };
  await startInstance();
  const first = servers[0] as ServerProcess;
  const account = await createAccount(first.base, 'cluster');
  const { seed } = options;
  console.log(
    `seeding ${options.campaigns} campaign(s) of ${seed.things} things, ${seed.arcs} arcs, ${seed.arcs * seed.linksPerArc} links through ${first.name}…`,
  );
  const seedStarted = Date.now();
  const api = new Api(first.base).withToken(account.token);
  const campaigns = await Promise.all(
    Array.from({ length: options.campaigns }, (_, i) =>
      seedCampaign(api, `Cluster campaign ${i + 1}`, seed, Math.max(2, Math.ceil(SEED_CONCURRENCY / options.campaigns))),
    ),
  );
  console.log(`  seeded in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);
  const targets = campaigns.map((campaign) => ({ campaign, log: new WriteLog() }));
  const cluster: Cluster = { options, postgres, servers, token: account.token, targets };

  const steps: StepResult[] = [];
  for (let count = 1; count <= options.instances; count++) {
    while (servers.length < count) await startInstance();
    console.log(`${count} instance${count === 1 ? '' : 's'}: ${options.duration} s of ${options.mix === 'writes' ? 'write-heavy' : 'mixed'} load…`);
    const result = await step(cluster, count);
    for (const i of result.perInstance) console.log(`  ${i.name}: ${num(i.stats.rps, 0)} req/s, p50 ${i.stats.p50} ms, p99 ${i.stats.p99} ms, ${errorsOf(i.stats)} errors`);
    console.log(`  total ${num(result.totalRps, 0)} req/s, ${num(result.acknowledgedWritesPerSecond, 0)} acknowledged writes/s`);
    steps.push(result);
  }

  console.log(`verifying through all ${servers.length} instances…`);
  const checks: Check[] = await verifyCluster(servers, account.token, targets);
  checks.push(await verifySharedRateLimit(servers, LOGIN_MAX_FAILURES));

  const loadEnd = os.loadavg();
  console.log(`\n${printSteps(options, campaigns, steps)}\n`);
  for (const c of checks) console.log(`${c.pass ? 'PASS' : 'FAIL'}  ${c.name} — ${c.detail}`);
  console.log(`\nLoad average before ${loadStart.map((l) => l.toFixed(2)).join(' ')}, after ${loadEnd.map((l) => l.toFixed(2)).join(' ')}.`);

  const resultsDir = path.join(repoRoot, 'bench', 'results');
  fs.mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `cluster-${options.mix === 'writes' ? 'writes-' : ''}${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  const { seed: _seed, ...settings } = options;
  fs.writeFileSync(
    file,
    `${JSON.stringify(
      {
        benchmark: 'loreforge-cluster',
        postgres: postgres.embedded ? 'embedded' : 'DATABASE_URL',
        startedAt: startedAt.toISOString(),
        finishedAt: new Date().toISOString(),
        machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, loadStart, loadEnd },
        settings,
        seed: { campaigns: campaigns.length, things: seed.things, arcs: seed.arcs, links: seed.arcs * seed.linksPerArc },
        steps,
        writes: targets.map(({ campaign, log }) => ({
          campaign: campaign.slug,
          created: log.created.size,
          createdUnanswered: log.createdUncertain,
          updatedThings: [...log.updates.values()].filter((u) => u.acked !== undefined).length,
          links: log.links.size,
        })),
        problems: targets.flatMap(({ log }) => log.problems),
        checks,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`written: ${path.relative(repoRoot, file)}`);
  const failed = checks.filter((c) => !c.pass).length;
  console.log(failed === 0 ? 'cluster: all checks passed' : `cluster: ${failed} check(s) FAILED`);
  return failed === 0 ? 0 : 1;
}

runCommand(main, USAGE);
