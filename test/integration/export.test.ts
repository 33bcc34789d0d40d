import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { premiumUser } from '../fixtures/image-app.js';
import { sendAs } from '../support/fixtures.js';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { joinCampaign } from '../support/sharing.js';
import { dialect } from '../support/test-db.js';
import { png } from '../fixtures/images.js';
import { p, t } from '../fixtures/rich-text.js';
import { multipartFile, unzip } from '../support/zip.js';
import { redactNodes } from '../../src/vocabulary/index.js';

// Export (CONTRACT "Portability"): the json document, the archive (that document and the images'
// bytes) and the Markdown vault (every relative link resolves to a file in it).

let ctx: TestContext;
let owner: TestUser;

beforeAll(async () => {
  ctx = await createTestContext();
  owner = await premiumUser(ctx);
});
afterAll(async () => {
  await ctx.close();
});

const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, user: TestUser = owner) => sendAs(ctx.app, user, method, url, payload);


interface Seeded {
  slug: string;
  base: string;
  imageBytes: Buffer;
  assetId: number;
}

async function seed(): Promise<Seeded> {
  const campaign = json<{ slug: string }>(await send('POST', '/api/campaigns', { newCampaign: { name: 'Export Test: Émile & Co' } }));
  const base = `/api/campaigns/${campaign.slug}`;
  const types = json<{ id: number; name: string }[]>(await send('GET', `${base}/thing-types`));
  const odd = json<{ id: number }>(await send('POST', `${base}/thing-types`, { newThingType: { name: 'Gods / Demons?' } }));
  const granted = json<{ imageId: string; uploadURL: string }>(await send('POST', `${base}/assets/upload-url`, { label: 'Map of Phandalin' }));
  const imageBytes = png();
  const put = await ctx.app.inject({ method: 'PUT', url: new URL(granted.uploadURL).pathname, payload: imageBytes, headers: { 'content-type': 'image/png' } });
  expect(put.statusCode).toBe(200);
  const asset = json<{ asset: { id: number } }>(await send('POST', `${base}/assets/confirm-upload`, { imageId: granted.imageId, label: 'Map of Phandalin' })).asset;
  const gundren = json<{ id: number; slug: string }>(await send('POST', `${base}/things`, { newThing: { name: 'Gundren Rockseeker', typeId: types[0]!.id } }));
  const town = json<{ id: number; slug: string }>(await send('POST', `${base}/things`, {
    newThing: {
      name: 'Phandalin',
      typeId: types[1]!.id,
      description: [
        p(t('Home of '), { type: 'mention', targetType: 'thing', targetId: gundren.id, children: [t('')] }, t(' and '), t('bold', { bold: true }), t('. See [[thing#lolth]].')),
        { type: 'image', assetId: asset.id, children: [t('')] },
        { type: 'paragraph', isSecret: true, children: [t('The mayor is a doppelganger.')] },
      ],
    },
  }));
  const lolth = json<{ id: number; slug: string }>(await send('POST', `${base}/things`, { newThing: { name: 'Lolth', typeId: odd.id, visibility: 'gm' } }));
  const arc = json<{ id: number; slug: string }>(await send('POST', `${base}/arcs`, { newArc: { name: 'Goblin Arrows', hook: [p(t('Find '), { type: 'mention', targetType: 'thing', targetId: town.id, children: [t('')] })] } }));
  await send('POST', `${base}/arcs`, { newArc: { name: 'Cragmaw Hideout', parentArcId: arc.id, visibility: 'gm', notes: [p({ type: 'mention', targetType: 'arc', targetId: arc.id, children: [t('')] })] } });
  await send('POST', `${base}/things/${gundren.slug}/arcs`, { arcSlug: arc.slug });
  await send('POST', `${base}/things/${lolth.slug}/arcs`, { arcSlug: arc.slug });
  await send('PUT', base, { updatedCampaign: { description: [p(t('The Sword Coast. '), { type: 'mention', targetType: 'arc', targetId: arc.id, children: [t('')] })] } });
  return { slug: campaign.slug, base, imageBytes, assetId: asset.id };
}

describe(`export on ${dialect}`, () => {
  it('writes every record, field and timestamp as one JSON document, GM secrets included', async () => {
    const s = await seed();
    const res = await send('GET', `${s.base}/export?format=json`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(new RegExp(`^attachment; filename="${s.slug}-\\d{4}-\\d{2}-\\d{2}\\.json"$`));
    const doc = json<Record<string, any>>(res);
    expect(doc.format).toBe('loreforge-campaign');
    expect(doc.version).toBe(1);
    const campaign = json<Record<string, any>>(await send('GET', s.base));
    expect(doc.campaign).toEqual({ id: campaign.id, slug: campaign.slug, name: campaign.name, userId: owner.id, defaultVisibility: 'all', createdAt: campaign.createdAt, updatedAt: campaign.updatedAt, description: campaign.description });
    const things = json<Record<string, any>[]>(await send('GET', `${s.base}/things?fetchAll=true`));
    expect(doc.things).toHaveLength(3);
    for (const thing of things) {
      const { campaignId: _c, ...fields } = thing;
      expect(doc.things.find((x: { id: number }) => x.id === thing.id)).toEqual(fields);
    }
    expect(JSON.stringify(doc.things)).toContain('The mayor is a doppelganger.');
    expect(doc.arcs).toHaveLength(2);
    const arcs = json<Record<string, any>[]>(await send('GET', `${s.base}/arcs`));
    for (const arc of arcs) {
      const exported = doc.arcs.find((x: { id: number }) => x.id === arc.id);
      for (const field of ['slug', 'name', 'parentArcId', 'visibility', 'createdAt', 'updatedAt', 'hook', 'protagonist', 'antagonist', 'problem', 'key', 'outcome', 'notes']) expect(exported[field], field).toEqual(arc[field]);
    }
    expect(doc.links).toHaveLength(2);
    expect(doc.thingTypes.map((x: { name: string }) => x.name)).toEqual(['NPCs', 'Locations', 'Items', 'Gods / Demons?']);
    expect(doc.assets).toEqual([expect.objectContaining({ id: s.assetId, label: 'Map of Phandalin', contentType: 'image/png', file: expect.stringMatching(/^images\/[0-9a-f]{32}\.png$/) as unknown })]);
    expect(doc.members).toEqual([expect.objectContaining({ userId: owner.id, role: 'owner', email: owner.email })]);
  });

  it('zips campaign.json with every uploaded image’s bytes', async () => {
    const s = await seed();
    const res = await send('GET', `${s.base}/export`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toMatch(/\.zip"$/);
    const files = await unzip(res.rawPayload);
    const doc = JSON.parse(files.get('campaign.json')!.toString('utf8')) as { assets: { file: string }[]; exportedAt: string };
    const again = json<{ exportedAt: string }>(await send('GET', `${s.base}/export?format=json`));
    expect({ ...doc, exportedAt: '' }).toEqual({ ...again, exportedAt: '' });
    expect([...files.keys()].sort()).toEqual(['campaign.json', doc.assets[0]!.file]);
    expect(files.get(doc.assets[0]!.file)!.equals(s.imageBytes)).toBe(true);
  });

  it('writes a Markdown vault whose every relative link resolves to a file in it', async () => {
    const s = await seed();
    const res = await send('GET', `${s.base}/export?format=markdown`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toMatch(/-vault\.zip"$/);
    const files = await unzip(res.rawPayload);
    const names = [...files.keys()].sort();
    expect(names).toEqual(
      expect.arrayContaining(['index.md', 'Arcs/goblin-arrows.md', 'Arcs/cragmaw-hideout.md', 'NPCs/gundren-rockseeker.md', 'Locations/phandalin.md', 'Gods - Demons-/lolth.md']),
    );
    expect(names.some((name) => /^images\/[0-9a-f]{32}\.png$/.test(name))).toBe(true);
    let links = 0;
    for (const [name, bytes] of files) {
      if (!name.endsWith('.md')) continue;
      const text = bytes.toString('utf8');
      const front = /^---\n([\s\S]*?)\n---\n/.exec(text);
      expect(front, name).not.toBeNull();
      const meta = parseYaml(front![1]!) as Record<string, unknown>;
      expect(meta.id, name).toEqual(expect.any(Number));
      const targets = [
        ...[...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!),
        ...((meta.arcs as string[] | undefined) ?? []),
        ...((meta.things as string[] | undefined) ?? []),
        ...(typeof meta.parent === 'string' ? [meta.parent] : []),
      ];
      for (const target of targets) {
        const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(name), decodeURIComponent(target)));
        expect(files.has(resolved), `${name} links to ${target}, which is not in the vault`).toBe(true);
        links += 1;
      }
    }
    expect(links).toBeGreaterThanOrEqual(8);
    const town = files.get('Locations/phandalin.md')!.toString('utf8');
    expect(town).toContain('[Gundren Rockseeker](../NPCs/gundren-rockseeker.md)');
    expect(town).toContain('[Lolth](../Gods%20-%20Demons-/lolth.md)');
    expect(town).toContain('> [!secret]\n> The mayor is a doppelganger.');
    expect(town).toMatch(/!\[Map of Phandalin\]\(\.\.\/images\/[0-9a-f]{32}\.png\)/);
    expect(town).toContain('**bold**');
    const hideout = parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(files.get('Arcs/cragmaw-hideout.md')!.toString('utf8'))![1]!) as Record<string, unknown>;
    expect(hideout).toMatchObject({ name: 'Cragmaw Hideout', parent: 'goblin-arrows.md', visibility: 'gm' });
    expect(files.get('index.md')!.toString('utf8')).toContain('[Goblin Arrows](Arcs/goblin-arrows.md)');
    // The front matter names the type as it is (its folder's name lost characters), and index.md says whose vault it is.
    expect(parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(files.get('Gods - Demons-/lolth.md')!.toString('utf8'))![1]!)).toMatchObject({ type: 'Gods / Demons?', visibility: 'gm' });
    expect(parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(files.get('index.md')!.toString('utf8'))![1]!)).toMatchObject({ format: 'loreforge-vault' });
  });

  it('keeps secrets at any depth GM-only in the Markdown vault, and reads them back as secrets', async () => {
    const campaign = json<{ slug: string }>(await send('POST', '/api/campaigns', { newCampaign: { name: 'Nested Secrets' } }));
    const base = `/api/campaigns/${campaign.slug}`;
    const typeId = json<{ id: number }[]>(await send('GET', `${base}/thing-types`))[0]!.id;
    const item = (...children: unknown[]) => ({ type: 'list-item', children });
    const list = (...items: unknown[]) => ({ type: 'bulleted-list', children: items });
    const cell = (...children: unknown[]) => ({ type: 'table-cell', children });
    const row = (...cells: unknown[]) => ({ type: 'table-row', children: cells });
    const markers = ['secretitemword', 'secretparaword', 'secretnestedword', 'secretcellword', 'secretquoteword', 'secretlinkword'];
    const description = [
      p(t('Open text.')),
      list(item(p(t('inn'))), { ...item(p(t(markers[0]!))), isSecret: true }),
      list(item(p(t('mine')), { ...p(t(markers[1]!)), isSecret: true })),
      list(item(p(t('manor')), { ...list(item(p(t(markers[2]!)))), isSecret: true })),
      { type: 'table', children: [row(cell(p(t('Who'))), cell(p(t('What')))), row(cell(p(t('Sildar'))), { ...cell(p(t(markers[3]!))), isSecret: true })] },
      list(item(p(t('shrine')), { type: 'block-quote', isSecret: true, children: [p(t(markers[4]!))] })),
      p(t('See '), { type: 'link', url: 'https://example.test/', isSecret: true, children: [t(markers[5]!)] }, t('.')),
    ];
    const thing = json<{ slug: string }>(await send('POST', `${base}/things`, { newThing: { name: 'Phandalin', typeId, description } }));
    const vault = (await send('GET', `${base}/export?format=markdown`)).rawPayload;
    const files = await unzip(vault);
    const text = [...files].find(([name]) => name.endsWith(`/${thing.slug}.md`))![1].toString('utf8');
    expect(text).toContain(`- > [!secret]\n  > ${markers[0]}`);
    // (Lists side by side alternate their bullets, so they stay two lists.)
    expect(text).toMatch(new RegExp(`[-*] mine\\n  > \\[!secret\\]\\n  > ${markers[1]}`));
    expect(text).toContain(`| <span class="secret">${markers[3]}</span> |`);
    expect(text).toContain(`<span class="secret">[${markers[5]}](https://example.test/)</span>`);
    // Read back, every marker is there and every one is secret: a player's reading has none.
    const form = multipartFile(vault, 'vault.zip');
    const imported = await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...owner.headers, ...form.headers }, payload: form.payload });
    expect(imported.statusCode, imported.body).toBe(201);
    const back = json<{ description: unknown[] }>(await send('GET', `/api/campaigns/${json<{ slug: string }>(imported).slug}/things/${thing.slug}`)).description;
    const all = JSON.stringify(back);
    const open = JSON.stringify(redactNodes(back));
    for (const marker of markers) {
      expect(all, marker).toContain(marker);
      expect(open, marker).not.toContain(marker);
    }
    expect(open).toContain('Open text.');
    expect(open).toContain('shrine');
  });

  it('is for the owner and game masters, and checks the format', async () => {
    const s = await seed();
    const player = await ctx.createUser();
    const gm = await ctx.createUser();
    await joinCampaign(ctx.app, owner, s.slug, player, 'player');
    await joinCampaign(ctx.app, owner, s.slug, gm, 'gm');
    expect(json(await send('GET', `${s.base}/export`, undefined, player)).code).toBe('role_forbidden');
    expect((await send('GET', `${s.base}/export?format=json`, undefined, gm)).statusCode).toBe(200);
    for (const query of ['format=pdf', 'format=json&format=json', 'format=']) {
      const res = await send('GET', `${s.base}/export?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(json(res).code).toBe('invalid_query');
    }
  });
});
