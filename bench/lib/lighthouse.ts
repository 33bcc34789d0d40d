// Lighthouse for `npm run bench:web`: Debian's Chromium started with a DevTools port, one signed-in
// profile, and Lighthouse's default configuration, which is its mobile one (formFactor mobile, a
// Moto G Power-sized screen, simulated throttling: slow 4G at 150 ms RTT and 1.6 Mbps, CPU 4× slower).
// Lighthouse opens its own tab in the profile, clears the HTTP cache and Cache Storage before each
// run (a cold load) and keeps cookies (its default clearStorageTypes has none), so the pages it
// audits are the signed-in ones. Nothing here reaches beyond 127.0.0.1.
import fs from 'node:fs';
import path from 'node:path';
import lighthouse, { type Flags, type Result } from 'lighthouse';
import { CHROMIUM, CHROMIUM_ARGS } from '../../test/e2e/chromium.js';
import { delay, freePort, startProcess, type ManagedProcess } from '../../toolkit/processes.js';
import { table } from './format.js';

export interface DebuggableChromium {
  port: number;
  /** As /json/version tells it, e.g. "Chrome/150.0.7871.100". */
  version: string;
  process: ManagedProcess;
}

/** Chromium, headless, with `--remote-debugging-port` and the profile in `profileDir`. */
export async function startChromium(profileDir: string): Promise<DebuggableChromium> {
  const port = await freePort();
  const args = ['--headless=new', ...CHROMIUM_ARGS, `--remote-debugging-port=${port}`, `--user-data-dir=${profileDir}`, 'about:blank'];
  const child = startProcess('chromium', CHROMIUM, args);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.hasExited()) throw new Error(`Chromium exited before its DevTools port answered:\n${child.output()}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/json/version`, { signal: AbortSignal.timeout(1_000) });
      if (response.ok) return { port, process: child, version: String(((await response.json()) as { Browser?: string }).Browser) };
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`Chromium's DevTools port ${port} did not answer:\n${child.output()}`);
    await delay(100);
  }
}

export interface Figures {
  score: number;
  lcpMs: number;
  cls: number;
  tbtMs: number;
  fcpMs: number;
  speedIndexMs: number;
  /** Bytes of script transferred (compressed if the server compressed them), from the network records. */
  scriptBytes: number;
  /** Lighthouse's measure of this machine's CPU (its BenchmarkIndex; a Moto G Power scores about 1,000 … 1,500 and desktops 1,500+). */
  benchmarkIndex: number;
  finalUrl: string;
}

/** One Lighthouse run on `url` with its default (mobile) settings, performance only. */
export async function audit(url: string, port: number): Promise<{ figures: Figures; lhr: Result }> {
  const flags: Flags = { port, output: 'json', onlyCategories: ['performance'], logLevel: 'error' };
  const result = await lighthouse(url, flags);
  if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
  const lhr = result.lhr;
  if (lhr.runtimeError) throw new Error(`Lighthouse: ${lhr.runtimeError.code}: ${lhr.runtimeError.message}`);
  const numeric = (id: string) => lhr.audits[id]?.numericValue ?? Number.NaN;
  const requests = (lhr.audits['network-requests']?.details as { items?: { resourceType?: string; transferSize?: number }[] } | undefined)?.items ?? [];
  return {
    lhr,
    figures: {
      score: Math.round((lhr.categories.performance?.score ?? Number.NaN) * 100),
      lcpMs: numeric('largest-contentful-paint'),
      cls: numeric('cumulative-layout-shift'),
      tbtMs: numeric('total-blocking-time'),
      fcpMs: numeric('first-contentful-paint'),
      speedIndexMs: numeric('speed-index'),
      scriptBytes: requests.filter((r) => r.resourceType === 'Script').reduce((sum, r) => sum + (r.transferSize ?? 0), 0),
      benchmarkIndex: lhr.environment.benchmarkIndex,
      finalUrl: lhr.finalDisplayedUrl,
    },
  };
}

const middle = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The medians of each figure over the runs of each page, against issue 27's budgets. */
export function lighthouseTable(runs: Record<string, { figures: Figures }[]>): string {
  const rows: string[][] = [];
  for (const [name, results] of Object.entries(runs)) {
    const f = (pick: (x: Figures) => number) => middle(results.map((r) => pick(r.figures)));
    const verdict = (ok: boolean) => (ok ? 'meets' : 'misses');
    const page = name === 'home' ? 'campaign home' : 'thing page (3 images)';
    rows.push(
      [page, 'performance score', String(f((x) => x.score)), '≥ 90', verdict(f((x) => x.score) >= 90), results.map((r) => r.figures.score).join(', ')],
      [page, 'largest contentful paint', `${(f((x) => x.lcpMs) / 1000).toFixed(2)} s`, '≤ 2.5 s', verdict(f((x) => x.lcpMs) <= 2500), results.map((r) => (r.figures.lcpMs / 1000).toFixed(2)).join(', ')],
      [page, 'cumulative layout shift', f((x) => x.cls).toFixed(3), '< 0.1', verdict(f((x) => x.cls) < 0.1), results.map((r) => r.figures.cls.toFixed(3)).join(', ')],
      [page, 'total blocking time', `${Math.round(f((x) => x.tbtMs))} ms`, '', '', results.map((r) => Math.round(r.figures.tbtMs)).join(', ')],
      [page, 'first contentful paint', `${(f((x) => x.fcpMs) / 1000).toFixed(2)} s`, '', '', results.map((r) => (r.figures.fcpMs / 1000).toFixed(2)).join(', ')],
      [page, 'speed index', `${(f((x) => x.speedIndexMs) / 1000).toFixed(2)} s`, '', '', results.map((r) => (r.figures.speedIndexMs / 1000).toFixed(2)).join(', ')],
      [page, 'script transferred', `${(f((x) => x.scriptBytes) / 1000).toFixed(1)} KB`, '', '', results.map((r) => (r.figures.scriptBytes / 1000).toFixed(1)).join(', ')],
    );
  }
  const indexes = Object.values(runs).flatMap((results) => results.map((r) => Math.round(r.figures.benchmarkIndex)));
  const runCount = Object.values(runs)[0]?.length ?? 0;
  return (
    `Lighthouse ${lighthouseVersion()}, default (mobile) settings, performance only; median of ${runCount} runs per page; BenchmarkIndex of this machine ${indexes.join(', ')}\n\n` +
    table(['page', 'measure', 'median', 'budget', '', 'runs'], rows, ['l', 'l', 'r', 'r', 'l', 'l'])
  );
}

function lighthouseVersion(): string {
  const file = path.join(import.meta.dirname, '..', '..', 'node_modules', 'lighthouse', 'package.json');
  return String((JSON.parse(fs.readFileSync(file, 'utf8')) as { version?: string }).version);
}

interface Node {
  snippet?: string;
  selector?: string;
  nodeLabel?: string;
}

interface Item {
  url?: string;
  node?: Node;
  wastedBytes?: number;
  wastedMs?: number;
  totalBytes?: number;
  transferSize?: number;
  groupLabel?: string;
  duration?: number;
  score?: number;
  phase?: string;
  timing?: number;
  items?: Item[];
  subItems?: { items?: { extra?: Node; cause?: string }[] };
}

interface Chain {
  url: string;
  navStartToEndTime: number;
  transferSize: number;
  isLongest?: boolean;
  children?: Record<string, Chain>;
}

const kb = (bytes: number | undefined) => `${((bytes ?? 0) / 1000).toFixed(0)} KB`;
const short = (url: string | undefined) => (url ?? '').replace(/^https?:\/\/[^/]+/, '');
const label = (node: Node | undefined) => (node ? `${node.selector ?? node.snippet} “${(node.nodeLabel ?? '').split('\n')[0]!.slice(0, 60)}”` : '');
// Handled below, or the whole picture rather than a finding.
const SPECIAL = ['largest-contentful-paint-element', 'layout-shifts', 'network-requests', 'main-thread-tasks', 'diagnostics', 'metrics', 'screenshot-thumbnails', 'final-screenshot', 'script-treemap-data', 'critical-request-chains'];

/**
 * What Lighthouse says to fix first, one line each: the failing opportunities and diagnostics by
 * their estimated saving (its newer "insights" repeat them and are left out), then the LCP element
 * and its phases, the layout shifts and their causes, the longest request chain and the main
 * thread's work.
 */
export function findings(lhr: Result): string[] {
  const lines: string[] = [];
  const details = (id: string) => lhr.audits[id]?.details as { items?: Item[]; chains?: Record<string, Chain> } | undefined;
  const saving = (a: Result['audits'][string]) => (a.metricSavings?.LCP ?? 0) + (a.metricSavings?.FCP ?? 0) + (a.metricSavings?.TBT ?? 0) + (a.metricSavings?.CLS ?? 0) * 10_000;
  const failing = Object.values(lhr.audits)
    .filter((a) => a.score !== null && a.score < 0.9 && ['opportunity', 'table'].includes(a.details?.type ?? ''))
    .filter((a) => !a.id.endsWith('-insight') && !SPECIAL.includes(a.id))
    .sort((a, b) => saving(b) - saving(a));
  for (const a of failing) {
    const top = ((a.details as { items?: Item[] }).items ?? [])
      .slice(0, 3)
      .map((i) => [short(i.url) || label(i.node) || i.groupLabel || '', i.wastedBytes ? `−${kb(i.wastedBytes)}` : i.totalBytes ? kb(i.totalBytes) : '', i.wastedMs ? `−${Math.round(i.wastedMs)} ms` : ''].filter(Boolean).join(' '))
      .filter(Boolean);
    lines.push(`${a.title}${a.displayValue ? ` (${a.displayValue})` : ''}${top.length ? `: ${top.join('; ')}` : ''}`);
  }
  const [element, phases] = details('largest-contentful-paint-element')?.items ?? [];
  if (element?.items?.[0]?.node) {
    const timing = (phases?.items ?? []).map((p) => `${p.phase} ${Math.round(p.timing ?? 0)} ms`).join(', ');
    lines.push(`LCP element (${lhr.audits['largest-contentful-paint-element']?.displayValue}): ${label(element.items[0].node)}; ${timing}`);
  }
  for (const shift of details('layout-shifts')?.items ?? []) {
    const causes = (shift.subItems?.items ?? []).map((s) => `${s.cause}: ${label(s.extra)}`).join('; ');
    lines.push(`layout shift ${(shift.score ?? 0).toFixed(3)} of ${label(shift.node)}${causes ? ` — ${causes}` : ''}`);
  }
  const tree = details('network-dependency-tree-insight')?.items?.[0] as { value?: { chains?: Record<string, Chain> } } | undefined;
  let level = tree?.value?.chains;
  const chain: string[] = [];
  while (level) {
    const next: Chain | undefined = Object.values(level).find((c) => c.isLongest) ?? Object.values(level)[0];
    if (!next) break;
    chain.push(`${short(next.url) || '/'} (${kb(next.transferSize)}, done at ${Math.round(next.navStartToEndTime)} ms)`);
    level = next.children;
  }
  if (chain.length) lines.push(`longest request chain (unthrottled): ${chain.join(' → ')}`);
  const biggest = (details('network-requests')?.items ?? [])
    .filter((r) => (r.transferSize ?? 0) > 50_000)
    .sort((a, b) => (b.transferSize ?? 0) - (a.transferSize ?? 0))
    .map((r) => `${short(r.url)} ${kb(r.transferSize)}`);
  if (biggest.length) lines.push(`transfers over 50 KB: ${biggest.join(', ')}`);
  const work = (details('mainthread-work-breakdown')?.items ?? []).slice(0, 4).map((i) => `${i.groupLabel} ${Math.round(i.duration ?? 0)} ms`);
  if (work.length) lines.push(`main-thread work (${lhr.audits['mainthread-work-breakdown']?.displayValue}): ${work.join(', ')}`);
  return lines;
}

/** Writes the JSON report of a run next to the printed results (not committed: bench/results/*.json). */
export function saveReport(dir: string, name: string, lhr: Result): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify(lhr));
  return file;
}
