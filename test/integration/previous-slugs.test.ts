// Previous slugs and slug changes of GM-only records (CONTRACT "Secrets that hold"): a slug change
// of a GM-only record writes its new slug only where players do not read; a thing or an arc answers
// to its previous slugs (308 to those who may see it, `[[kind#old]]` links, backlinks) until another
// record of the same kind takes the slug.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type TestContext, type TestUser } from '../support/app.js';
import { contextWithUsers, createThing, newCampaign, type TestCampaign } from '../support/fixtures.js';
import { mentionsIndexProblems } from '../support/mentions-integrity.js';
import { joinCampaign } from '../support/sharing.js';
import { dialect } from '../support/test-db.js';
import { p, t } from '../fixtures/rich-text.js';

let ctx: TestContext;
let owner: TestUser;
let stranger: TestUser;
let player: TestUser;

beforeAll(async () => {
  ({ ctx, owner, stranger } = await contextWithUsers());
  player = await ctx.createUser();
});
afterAll(async () => {
  expect(await mentionsIndexProblems(ctx.database.kysely)).toEqual([]);
  await ctx.close();
});

const get = (url: string, user: TestUser = owner) => ctx.app.inject({ method: 'GET', url, headers: user.headers });

async function write(method: 'POST' | 'PUT', url: string, payload: object, status = method === 'POST' ? 201 : 200) {
  const res = await ctx.app.inject({ method, url, headers: owner.headers, payload });
  expect(res.statusCode, res.body).toBe(status);
  return json<{ id: number; slug: string; name: string }>(res);
}

const secret = (...children: unknown[]) => ({ type: 'paragraph', isSecret: true, children });
/** A list whose second item is secret: a secret at depth, as the editor makes it. */
const listWithSecretItem = (visible: string, hidden: string) => ({
  type: 'bulleted-list',
  children: [
    { type: 'list-item', children: [t(visible)] },
    { type: 'list-item', isSecret: true, children: [t(hidden)] },
  ],
});

/** Every text leaf of a JSON answer, joined. */
const textOf = (value: unknown): string => JSON.stringify(value).match(/"text":"[^"]*"/g)?.join(' ') ?? '';

async function setUp(name: string): Promise<TestCampaign> {
  const c = await newCampaign(ctx.app, owner, name);
  await joinCampaign(ctx.app, owner, c.slug, player, 'player');
  return c;
}

describe(`slug changes of GM-only records on ${dialect}`, () => {
  it('rewrites [[thing#old]] only inside GM-only records and secret elements, at any depth', async () => {
    const c = await setUp('Hidden Slugs');
    const villain = await createThing(ctx.app, owner, c, 'Black Spider', { visibility: 'gm' });
    const text = `Beware [[thing#${villain.slug}]].`;
    const visible = await createThing(ctx.app, owner, c, 'Phandalin', { description: [p(t(text)), secret(t(text))] });
    const nested = await createThing(ctx.app, owner, c, 'Tresendar', {
      description: [p(t(text)), listWithSecretItem(text, text), { type: 'block-quote', children: [{ type: 'paragraph', isSecret: true, children: [t(text)] }] }],
    });
    const hidden = await createThing(ctx.app, owner, c, 'Lair', { visibility: 'gm', description: [p(t(text))] });
    const campaign = await write('PUT', c.base, { updatedCampaign: { description: [p(t(text)), secret(t(text))] } });
    expect(campaign.slug).toBe(c.slug);
    const arc = await write('POST', `${c.base}/arcs`, { newArc: { name: 'Rumours', hook: [p(t(text))], notes: [secret(t(text))] } });

    await write('PUT', `${c.base}/things/${villain.slug}`, { updatedThing: { slug: 'nezznar' } });

    const renamed = 'Beware [[thing#nezznar]].';
    expect(json<{ description: unknown }>(await get(`${c.base}/things/${visible.slug}`)).description).toEqual([p(t(text)), secret(t(renamed))]);
    expect(json<{ description: unknown }>(await get(`${c.base}/things/${nested.slug}`)).description).toEqual([
      p(t(text)),
      listWithSecretItem(text, renamed),
      { type: 'block-quote', children: [{ type: 'paragraph', isSecret: true, children: [t(renamed)] }] },
    ]);
    expect(json<{ description: unknown }>(await get(`${c.base}/things/${hidden.slug}`)).description).toEqual([p(t(renamed))]);
    expect(json<{ description: unknown }>(await get(c.base)).description).toEqual([p(t(text)), secret(t(renamed))]);
    const arcBody = json<{ hook: unknown; notes: unknown }>(await get(`${c.base}/arcs/${arc.slug}`));
    expect(arcBody.hook).toEqual([p(t(text))]);
    expect(arcBody.notes).toEqual([secret(t(renamed))]);

    // Nowhere a player reads: records, the campaign, rendered output, search. (What players read of
    // secrets at depth is the redaction's part; the stored JSON above shows none was written there.)
    for (const url of [`${c.base}/things/${visible.slug}`, c.base, `${c.base}/arcs/${arc.slug}`, `${c.base}/things/${visible.slug}/rendered?format=markdown`, `${c.base}/search?q=beware`]) {
      const res = await get(url, player);
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).not.toContain('nezznar');
    }
    // The link the player reads as typed still names the GM-only thing for the game master.
    const rendered = json<{ fields: { description: string } }>(await get(`${c.base}/things/${visible.slug}/rendered`)).fields.description;
    expect(rendered).toContain(`href="/campaigns/${c.slug}/things/nezznar">Black Spider</a>`);
    expect(rendered).not.toContain('mention missing');
    const playerRendered = json<{ fields: { description: string } }>(await get(`${c.base}/things/${visible.slug}/rendered`, player)).fields.description;
    expect(playerRendered).toContain('<span class="mention missing">');
    expect(playerRendered).not.toContain('Black Spider');
  });

  it('rewrites [[arc#old]] of a GM-only arc only where players do not read', async () => {
    const c = await setUp('Hidden Arcs');
    const plot = await write('POST', `${c.base}/arcs`, { newArc: { name: 'Secret Plot', visibility: 'gm' } });
    const text = `See [[arc#${plot.slug}]]`;
    const visible = await createThing(ctx.app, owner, c, 'Notice Board', { description: [p(t(text)), listWithSecretItem(text, text)] });
    await write('PUT', `${c.base}/arcs/${plot.slug}`, { updatedArc: { slug: 'the-coup' } });
    expect(json<{ description: unknown }>(await get(`${c.base}/things/${visible.slug}`)).description).toEqual([p(t(text)), listWithSecretItem(text, 'See [[arc#the-coup]]')]);
  });

  it('rewrites everywhere when the record is visible, as before', async () => {
    const c = await setUp('Visible Slugs');
    const hero = await createThing(ctx.app, owner, c, 'Sildar');
    const source = await createThing(ctx.app, owner, c, 'Inn', { description: [p(t('[[thing#sildar]]')), listWithSecretItem('[[thing#sildar]]', '[[thing#sildar]]')] });
    await write('PUT', `${c.base}/things/${hero.slug}`, { updatedThing: { slug: 'sir-sildar' } });
    expect(textOf(json(await get(`${c.base}/things/${source.slug}`)))).not.toContain('thing#sildar');
  });
});

describe(`previous slugs on ${dialect}`, () => {
  let c: TestCampaign;
  let visibleThing: { id: number; slug: string };
  let hiddenThing: { id: number; slug: string };
  let visibleArc: { id: number; slug: string };
  let hiddenArc: { id: number; slug: string };

  beforeAll(async () => {
    c = await setUp('Renamed Things');
    visibleThing = await createThing(ctx.app, owner, c, 'Gundren');
    hiddenThing = await createThing(ctx.app, owner, c, 'Cultist', { visibility: 'gm' });
    visibleArc = await write('POST', `${c.base}/arcs`, { newArc: { name: 'Cragmaw' } });
    hiddenArc = await write('POST', `${c.base}/arcs`, { newArc: { name: 'Betrayal', visibility: 'gm' } });
    await write('PUT', `${c.base}/things/gundren`, { updatedThing: { slug: 'gundren-rockseeker' } });
    await write('PUT', `${c.base}/things/gundren-rockseeker`, { updatedThing: { slug: 'gundren-the-dwarf' } });
    await write('PUT', `${c.base}/things/cultist`, { updatedThing: { slug: 'red-wizard' } });
    await write('PUT', `${c.base}/arcs/cragmaw`, { updatedArc: { slug: 'cragmaw-castle' } });
    await write('PUT', `${c.base}/arcs/betrayal`, { updatedArc: { slug: 'the-betrayal' } });
  });

  it('answers 308 with the current URL to those who may see the record, for the record and its sub-routes', async () => {
    const cases: [string, string][] = [
      ['/things/gundren', '/things/gundren-the-dwarf'],
      ['/things/gundren-rockseeker', '/things/gundren-the-dwarf'],
      ['/things/gundren/rendered?format=markdown', '/things/gundren-the-dwarf/rendered?format=markdown'],
      ['/things/gundren/backlinks', '/things/gundren-the-dwarf/backlinks'],
      ['/things/gundren/arcs', '/things/gundren-the-dwarf/arcs'],
      ['/arcs/cragmaw', '/arcs/cragmaw-castle'],
      ['/arcs/cragmaw/rendered', '/arcs/cragmaw-castle/rendered'],
      ['/arcs/cragmaw/backlinks', '/arcs/cragmaw-castle/backlinks'],
    ];
    for (const user of [owner, player]) {
      for (const [from, to] of cases) {
        const res = await get(`${c.base}${from}`, user);
        expect(res.statusCode, from).toBe(308);
        expect(res.headers.location, from).toBe(`${c.base}${to}`);
        expect((await get(res.headers.location as string, user)).statusCode, to).toBe(200);
      }
    }
    expect(visibleThing.id).toBeGreaterThan(0);
    expect(visibleArc.id).toBeGreaterThan(0);
  });

  it('answers 404 to players for a GM-only record’s previous slug, and to non-members for any', async () => {
    for (const path of ['/things/cultist', '/things/cultist/rendered', '/things/cultist/backlinks', '/arcs/betrayal', '/arcs/betrayal/backlinks']) {
      const gm = await get(`${c.base}${path}`);
      expect(gm.statusCode, path).toBe(308);
      const res = await get(`${c.base}${path}`, player);
      expect(res.statusCode, path).toBe(404);
      expect(res.headers.location).toBeUndefined();
      expect(res.body).not.toMatch(/red-wizard|the-betrayal/);
      // Byte for byte the 404 of a slug that never existed.
      const slug = /\/(?:things|arcs)\/([^/?]+)/.exec(path)![1]!;
      const missing = 'q'.repeat(slug.length);
      const absent = await get(`${c.base}${path.replace(`/${slug}`, `/${missing}`)}`, player);
      expect(res.body.replaceAll(slug, missing)).toBe(absent.body);
      const asPlayer = await ctx.app.inject({ method: 'GET', url: `${c.base}${path}`, headers: { ...owner.headers, 'loreforge-view': 'player' } });
      expect(asPlayer.statusCode, path).toBe(404);
    }
    expect((await get(`${c.base}/things/gundren`, stranger)).statusCode).toBe(404);
    expect(hiddenThing.id + hiddenArc.id).toBeGreaterThan(0);
  });

  it('resolves [[kind#previous]] links in rendering and backlinks', async () => {
    const source = await createThing(ctx.app, owner, c, 'Letter', { description: [p(t('From [[thing#gundren]] about [[arc#cragmaw]] and [[thing#cultist]].'))] });
    const html = json<{ fields: { description: string } }>(await get(`${c.base}/things/${source.slug}/rendered`)).fields.description;
    expect(html).toContain(`href="/campaigns/${c.slug}/things/gundren-the-dwarf">Gundren</a>`);
    expect(html).toContain(`href="/campaigns/${c.slug}/arcs/cragmaw-castle">Cragmaw</a>`);
    expect(html).toContain(`href="/campaigns/${c.slug}/things/red-wizard">Cultist</a>`);
    const playerHtml = json<{ fields: { description: string } }>(await get(`${c.base}/things/${source.slug}/rendered`, player)).fields.description;
    expect(playerHtml).toContain(`href="/campaigns/${c.slug}/things/gundren-the-dwarf">Gundren</a>`);
    expect(playerHtml).not.toMatch(/red-wizard|Cultist/);
    const backlinks = (path: string, user = owner) => get(`${c.base}${path}/backlinks`, user).then((res) => json<{ slug: string }[]>(res).map((b) => b.slug));
    expect(await backlinks('/things/gundren-the-dwarf')).toContain(source.slug);
    expect(await backlinks('/things/gundren-the-dwarf', player)).toContain(source.slug);
    expect(await backlinks('/arcs/cragmaw-castle')).toContain(source.slug);
    expect(await backlinks('/things/red-wizard')).toContain(source.slug);
  });

  it('releases a previous slug when another record of the same kind takes it, generated or explicit', async () => {
    const d = await setUp('Released Slugs');
    const first = await createThing(ctx.app, owner, d, 'Harbin');
    await write('PUT', `${d.base}/things/harbin`, { updatedThing: { slug: 'harbin-wester' } });
    const source = await createThing(ctx.app, owner, d, 'Town Hall', { description: [p(t('[[thing#harbin]] is mayor'))] });
    expect((await get(`${d.base}/things/harbin`)).statusCode).toBe(308);

    // An arc may have the slug: previous slugs are per kind.
    const arc = await write('POST', `${d.base}/arcs`, { newArc: { name: 'Harbin' } });
    expect(arc.slug).toBe('harbin');
    expect((await get(`${d.base}/things/harbin`)).statusCode).toBe(308);

    // A new thing generated with the slug takes it.
    const heir = await createThing(ctx.app, owner, d, 'Harbin');
    expect(heir.slug).toBe('harbin');
    const res = await get(`${d.base}/things/harbin`);
    expect(res.statusCode).toBe(200);
    expect(json<{ id: number }>(res).id).toBe(heir.id);
    const html = json<{ fields: { description: string } }>(await get(`${d.base}/things/${source.slug}/rendered`)).fields.description;
    expect(html).toContain(`href="/campaigns/${d.slug}/things/harbin">Harbin</a>`);
    expect(json<{ slug: string }[]>(await get(`${d.base}/things/harbin-wester/backlinks`)).map((b) => b.slug)).toEqual([]);
    expect(json<{ slug: string }[]>(await get(`${d.base}/things/harbin/backlinks`)).map((b) => b.slug)).toEqual([source.slug]);

    // An explicit slug change takes a previous slug too (no 409: only current slugs are taken).
    await write('PUT', `${d.base}/things/harbin-wester`, { updatedThing: { slug: 'wester' } });
    const other = await createThing(ctx.app, owner, d, 'Sister Garaele');
    await write('PUT', `${d.base}/things/${other.slug}`, { updatedThing: { slug: 'harbin-wester' } });
    expect(json<{ id: number }>(await get(`${d.base}/things/harbin-wester`)).id).toBe(other.id);
    // A current slug is still taken: 409 as before.
    const taken = await ctx.app.inject({ method: 'PUT', url: `${d.base}/things/wester`, headers: owner.headers, payload: { updatedThing: { slug: 'harbin' } } });
    expect(taken.statusCode).toBe(409);
    // A record may take back its own previous slug.
    await write('PUT', `${d.base}/things/wester`, { updatedThing: { slug: 'mayor' } });
    await write('PUT', `${d.base}/things/mayor`, { updatedThing: { slug: 'wester' } });
    expect(json<{ id: number }>(await get(`${d.base}/things/wester`)).id).toBe(first.id);
    const back = await get(`${d.base}/things/mayor`);
    expect(back.statusCode).toBe(308);
    expect(back.headers.location).toBe(`${d.base}/things/wester`);
  });

  it('forgets the previous slugs of a deleted record', async () => {
    const d = await setUp('Deleted Slugs');
    await createThing(ctx.app, owner, d, 'Doomed');
    await write('PUT', `${d.base}/things/doomed`, { updatedThing: { slug: 'gone' } });
    const del = await ctx.app.inject({ method: 'DELETE', url: `${d.base}/things/gone`, headers: owner.headers });
    expect(del.statusCode).toBe(204);
    expect((await get(`${d.base}/things/doomed`)).statusCode).toBe(404);
  });
});
