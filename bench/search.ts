// Search latency on a large campaign, on SQLite and on PostgreSQL: `npm run bench:search`.
//
// Seeds one campaign of 10,000 things with rich descriptions (several paragraphs drawn from a
// vocabulary of some 20,000 words with a natural, Zipf-like frequency, so the campaign's vocabulary
// is as large as real prose makes it) and 300 arcs, builds the index the way
// `npm run cli -- search reindex` does, times index upkeep on single writes, then sends 20
// different queries over HTTP to the real app, one at a time, and prints p50/p99.
//
// Settings (environment): BENCH_THINGS (10000), BENCH_ROUNDS (30 per query), BENCH_DIALECTS
// (sqlite,postgres), BENCH_DATABASE_URL (a postgres:// database to use instead of a throwaway
// embedded server; the benchmark writes into it).
//
// `npm run bench:search -- --write` measures instead what one large write costs the index
// (CONTRACT, "A write's cost is bounded by its size"): a thing whose description is 256 KiB of
// distinct words (the rich-text limit), created and then replaced by another such text, on an
// empty campaign, WRITE_ROUNDS times; per database the time of each write, the CPU it took (Node,
// which runs SQLite, and the PostgreSQL server), the bytes the database grew by and the index rows
// per word, and the longest that small writes to another campaign, sent one after another while
// the large write ran, took.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDatabase, type Database } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createCampaign } from '../src/db/repositories/campaigns.js';
import { createToken } from '../src/db/repositories/credentials.js';
import { createThing, updateThing } from '../src/db/repositories/things.js';
import { createUser } from '../src/db/repositories/users.js';
import { hashSecret, newSecret } from '../src/domain/secrets.js';
import { rebuildSearchIndex } from '../src/db/indexes/search.js';
import { indexCampaignPending } from '../src/db/indexes/search-queue.js';
import { searchCampaign } from '../src/db/repositories/search.js';
import { rankCandidates } from '../src/db/repositories/search-rank.js';
import { scoreEveryMatch } from '../test/support/reference-ranking.js';
import { fullView } from '../src/access/view.js';
import { startEmbeddedPostgres } from '../toolkit/embedded-postgres.js';
import { prng } from './lib/content.js';

const THINGS = Number(process.env.BENCH_THINGS ?? 10_000);
const ARCS = 300;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const WARMUP_ROUNDS = 3;
const WRITES = 100;
const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',').map((d) => d.trim());

// ---------------------------------------------------------------- deterministic content


// Reset before seeding each database, so both get the very same campaign.
let random = prng(20261121);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

const SYLLABLES = 'ka lo mi ra th an el dor wyn gar bel esh ul vor ith ma ren sol tor qua ae ny ba cor fen hal ist mor pel sar tun var zel orn dra gil bren cal'.split(' ');
function lexicon(size: number, seed: number, minSyllables: number): string[] {
  const next = prng(seed);
  const words = new Set<string>();
  while (words.size < size) {
    const count = minSyllables + Math.floor(next() * 3);
    let word = '';
    for (let i = 0; i < count; i++) word += SYLLABLES[Math.floor(next() * SYLLABLES.length)];
    words.add(word);
  }
  return [...words];
}

const FUNCTION_WORDS = 'the of and a to in is was that he she it with for as his her on at by from they but not this which or an be are had their were one all there'.split(' ');
const CONTENT_WORDS = (
  'dragon goblin sword castle river forest king queen ruin tower village merchant guard temple priest wizard thief cave mine gold ' +
  'silver map letter secret debt oath bridge harbor ship storm winter harvest festival plague crown throne spear shield arrow ' +
  'wolf raven bear serpent giant troll orc elf dwarf halfling bard ranger druid paladin cleric monk rogue warlock sorcerer ' +
  'tavern inn market road trail hill mountain valley lake swamp desert island ghost curse relic tomb crypt vault library ' +
  'scroll potion ring amulet cloak lantern key door gate wall moon sun star fire ice shadow blood bone iron stone ash salt'
).split(' ');
const LEXICON = lexicon(20_000, 7, 2);
const NAMES = lexicon(4_000, 11, 2).map(capital);

// Zipf-like ranks over the lexicon: rank r drawn with weight 1 / r^1.05.
const ZIPF = (() => {
  const cumulative: number[] = [];
  let total = 0;
  for (let r = 1; r <= LEXICON.length; r++) cumulative.push((total += 1 / r ** 1.05));
  return cumulative.map((c) => c / total);
})();
function zipfWord(): string {
  const x = random();
  let lo = 0;
  let hi = ZIPF.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ZIPF[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return LEXICON[lo]!;
}

function thingName(i: number): string {
  const first = NAMES[i % NAMES.length]!;
  const last = NAMES[(i * 7919 + 13) % NAMES.length]!;
  switch (i % 4) {
    case 0:
      return `${first} ${last}`;
    case 1:
      return `The ${capital(pick(CONTENT_WORDS))} of ${last}`;
    case 2:
      return `${last}'s ${capital(pick(CONTENT_WORDS))}`;
    default:
      return `${first} ${capital(zipfWord())}`;
  }
}

function sentence(): { text: string; bold?: boolean }[] {
  const words: string[] = [];
  const length = 8 + Math.floor(random() * 11);
  for (let i = 0; i < length; i++) {
    const x = random();
    words.push(x < 0.45 ? pick(FUNCTION_WORDS) : x < 0.6 ? pick(CONTENT_WORDS) : zipfWord());
  }
  const leaves: { text: string; bold?: boolean }[] = [{ text: `${capital(words.join(' '))}` }];
  if (random() < 0.3) leaves.push({ text: ' near ' }, { text: NAMES[Math.floor(random() * NAMES.length)]!, bold: true });
  leaves.push({ text: '. ' });
  return leaves;
}

function richDescription(): string {
  const blocks = [];
  if (random() < 0.4) blocks.push({ type: 'heading-two', children: [{ text: pick(['Appearance', 'Secrets', 'History', 'Rumours', 'Hooks']) }] });
  const paragraphs = 3 + Math.floor(random() * 3);
  for (let p = 0; p < paragraphs; p++) {
    const children = [];
    const sentences = 2 + Math.floor(random() * 3);
    for (let s = 0; s < sentences; s++) children.push(...sentence());
    blocks.push({ type: 'paragraph', children });
  }
  // Every description holds "the" (no random draw, so the rest of the content does not move): a
  // query that matches every thing.
  blocks.push({ type: 'paragraph', children: [{ text: 'Noted in the chronicle.' }] });
  return JSON.stringify(blocks);
}

// ---------------------------------------------------------------- measuring

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(value < 10 ? 2 : 1) : '–');

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(headers), rule, ...rows.map(line)].join('\n');
}

function load(): string {
  const [one, five] = os.loadavg();
  return `load average ${one!.toFixed(2)} / ${five!.toFixed(2)} (1 / 5 min) on ${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? 'cpu'}`;
}

// ---------------------------------------------------------------- databases

interface Target {
  database: Database;
  label: string;
  /** SQLite's data folder (its size is the database's). */
  dir?: string;
  /** CPU milliseconds the database server's processes have used so far (PostgreSQL we started). */
  serverCpuMs?: () => number;
  close(): Promise<void>;
}

// Linux: utime + stime of a process, in clock ticks (100 a second on every common kernel).
const TICK_MS = 10;
function processCpuTicks(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

function exitedChildrenCpuTicks(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[13]) + Number(fields[14]);
}

/** CPU time of a process and its direct children (the postmaster and its backends), in ms. */
function treeCpuMs(root: number): number {
  let ticks = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (Number(entry) === root || ppid === root) ticks += processCpuTicks(stat);
      // And the backends that have exited (reaped by the postmaster), so that the sum never falls.
      if (Number(entry) === root) ticks += exitedChildrenCpuTicks(stat);
    } catch {
      // The process ended meanwhile.
    }
  }
  return ticks * TICK_MS;
}

function sqliteTarget(): Target {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-bench-search-'));
  const database = createDatabase({ dataDir: dir });
  return {
    database,
    dir,
    label: 'SQLite (file, WAL, synchronous=FULL)',
    async close() {
      await database.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresTarget(): Promise<Target> {
  const given = process.env.BENCH_DATABASE_URL;
  if (given) {
    const database = createDatabase({ url: given });
    return { database, label: 'PostgreSQL (BENCH_DATABASE_URL)', close: () => database.close() };
  }
  const server = await startEmbeddedPostgres({ name: 'loreforge-bench-search-pg' });
  stopOnSignal.push(server.stop);
  const admin = new pg.Client({ connectionString: server.adminUrl });
  await admin.connect();
  await admin.query('CREATE DATABASE loreforge_bench');
  await admin.end();
  const url = new URL(server.adminUrl);
  url.pathname = '/loreforge_bench';
  const database = createDatabase({ url: url.toString() });
  const postmaster = Number(fs.readFileSync(path.join(server.databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return {
    database,
    label: 'PostgreSQL 17 (embedded, default durability)',
    serverCpuMs: () => treeCpuMs(postmaster),
    async close() {
      await database.close();
      await server.stop();
    },
  };
}

const stopOnSignal: (() => Promise<void>)[] = [];
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void Promise.all(stopOnSignal.map((stop) => stop())).finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------- one dialect

interface Seeded {
  campaignId: number;
  slug: string;
  typeIds: number[];
  names: string[];
  token: string;
}

let seeds = 0;
async function seed(database: Database, things = THINGS, arcs = ARCS): Promise<Seeded> {
  random = prng(20261121);
  const now = new Date().toISOString();
  const unique = `${Date.now()}-${(seeds += 1)}`;
  const user = await createUser(database.kysely, { email: `bench-${unique}@example.test`, name: 'Bench', passwordHash: 'x', now });
  const campaign = await createCampaign(database, user.id, { name: `Search bench ${unique}`, description: richDescription() });
  const types = await database.kysely.selectFrom('thing_types').select('id').where('campaign_id', '=', campaign.id).orderBy('id').execute();
  const typeIds = types.map((t) => t.id);
  const names: string[] = [];
  // Records go straight into their tables (the index is built afterwards, as a rebuild would).
  for (let start = 0; start < things; start += 500) {
    const rows = [];
    for (let i = start; i < Math.min(things, start + 500); i++) {
      const name = thingName(i);
      names.push(name);
      rows.push({ campaign_id: campaign.id, type_id: typeIds[i % typeIds.length]!, slug: `thing-${i}`, name, description: richDescription(), version: 1, created_at: now, updated_at: now });
    }
    await database.kysely.insertInto('things').values(rows).execute();
  }
  const short = () => JSON.stringify([{ type: 'paragraph', children: sentence() }]);
  for (let start = 0; start < arcs; start += 100) {
    const rows = [];
    for (let i = start; i < Math.min(arcs, start + 100); i++) {
      rows.push({
        campaign_id: campaign.id,
        parent_arc_id: null,
        slug: `arc-${i}`,
        name: `The ${capital(pick(CONTENT_WORDS))} of ${NAMES[(i * 31) % NAMES.length]}`,
        hook: short(),
        protagonist: short(),
        antagonist: short(),
        problem: short(),
        key: short(),
        outcome: short(),
        notes: short(),
        version: 1,
        created_at: now,
        updated_at: now,
      });
    }
    await database.kysely.insertInto('arcs').values(rows).execute();
  }
  const token = newSecret('lf_');
  await createToken(database.kysely, { userId: user.id, name: 'bench', secretHash: hashSecret(token), now, expiresAt: null });
  return { campaignId: campaign.id, slug: campaign.slug, typeIds, names, token };
}

/** Twenty queries drawn from the seeded campaign: names exact and mistyped, prefixes, prose words, no match. */
function queries(seeded: Seeded): [label: string, q: string][] {
  // Names of index ≡ 0 (mod 4) are "First Last".
  const person = seeded.names[Math.floor(seeded.names.length * 0.43) & ~3]!;
  const [first, last] = person.split(' ') as [string, string];
  // Swaps two neighbouring letters (at most at the end of the word).
  const typo = (word: string, at: number) => {
    const i = Math.min(at, word.length - 2);
    return word.slice(0, i) + word[i + 1]! + word[i]! + word.slice(i + 2);
  };
  const rare = LEXICON[15_000]!;
  const middling = LEXICON[500]!;
  return [
    ['exact name', person],
    ['exact name, lower case', seeded.names[Math.floor(seeded.names.length * 0.07) | 1]!.toLowerCase()],
    ['name prefix (4 letters)', last.slice(0, 4)],
    ['name prefix (2 letters)', first.slice(0, 2)],
    ['name, one typo', typo(last, 2)],
    ['name, two typos', typo(typo(first, 1), 4)],
    ['first and last name, typos in both', `${typo(first, 1)} ${typo(last, 3)}`],
    ['prose word', 'dragon'],
    ['two prose words', 'goblin cave'],
    ['rare word', rare],
    ['mid-frequency word', middling],
    ['most common word', 'the'],
    ['plural word form', 'dragons'],
    ['three words of prose', `${LEXICON[3]!} ${LEXICON[10]!} ${pick(CONTENT_WORDS)}`],
    ['prose word with a typo', 'goblni'],
    ['no match', 'xyzzyqwv'],
    ['pasted sentence (12 words)', 'the old merchant keeps a sealed letter hidden beneath the tower of gold'],
    ['operators and punctuation', `"${last}" AND -cave* OR NEAR(gold)`],
    ['diacritics', 'dräğon trëasure'],
    ['name with a half-typed last word', `${first} ${last.slice(0, 3)}`],
  ];
}

const SCALE_SIZES = [100, 1000, THINGS];

const SCALE_ROUNDS = Number(process.env.BENCH_SCALE_ROUNDS ?? 200);

/** `the`, a word of every thing, on campaigns of each size: p50/p99 with the response cache off. */
async function everyThing(port: number, campaigns: Seeded[], target: Target): Promise<string[]> {
  const rows: string[][] = [];
  for (const campaign of campaigns) {
    const url = `http://127.0.0.1:${port}/api/campaigns/${campaign.slug}/search?q=the&limit=20`;
    const samples: number[] = [];
    let cpuBefore = process.cpuUsage();
    let serverBefore = 0;
    for (let round = 0; round < WARMUP_ROUNDS + SCALE_ROUNDS; round++) {
      if (round === WARMUP_ROUNDS) {
        cpuBefore = process.cpuUsage();
        serverBefore = target.serverCpuMs?.() ?? 0;
      }
      const t = performance.now();
      const response = await fetch(url, { headers: { authorization: `Bearer ${campaign.token}` } });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`every thing: HTTP ${response.status}`);
      if (round >= WARMUP_ROUNDS) samples.push(performance.now() - t);
    }
    const cpu = process.cpuUsage(cpuBefore);
    const nodeMs = (cpu.user + cpu.system) / 1000 / SCALE_ROUNDS;
    const serverMs = target.serverCpuMs ? (target.serverCpuMs() - serverBefore) / SCALE_ROUNDS : NaN;
    samples.sort((a, b) => a - b);
    const size = campaign.names.length.toLocaleString('en-US');
    // In process, the two rankings taking turns (same load for both): what ranking from candidates saves.
    const row = await target.database.kysely.selectFrom('campaigns').selectAll().where('id', '=', campaign.campaignId).executeTakeFirstOrThrow();
    const turns: Record<'every' | 'candidates', number[]> = { every: [], candidates: [] };
    for (let round = 0; round < WARMUP_ROUNDS + SCALE_ROUNDS; round++) {
      for (const [name, ranker] of [['every', scoreEveryMatch], ['candidates', rankCandidates]] as const) {
        const t = performance.now();
        await searchCampaign(target.database, row, fullView(row), { text: 'the', type: 'any', limit: 20 }, ranker);
        if (round >= WARMUP_ROUNDS) turns[name].push(performance.now() - t);
      }
    }
    const pair = (list: number[]) => (list.sort((a, b) => a - b), `${ms(percentile(list, 50))} / ${ms(percentile(list, 99))}`);
    rows.push([size, ms(percentile(samples, 50)), ms(percentile(samples, 99)), ms(samples.at(-1) ?? NaN), ms(nodeMs), ms(serverMs), pair(turns.every), pair(turns.candidates)]);
  }
  return [
    `\n**A query matching every thing** (\`the\`, ${SCALE_ROUNDS} sequential requests per size, response cache off; ${load()})\n`,
    table(['things', 'p50 ms', 'p99 ms', 'max ms', 'CPU ms per search, Node', 'PostgreSQL', 'in process, scoring every match p50 / p99', 'from candidates p50 / p99'], rows),
  ];
}

async function tableCounts(database: Database, campaignId: number): Promise<string> {
  const counts = [];
  for (const table of ['search_documents', 'search_postings', 'search_terms'] as const) {
    const row = await database.kysely.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('campaign_id', '=', campaignId).executeTakeFirstOrThrow();
    counts.push(`${table.replace('search_', '')} ${Number(row.n).toLocaleString('en-US')}`);
  }
  return counts.join(', ');
}

async function runDialect(target: Target): Promise<string[]> {
  const { database } = target;
  const lines: string[] = [`\n## ${target.label}\n`];
  await migrateToLatest(database);
  let started = performance.now();
  const seeded = await seed(database);
  // Smaller campaigns of the same things, for how a query matching every thing grows with the campaign.
  const smaller = [];
  for (const size of SCALE_SIZES) if (size < THINGS) smaller.push(await seed(database, size, 0));
  lines.push(`seeded ${THINGS.toLocaleString('en-US')} things and ${ARCS} arcs in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  started = performance.now();
  const summary = await rebuildSearchIndex(database);
  lines.push(`search reindex: ${summary.documents.toLocaleString('en-US')} documents in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  lines.push(`index rows: ${await tableCounts(database, seeded.campaignId)}`);
  // As autovacuum (PostgreSQL) or a periodic ANALYZE would leave a long-lived database.
  await (database.dialect === 'postgres' ? sql`vacuum analyze` : sql`analyze`).execute(database.kysely);

  // Index upkeep on single writes: create a thing, then change its description (each one transaction).
  const writes: number[] = [];
  const updates: number[] = [];
  for (let i = 0; i < WRITES; i++) {
    let t = performance.now();
    // Each write with its indexing after the commit (db/indexes/search-queue.ts), as a search right after it would run it.
    const thing = await createThing(database, seeded.campaignId, { name: thingName(THINGS + i), typeId: seeded.typeIds[0]!, description: richDescription() });
    await indexCampaignPending(database, seeded.campaignId);
    writes.push(performance.now() - t);
    t = performance.now();
    await updateThing(database, seeded.campaignId, thing.slug, { description: richDescription() });
    await indexCampaignPending(database, seeded.campaignId);
    updates.push(performance.now() - t);
  }
  writes.sort((a, b) => a - b);
  updates.sort((a, b) => a - b);
  lines.push(
    `writes with index upkeep (${WRITES} each, sequential): create thing p50 ${ms(percentile(writes, 50))} ms / p99 ${ms(percentile(writes, 99))} ms; ` +
      `update description p50 ${ms(percentile(updates, 50))} ms / p99 ${ms(percentile(updates, 99))} ms`,
  );

  const app = await buildApp(loadConfig({ LOG_LEVEL: 'silent', RESPONSE_CACHE_MB: '0' }), { database, logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const headers = { authorization: `Bearer ${seeded.token}` };
  const list = queries(seeded);
  const samples = new Map<string, number[]>(list.map(([label]) => [label, []]));
  const hits = new Map<string, number>();
  const all: number[] = [];
  let scaling: string[] = [];
  try {
    lines.push(`machine before queries: ${load()}`);
    let cpuBefore = process.cpuUsage();
    let serverBefore = 0;
    for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
      if (round === WARMUP_ROUNDS) {
        cpuBefore = process.cpuUsage();
        serverBefore = target.serverCpuMs?.() ?? 0;
      }
      // A different order each round, the same for both dialects.
      const order = [...list].sort((a, b) => ((a[0].length * 31 + round * 17) % 23) - ((b[0].length * 31 + round * 17) % 23) || a[0].localeCompare(b[0]));
      for (const [label, q] of order) {
        const url = `http://127.0.0.1:${port}/api/campaigns/${seeded.slug}/search?q=${encodeURIComponent(q)}&limit=20`;
        const t = performance.now();
        const response = await fetch(url, { headers });
        const body = (await response.json()) as { results?: unknown[] };
        const elapsed = performance.now() - t;
        if (response.status !== 200) throw new Error(`${label}: HTTP ${response.status} ${JSON.stringify(body)}`);
        if (round >= WARMUP_ROUNDS) {
          samples.get(label)!.push(elapsed);
          all.push(elapsed);
        }
        hits.set(label, body.results?.length ?? 0);
      }
    }
    lines.push(`machine after queries: ${load()}`);
    const cpu = process.cpuUsage(cpuBefore);
    scaling = await everyThing(port, [...smaller, seeded], target);
    const nodeMs = (cpu.user + cpu.system) / 1000 / all.length;
    const serverMs = target.serverCpuMs ? (target.serverCpuMs() - serverBefore) / all.length : 0;
    lines.push(
      `CPU per search (independent of the machine's load): ${ms(nodeMs)} ms in Node (server and client)` +
        (target.serverCpuMs ? ` + ${ms(serverMs)} ms in PostgreSQL = ${ms(nodeMs + serverMs)} ms` : ''),
    );
  } finally {
    await app.close();
  }
  all.sort((a, b) => a - b);
  lines.push(
    `\n**All ${all.length} searches: p50 ${ms(percentile(all, 50))} ms, p99 ${ms(percentile(all, 99))} ms, max ${ms(all.at(-1) ?? NaN)} ms** ` +
      `(sequential HTTP requests on one keep-alive connection, limit=20)\n`,
  );
  const rows = list.map(([label, q]) => {
    const sorted = samples.get(label)!.sort((a, b) => a - b);
    return [label, q.length > 40 ? `${q.slice(0, 37)}…` : q, String(hits.get(label) ?? 0), ms(percentile(sorted, 50)), ms(percentile(sorted, 99))];
  });
  lines.push(table(['query', 'q', 'results', 'p50 ms', 'p99 ms'], rows));
  lines.push(...scaling);
  return lines;
}

// ---------------------------------------------------------------- one large write

const WRITE_ROUNDS = Number(process.env.BENCH_WRITE_ROUNDS ?? 3);
const LARGE_TEXT_BYTES = 256 * 1024;

/** A rich-text value of one paragraph of distinct made-up words, `bytes` long in JSON, different for each seed. */
function distinctWordsText(bytes: number, seed: number): { json: string; words: number } {
  const next = prng(seed);
  const seen = new Set<string>();
  const words: string[] = [];
  const overhead = JSON.stringify([{ type: 'paragraph', children: [{ text: '' }] }]).length;
  let size = overhead;
  for (;;) {
    const length = 4 + Math.floor(next() * 7);
    let word = '';
    for (let i = 0; i < length; i++) word += String.fromCharCode(97 + Math.floor(next() * 26));
    if (seen.has(word)) continue;
    if (size + word.length + 1 > bytes) break;
    seen.add(word);
    words.push(word);
    size += word.length + 1;
  }
  return { json: JSON.stringify([{ type: 'paragraph', children: [{ text: words.join(' ') }] }]), words: words.length };
}

async function databaseBytes(target: Target, dir: string | undefined): Promise<number> {
  const { database } = target;
  if (database.dialect === 'postgres') {
    await sql`checkpoint`.execute(database.kysely).catch(() => undefined);
    const result = await sql<{ n: string }>`select pg_database_size(current_database()) as n`.execute(database.kysely);
    return Number(result.rows[0]!.n);
  }
  await sql`pragma wal_checkpoint(truncate)`.execute(database.kysely);
  let total = 0;
  for (const file of fs.readdirSync(dir!)) total += fs.statSync(path.join(dir!, file)).size;
  return total;
}

async function indexRows(database: Database, campaignId: number): Promise<number> {
  let rows = 0;
  for (const table of ['search_documents', 'search_postings', 'search_terms'] as const) {
    const row = await database.kysely.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('campaign_id', '=', campaignId).executeTakeFirstOrThrow();
    rows += Number(row.n);
  }
  return rows;
}

async function runLargeWrites(target: Target, dir: string | undefined): Promise<string[]> {
  const { database } = target;
  const lines: string[] = [`\n## ${target.label}\n`];
  await migrateToLatest(database);
  const now = new Date().toISOString();
  const user = await createUser(database.kysely, { email: `bench-write-${Date.now()}@example.test`, name: 'Bench', passwordHash: 'x', now });
  const rows: string[][] = [];
  for (let round = 0; round < WRITE_ROUNDS; round++) {
    const large = await createCampaign(database, user.id, { name: `Large ${round}`, description: null });
    const other = await createCampaign(database, user.id, { name: `Other ${round}`, description: null });
    const typeOf = async (campaignId: number) =>
      (await database.kysely.selectFrom('thing_types').select('id').where('campaign_id', '=', campaignId).orderBy('id').executeTakeFirstOrThrow()).id;
    const [largeType, otherType] = [await typeOf(large.id), await typeOf(other.id)];
    const first = distinctWordsText(LARGE_TEXT_BYTES, 1000 + round * 2);
    const second = distinctWordsText(LARGE_TEXT_BYTES, 1001 + round * 2);
    const bytesBefore = await databaseBytes(target, dir);

    // The large write alone: its time and the CPU it took.
    const cpu = process.cpuUsage();
    const serverCpu = target.serverCpuMs?.() ?? 0;
    let t = performance.now();
    // The write and its indexing after the commit (db/indexes/search-queue.ts).
    const thing = await createThing(database, large.id, { name: 'Large', typeId: largeType, description: first.json });
    await indexCampaignPending(database, large.id);
    const createMs = performance.now() - t;
    const used = process.cpuUsage(cpu);
    const nodeCpuMs = (used.user + used.system) / 1000;
    const serverCpuMs = target.serverCpuMs ? target.serverCpuMs() - serverCpu : 0;
    const bytesAdded = (await databaseBytes(target, dir)) - bytesBefore;
    const rowsPerWord = (await indexRows(database, large.id)) / first.words;

    // Its replacement by another such text, while small writes to another campaign are sent one
    // after another: how long the longest of them took.
    t = performance.now();
    let replaced = false;
    const replacement = updateThing(database, large.id, thing.slug, { description: second.json })
      .then(() => indexCampaignPending(database, large.id))
      .then(() => {
      replaced = true;
      return performance.now() - t;
    });
    const smallWaits: number[] = [];
    const small = JSON.stringify([{ type: 'paragraph', children: [{ text: 'a few words' }] }]);
    while (!replaced) {
      const start = performance.now();
      await createThing(database, other.id, { name: 'Small', typeId: otherType, description: small });
      smallWaits.push(performance.now() - start);
    }
    const updateMs = await replacement;
    const smallMs = Math.max(...smallWaits);
    rows.push([
      String(round + 1),
      first.words.toLocaleString('en-US'),
      ms(createMs),
      ms(nodeCpuMs) + (target.serverCpuMs ? ` + ${ms(serverCpuMs)}` : ''),
      ms(updateMs),
      `${ms(smallMs)} (${smallWaits.length})`,
      `${(bytesAdded / 1024).toFixed(0)} KiB (${(bytesAdded / first.json.length).toFixed(1)}×)`,
      rowsPerWord.toFixed(2),
    ]);
  }
  lines.push(`machine: ${load()}`);
  lines.push(
    table(['round', 'words', 'create ms', 'CPU ms (Node' + (target.serverCpuMs ? ' + PostgreSQL)' : ')'), 'replace ms', 'meanwhile, another campaign: longest write ms (writes)', 'database grew', 'index rows per word'], rows),
  );
  return lines;
}

async function mainLargeWrites(): Promise<void> {
  console.log(`# One large write: a 256 KiB description of distinct words, ${WRITE_ROUNDS} rounds`);
  console.log(`machine at start: ${load()}; Node ${process.version}`);
  for (const dialect of DIALECTS) {
    if (dialect !== 'sqlite' && dialect !== 'postgres') throw new Error(`BENCH_DIALECTS: unknown dialect ${dialect}`);
    const target = dialect === 'sqlite' ? sqliteTarget() : await postgresTarget();
    try {
      console.log((await runLargeWrites(target, target.dir)).join('\n'));
    } finally {
      await target.close();
    }
  }
}

async function main(): Promise<void> {
  if (process.argv.includes('--write')) return mainLargeWrites();
  console.log(`# Search benchmark\n\n${THINGS.toLocaleString('en-US')} things, ${ARCS} arcs, 20 queries × ${ROUNDS} rounds (after ${WARMUP_ROUNDS} warm-up rounds)`);
  console.log(`machine at start: ${load()}; Node ${process.version}`);
  for (const dialect of DIALECTS) {
    if (dialect !== 'sqlite' && dialect !== 'postgres') throw new Error(`BENCH_DIALECTS: unknown dialect ${dialect}`);
    const target = dialect === 'sqlite' ? sqliteTarget() : await postgresTarget();
    try {
      console.log((await runDialect(target)).join('\n'));
    } finally {
      await target.close();
    }
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
