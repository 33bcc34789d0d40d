// Export throughput and memory: `npm run bench:export`.
//
// Seeds one SQLite campaign of BENCH_THINGS things (10,000) with a few paragraphs each and mentions
// between them, 300 arcs linked to things, and BENCH_IMAGE_MB of uploaded images (1024: a thousand
// images of about 1 MiB, files of the local image host), then downloads the three export formats
// over HTTP from the real app and prints, for each, its size, time, throughput and the process's
// peak resident memory while it ran (sampled every 20 ms; the client only counts the bytes).
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
import { description, thingName } from './lib/content.js';

const THINGS = Number(process.env.BENCH_THINGS ?? 10_000);
const IMAGE_MB = Number(process.env.BENCH_IMAGE_MB ?? 1024);
const ARCS = 300;
const IMAGE_BYTES = 1024 * 1024;

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-bench-export-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'warn', PORT: '0' });
  const database = createDatabase({ dataDir });
  try {
    await migrateToLatest(database);
    const db = database.kysely;
    const now = nowIso();
    const user = await createUser(db, { email: 'bench@example.test', name: 'Bench', passwordHash: 'x', now });
    const token = newSecret('lf_');
    await createToken(db, { userId: user.id, name: 'bench', secretHash: hashSecret(token), now, expiresAt: null });
    const campaign = await createCampaign(database, user.id, { name: 'Export Bench', description: null });
    const type = await db.selectFrom('thing_types').select('id').where('campaign_id', '=', campaign.id).orderBy('id').executeTakeFirstOrThrow();

    const seedStarted = Date.now();
    for (let start = 0; start < THINGS; start += 500) {
      await db
        .insertInto('things')
        .values(
          Array.from({ length: Math.min(500, THINGS - start) }, (_, k) => {
            const i = start + k;
            const text = description(i);
            text.push({ type: 'paragraph', children: [{ text: `See [[thing#thing-${(i * 7) % THINGS}]].` }] });
            return { campaign_id: campaign.id, type_id: type.id, slug: `thing-${i}`, name: `${thingName(i % 5, i)} ${i}`, description: JSON.stringify(text), version: 1, created_at: now, updated_at: now };
          }),
        )
        .execute();
    }
    for (let i = 0; i < ARCS; i++) {
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
    const images = Math.round(IMAGE_MB * 1024 * 1024 / IMAGE_BYTES);
    const bytes = randomBytes(IMAGE_BYTES);
    for (let start = 0; start < images; start += 200) {
      const rows = [];
      for (let i = start; i < Math.min(images, start + 200); i++) {
        const imageId = randomBytes(16).toString('hex');
        fs.writeFileSync(path.join(imageDir, `${imageId}.png`), bytes);
        rows.push({ campaign_id: campaign.id, user_id: user.id, image_id: imageId, label: `Map ${i}`, storage_key: `${campaign.id}/${imageId}.png`, url: `${config.publicBaseUrl}/images/${campaign.id}/${imageId}.png`, content_type: 'image/png', byte_size: IMAGE_BYTES, created_at: now });
      }
      await db.insertInto('assets').values(rows).execute();
    }
    console.log(`seeded ${THINGS} things, ${ARCS} arcs and ${images} images (${mb(images * IMAGE_BYTES)} MiB) in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);

    const app = await buildApp(config, { database, logger: false });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address() as { port: number };
    try {
      for (const format of ['json', 'archive', 'markdown']) {
        global.gc?.();
        const baseline = process.memoryUsage().rss;
        let peak = baseline;
        let heapPeak = process.memoryUsage().heapUsed;
        const heapBase = heapPeak;
        const sampler = setInterval(() => {
          const usage = process.memoryUsage();
          peak = Math.max(peak, usage.rss);
          heapPeak = Math.max(heapPeak, usage.heapUsed + usage.external);
        }, 20);
        const started = Date.now();
        const received = await new Promise<number>((resolve, reject) => {
          http
            .get({ host: '127.0.0.1', port: address.port, path: `/api/campaigns/${campaign.slug}/export?format=${format}`, headers: { authorization: `Bearer ${token}` } }, (res) => {
              if (res.statusCode !== 200) reject(new Error(`export ${format}: ${res.statusCode}`));
              let count = 0;
              res.on('data', (chunk: Buffer) => (count += chunk.length));
              res.on('end', () => resolve(count));
              res.on('error', reject);
            })
            .on('error', reject);
        });
        clearInterval(sampler);
        const seconds = (Date.now() - started) / 1000;
        console.log(
          `export ${format.padEnd(8)} ${mb(received).padStart(8)} MiB in ${seconds.toFixed(1).padStart(5)} s = ${mb(received / seconds).padStart(6)} MiB/s; ` +
            `RSS ${mb(baseline)} MiB before, peak ${mb(peak)} MiB (+${mb(peak - baseline)} MiB); JS heap and buffers +${mb(heapPeak - heapBase)} MiB at most`,
        );
      }
    } finally {
      await app.close();
    }
  } finally {
    await database.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
