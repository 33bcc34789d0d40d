// The tables of `npm run bench`.
import type { SeedSize, SeededCampaign } from '../seed.js';
import { kib, num, percent, signedPercent, table } from './format.js';
import { errorsOf, type LoadStats } from './load.js';

export interface ScenarioResult {
  name: string;
  method: string;
  path: string;
  responseBytes?: number;
  /** Median response time of one request at a time, before the load. */
  unloadedMs?: number;
  /** Why the warm-up with every connection was left out, if it was. */
  warmupNote?: string;
  loreforge: LoadStats;
  baseline?: LoadStats;
  /** Loreforge req/s ÷ baseline req/s. */
  ratio?: number;
  /** Baseline CPU per request ÷ Loreforge CPU per request: the ratio with the machine's noise taken out. */
  cpuRatio?: number;
  /** The server's RSS just before the scenario and just after it (its abandoned requests served). */
  rssMb?: { before: number | undefined; after: number | undefined };
}

export interface GrowthPoint {
  size: SeedSize;
  links: number;
  seedSeconds: number;
  scenarios: { name: string; responseBytes: number; unloadedMs: number; stats: LoadStats }[];
}

export interface TableSettings {
  db: 'sqlite' | 'postgres';
  connections: number;
  duration: number;
  warmup: number;
  growthDuration: number;
  growthWarmup: number;
  cacheOff?: boolean;
}

/**
 * CPU time of a process group per completed request. It also counts the work on the requests still
 * in flight when the run ends (at most one per connection), so it over-counts by up to
 * connections ÷ requests; with fewer than two requests per connection it means nothing and is left out.
 */
export function cpuMicrosPerRequest(stats: LoadStats | undefined, group: string): number | undefined {
  const ms = stats?.cpuMs[group];
  if (!stats || ms === undefined || stats.requests < 2 * stats.connections) return undefined;
  return (ms * 1000) / stats.requests;
}

export function mainTable(settings: TableSettings, campaign: SeededCampaign, results: ScenarioResult[], postgresCpu: boolean): string {
  const headers = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'baseline req/s', 'ratio', 'CPU µs/req', 'baseline CPU µs/req', 'CPU ratio'];
  if (postgresCpu) headers.push('PostgreSQL CPU µs/req');
  headers.push('1 conn. ms', 'body', 'RSS MB before → after');
  const rows = results.map((r) => {
    const row = [
      r.name + (r.loreforge.aborted ? ' (aborted)' : ''),
      num(r.loreforge.rps, 0),
      String(r.loreforge.p50),
      String(r.loreforge.p99),
      String(errorsOf(r.loreforge)),
      r.baseline ? num(r.baseline.rps, 0) : '–',
      percent(r.ratio),
      num(cpuMicrosPerRequest(r.loreforge, 'server'), 0),
      num(cpuMicrosPerRequest(r.baseline, 'server'), 0),
      percent(r.cpuRatio),
    ];
    if (postgresCpu) row.push(num(cpuMicrosPerRequest(r.loreforge, 'postgres'), 0));
    row.push(num(r.unloadedMs), r.responseBytes === undefined ? '–' : kib(r.responseBytes), r.rssMb ? `${num(r.rssMb.before, 0)} → ${num(r.rssMb.after, 0)}` : '–');
    return row;
  });
  const title =
    `Loreforge on ${settings.db === 'sqlite' ? 'SQLite' : 'PostgreSQL'}: ${num(campaign.things.length, 0)} things in ${campaign.typeIds.length} types, ` +
    `${num(campaign.arcs.length, 0)} arcs (3 levels), ${num(campaign.links, 0)} links; ${settings.connections} connections, ` +
    `${settings.duration} s per scenario after ${settings.warmup} s warm-up${settings.cacheOff ? '; response cache off (RESPONSE_CACHE_MB=0)' : ''}`;
  const notes = results.filter((r) => r.warmupNote).map((r) => `${r.name}: ${r.warmupNote}`);
  return [title, table(headers, rows), ...(notes.length > 0 ? [notes.join('\n')] : [])].join('\n\n');
}

export function growthTable(settings: TableSettings, points: GrowthPoint[]): string {
  const first = points[0];
  const last = points.at(-1);
  if (!first || !last) return '';
  const headers = ['scenario'];
  for (const p of points) headers.push(`${num(p.size.things, 0)}: req/s`, 'p50 ms', '1 conn. ms');
  headers.push(`req/s ${num(first.size.things, 0)} → ${num(last.size.things, 0)}`, `CPU/req ${num(first.size.things, 0)} → ${num(last.size.things, 0)}`);
  const rows = first.scenarios.map((scenario, i) => {
    const row = [scenario.name];
    for (const p of points) {
      const point = p.scenarios[i];
      const errors = point ? errorsOf(point.stats) : 0;
      row.push(point ? `${num(point.stats.rps, 0)}${errors > 0 ? ` (${errors} err)` : ''}` : '–', point ? String(point.stats.p50) : '–', num(point?.unloadedMs));
    }
    const a = first.scenarios[i];
    const b = last.scenarios[i];
    row.push(a && b && a.stats.rps > 0 ? signedPercent(b.stats.rps / a.stats.rps - 1) : '–');
    const cpuA = cpuMicrosPerRequest(a?.stats, 'server');
    const cpuB = cpuMicrosPerRequest(b?.stats, 'server');
    row.push(cpuA && cpuB ? signedPercent(cpuB / cpuA - 1) : '–');
    return row;
  });
  const sizes = points.map((p) => `${num(p.size.things, 0)} things / ${num(p.size.arcs, 0)} arcs / ${num(p.links, 0)} links`).join(', ');
  return (
    `Growth (${sizes}); ${settings.connections} connections, ${settings.growthDuration} s per scenario after ${settings.growthWarmup} s warm-up; ` +
    `"1 conn. ms": median response time of one request at a time\n\n${table(headers, rows)}`
  );
}

/** Issue 28's budgets: ratios to the same-bytes baseline, measured in the same run. */
const BUDGETS: { db: 'sqlite' | 'postgres'; scenario: string; ratio: number }[] = [
  { db: 'sqlite', scenario: 'PUT /things/{slug}', ratio: 0.1 },
  { db: 'postgres', scenario: 'PUT /things/{slug}', ratio: 0.05 },
  { db: 'postgres', scenario: 'GET /things', ratio: 0.6 },
];

/** The budgets of this database beside the ratios measured: figures, never an assertion. */
export function budgetTable(db: 'sqlite' | 'postgres', results: ScenarioResult[], cacheOff = false): string {
  // The ratio budgets are for the server as it runs (cache on); the cache-off one is relative.
  if (cacheOff) return 'Issue 28 asks list reads with the response cache off at twice the req/s measured before it (docs/performance.md, "Issue 28: before and after").';
  const rows = BUDGETS.filter((b) => b.db === db).flatMap((budget) => {
    const result = results.find((r) => r.name === budget.scenario);
    if (result?.ratio === undefined) return [];
    const verdict = result.ratio >= budget.ratio ? 'meets' : 'misses';
    return [[budget.scenario, `≥ ${budget.ratio}`, result.ratio.toFixed(3), result.cpuRatio === undefined ? '–' : result.cpuRatio.toFixed(3), verdict]];
  });
  if (rows.length === 0) return `No scenario with a budget of issue 28 on ${db === 'sqlite' ? 'SQLite' : 'PostgreSQL'} was run.`;
  return `Budgets of issue 28 on ${db === 'sqlite' ? 'SQLite' : 'PostgreSQL'} (req/s ÷ baseline req/s in this run; the CPU ratio beside it)\n\n${table(['scenario', 'budget', 'ratio', 'CPU ratio', 'verdict'], rows)}`;
}
