import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import type { LocalImageHost } from '../../src/images/local.js';
import { ImportBudget, ImportCancelled } from '../../src/portability/budget.js';
import { importCampaign } from '../../src/portability/import.js';
import { sweepUnfinishedImports, UNFINISHED_IMPORT_GRACE_MS } from '../../src/portability/write-plan.js';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { premiumUser } from '../fixtures/image-app.js';
import { png } from '../fixtures/images.js';
import { dialect } from '../support/test-db.js';
import { minimalDoc, multipartFile, zipOf } from '../support/zip.js';

// How an import writes (portability/write-plan.ts): statements in sets, not one per record; the
// campaign invisible until it is whole; a failure after images were placed leaves nothing; an
// import whose process died is swept, images included.

let ctx: TestContext;
let owner: TestUser;
const at = '2026-01-01T00:00:00.000Z';

beforeAll(async () => {
  ctx = await createTestContext({ IMPORT_MAX_BYTES: String(16 * 1024 * 1024) });
  owner = await premiumUser(ctx);
});
// The archives written for the tests, removed at the end.
const archiveDirs: string[] = [];
afterAll(async () => {
  await ctx.close();
  for (const dir of archiveDirs) await fs.rm(dir, { recursive: true, force: true });
});

/**
 * A campaign document of `n` things, each mentioning the next by id and linking to the previous by
 * a property, `n / 10` arcs (each the parent of the next, each linked to a thing), and images.
 */
function documentOf(n: number, slug: string, images = 0): string {
  const things = Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    slug: `thing-${i}`,
    typeId: 1,
    name: `Thing ${i}`,
    visibility: i % 7 === 0 ? 'gm' : 'all',
    description: [
      { type: 'paragraph', children: [{ text: `The goblin number ${i} owes ` }, { type: 'mention', targetType: 'thing', targetId: ((i + 1) % n) + 1, children: [{ text: '' }] }, { text: ' a lantern.' }] },
      ...(images > 0 ? [{ type: 'image', assetId: (i % images) + 1, url: `https://old.example/${(i % images) + 1}.png`, children: [{ text: '' }] }] : []),
    ],
    properties: [{ key: 'Rival', value: { targetType: 'thing', targetId: ((i + n - 1) % n) + 1 }, gmOnly: false }],
    tags: ['goblin'],
    aliases: [`Gob ${i}`],
    createdAt: at,
    updatedAt: at,
  }));
  const arcCount = Math.max(1, Math.floor(n / 10));
  const arcs = Array.from({ length: arcCount }, (_, i) => ({
    id: i + 1,
    slug: `arc-${i}`,
    name: `Arc ${i}`,
    // Parents come after their children in the file: the writer orders them.
    parentArcId: i + 2 <= arcCount ? i + 2 : null,
    hook: [{ type: 'paragraph', children: [{ text: 'Find ' }, { type: 'mention', targetType: 'thing', targetId: i + 1, children: [{ text: '' }] }] }],
    createdAt: at,
    updatedAt: at,
  }));
  const links = arcs.map((a, i) => ({ thingId: i + 1, arcId: a.id, createdAt: at }));
  const assets = Array.from({ length: images }, (_, i) => ({ id: i + 1, label: `Map ${i + 1}`, url: `https://old.example/${i + 1}.png`, file: `images/${i + 1}.png`, createdAt: at }));
  return minimalDoc({ campaign: { id: 1, slug, name: `Imported ${slug}`, createdAt: at, updatedAt: at }, things, arcs, links, assets });
}

async function archiveFile(n: number, slug: string, images: number): Promise<string> {
  const bytes = await zipOf([{ name: 'campaign.json', data: documentOf(n, slug, images) }, ...Array.from({ length: images }, (_, i) => ({ name: `images/${i + 1}.png`, data: png([i, i, i, 255]) }))]);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'loreforge-import-writes-'));
  archiveDirs.push(dir);
  const file = path.join(dir, `${slug}.zip`);
  await fs.writeFile(file, bytes);
  return file;
}

const host = () => ctx.app.imageHost as LocalImageHost;

async function state() {
  const db = ctx.database.kysely;
  const count = async (table: 'campaigns' | 'things' | 'arcs' | 'assets' | 'thing_types' | 'arc_things' | 'campaign_imports' | 'image_removals' | 'search_documents' | 'mentions') =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const files = (await fs.readdir(host().root, { recursive: true, withFileTypes: true }).catch(() => [])).filter((e) => e.isFile() && !e.parentPath.startsWith(host().tempDir));
  return {
    campaigns: await count('campaigns'),
    things: await count('things'),
    arcs: await count('arcs'),
    assets: await count('assets'),
    types: await count('thing_types'),
    links: await count('arc_things'),
    marks: await count('campaign_imports'),
    removals: await count('image_removals'),
    documents: await count('search_documents'),
    mentions: await count('mentions'),
    images: files.length,
  };
}

/** The test database, with `before(call)` run before each write transaction an import opens (call counts from 1). */
function watched(before: (call: number) => Promise<void>): Database {
  let calls = 0;
  return {
    ...ctx.database,
    write: async (fn) => {
      calls += 1;
      await before(calls);
      return ctx.database.write(fn);
    },
  };
}

function importArchive(database: Database, file: string, budget?: ImportBudget) {
  return importCampaign(database, ctx.app.imageHost, { file, kind: 'zip', fileName: path.basename(file), label: path.basename(file) }, { ownerId: owner.id, mayStoreImages: true }, 1024 * 1024, budget);
}

describe(`import writes on ${dialect}`, () => {
  it('writes N records in O(N / slice) statements, not one per record', async () => {
    const statementsFor = async (n: number) => {
      ctx.queries.length = 0;
      const res = await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...owner.headers, 'content-type': 'application/json' }, payload: documentOf(n, `counted-${n}`) });
      expect(res.statusCode, res.body).toBe(201);
      expect(json(res).import).toMatchObject({ things: n, arcs: n / 10, links: n / 10 });
      return ctx.queries.length;
    };
    const small = await statementsFor(50);
    const large = await statementsFor(500);
    // Rows go in multi-row statements (one per table up to 1,000 rows); the indexes in slices of
    // at most 25 records, each a short transaction of about seven statements (its mark, documents,
    // postings, words, mentions, begin and commit). 450 more records with mentions, link properties
    // and parents (formerly an UPDATE each) add eighteen index slices.
    expect(large - small).toBeLessThanOrEqual(((500 - 50) / 25) * 8);
    expect(large).toBeLessThan(500 / 2);
  });

  it('keeps the campaign out of sight until it is whole: no list, no page, no search shows it', async () => {
    const file = await archiveFile(120, 'unseen', 2);
    const seen: number[] = [];
    const database = watched(async (call) => {
      // From the third transaction on the campaign's rows exist, but it has no member yet.
      if (call < 3) return;
      const list = json(await ctx.app.inject({ method: 'GET', url: '/api/campaigns', headers: owner.headers }));
      seen.push((list as { slug: string }[]).filter((c) => c.slug === 'unseen').length);
      expect((await ctx.app.inject({ method: 'GET', url: '/api/campaigns/unseen', headers: owner.headers })).statusCode).toBe(404);
    });
    const { campaign } = await importArchive(database, file);
    expect(seen.length).toBeGreaterThan(3);
    expect(seen.every((n) => n === 0)).toBe(true);
    // Whole once it appears: its index answers searches and backlinks.
    const search = json(await ctx.app.inject({ method: 'GET', url: `/api/campaigns/${campaign.slug}/search?q=lantern`, headers: owner.headers }));
    expect(search.results.length).toBeGreaterThan(0);
    const backlinks = json(await ctx.app.inject({ method: 'GET', url: `/api/campaigns/${campaign.slug}/things/thing-1/backlinks`, headers: owner.headers }));
    expect((backlinks as { slug: string; fields: string[] }[]).map((b) => [b.slug, b.fields])).toEqual(
      expect.arrayContaining([
        ['thing-0', ['description']],
        ['thing-2', ['properties.Rival']],
        ['arc-1', ['hook']],
      ]),
    );
  });

  it('a failure after the images were placed (the client gone while the index is written) leaves nothing: no rows, no images', async () => {
    const file = await archiveFile(150, 'abandoned', 3);
    const before = await state();
    const controller = new AbortController();
    const budget = new ImportBudget(Number.POSITIVE_INFINITY, controller.signal);
    let placedSeen = 0;
    budget.onProgress = (progress) => {
      // Past the records (150 things, 15 arcs, 15 links, 3 assets, 1 type): the index is being written.
      if (progress.done > 190 && !controller.signal.aborted) controller.abort();
    };
    const database = watched(async (call) => {
      if (call === 4) placedSeen = (await state()).images - before.images;
    });
    await expect(importArchive(database, file, budget)).rejects.toBeInstanceOf(ImportCancelled);
    // The images had been placed at the host before the records were written, each with its variant
    // (a small image: one, at its full width; images/variants.ts).
    expect(placedSeen).toBe(6);
    expect(await state()).toEqual(before);
  });

  it('a campaign whose import died midway is invisible, left alone while fresh, and swept with its images once stale', async () => {
    const file = await archiveFile(150, 'crashed', 2);
    const before = await state();
    // The process "dies" at the sixth transaction: that one and every later write fail (its own clean-up included).
    const database = watched((call) => (call >= 6 ? Promise.reject(new Error('the process died')) : Promise.resolve()));
    await expect(importArchive(database, file)).rejects.toThrow('the process died');
    const left = await state();
    expect(left.campaigns).toBe(before.campaigns + 1);
    expect(left.marks).toBe(before.marks + 1);
    // Two images, each with its one variant.
    expect(left.images).toBe(before.images + 4);
    const list = json<{ slug: string }[]>(await ctx.app.inject({ method: 'GET', url: '/api/campaigns', headers: owner.headers }));
    expect(list.map((c) => c.slug)).not.toContain('crashed');
    expect((await ctx.app.inject({ method: 'GET', url: '/api/campaigns/crashed', headers: owner.headers })).statusCode).toBe(404);

    // A live import renews its mark with every transaction: a fresh one is not swept.
    expect(await sweepUnfinishedImports(ctx.database, ctx.app.imageHost)).toBe(0);
    expect(await state()).toEqual(left);
    const later = new Date(Date.now() + UNFINISHED_IMPORT_GRACE_MS + 60_000);
    expect(await sweepUnfinishedImports(ctx.database, ctx.app.imageHost, later)).toBe(1);
    expect(await state()).toEqual(before);
    // The slug is free again.
    const res = await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...owner.headers, 'content-type': 'application/json' }, payload: documentOf(10, 'crashed') });
    expect(json(res).slug).toBe('crashed');
  });

  it('a vault imports through the same writer: a note per thing, its links as mentions', async () => {
    const vault = await zipOf([
      { name: 'NPCs/Nobles/Lady Vess.md', data: '---\ntags: [noble]\n---\nShe owes [[Brother Amon|the monk]] a favour.\n' },
      { name: 'NPCs/Brother Amon.md', data: 'Keeper of the ==lantern==. See [Lady Vess](Nobles/Lady%20Vess.md).\n' },
      { name: 'Maps/harbour.png', data: png() },
      { name: 'Locations/Harbour.md', data: '![[harbour.png]]\n' },
    ]);
    const form = multipartFile(vault, 'Small vault.zip');
    const res = await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...owner.headers, ...form.headers }, payload: form.payload });
    expect(res.statusCode, res.body).toBe(201);
    const slug = json(res).slug as string;
    const amon = json<{ slug: string }[]>(await ctx.app.inject({ method: 'GET', url: `/api/campaigns/${slug}/things/brother-amon/backlinks`, headers: owner.headers }));
    expect(amon.map((b) => b.slug)).toEqual(['lady-vess']);
  });
});
