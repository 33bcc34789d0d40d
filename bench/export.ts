// Export and import throughput and memory: `npm run bench:export`.
//
// Seeds one SQLite campaign of BENCH_THINGS things (10,000) with a few paragraphs each and mentions
// between them, 300 arcs linked to things, and BENCH_IMAGE_MB of uploaded images (1024: a thousand
// images of about 1 MiB, files of the local image host; BENCH_PROPERTIES properties per thing),
// then downloads the three export formats
// over HTTP from the real app, each to a file, and uploads each file back to POST
// /api/campaigns/import (streamed from disk as a multipart form). For each it prints the size, time,
// throughput and the process's peak resident memory while it ran (sampled every 20 ms).
//
// Then it imports a generated Obsidian vault of BENCH_VAULT_NOTES notes (6,000: bench/lib/vault.ts)
// while another client keeps asking for GET /api/health and a small write in another campaign,
// and prints the time, things per second, peak RSS and how long those requests waited.
// BENCH_VAULT_BAD_YAML=1 gives one note in a hundred front matter strict YAML refuses (lenient
// vaults import it with a warning). BENCH_PART=vault runs only that part (no export seeding); BENCH_DATABASE=postgres runs on
// PostgreSQL (TEST_DATABASE_URL's server, or an embedded one, as the test suite's).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createCampaign } from '../src/db/repositories/campaigns.js';
import { createToken } from '../src/db/repositories/credentials.js';
import { createUser } from '../src/db/repositories/users.js';
import { hashSecret, newSecret } from '../src/domain/secrets.js';
import { nowIso } from '../src/domain/time.js';
import { structureColumns, type Property } from '../src/domain/properties.js';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { png } from '../test/fixtures/images.js';
import { description, thingName } from './lib/content.js';
import { formatWaits, probe, writeBenchVault } from './lib/vault-import.js';
import { startScriptPostgres, type ScriptPostgres } from '../test/support/script-postgres.js';

const THINGS = Number(process.env.BENCH_THINGS ?? 10_000);
const IMAGE_MB = Number(process.env.BENCH_IMAGE_MB ?? 1024);
/** Properties per thing (text, number, boolean, list, a link to another thing), with two tags and an alias; 0 by default. */
const PROPERTIES = Number(process.env.BENCH_PROPERTIES ?? 0);
const ARCS = 300;
const VAULT_NOTES = Number(process.env.BENCH_VAULT_NOTES ?? 6_000);
const PART = process.env.BENCH_PART ?? 'all';
const ON_POSTGRES = process.env.BENCH_DATABASE === 'postgres';
const IMAGE_BYTES = 1024 * 1024;

/** A thing's properties: every kind of value, one of them a link to another thing. */
function benchProperties(i: number, firstThingId: number): Property[] {
  const kinds: Property['value'][] = [`value ${i}`, i, i % 2 === 0, ['a', 'b', i], { targetType: 'thing', targetId: firstThingId + ((i * 13) % THINGS) }];
  return Array.from({ length: PROPERTIES }, (_, k) => ({ key: `Property ${k}`, value: kinds[k % kinds.length]!, gmOnly: k % 7 === 6 }));
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-bench-export-'));
  // Imports as large as the exports, and as long as they take.
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'warn', PORT: '0', IMPORT_MAX_BYTES: String(8 * 1024 ** 3), REQUEST_TIMEOUT_MS: '600000' });
  let postgres: ScriptPostgres | undefined;
  if (ON_POSTGRES) postgres = await startScriptPostgres();
  const database = createDatabase({ dataDir, url: postgres ? await postgres.newDatabase() : undefined });
  console.log(`database: ${database.dialect}`);
  try {
    await migrateToLatest(database);
    const db = database.kysely;
    const now = nowIso();
    const user = await createUser(db, { email: 'bench@example.test', name: 'Bench', passwordHash: 'x', now });
    // Premium: an import stores the archive's images as uploads.
    await db.updateTable('users').set({ premium_until: '2999-01-01T00:00:00.000Z' }).where('id', '=', user.id).execute();
    const token = newSecret('lf_');
    await createToken(db, { userId: user.id, name: 'bench', secretHash: hashSecret(token), now, expiresAt: null });
    const campaign = await createCampaign(database, user.id, { name: 'Export Bench', description: null });
    const type = await db.selectFrom('thing_types').select('id').where('campaign_id', '=', campaign.id).orderBy('id').executeTakeFirstOrThrow();

    const seedStarted = Date.now();
    const things = PART === 'vault' ? 0 : THINGS;
    const arcs = PART === 'vault' ? 0 : ARCS;
    // Things get ids in order from the next free one: links between them can name them before they exist.
    const firstThingId = Number((await db.selectFrom('things').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst())?.id ?? 0) + 1;
    for (let start = 0; start < things; start += 500) {
      await db
        .insertInto('things')
        .values(
          Array.from({ length: Math.min(500, things - start) }, (_, k) => {
            const i = start + k;
            const text = description(i);
            text.push({ type: 'paragraph', children: [{ text: `See [[thing#thing-${(i * 7) % THINGS}]].` }] });
            return {
              campaign_id: campaign.id,
              type_id: type.id,
              slug: `thing-${i}`,
              name: `${thingName(i % 5, i)} ${i}`,
              description: JSON.stringify(text),
              ...(PROPERTIES > 0 ? structureColumns({ properties: benchProperties(i, firstThingId), tags: ['bench', `group ${i % 10}`], aliases: [`Alias ${i}`] }) : {}),
              version: 1,
              created_at: now,
              updated_at: now,
            };
          }),
        )
        .execute();
    }
    for (let i = 0; i < arcs; i++) {
      const arc = await db
        .insertInto('arcs')
        .values({ campaign_id: campaign.id, parent_arc_id: null, slug: `arc-${i}`, name: `Arc ${i}`, hook: JSON.stringify(description(i)), protagonist: null, antagonist: null, problem: null, key: null, outcome: null, notes: null, version: 1, created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const things = await db.selectFrom('things').select('id').where('campaign_id', '=', campaign.id).where('slug', 'in', [`thing-${i}`, `thing-${i + ARCS}`, `thing-${i + 2 * ARCS}`]).execute();
      if (things.length > 0) await db.insertInto('arc_things').values(things.map((t) => ({ campaign_id: campaign.id, arc_id: arc.id, thing_id: t.id, created_at: now }))).execute();
    }
    // Images as the local host stores them: DATA_DIR/images/<campaign>/<imageId>.png.
    const imageDir = path.join(dataDir, 'images', String(campaign.id));
    fs.mkdirSync(imageDir, { recursive: true });
    const images = PART === 'vault' ? 0 : Math.round(IMAGE_MB * 1024 * 1024 / IMAGE_BYTES);
    // A PNG's first bytes (what the image check reads), then random bytes to the size.
    const head = png();
    const bytes = Buffer.concat([head, randomBytes(IMAGE_BYTES - head.length)]);
    for (let start = 0; start < images; start += 200) {
      const rows = [];
      for (let i = start; i < Math.min(images, start + 200); i++) {
        const imageId = randomBytes(16).toString('hex');
        fs.writeFileSync(path.join(imageDir, `${imageId}.png`), bytes);
        rows.push({ campaign_id: campaign.id, user_id: user.id, image_id: imageId, label: `Map ${i}`, storage_key: `${campaign.id}/${imageId}.png`, url: `${config.publicBaseUrl}/images/${campaign.id}/${imageId}.png`, content_type: 'image/png', byte_size: IMAGE_BYTES, created_at: now });
      }
      await db.insertInto('assets').values(rows).execute();
    }
    console.log(`seeded ${things} things, ${arcs} arcs and ${images} images (${mb(images * IMAGE_BYTES)} MiB) in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);

    const app = await buildApp(config, { database, logger: false });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address() as { port: number };
    const files = new Map<string, string>();
    try {
      for (const format of PART === 'vault' ? [] : ['json', 'archive', 'markdown']) {
        const file = path.join(dataDir, `export.${format}`);
        files.set(format, file);
        const { seconds, line } = await measured(async () => {
          await new Promise<void>((resolve, reject) => {
            http
              .get({ host: '127.0.0.1', port: address.port, path: `/api/campaigns/${campaign.slug}/export?format=${format}`, headers: { authorization: `Bearer ${token}` } }, (res) => {
                if (res.statusCode !== 200) reject(new Error(`export ${format}: ${res.statusCode}`));
                pipeline(res, fs.createWriteStream(file)).then(resolve, reject);
              })
              .on('error', reject);
          });
        });
        const size = fs.statSync(file).size;
        console.log(`export ${format.padEnd(8)} ${mb(size).padStart(8)} MiB in ${seconds.toFixed(1).padStart(5)} s = ${mb(size / seconds).padStart(6)} MiB/s; ${line}`);
      }
      for (const format of PART === 'vault' ? [] : ['json', 'archive', 'markdown']) {
        const file = files.get(format)!;
        const size = fs.statSync(file).size;
        let answer = '';
        const { seconds, line } = await measured(async () => {
          answer = await upload(address.port, token, file);
        });
        const report = (JSON.parse(answer) as { import: { things: number; arcs: number; assets: number } }).import;
        console.log(
          `import ${format.padEnd(8)} ${mb(size).padStart(8)} MiB in ${seconds.toFixed(1).padStart(5)} s = ${mb(size / seconds).padStart(6)} MiB/s, ` +
            `${Math.round(report.things / seconds)} things/s (${report.things} things, ${report.arcs} arcs, ${report.assets} images); ${line}`,
        );
      }
      if (PART !== 'export') {
        const vault = await writeBenchVault(dataDir, VAULT_NOTES, png(), process.env.BENCH_VAULT_BAD_YAML === '1');
        const other = await createCampaign(database, user.id, { name: 'Probe Campaign', description: null });
        const otherType = await db.selectFrom('thing_types').select('id').where('campaign_id', '=', other.id).orderBy('id').executeTakeFirstOrThrow();
        // Warm up the routes the probe uses, so the first request's compile time is not counted.
        await probe(address.port, token, { slug: other.slug, typeId: otherType.id }).stop();
        const idle = probe(address.port, token, { slug: other.slug, typeId: otherType.id });
        await new Promise((resolve) => setTimeout(resolve, 2000));
        const before = await idle.stop();
        const waits = probe(address.port, token, { slug: other.slug, typeId: otherType.id });
        let answer = '';
        const { seconds, line } = await measured(async () => {
          answer = await upload(address.port, token, vault);
        });
        const during = await waits.stop();
        const report = (JSON.parse(answer) as { import: { things: number; thingTypes: number; assets: number; warnings: unknown[] } }).import;
        console.log(
          `import vault    ${mb(fs.statSync(vault).size).padStart(8)} MiB in ${seconds.toFixed(1).padStart(5)} s, ${Math.round(report.things / seconds)} things/s ` +
            `(${report.things} things in ${report.thingTypes} types, ${report.assets} images, ${report.warnings.length} warnings); ${line}; maxRSS of the process ${mb(process.resourceUsage().maxRSS * 1024)} MiB`,
        );
        console.log(`  other requests, idle:          health ${formatWaits(before.health)}; small write ${formatWaits(before.write)}`);
        console.log(`  other requests, during import: health ${formatWaits(during.health)}; small write ${formatWaits(during.write)}`);
      }
    } finally {
      await app.close();
    }
  } finally {
    await database.close();
    await postgres?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Runs `work` while sampling the process's memory every 20 ms. */
async function measured(work: () => Promise<void>): Promise<{ seconds: number; line: string }> {
  global.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const heapBase = process.memoryUsage().heapUsed;
  let heapPeak = heapBase;
  const sampler = setInterval(() => {
    const usage = process.memoryUsage();
    peak = Math.max(peak, usage.rss);
    heapPeak = Math.max(heapPeak, usage.heapUsed + usage.external);
  }, 20);
  const started = Date.now();
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  const seconds = (Date.now() - started) / 1000;
  return { seconds, line: `RSS ${mb(baseline)} MiB before, peak ${mb(peak)} MiB (+${mb(peak - baseline)} MiB); JS heap and buffers +${mb(heapPeak - heapBase)} MiB at most` };
}

/** POSTs the file to the import route as a multipart form, streamed from disk; resolves to the 201 answer's body. */
function upload(port: number, token: string, file: string): Promise<string> {
  const boundary = `----bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${path.basename(file)}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = head.length + fs.statSync(file).size + tail.length;
  async function* body() {
    yield head;
    yield* fs.createReadStream(file, { highWaterMark: 1024 * 1024 });
    yield tail;
  }
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, method: 'POST', path: '/api/campaigns/import', headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': length } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => (res.statusCode === 201 ? resolve(text) : reject(new Error(`import: ${res.statusCode} ${text}`))));
        res.on('error', reject);
      },
    );
    request.on('error', reject);
    Readable.from(body()).pipe(request);
  });
}

await main();
