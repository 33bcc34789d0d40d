import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { premiumUser } from '../fixtures/image-app.js';
import { png, pngOfSize } from '../fixtures/images.js';
import { mention, p, t } from '../fixtures/rich-text.js';
import { problemOf } from '../support/fixtures.js';
import { dialect } from '../support/test-db.js';
import { multipartFile, zipOf, type ZipInput } from '../support/zip.js';

// CONTRACT "Import from elsewhere": a vault made elsewhere, shaped like real Obsidian vaults of game
// masters (test/fixtures/vaults/waterdeep): front matter that strict YAML refuses, nested folders,
// a templates folder (by name and by .obsidian/templates.json), an attachments folder (by name and
// by .obsidian/app.json), links from the root, by file name, by partial path, by alias, with labels,
// headings and block ids, names shared by two notes, inline #tags, tags in front matter as a string
// and as a list, property values of every YAML kind, and images over the upload limit or not images
// at all. Everything is asserted exactly.

const MAX_UPLOAD_BYTES = 64 * 1024;
let ctx: TestContext;
let owner: TestUser;
let free: TestUser;

beforeAll(async () => {
  ctx = await createTestContext({ MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES) });
  owner = await premiumUser(ctx);
  free = await ctx.createUser();
});
afterAll(async () => {
  await ctx.close();
});

interface Imported {
  slug: string;
  name: string;
  import: { format: string; thingTypes: number; things: number; arcs: number; links: number; assets: number; warnings: { entry: string; problem: string }[] };
}
type Doc = Record<string, any>;

function importZip(bytes: Buffer, user: TestUser = owner) {
  const form = multipartFile(bytes, 'vault.zip');
  return ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...user.headers, ...form.headers }, payload: form.payload });
}

const get = async <T,>(url: string): Promise<T> => json<T>(await ctx.app.inject({ method: 'GET', url, headers: owner.headers }));

/** The fixture vault as a zip of its folder (as Obsidian users zip it), with its images. */
async function waterdeep(): Promise<Buffer> {
  const root = path.join(import.meta.dirname, '../fixtures/vaults/waterdeep');
  const entries: ZipInput[] = [];
  for (const name of (await fs.readdir(root, { recursive: true })).sort()) {
    const full = path.join(root, name);
    if ((await fs.stat(full)).isFile()) entries.push({ name: `Waterdeep Campaign/${name.split(path.sep).join('/')}`, data: await fs.readFile(full) });
  }
  entries.push(
    { name: 'Waterdeep Campaign/Meta/Attachments/portrait.png', data: png([10, 20, 30, 255]) },
    { name: 'Waterdeep Campaign/Meta/Attachments/huge.png', data: pngOfSize(MAX_UPLOAD_BYTES + 1) },
    { name: 'Waterdeep Campaign/attachments/fake.png', data: '<svg xmlns="http://www.w3.org/2000/svg"/>' },
  );
  return zipOf(entries);
}

const W = 'Waterdeep Campaign/';

describe(`a vault from elsewhere on ${dialect}`, () => {
  let imported: Imported;
  let base: string;
  const things = new Map<string, Doc>();
  const id = (slug: string) => things.get(slug)!.id as number;

  beforeAll(async () => {
    const res = await importZip(await waterdeep());
    expect(res.statusCode, res.body).toBe(201);
    imported = json<Imported>(res);
    base = `/api/campaigns/${imported.slug}`;
    for (const thing of await get<Doc[]>(`${base}/things?fetchAll=true`)) things.set(thing.slug, await get<Doc>(`${base}/things/${thing.slug}`));
  });

  it('imports every note but the templates, each file that could not be read as it should listed once', () => {
    expect(imported.name).toBe('Waterdeep Campaign');
    expect(imported.import).toEqual({
      format: 'markdown',
      thingTypes: 5,
      things: 12,
      arcs: 0,
      links: 0,
      assets: 1,
      warnings: [
        { entry: `${W}Meta/Templates/Session.md`, problem: 'a template, not imported' },
        { entry: `${W}NPCs/Broken.md`, problem: "the front matter is not valid YAML (Nested mappings are not allowed in compact mappings at line 1, column 3): left out, the note's body imported without it" },
        { entry: `${W}NPCs/Twice.md`, problem: 'the front matter is not valid YAML (Map keys must be unique at line 2, column 1): read with repeated keys (the last value kept) and tabs as spaces' },
        {
          entry: `${W}NPCs/Waterdeep/Nobles/Laiba Rosse.md`,
          problem: 'the front matter is not valid YAML (Missing , or : between flow sequence items at line 1, column 19): read line by line as Obsidian shows it (1 line left out)',
        },
        { entry: `${W}_templates/NPC Template.md`, problem: 'a template, not imported' },
        { entry: `${W}NPCs/Drewid 'Geoff' Barrymore.md`, problem: 'front matter stats: a map is kept as its JSON text' },
        { entry: `${W}Meta/Attachments/huge.png`, problem: `the image is ${MAX_UPLOAD_BYTES + 1} bytes; at most ${MAX_UPLOAD_BYTES} (MAX_UPLOAD_BYTES) are accepted: not imported` },
        { entry: `${W}attachments/fake.png`, problem: 'The file is not an image in an accepted format: not imported' },
      ],
    });
  });

  it('makes the top folder the type and deeper folders tags; attachment folders are no type', async () => {
    const types = await get<Doc[]>(`${base}/thing-types`);
    expect(types.map((x) => x.name).sort()).toEqual(['3-Mechanics', 'Locations', 'Meta', 'NPCs', 'Notes']);
    const typeOf = (slug: string) => types.find((x) => x.id === things.get(slug)!.typeId)!.name;
    expect([...things.keys()].sort().map((slug) => [slug, typeOf(slug), things.get(slug)!.name, things.get(slug)!.tags])).toEqual([
      ['broken', 'NPCs', 'Broken', []],
      ['castle', 'Locations', 'Castle', ['Neverwinter']],
      ['castle-2', 'Locations', 'Castle', ['location', 'castle', 'Waterdeep']],
      ['combat', '3-Mechanics', 'Combat', []],
      ['drewid-geoff-barrymore', 'NPCs', "Drewid 'Geoff' Barrymore", ['npc', 'ally', 'spy']],
      ['harbour', 'Locations', 'Harbour', ['Neverwinter']],
      ['home', 'Notes', 'Home', []],
      // Front matter tags, then its folders, then the text's #tags (not in code, links, URLs or secrets; not #123).
      ['laiba-rosse', 'NPCs', 'Laiba Rosse', ['noble', 'Waterdeep', 'Nobles', 'waterdeep/nobles', 'Ally']],
      ['prone', '3-Mechanics', 'Prone', ['Conditions']],
      ['readme', 'Notes', 'Readme', []],
      ['rules', 'Meta', 'Rules', []],
      ['twice', 'NPCs', 'Twice', []],
    ]);
    // The text keeps its #tags.
    expect(things.get('laiba-rosse')!.description[0].children[0]).toEqual(t('A noble of #waterdeep/nobles and #Ally, who owns '));
  });

  it('reads front matter that strict YAML refuses as Obsidian shows it, and every YAML kind as a property', () => {
    const laiba = things.get('laiba-rosse')!;
    expect(laiba.aliases).toEqual(['Laiba "Nana" Rosse']);
    expect(laiba.properties).toEqual([{ key: 'title', value: 'Lady of the Docks', gmOnly: false }]);
    expect(things.get('twice')!.properties).toEqual([{ key: 'species', value: 'Half-elf', gmOnly: false }]);
    expect(things.get('broken')!).toMatchObject({ properties: [], tags: [], aliases: [], description: [p(t('Front matter nobody can read.'))] });
    const laibaLink = { targetType: 'thing', targetId: id('laiba-rosse') };
    const drewid = things.get('drewid-geoff-barrymore')!;
    expect(drewid.aliases).toEqual(['Geoff']);
    expect(drewid.properties).toEqual(
      [
        ['species', 'Human'],
        ['level', 5],
        ['cr', 0.5],
        ['alive', true],
        ['nothing', null],
        ['born', '1492-03-01'],
        ['employer', laibaLink],
        ['allies', [laibaLink, '[[Nobody]]', 'Sparky', 2]],
        ['stats', '{"str":10,"dex":14}'],
      ].map(([key, value]) => ({ key, value, gmOnly: false })),
    );
    expect(things.get('rules')!.aliases).toEqual(['Combat', 'House rules']);
  });

  it('resolves links as Obsidian does: by name, from the root, relative, by partial path, the nearest, by alias; labels kept', () => {
    const laiba = id('laiba-rosse');
    const combat = id('combat');
    const prone = id('prone');
    const waterdeepCastle = id('castle-2');
    const neverwinterCastle = id('castle');
    const home = things.get('home')!.description;
    const item = (...children: unknown[]) => ({ type: 'list-item', children });
    const m = (target: number, label = '') => mention('thing', target, label);
    expect(home[0]).toEqual({
      type: 'bulleted-list',
      children: [
        item(t('By name: '), m(laiba), t(', '), m(laiba), t(', '), m(laiba)),
        item(t('Labelled: '), m(laiba, 'Nana'), t(', '), m(laiba), t(', '), m(laiba), t(', '), m(laiba, 'her looks')),
        item(t('From the root: '), m(combat), t(', '), m(combat), t(', '), m(combat, 'rules'), t(', '), m(combat, 'rules')),
        item(t('By file name: '), m(prone, 'prone'), t(', '), m(prone), t(', '), m(laiba, 'Laiba')),
        // Two notes named Castle: neither in Home's folder, so the shorter path (Locations/Waterdeep).
        item(t('Nearest: '), m(waterdeepCastle), t(', '), m(neverwinterCastle)),
        // A file's name wins over another note's alias ([[Combat]]).
        item(t('By alias: '), m(id('drewid-geoff-barrymore')), t(', '), m(id('rules')), t(', '), m(combat), t(', '), m(id('drewid-geoff-barrymore'), 'Rosie')),
        item(t('Not imported: [[NPC Template]], [[Nobody]]')),
      ],
    });
    // From a note in the same folder as one of them: that one.
    expect(things.get('harbour')!.description).toEqual([p(t('Ships dock below '), m(neverwinterCastle), t('.'))]);
    // Relative to the note, and a partial path.
    expect(things.get('laiba-rosse')!.description[0].children[1]).toEqual(m(waterdeepCastle, 'the castle'));
    expect(things.get('drewid-geoff-barrymore')!.description).toEqual([p(t('Works for '), m(laiba, 'Nana'), t(' at '), m(waterdeepCastle), t('.'))]);
  });

  it('leaves out images over the upload limit or of an unknown kind: their blocks keep the alt text or the file name', async () => {
    const assets = await get<Doc[]>(`${base}/assets`);
    expect(assets.map((a) => a.label)).toEqual(['portrait']);
    const home = things.get('home')!.description;
    expect(home.slice(1)).toEqual([{ type: 'image', assetId: assets[0]!.id, url: assets[0]!.url, alt: '', children: [t('')] }, p(t('huge.png')), p(t('Fake map'))]);
  });

  it('keeps secrets out of tags, and indexes mentions for backlinks', async () => {
    expect(things.get('laiba-rosse')!.tags).not.toContain('secretly-a-spy');
    const backlinks = await get<Doc[]>(`${base}/things/laiba-rosse/backlinks`);
    expect(backlinks.map((b) => [b.slug, b.fields])).toEqual(expect.arrayContaining([['home', ['description']], ['drewid-geoff-barrymore', expect.arrayContaining(['description', 'properties.employer', 'properties.allies'])]]));
    expect(backlinks).toHaveLength(2);
  });
});

describe(`lenient for vaults from elsewhere only, on ${dialect}`, () => {
  it('a vault with images is still 403 for a user without premium, and creates nothing', async () => {
    const res = await importZip(await waterdeep(), free);
    expect(res.statusCode, res.body).toBe(403);
    const mine = await ctx.app.inject({ method: 'GET', url: '/api/campaigns', headers: free.headers });
    expect(json<unknown[]>(mine)).toEqual([]);
  });

  it('our own vault stays exact: front matter that is not valid YAML refuses it, naming the note', async () => {
    const zip = await zipOf([
      { name: 'index.md', data: '---\nformat: loreforge-vault\nname: Ours\n---\n' },
      { name: 'NPCs/laiba.md', data: '---\naliases: ["Laiba "Nana" Rosse"]\n---\nA noble.\n' },
    ]);
    const res = await importZip(zip);
    expect(res.statusCode, res.body).toBe(400);
    expect(problemOf(res).detail).toMatch(/^NPCs\/laiba\.md: the front matter is not valid YAML \(Missing , or : between flow sequence items/);
  });

  it('a note that fits a thing only until its images get their URLs is split too: every part within the limit once stored', async () => {
    // 257,000 bytes of words and 40 embeds of one image: within 256 KiB as read, past it with the images' URLs.
    const paragraph = `${'word '.repeat(1_285).trim()}\n\n![[map.png]]\n\n`;
    const res = await importZip(await zipOf([{ name: 'Maps/map.png', data: png([1, 2, 3, 255]) }, { name: 'Maps/Atlas.md', data: paragraph.repeat(40) }]));
    expect(res.statusCode, res.body.slice(0, 300)).toBe(201);
    const done = json<Imported>(res);
    expect(done.import.things).toBe(2);
    expect(done.import.warnings).toEqual([{ entry: 'Maps/Atlas.md', problem: expect.stringMatching(/^holds \d+ bytes of rich text, more than the 262144 of a thing's text: imported as 2 things, "Atlas" and "Atlas \(continued 2\)", each ending with a mention of the next$/) }]);
    let images = 0;
    for (const slug of ['atlas', 'atlas-continued-2']) {
      const thing = await get<Doc>(`/api/campaigns/${done.slug}/things/${slug}`);
      expect(Buffer.byteLength(JSON.stringify(thing.description))).toBeLessThanOrEqual(262_144);
      images += thing.description.filter((b: Doc) => b.type === 'image' && typeof b.assetId === 'number').length;
    }
    expect(images).toBe(40);
  });

  it('a note with more tags than a record holds keeps the first hundred, with a warning', async () => {
    const body = Array.from({ length: 120 }, (_, i) => `#tag${i}`).join(' ');
    const res = await importZip(await zipOf([{ name: 'Notes/Tagged.md', data: `---\ntags: [a${'b'.repeat(60)}]\n---\n${body}\n` }]));
    expect(res.statusCode, res.body).toBe(201);
    const done = json<Imported>(res);
    expect(done.import.warnings).toEqual([
      { entry: 'Notes/Tagged.md', problem: `front matter tags: the tag "a${'b'.repeat(49)}…" is cut to 50 characters` },
      { entry: 'Notes/Tagged.md', problem: 'more than 100 tags: 21 left out' },
    ]);
    const thing = await get<Doc>(`/api/campaigns/${done.slug}/things/tagged`);
    expect(thing.tags).toEqual([`a${'b'.repeat(49)}`, ...Array.from({ length: 99 }, (_, i) => `tag${i}`)]);
  });

  it('an embed of a file not imported (missing from the vault, or a PDF) keeps its name, with a warning naming the note and the files', async () => {
    const res = await importZip(
      await zipOf([
        { name: 'Places/Keep.md', data: 'The map: ![[map.png]]\n\nThe handout: ![[handout.pdf|the handout]] and ![[map.png]] again. See [[Hall]].\n' },
        { name: 'Places/Hall.md', data: 'No embeds here.\n' },
        { name: 'Places/handout.pdf', data: '%PDF-1.4' },
      ]),
    );
    expect(res.statusCode, res.body).toBe(201);
    const done = json<Imported>(res);
    expect(done.import.warnings).toEqual([
      { entry: 'Places/Keep.md', problem: 'embeds "map.png", "handout.pdf", not imported (not in the vault, or neither a note nor an image): kept as their names' },
      { entry: 'Places/handout.pdf', problem: 'neither Markdown nor an image: not imported' },
    ]);
    const keep = await get<Doc>(`/api/campaigns/${done.slug}/things/keep`);
    expect(JSON.stringify(keep.description)).toContain('map.png');
    expect(JSON.stringify(keep.description)).toContain('the handout');
  });
});
