import fs from 'node:fs/promises';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import os from 'node:os';
import { ImageHostError, type ImageRef, type StagedImage, type StoredImage } from '../../src/images/image-host.js';
import { LocalImageHost } from '../../src/images/local.js';
import { sweepImportSpools } from '../../src/portability/import.js';
import { buildCheckedApp, createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { premiumUser } from '../fixtures/image-app.js';
import { problemOf, sendAs } from '../support/fixtures.js';
import { ODD_TEXT } from '../support/fuzz/hostile.js';
import { dialect } from '../support/test-db.js';
import { minimalDoc, multipartFile, rawZip, unzip, zipOf, type ZipInput } from '../support/zip.js';
import { png } from '../fixtures/images.js';
import { cell, everyElement, mention, p, t } from '../fixtures/rich-text.js';

// Import (CONTRACT "Portability"): the archive round trip, the json document, our own vault and a
// vault made elsewhere, and every hostile archive refused with nothing created.

const IMPORT_MAX_BYTES = 16 * 1024 * 1024;
let ctx: TestContext;
let owner: TestUser;
let free: TestUser;

beforeAll(async () => {
  ctx = await createTestContext({ IMPORT_MAX_BYTES: String(IMPORT_MAX_BYTES) });
  owner = await premiumUser(ctx);
  free = await ctx.createUser();
});
afterAll(async () => {
  await ctx.close();
});

const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, user: TestUser = owner) => sendAs(ctx.app, user, method, url, payload);

function importFile(bytes: Buffer, fileName: string, user: TestUser = owner) {
  const form = multipartFile(bytes, fileName);
  return ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...user.headers, ...form.headers }, payload: form.payload });
}

interface Imported {
  slug: string;
  name: string;
  role: string;
  import: { format: string; thingTypes: number; things: number; arcs: number; links: number; assets: number; warnings: { entry: string; problem: string }[] };
}


/** Names from the odd-text list that the API takes as names. */
const ODD_NAMES = ODD_TEXT.filter((text) => text.trim() !== '' && !text.includes('\u0000') && !/[\ud800-\udfff]/.test(text.replace(/[\ud800-\udbff][\udc00-\udfff]/g, '')));

/** A campaign with every element of the vocabulary, odd Unicode, mentions, nested arcs, links, secrets, GM-only records and an uploaded image. */
async function seedRich(): Promise<{ slug: string; base: string; imageBytes: Buffer }> {
  const campaign = json<{ slug: string }>(await send('POST', '/api/campaigns', { newCampaign: { name: 'Round Trip: Émile’s 𝕷𝖔𝖗𝖊 ☃' } }));
  const base = `/api/campaigns/${campaign.slug}`;
  const types = json<{ id: number }[]>(await send('GET', `${base}/thing-types`));
  const odd = json<{ id: number }>(
    await send('POST', `${base}/thing-types`, {
      newThingType: {
        name: 'Gods / Demons? 日本語',
        fields: [
          { key: 'Level', kind: 'number' },
          { key: 'Serves', kind: 'link' },
        ],
      },
    }),
  );
  const granted = json<{ imageId: string; uploadURL: string }>(await send('POST', `${base}/assets/upload-url`, { label: 'Map ✓' }));
  const imageBytes = png([1, 2, 3, 255]);
  expect((await ctx.app.inject({ method: 'PUT', url: new URL(granted.uploadURL).pathname, payload: imageBytes, headers: { 'content-type': 'image/png' } })).statusCode).toBe(200);
  const asset = json<{ asset: { id: number; url: string } }>(await send('POST', `${base}/assets/confirm-upload`, { imageId: granted.imageId, label: 'Map ✓' })).asset;
  const target = json<{ id: number; slug: string }>(await send('POST', `${base}/things`, { newThing: { name: 'Target', typeId: types[0]!.id } }));
  const oddThings = [];
  for (const [i, name] of ODD_NAMES.entries()) {
    oddThings.push(json<{ id: number }>(await send('POST', `${base}/things`, { newThing: { name, typeId: types[i % 3]!.id, description: [p(t(name), mention('thing', target.id))] } })));
  }
  const arc = json<{ id: number; slug: string }>(await send('POST', `${base}/arcs`, { newArc: { name: 'Act I', hook: [p(t('Find '), mention('thing', target.id, 'the target'))] } }));
  const child = json<{ id: number; slug: string }>(await send('POST', `${base}/arcs`, { newArc: { name: 'Scene 1', parentArcId: arc.id, visibility: 'gm', notes: [p(mention('arc', arc.id))] } }));
  await send('POST', `${base}/arcs`, { newArc: { name: 'Beat', parentArcId: child.id, key: [{ type: 'paragraph', isSecret: true, children: [t('secret key')] }] } });
  // Every element of the vocabulary, and what only an import must carry over: mentions of an arc and
  // of nothing, the text convention, an uploaded image by id and by URL in text.
  const everything = [
    ...everyElement(target.id),
    p(t('and '), mention('arc', child.id), t(' and [[thing#target]] and a gone one '), mention('thing', 999999999), t('')),
    { type: 'image', assetId: asset.id, url: asset.url, children: [t('')] },
    p(t(`![inline](${asset.url})`)),
  ];
  const all = json<{ slug: string }>(await send('POST', `${base}/things`, { newThing: { name: 'Everything', typeId: odd.id, description: everything } }));
  const hidden = json<{ slug: string }>(await send('POST', `${base}/things`, { newThing: { name: 'Hidden', typeId: types[1]!.id, visibility: 'gm', description: [p(mention('thing', oddThings[0]!.id))] } }));
  await send('POST', `${base}/things/${target.slug}/arcs`, { arcSlug: arc.slug });
  await send('POST', `${base}/things/${all.slug}/arcs`, { arcSlug: child.slug });
  await send('POST', `${base}/things/${hidden.slug}/arcs`, { arcSlug: arc.slug });
  await send('PUT', base, { updatedCampaign: { description: [p(t('Campaign of '), mention('arc', arc.id)), { type: 'paragraph', isSecret: true, children: [t('twist')] }] } });
  // Properties of every kind (links to a thing and an arc, lists, GM-only, keys the vault uses for
  // itself), tags and aliases, on a thing of the type with fields.
  const structured = json<{ slug: string }>(
    await send('POST', `${base}/things`, {
      newThing: {
        name: 'Meepo',
        typeId: odd.id,
        properties: [
          { key: 'Level', value: 3 },
          { key: 'Serves', value: { targetType: 'thing', targetId: target.id } },
          { key: 'Status', value: 'alive, "mostly" — 日本語' },
          { key: 'Allies', value: [{ targetType: 'arc', targetId: arc.id }, 'the dragon', 7, true, null] },
          { key: 'Secret lair', value: { targetType: 'arc', targetId: child.id }, gmOnly: true },
          { key: 'Hostile', value: false, gmOnly: true },
          { key: 'Born', value: '1492-03-01' },
          { key: 'Looks like a number', value: '42' },
          { key: 'Nothing', value: null },
          { key: 'Empty', value: [] },
        ],
        tags: ['kobold', 'Villain', 'with space'],
        aliases: ['The Kobold', 'Meepo the Keeper'],
      },
    }),
  );
  await send('POST', `${base}/things`, {
    newThing: { name: 'Clashing keys', typeId: types[0]!.id, properties: [{ key: 'type', value: 'not the type' }, { key: 'name', value: 'a second name' }, { key: '__proto__', value: { targetType: 'thing', targetId: target.id } }, { key: 'constructor', value: 1 }, { key: 'tags', value: ['x'], gmOnly: true }],
      tags: ['kobold'],
    },
  });
  await send('PUT', `${base}/arcs/${child.slug}`, { updatedArc: { properties: [{ key: 'Where', value: { targetType: 'thing', targetId: target.id } }, { key: 'Session', value: 12, gmOnly: true }], tags: ['dungeon'], aliases: ['First scene'] } });
  await send('POST', `${base}/things/${structured.slug}/arcs`, { arcSlug: arc.slug });
  return { slug: campaign.slug, base, imageBytes };
}

type Doc = Record<string, any>;

/** The document with every id replaced by the record's slug (or position), and instance-specific values dropped. */
function normalised(doc: Doc): Doc {
  const things = new Map<number, string>(doc.things.map((x: Doc) => [x.id, x.slug]));
  const arcs = new Map<number, string>(doc.arcs.map((x: Doc) => [x.id, x.slug]));
  const types = new Map<number, string>(doc.thingTypes.map((x: Doc) => [x.id, x.name]));
  const assets = new Map<number, string>(doc.assets.map((x: Doc) => [x.id, x.label]));
  const urls = new Map<string, string>(doc.assets.map((x: Doc) => [x.url, `asset:${x.label}`]));
  const text = (nodes: unknown): unknown =>
    JSON.parse(JSON.stringify(nodes, (key, value: unknown) => {
      if (typeof value === 'string') {
        let out = value;
        for (const [url, name] of urls) out = out.replaceAll(url, name);
        return out;
      }
      if (value && typeof value === 'object' && !Array.isArray(value)) {
        const node = value as Doc;
        if (node.type === 'mention') return { ...node, targetId: (node.targetType === 'arc' ? arcs : things).get(node.targetId) ?? 'missing' };
        if (node.type === 'image' && typeof node.assetId === 'number') return { ...node, assetId: assets.get(node.assetId) };
        // A link property's value.
        if (node.type === undefined && (node.targetType === 'thing' || node.targetType === 'arc') && typeof node.targetId === 'number') {
          return { ...node, targetId: (node.targetType === 'arc' ? arcs : things).get(node.targetId) ?? 'missing' };
        }
      }
      return value;
    }));
  const fields = ['hook', 'protagonist', 'antagonist', 'problem', 'key', 'outcome', 'notes'];
  // Documents from before properties existed have none: the same as empty ones.
  const structure = (x: Doc) => ({ properties: text(x.properties ?? []), tags: x.tags ?? [], aliases: x.aliases ?? [] });
  return {
    campaign: { name: doc.campaign.name, createdAt: doc.campaign.createdAt, updatedAt: doc.campaign.updatedAt, description: text(doc.campaign.description) },
    thingTypes: doc.thingTypes.map((x: Doc) => ({ name: x.name, fields: x.fields ?? [], createdAt: x.createdAt, updatedAt: x.updatedAt })),
    things: doc.things
      .map((x: Doc) => ({ ...x, ...structure(x), id: undefined, typeId: types.get(x.typeId), description: text(x.description) }))
      .sort((a: Doc, b: Doc) => a.slug.localeCompare(b.slug)),
    arcs: doc.arcs
      .map((x: Doc) => ({ ...x, ...structure(x), id: undefined, parentArcId: arcs.get(x.parentArcId), ...Object.fromEntries(fields.map((f) => [f, text(x[f])])) }))
      .sort((a: Doc, b: Doc) => a.slug.localeCompare(b.slug)),
    links: doc.links.map((x: Doc) => ({ thing: things.get(x.thingId), arc: arcs.get(x.arcId), createdAt: x.createdAt })).sort((a: Doc, b: Doc) => `${a.thing}:${a.arc}`.localeCompare(`${b.thing}:${b.arc}`)),
    assets: doc.assets.map((x: Doc) => ({ label: x.label, contentType: x.contentType, byteSize: x.byteSize, createdAt: x.createdAt })),
    members: doc.members.map((x: Doc) => ({ userId: x.userId, role: x.role })),
  };
}

async function counts() {
  const db = ctx.database.kysely;
  const count = async (table: 'campaigns' | 'things' | 'arcs' | 'assets' | 'thing_types' | 'arc_things') => Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const host = ctx.app.imageHost as LocalImageHost;
  const files = async (dir: string) => (await fs.readdir(dir, { recursive: true }).catch(() => [] as string[])).length;
  return { campaigns: await count('campaigns'), things: await count('things'), arcs: await count('arcs'), assets: await count('assets'), types: await count('thing_types'), links: await count('arc_things'), images: await files(host.root) - (await files(host.tempDir)) , staged: await files(host.tempDir) };
}

describe(`import on ${dialect}`, () => {
  it('round-trips an archive: export, import, export again gives the same campaign.json but for ids, the campaign slug and exportedAt, and the same image bytes', async () => {
    const s = await seedRich();
    const first = await send('GET', `${s.base}/export?format=archive`);
    const res = await importFile(first.rawPayload, 'backup.zip');
    expect(res.statusCode, res.body).toBe(201);
    const imported = json<Imported>(res);
    expect(res.headers.location).toBe(`/api/campaigns/${imported.slug}`);
    expect(imported.slug).not.toBe(s.slug);
    expect(imported.slug.startsWith(`${s.slug}-`)).toBe(true);
    expect(imported.role).toBe('owner');
    expect(imported.import).toEqual({ format: 'archive', thingTypes: 4, things: ODD_NAMES.length + 5, arcs: 3, links: 4, assets: 1, warnings: [] });

    const second = await send('GET', `/api/campaigns/${imported.slug}/export?format=archive`);
    const before = await unzip(first.rawPayload);
    const after = await unzip(second.rawPayload);
    const docBefore = JSON.parse(before.get('campaign.json')!.toString('utf8')) as Doc;
    const docAfter = JSON.parse(after.get('campaign.json')!.toString('utf8')) as Doc;
    expect(normalised(docAfter)).toEqual(normalised(docBefore));
    // The structure came across: not empty on either side, links at the new ids.
    const meepo = (doc: Doc) => doc.things.find((x: Doc) => x.slug === 'meepo') as Doc;
    expect(meepo(docAfter).properties).toHaveLength(10);
    expect(meepo(docAfter).tags).toEqual(['kobold', 'Villain', 'with space']);
    expect(meepo(docAfter).aliases).toEqual(['The Kobold', 'Meepo the Keeper']);
    const newTarget = docAfter.things.find((x: Doc) => x.slug === 'target').id as number;
    expect(meepo(docAfter).properties[1]).toEqual({ key: 'Serves', value: { targetType: 'thing', targetId: newTarget }, gmOnly: false });
    expect(docAfter.thingTypes.find((x: Doc) => x.name === 'Gods / Demons? 日本語').fields).toEqual([{ key: 'Level', kind: 'number' }, { key: 'Serves', kind: 'link' }]);
    expect(docAfter.arcs.find((x: Doc) => x.slug === 'scene-1').tags).toEqual(['dungeon']);
    // Ids are new; what pointed at the old ones points at the new.
    expect(docAfter.things.map((x: Doc) => x.id)).not.toEqual(docBefore.things.map((x: Doc) => x.id));
    expect(JSON.stringify(docAfter)).toContain('[[thing#target]]');
    const imageFiles = (files: Map<string, Buffer>) => [...files.entries()].filter(([name]) => name.startsWith('images/')).map(([, bytes]) => bytes);
    expect(imageFiles(after)).toEqual([s.imageBytes]);
    expect(imageFiles(before)).toEqual([s.imageBytes]);
    // The image is served at its new URL, and the rendered text shows it.
    const url = new URL(docAfter.assets[0].url as string).pathname;
    expect((await ctx.app.inject({ method: 'GET', url })).rawPayload).toEqual(s.imageBytes);
    const rendered = json<{ fields: { description: string } }>(await send('GET', `/api/campaigns/${imported.slug}/things/everything/rendered`)).fields.description;
    expect(rendered).toContain(docAfter.assets[0].url);
    expect(rendered).toContain('>Scene 1</a>');
    // Indexes were built: search finds words, backlinks follow the new ids.
    const hits = json<{ results: unknown[] }>(await send('GET', `/api/campaigns/${imported.slug}/search?q=doppelganger%20OR%20quoted`));
    expect(hits.results.length).toBeGreaterThan(0);
    const backlinks = json<{ slug: string }[]>(await send('GET', `/api/campaigns/${imported.slug}/things/target/backlinks`));
    expect(backlinks.map((b) => b.slug)).toContain('everything');
    // Link properties are relations of the new campaign too.
    const serves = json<{ slug: string; fields: string[] }[]>(await send('GET', `/api/campaigns/${imported.slug}/things/target/backlinks`)).find((b) => b.slug === 'meepo');
    expect(serves?.fields).toEqual(['properties.Serves']);
    // Players of the new campaign see no GM secret: it has no players; the owner is the importer.
    expect(docAfter.members).toEqual([expect.objectContaining({ userId: owner.id, role: 'owner' })]);
  });

  it('imports the json document, without its images, for a user without premium', async () => {
    const s = await seedRich();
    const doc = (await send('GET', `${s.base}/export?format=json`)).rawPayload;
    const res = await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...free.headers, 'content-type': 'application/json' }, payload: doc });
    expect(res.statusCode, res.body).toBe(201);
    const imported = json<Imported>(res);
    expect(imported.import.format).toBe('json');
    expect(imported.import.assets).toBe(0);
    expect(imported.import.warnings).toEqual([{ entry: expect.any(String), problem: expect.stringContaining('1 uploaded image was not imported') }]);
    const thing = json<{ description: Doc[] }>(await send('GET', `/api/campaigns/${imported.slug}/things/everything`, undefined, free));
    const image = thing.description.find((b) => b.type === 'image' && !b.alt);
    expect(image).toBeDefined();
    expect(image!.assetId).toBeUndefined();
    expect(image!.url).toMatch(/^http/);
    // As multipart too.
    const again = await importFile(doc, 'campaign.json', free);
    expect(again.statusCode, again.body).toBe(201);
  });

  it('asks for premium before storing uploaded images, and creates nothing', async () => {
    const s = await seedRich();
    const archive = (await send('GET', `${s.base}/export?format=archive`)).rawPayload;
    const before = await counts();
    const res = await importFile(archive, 'backup.zip', free);
    expect(res.statusCode).toBe(403);
    expect(problemOf(res).code).toBe('premium_required');
    expect(await counts()).toEqual(before);
  });

  it('imports its own Markdown vault back to the same things, arcs, types, links and mentions', async () => {
    const s = await seedRich();
    const vault = (await send('GET', `${s.base}/export?format=markdown`)).rawPayload;
    const res = await importFile(vault, 'vault.zip');
    expect(res.statusCode, res.body).toBe(201);
    const imported = json<Imported>(res);
    expect(imported.import.format).toBe('markdown');
    const a = json<Doc>(await send('GET', `${s.base}/export?format=json`));
    const b = json<Doc>(await send('GET', `/api/campaigns/${imported.slug}/export?format=json`));
    expect(b.campaign.name).toBe(a.campaign.name);
    const summary = (doc: Doc) => {
      const types = new Map<number, string>(doc.thingTypes.map((x: Doc) => [x.id, x.name]));
      const things = new Map<number, string>(doc.things.map((x: Doc) => [x.id, x.slug]));
      const arcs = new Map<number, string>(doc.arcs.map((x: Doc) => [x.id, x.slug]));
      const mentions = (nodes: unknown): string[] => {
        const found: string[] = [];
        JSON.stringify(nodes, (_key, value: Doc) => {
          if (value && value.type === 'mention') found.push(`${value.targetType}:${(value.targetType === 'arc' ? arcs : things).get(value.targetId) ?? 'missing'}`);
          // The text convention: the vault writes it as a link, which comes back as a mention.
          if (value && typeof value.text === 'string') for (const match of (value.text).matchAll(/\[\[(thing|arc)#([a-z0-9-]+)\]\]/g)) found.push(`${match[1]}:${match[2]}`);
          return value;
        });
        return found.filter((m) => !m.endsWith(':missing')).sort();
      };
      // Properties (links by slug), tags and aliases: the front matter gives them back as they were.
      const link = (value: Doc): unknown => (value && typeof value === 'object' && 'targetType' in value ? `${value.targetType}:${(value.targetType === 'arc' ? arcs : things).get(value.targetId)}` : value);
      const structure = (x: Doc) => ({
        properties: (x.properties as Doc[]).map((property) => ({ ...property, value: Array.isArray(property.value) ? property.value.map(link) : link(property.value) })),
        tags: x.tags,
        aliases: x.aliases,
      });
      return {
        types: [...new Set<string>(doc.things.map((x: Doc) => types.get(x.typeId)!))].sort(),
        // Their declared fields too (index.md lists them).
        fields: doc.thingTypes.filter((x: Doc) => doc.things.some((y: Doc) => y.typeId === x.id)).map((x: Doc) => [x.name, x.fields]).sort(),
        things: doc.things
          .map((x: Doc) => ({ slug: x.slug, name: x.name, type: types.get(x.typeId), visibility: x.visibility, createdAt: x.createdAt, updatedAt: x.updatedAt, mentions: mentions(x.description), ...structure(x) }))
          .sort((x: Doc, y: Doc) => x.slug.localeCompare(y.slug)),
        arcs: doc.arcs
          .map((x: Doc) => ({ slug: x.slug, name: x.name, parent: arcs.get(x.parentArcId), visibility: x.visibility, mentions: mentions([x.hook, x.protagonist, x.antagonist, x.problem, x.key, x.outcome, x.notes]), ...structure(x) }))
          .sort((x: Doc, y: Doc) => x.slug.localeCompare(y.slug)),
        links: doc.links.map((x: Doc) => `${things.get(x.thingId)}:${arcs.get(x.arcId)}`).sort(),
        campaignMentions: mentions(doc.campaign.description),
        assets: doc.assets.length,
      };
    };
    // Type names too, though their folders' names lost characters ("Gods / Demons?" is in "Gods - Demons-").
    expect(summary(b)).toEqual(summary(a));
    // Secret blocks come back as secret blocks, text as text.
    const everything = json<{ description: Doc[] }>(await send('GET', `/api/campaigns/${imported.slug}/things/everything`));
    expect(everything.description.filter((block) => block.isSecret === true)).toEqual([{ type: 'paragraph', isSecret: true, children: [{ text: 'for the GM' }] }]);
    const types = everything.description.map((block) => block.type);
    for (const type of ['heading-one', 'heading-six', 'block-quote', 'bulleted-list', 'numbered-list', 'code-block', 'divider', 'image', 'table']) expect(types, type).toContain(type);
    const image = everything.description.find((block) => block.type === 'image' && typeof block.assetId === 'number');
    expect(image).toBeDefined();
  });

  it('imports a vault made elsewhere: folders as types, files as things, wikilinks and relative links as mentions', async () => {
    const root = path.join(import.meta.dirname, '../fixtures/vault');
    const entries: ZipInput[] = [];
    for (const name of await fs.readdir(root, { recursive: true })) {
      const full = path.join(root, name);
      if ((await fs.stat(full)).isFile()) entries.push({ name: `Saltmarsh/${name.split(path.sep).join('/')}`, data: await fs.readFile(full) });
    }
    entries.push({ name: 'Saltmarsh/attachments/harbour.png', data: png([0, 90, 200, 255]) }, { name: 'Saltmarsh/handout.pdf', data: '%PDF-1.4' });
    const res = await importFile(await zipOf(entries), 'whatever.zip');
    expect(res.statusCode, res.body).toBe(201);
    const imported = json<Imported>(res);
    expect(imported.name).toBe('Saltmarsh');
    expect(imported.import).toMatchObject({ format: 'markdown', thingTypes: 3, things: 5, arcs: 0, links: 0, assets: 1 });
    expect(imported.import.warnings).toEqual([{ entry: expect.any(String), problem: 'neither Markdown nor an image: not imported' }]);
    const base = `/api/campaigns/${imported.slug}`;
    const types = json<{ id: number; name: string }[]>(await send('GET', `${base}/thing-types`));
    expect(types.map((x) => x.name).sort()).toEqual(['Locations', 'NPCs', 'Notes']);
    const things = json<{ id: number; slug: string; name: string; typeId: number }[]>(await send('GET', `${base}/things?fetchAll=true`));
    const typeOf = (slug: string) => types.find((x) => x.id === things.find((y) => y.slug === slug)!.typeId)!.name;
    expect(things.map((x) => x.name).sort()).toEqual(['Saltmarsh (the town)', 'Sanbalet', 'Skerrin Wavechaser', 'The Sea Ghost', 'Welcome']);
    expect(typeOf('sanbalet')).toBe('NPCs');
    expect(typeOf('welcome')).toBe('Notes');
    const id = (slug: string) => things.find((x) => x.slug === slug)!.id;

    const skerrin = json<{ description: Doc[] }>(await send('GET', `${base}/things/skerrin-wavechaser`)).description;
    // The title heading is the name: not repeated in the text.
    expect(skerrin[0]).toEqual(p(t('Leader of the smugglers at '), mention('thing', id('the-sea-ghost'), 'the haunted house'), t(', friend of '), mention('thing', id('sanbalet')), t('.')));
    expect(skerrin).toContainEqual({ type: 'heading-two', children: [t('Traits')] });
    const list = skerrin.find((b) => b.type === 'bulleted-list')!;
    expect(list.children[0]).toEqual({ type: 'list-item', children: [t('Bold', { bold: true }), t(' and '), t('sly', { italic: true })] });
    expect(JSON.stringify(list)).toContain('"numbered-list"');
    expect(JSON.stringify(list)).toContain('"strikethrough":true');
    expect(JSON.stringify(list)).toContain('"code":true');
    expect(skerrin).toContainEqual({ type: 'table', children: [{ type: 'table-row', children: [cell('Stat'), cell('Value')] }, { type: 'table-row', children: [cell('AC'), cell('15')] }] });
    expect(skerrin).toContainEqual({ type: 'code-block', children: [t('roll 1d20 + 5')] });
    expect(skerrin).toContainEqual({ type: 'paragraph', isSecret: true, children: [t('He works for the Scarlet Brotherhood.')] });
    expect(skerrin).toContainEqual({ type: 'divider', children: [t('')] });
    expect(skerrin.at(-1)).toEqual(p(t('Links nowhere: [[Nobody Here]].')));

    const sanbalet = json<{ description: Doc[] }>(await send('GET', `${base}/things/sanbalet`)).description;
    expect(sanbalet).toEqual([p(t('Sanbalet, the wizard. Lives in '), mention('thing', id('the-sea-ghost'), 'the old house'), t('.'))]);
    const town = json<{ description: Doc[] }>(await send('GET', `${base}/things/saltmarsh-the-town`)).description;
    expect(town[0]).toEqual(p(t('A fishing town. Ask '), mention('thing', id('skerrin-wavechaser'), 'Skerrin'), t(' about the '), { type: 'link', url: 'https://example.test/harbour', children: [t('harbour')] }, t('.')));
    const assets = json<{ id: number; label: string; url: string }[]>(await send('GET', `${base}/assets`));
    expect(assets).toEqual([expect.objectContaining({ label: 'The harbour at dawn' })]);
    expect(town[1]).toEqual({ type: 'image', assetId: assets[0]!.id, url: assets[0]!.url, alt: 'The harbour at dawn', children: [t('')] });
    // Backlinks were indexed.
    const backlinks = json<{ slug: string }[]>(await send('GET', `${base}/things/the-sea-ghost/backlinks`));
    expect(backlinks.map((b) => b.slug).sort()).toEqual(['sanbalet', 'skerrin-wavechaser']);
  });
});

/** Rewrites every occurrence of `from` in the zip's bytes (names in local and central headers). */
function patch(bytes: Buffer, from: Buffer, to: Buffer): Buffer {
  const out = Buffer.from(bytes);
  for (let at = out.indexOf(from); at !== -1; at = out.indexOf(from, at + 1)) to.copy(out, at);
  return out;
}

describe(`vault front matter on ${dialect}`, () => {
  it('reads another vault’s front matter: tags, aliases, and every other key as a typed property, [[links]] as link properties', async () => {
    const meepo = [
      '---',
      'aliases: Meepo the Kobold',
      'tags: "#kobold, dragon-keeper #kobold"',
      'species: Kobold',
      'level: 3',
      'cr: 0.125',
      'alive: true',
      'nothing:',
      'serves: "[[Yusdrayl]]"',
      'allies: ["[[NPCs/Yusdrayl|the queen]]", "[[Nobody]]", Sparky, 2]',
      'born: !!timestamp 2024-05-01',
      'seen at: !!timestamp 2024-05-01T10:30:00Z',
      'stats: {str: 8, dex: 14}',
      'nested: [[1, 2], x]',
      'first seen: 2024-05-01',
      'big: .inf',
      '---',
      'Keeps the dragon.',
    ].join('\n');
    const entries: ZipInput[] = [
      { name: 'Vault/NPCs/Meepo.md', data: meepo },
      { name: 'Vault/NPCs/Yusdrayl.md', data: '---\nalias: [Queen, queen, The Queen]\ntags: [kobold]\nname: Yusdrayl\n---\nThe queen.' },
    ];
    const res = await importFile(await zipOf(entries), 'vault.zip');
    expect(res.statusCode, res.body).toBe(201);
    const base = `/api/campaigns/${json<Imported>(res).slug}`;
    const yusdrayl = json<{ id: number; properties: unknown[]; tags: string[]; aliases: string[] }>(await send('GET', `${base}/things/yusdrayl`));
    // `name` became the record's name, not a property; aliases are unique ignoring case.
    expect(yusdrayl).toMatchObject({ properties: [], tags: ['kobold'], aliases: ['Queen', 'The Queen'] });
    const link = { targetType: 'thing', targetId: yusdrayl.id };
    const thing = json<{ properties: unknown[]; tags: string[]; aliases: string[] }>(await send('GET', `${base}/things/meepo`));
    expect(thing.tags).toEqual(['kobold', 'dragon-keeper']);
    expect(thing.aliases).toEqual(['Meepo the Kobold']);
    expect(thing.properties).toEqual(
      [
        ['species', 'Kobold'],
        ['level', 3],
        ['cr', 0.125],
        ['alive', true],
        ['nothing', null],
        ['serves', link],
        ['allies', [link, '[[Nobody]]', 'Sparky', 2]],
        ['born', '2024-05-01'],
        ['seen at', '2024-05-01T10:30:00.000Z'],
        ['stats', '{"str":8,"dex":14}'],
        ['nested', ['[1,2]', 'x']],
        ['first seen', '2024-05-01'],
        ['big', 'Infinity'],
      ].map(([key, value]) => ({ key, value, gmOnly: false })),
    );
    // The links are relations.
    const backlinks = json<{ slug: string; fields: string[] }[]>(await send('GET', `${base}/things/yusdrayl/backlinks`));
    expect(backlinks).toEqual([expect.objectContaining({ slug: 'meepo', fields: ['properties.allies', 'properties.serves'] })]);
  });

  it('writes properties, tags and aliases as front matter: links as wikilinks, GM-only keys listed, clashing keys kept apart', async () => {
    const s = await seedRich();
    const files = await unzip((await send('GET', `${s.base}/export?format=markdown`)).rawPayload);
    const meepo = [...files.entries()].find(([name]) => name.endsWith('/meepo.md'))![1].toString('utf8');
    const front = meepo.slice(0, meepo.indexOf('\n---\n'));
    expect(front).toContain('tags:\n  - kobold\n  - Villain\n  - with space\n');
    expect(front).toContain('aliases:\n  - The Kobold\n  - Meepo the Keeper\n');
    expect(front).toContain('Level: 3\n');
    expect(front).toContain('Serves: "[[NPCs/target|Target]]"\n');
    expect(front).toContain('Allies:\n  - "[[Arcs/act-i|Act I]]"\n  - the dragon\n  - 7\n  - true\n  - null\n');
    expect(front).toContain('Looks like a number: "42"\n');
    expect(front).toContain('loreforge-gm-only:\n  - Secret lair\n  - Hostile');
    const clashing = [...files.entries()].find(([name]) => name.endsWith('/clashing-keys.md'))![1].toString('utf8');
    expect(clashing).toContain('loreforge-properties:\n  type: not the type\n  name: a second name\n');
    // Our vault is read as exactly as written: a value that no longer fits its type's field is refused, naming the note.
    const edited = [...files.entries()].map(([name, data]) => ({ name, data: name.endsWith('/meepo.md') ? data.toString('utf8').replace('Level: 3\n', 'Level: three\n') : data }));
    const refused = await importFile(await zipOf(edited), 'edited.zip');
    expect(refused.statusCode).toBe(400);
    expect(problemOf(refused).detail).toMatch(/meepo\.md: \/properties\/0\/value must be a number/);
    // The types' declared fields are in index.md.
    expect(files.get('index.md')!.toString('utf8')).toContain('loreforge-fields:\n  Gods / Demons? 日本語:\n    - key: Level\n      kind: number\n    - key: Serves\n      kind: link\n');
  });
});

describe(`large records on ${dialect}`, () => {
  it('an arc with its seven texts and its properties near their limits exports and imports back', async () => {
    const campaign = json<{ slug: string }>(await send('POST', '/api/campaigns', { newCampaign: { name: 'Heavy' } }));
    const base = `/api/campaigns/${campaign.slug}`;
    const text = (letter: string) => [p(t(letter.repeat(250 * 1024)))];
    const fields = Object.fromEntries(['hook', 'protagonist', 'antagonist', 'problem', 'key', 'outcome', 'notes'].map((field, i) => [field, text(String.fromCharCode(97 + i))]));
    const arc = json<{ slug: string }>(await send('POST', `${base}/arcs`, { newArc: { name: 'Everything at once' } }));
    for (const [field, value] of Object.entries(fields)) expect((await send('PUT', `${base}/arcs/${arc.slug}`, { updatedArc: { [field]: value } })).statusCode).toBe(200);
    const properties = Array.from({ length: 25 }, (_, i) => ({ key: `p${i}`, value: 'é'.repeat(5_000), gmOnly: false }));
    const put = await send('PUT', `${base}/arcs/${arc.slug}`, { updatedArc: { properties } });
    expect(put.statusCode, put.body).toBe(200);
    const doc = (await send('GET', `${base}/export?format=json`)).rawPayload;
    const res = await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...owner.headers, 'content-type': 'application/json' }, payload: doc });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(201);
    const back = json<{ properties: unknown[]; hook: unknown }>(await send('GET', `/api/campaigns/${json<Imported>(res).slug}/arcs/${arc.slug}`));
    expect(back.properties).toEqual(properties);
    expect(back.hook).toEqual(fields.hook);
  });
});

describe(`hostile files on ${dialect}: each is 400 naming the entry, and nothing is created`, () => {
  const cases: [string, () => Promise<Buffer>, RegExp][] = [
    ['a zip bomb (an entry declaring more than is read)', async () => zipOf([{ name: 'campaign.json', data: Buffer.alloc(65 * 1024 * 1024, 0x20) }]), /^campaign\.json: the entry is \d+ bytes; at most 67108864/],
    [
      'a zip bomb lying about its size',
      () => {
        // campaign.json declares 17 bytes but inflates to 4 MiB of spaces after a valid document.
        const real = deflateRawSync(Buffer.concat([Buffer.from(minimalDoc()), Buffer.alloc(4 * 1024 * 1024, 0x20)]));
        return Promise.resolve(rawZip([{ name: 'campaign.json', data: real, deflated: true, declaredSize: 17 }]));
      },
      /^campaign\.json: the entry is damaged/,
    ],
    ['a name with ../', async () => patch(await zipOf([{ name: 'campaign.json', data: minimalDoc() }, { name: 'images/XX/XX/evil.png', data: png() }]), Buffer.from('XX/XX/'), Buffer.from('../../')), /^images\/\.\.\/\.\.\/evil\.png: the name leads out of the archive/],
    [
      'an absolute name',
      async () => patch(await zipOf([{ name: 'campaign.json', data: minimalDoc() }, { name: 'Xetc/passwd.md', data: 'x' }]), Buffer.from('Xetc/passwd'), Buffer.from('/etc/passwd')),
      /^\/etc\/passwd\.md: the name is an absolute path/,
    ],
    ['a symbolic link', async () => zipOf([{ name: 'NPCs/link.md', data: '/etc/passwd', mode: 0o120777 }]), /^NPCs\/link\.md: the entry is a symbolic link/],
    [
      '100,000 entries',
      () => Promise.resolve(rawZip(Array.from({ length: 100_000 }, (_, i) => ({ name: `n/${i}.md` })))),
      /: the archive has 100000 entries; at most 50000/,
    ],
    ['a truncated zip', async () => (await zipOf([{ name: 'campaign.json', data: minimalDoc() }])).subarray(0, 40), /not a zip archive, or a truncated one/],
    ['invalid JSON at depth', async () => zipOf([{ name: 'campaign.json', data: `${'['.repeat(100_000)}1${']'.repeat(99_999)}` }]), /^campaign\.json: not valid JSON/],
    [
      'rich text nested too deep',
      async () => {
        let node: Doc = { text: 'deep' };
        for (let i = 0; i < 40; i++) node = { type: 'block-quote', children: [node] };
        const thing = { id: 1, slug: 'deep', typeId: 1, name: 'Deep', visibility: 'all', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', description: [node] };
        return zipOf([{ name: 'campaign.json', data: minimalDoc({ things: [thing] }) }]);
      },
      /^campaign\.json: \/things\/0\/description\/0(\/children\/0)+ must not nest blocks deeper than 16 levels/,
    ],
    [
      'a name that is not UTF-8',
      async () => patch(await zipOf([{ name: 'NPCs/QQ.md', data: 'x' }]), Buffer.from('QQ.md'), Buffer.from([0xff, 0xfe, 0x2e, 0x6d, 0x64])),
      /^NPCs\/\\xff\\xfe\.md: the entry name is not UTF-8/,
    ],
    ['an image that is not one', async () => zipOf([{ name: 'campaign.json', data: minimalDoc({ assets: [{ id: 1, label: 'x', url: 'u', file: 'images/a.png', createdAt: '2026-01-01T00:00:00Z' }] }) }, { name: 'images/a.png', data: '<svg/>' }]), /^images\/a\.png: The file is not an image/],
    ['a document naming what it does not hold', async () => zipOf([{ name: 'campaign.json', data: minimalDoc({ links: [{ thingId: 5, arcId: 6, createdAt: '2026-01-01T00:00:00Z' }] }) }]), /^campaign\.json: \/links\/0\/thingId names no thing of the file \(and 1 more problem\)/],
    ['a loop of arcs', async () => zipOf([{ name: 'campaign.json', data: minimalDoc({ arcs: [1, 2].map((id) => ({ id, slug: `a${id}`, name: `A${id}`, parentArcId: 3 - id, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' })) }) }]), /^campaign\.json: \/arcs\/0\/parentArcId makes the arcs a loop/],
    ['another kind of document', async () => zipOf([{ name: 'campaign.json', data: '{"format":"kanka"}' }]), /^campaign\.json: \/format must be "loreforge-campaign"/],
    ['a zip of neither', async () => zipOf([{ name: 'notes.txt', data: 'hello' }]), /^evil\.zip: the archive holds neither campaign\.json/],
    ['not a zip nor JSON', () => Promise.resolve(Buffer.from('GIF89a not really')), /^evil\.zip: not valid JSON/],
  ];
  for (const [what, make, message] of cases) {
    it(what, async () => {
      const bytes = await make();
      const before = await counts();
      const res = await importFile(bytes, 'evil.zip');
      expect(res.statusCode, res.body).toBe(400);
      expect(problemOf(res).code).toBe('invalid_import');
      expect(problemOf(res).detail).toMatch(message);
      expect(await counts()).toEqual(before);
    }, 60_000);
  }

  it('creates nothing when the image host fails halfway, and removes the images it had placed', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'loreforge-failing-host-'));
    let placed = 0;
    class FailingHost extends LocalImageHost {
      override placeStaged(staged: StagedImage, ref: ImageRef): Promise<StoredImage> {
        placed += 1;
        if (placed === 2) return Promise.reject(new ImageHostError('The disk went away.'));
        return super.placeStaged(staged, ref);
      }
    }
    const host = new FailingHost({ root, publicBaseUrl: 'http://127.0.0.1', maxBytes: 1024 * 1024 });
    const app = await buildCheckedApp(ctx.config, { database: ctx.database, imageHost: host, logger: false });
    await app.ready();
    try {
      const assets = [1, 2, 3].map((id) => ({ id, label: `Image ${id}`, url: `https://old.example/${id}.png`, file: `images/${id}.png`, createdAt: '2026-01-01T00:00:00.000Z' }));
      const archive = await zipOf([{ name: 'campaign.json', data: minimalDoc({ assets }) }, ...[1, 2, 3].map((id) => ({ name: `images/${id}.png`, data: png([id, id, id, 255]) }))]);
      const before = await counts();
      const form = multipartFile(archive, 'three.zip');
      const res = await app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...owner.headers, ...form.headers }, payload: form.payload });
      expect(res.statusCode).toBe(500);
      expect(placed).toBe(2);
      expect(await counts()).toEqual(before);
      // The first image was placed, then removed; the third was staged, then discarded.
      expect((await fs.readdir(root, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile())).toEqual([]);
    } finally {
      await app.close();
      await fs.rm(root, { recursive: true, force: true });
    }
  });

  it('Markdown that would take too long to parse is refused in seconds, and the server answers meanwhile', async () => {
    // Nested strong emphasis: micromark needs about ten seconds for these 28 KB.
    const slow = `${'*a **a '.repeat(2000)}b${' a** a*'.repeat(2000)}`;
    const vault = await zipOf([{ name: 'NPCs/Fine.md', data: 'Fine.' }, { name: 'NPCs/Slow.md', data: slow }]);
    const before = await counts();
    const started = Date.now();
    const pending = importFile(vault, 'slow.zip');
    // Parsing runs in a worker thread: the event loop is free for other requests.
    const health = await ctx.app.inject({ method: 'GET', url: '/api/health' });
    expect(health.statusCode).toBe(200);
    expect(Date.now() - started).toBeLessThan(2_000);
    const res = await pending;
    expect(res.statusCode, res.body).toBe(400);
    expect(problemOf(res).detail).toMatch(/^NPCs\/Slow\.md: the Markdown is too complex to read: it took longer than 3\.0 s$/);
    expect(await counts()).toEqual(before);
  }, 30_000);

  it('sweeps a crash’s leftovers after a day: staged images and spooled uploads, nothing newer', async () => {
    const host = ctx.app.imageHost as LocalImageHost;
    await fs.mkdir(host.tempDir, { recursive: true });
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
    const stale = path.join(host.tempDir, '0-import-stale.part');
    const fresh = path.join(host.tempDir, '0-import-fresh.part');
    await fs.writeFile(stale, png());
    await fs.writeFile(fresh, png());
    await fs.utimes(stale, twoDaysAgo, twoDaysAgo);
    const dayAgo = new Date(Date.now() - 86_400_000);
    expect(await host.sweepStaged(dayAgo)).toBe(1);
    expect(await fs.readdir(host.tempDir)).toEqual(['0-import-fresh.part']);
    await fs.rm(fresh);

    const spools = await fs.mkdtemp(path.join(os.tmpdir(), 'loreforge-spools-'));
    try {
      for (const name of ['loreforge-import-stale', 'loreforge-import-fresh', 'someone-elses-stale']) await fs.writeFile(path.join(spools, name), 'x');
      for (const name of ['loreforge-import-stale', 'someone-elses-stale']) await fs.utimes(path.join(spools, name), twoDaysAgo, twoDaysAgo);
      expect(await sweepImportSpools(dayAgo, spools)).toBe(1);
      expect((await fs.readdir(spools)).sort()).toEqual(['loreforge-import-fresh', 'someone-elses-stale']);
    } finally {
      await fs.rm(spools, { recursive: true, force: true });
    }
  });

  it('a file over IMPORT_MAX_BYTES is 413 before it is read whole', async () => {
    const before = await counts();
    const res = await importFile(Buffer.alloc(IMPORT_MAX_BYTES + 1024, 1), 'big.zip');
    expect(res.statusCode).toBe(413);
    expect(problemOf(res).code).toBe('import_too_large');
    const raw = await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...owner.headers, 'content-type': 'application/zip' }, payload: Buffer.alloc(IMPORT_MAX_BYTES + 1, 1) });
    expect(raw.statusCode).toBe(413);
    expect(await counts()).toEqual(before);
  });

  it('counts imports per user per hour: past IMPORTS_MAX_PER_USER_PER_HOUR, 429 before the file is read', async () => {
    const limited = await createTestContext({ IMPORTS_MAX_PER_USER_PER_HOUR: '2' });
    try {
      const user = await limited.createUser();
      const post = () => limited.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...user.headers, 'content-type': 'application/json' }, payload: minimalDoc() });
      expect((await post()).statusCode).toBe(201);
      expect((await post()).statusCode).toBe(201);
      const third = await post();
      expect(third.statusCode).toBe(429);
      expect(problemOf(third).code).toBe('rate_limited');
      expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
      // Another user has slots of their own.
      const other = await limited.createUser();
      expect((await limited.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...other.headers, 'content-type': 'application/json' }, payload: minimalDoc() })).statusCode).toBe(201);
    } finally {
      await limited.close();
    }
  });

  it('needs a signed-in caller and a file', async () => {
    const form = multipartFile(Buffer.from(minimalDoc()), 'x.json');
    expect((await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: form.headers, payload: form.payload })).statusCode).toBe(401);
    const text = await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...owner.headers, 'content-type': 'text/plain' }, payload: 'hello' });
    expect(text.statusCode).toBe(415);
    const noFile = multipartFile(Buffer.from('x'), 'x.json', 'other');
    expect((await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...owner.headers, ...noFile.headers }, payload: noFile.payload })).statusCode).toBe(400);
    // A form that ends before its file does (the fuzzer's find).
    const cut = await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...owner.headers, 'content-type': 'multipart/form-data; boundary=x' }, payload: 'name=x&a=1' });
    expect(cut.statusCode).toBe(400);
    expect(problemOf(cut).code).toBe('bad_request');
  });
});

// ---- Property tests: random campaigns round-trip; damaged archives never half-import ----

const ARC_FIELDS = ['hook', 'protagonist', 'antagonist', 'problem', 'key', 'outcome', 'notes'] as const;
const word = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 12 }), fc.constantFrom(...ODD_NAMES));
const name = word.filter((value) => value.trim() === value && value !== '' && [...value].length <= 255);
const instant = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
const leafArb = fc.record({ text: word, bold: fc.boolean(), code: fc.boolean() }, { requiredKeys: ['text'] });
// Targets: things have ids 100…, arcs 200…; 999 names nothing.
const mentionArb = fc.record({
  type: fc.constant('mention'),
  targetType: fc.constantFrom('thing', 'arc'),
  targetId: fc.oneof(fc.integer({ min: 100, max: 105 }), fc.integer({ min: 200, max: 203 }), fc.constant(999)),
  children: fc.constant([{ text: '' }]),
});
const inlineBlock = (type: string) => fc.record({ type: fc.constant(type), children: fc.array(fc.oneof(leafArb, mentionArb), { minLength: 1, maxLength: 4 }) });
const blockArb = fc.oneof(
  inlineBlock('paragraph'),
  inlineBlock('heading-two'),
  inlineBlock('block-quote'),
  fc.record({ type: fc.constant('bulleted-list'), children: fc.array(inlineBlock('list-item'), { minLength: 1, maxLength: 3 }) }),
  fc.record({ type: fc.constant('code-block'), children: fc.tuple(leafArb.map((l) => ({ text: l.text }))) }),
  inlineBlock('paragraph').map((b) => ({ ...b, isSecret: true })),
);
const richArb = fc.array(blockArb, { minLength: 1, maxLength: 4 });

// Properties, tags and aliases: keys and labels as the API takes them; a link names a record of the
// document (`{link: n}` is resolved once the records are known).
// eslint-disable-next-line no-control-regex
const labelArb = (max: number) => word.map((w) => w.trim()).filter((w) => w !== '' && [...w].length <= max && !/[\u0000-\u001f\u007f]/.test(w));
const folded = (text: string) => text.normalize('NFC').toLowerCase();
const scalarArb = fc.oneof(
  word.filter((w) => !w.includes('\u0000')),
  fc.integer(),
  fc.constantFrom(0.5, -1e21, 3.14159),
  fc.boolean(),
  fc.constant(null),
  fc.record({ link: fc.nat(), arc: fc.boolean() }),
);
const propertiesArb = fc.uniqueArray(fc.record({ key: labelArb(100), value: fc.oneof(scalarArb, fc.array(scalarArb, { maxLength: 4 })), gmOnly: fc.boolean() }), {
  selector: (property) => folded(property.key),
  maxLength: 5,
});
const labelsArb = (max: number) => fc.uniqueArray(labelArb(max), { selector: folded, maxLength: 4 });
const structureArb = fc.record({ properties: propertiesArb, tags: labelsArb(50), aliases: labelsArb(255) });

const campaignDocArb = fc
  .record({
    name,
    description: richArb,
    types: fc.integer({ min: 1, max: 3 }),
    things: fc.array(fc.record({ name, type: fc.nat(), gm: fc.boolean(), description: richArb, structure: structureArb, createdAt: instant, updatedAt: instant }), { maxLength: 6 }),
    arcs: fc.array(fc.record({ name, parent: fc.option(fc.nat()), gm: fc.boolean(), fields: fc.tuple(...ARC_FIELDS.map(() => richArb)), structure: structureArb, createdAt: instant, updatedAt: instant }), { maxLength: 4 }),
    links: fc.array(fc.tuple(fc.nat(), fc.nat(), instant), { maxLength: 6 }),
  })
  .map((c) => {
    const when = '2026-05-05T05:05:05.005Z';
    type Scalar = string | number | boolean | null | { link: number; arc: boolean };
    const scalar = (value: Scalar) => {
      if (value === null || typeof value !== 'object') return value;
      const count = value.arc ? c.arcs.length : c.things.length;
      return count === 0 ? 'no record to link' : { targetType: value.arc ? 'arc' : 'thing', targetId: (value.arc ? 200 : 100) + (value.link % count) };
    };
    const structure = (s: { properties: { key: string; value: Scalar | Scalar[]; gmOnly: boolean }[]; tags: string[]; aliases: string[] }) => ({
      properties: s.properties.map((property) => ({ ...property, value: Array.isArray(property.value) ? property.value.map(scalar) : scalar(property.value) })),
      tags: s.tags,
      aliases: s.aliases,
    });
    const things = c.things.map((t, i) => ({
      id: 100 + i,
      slug: `thing-${i}`,
      typeId: 10 + (t.type % c.types),
      name: t.name,
      visibility: t.gm ? 'gm' : 'all',
      ...structure(t.structure),
      createdAt: t.createdAt,
      updatedAt: t.updatedAt,
      description: t.description,
    }));
    const arcs = c.arcs.map((a, i) => ({
      id: 200 + i,
      slug: `arc-${i}`,
      name: a.name,
      parentArcId: i > 0 && a.parent !== null ? 200 + (a.parent % i) : null,
      visibility: a.gm ? 'gm' : 'all',
      ...structure(a.structure),
      createdAt: a.createdAt,
      updatedAt: a.updatedAt,
      ...Object.fromEntries(ARC_FIELDS.map((field, f) => [field, a.fields[f]])),
    }));
    const pairs = new Map<string, { thingId: number; arcId: number; createdAt: string }>();
    if (things.length > 0 && arcs.length > 0) for (const [t, a, at] of c.links) pairs.set(`${t % things.length}:${a % arcs.length}`, { thingId: 100 + (t % things.length), arcId: 200 + (a % arcs.length), createdAt: at });
    return {
      format: 'loreforge-campaign',
      version: 1,
      exportedAt: when,
      campaign: { id: 1, slug: 'random-campaign', name: c.name, userId: 'someone', createdAt: when, updatedAt: when, description: c.description },
      // The first type declares fields no random key matches (a value of a declared key must fit its kind).
      thingTypes: Array.from({ length: c.types }, (_, i) => ({ id: 10 + i, name: `Type ${i}`, ...(i === 0 ? { fields: [{ key: 'Declared level', kind: 'number' }, { key: 'Declared list', kind: 'list' }] } : {}), createdAt: when, updatedAt: when })),
      things,
      arcs,
      links: [...pairs.values()],
      assets: [],
      members: [],
    };
  });

describe(`import properties on ${dialect}`, () => {
  it('a random campaign document imports and exports back as it was (but for ids)', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(campaignDocArb, async (doc) => {
        runs += 1;
        const res = await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...owner.headers, 'content-type': 'application/json' }, payload: JSON.stringify(doc) });
        expect(res.statusCode, res.body).toBe(201);
        const slug = json<Imported>(res).slug;
        const back = json<Doc>(await send('GET', `/api/campaigns/${slug}/export?format=json`));
        const { members: _a, ...expected } = normalised(doc);
        const { members: _b, ...actual } = normalised(back);
        expect(actual).toEqual(expected);
        await send('DELETE', `/api/campaigns/${slug}`);
      }),
      { numRuns: 15 },
    );
    expect(runs).toBe(15);
  });

  it('a damaged archive is imported whole or refused with 400 and nothing created, never a 5xx', async () => {
    const s = await seedRich();
    const archive = (await send('GET', `${s.base}/export?format=archive`)).rawPayload;
    const outcomes = { imported: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.nat(archive.length - 1).map((at) => ({ truncate: at, flips: [] as [number, number][] })),
          fc.array(fc.tuple(fc.nat(archive.length - 1), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }).map((flips) => ({ truncate: archive.length, flips })),
        ),
        async ({ truncate, flips }) => {
          const damaged = Buffer.from(archive.subarray(0, truncate));
          for (const [at, xor] of flips) if (at < damaged.length) damaged[at]! ^= xor;
          const before = await counts();
          const res = await importFile(damaged, 'damaged.zip');
          expect([201, 400], res.body).toContain(res.statusCode);
          if (res.statusCode === 400) {
            outcomes.refused += 1;
            expect(problemOf(res).code).toBe('invalid_import');
            expect(await counts()).toEqual(before);
          } else {
            outcomes.imported += 1;
            expect((await counts()).campaigns).toBe(before.campaigns + 1);
            await send('DELETE', `/api/campaigns/${json<Imported>(res).slug}`);
          }
        },
      ),
      { numRuns: 40 },
    );
    expect(outcomes.refused).toBeGreaterThan(0);
  }, 60_000);
});
