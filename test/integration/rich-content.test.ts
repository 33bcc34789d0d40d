// Rich content through the API (issue 11, CONTRACT "Rich content"): mentions kept in the index by
// every write, backlinks, rendered fields in both formats, slug-link rewrites, assets in rendered
// images, the response cache, and the command line that rebuilds the index.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { loadConfig } from '../../src/config.js';
import { buildCheckedApp, createTestUser, json, setPremium, type TestContext, type TestUser } from '../support/app.js';
import { contextWithUsers, createThing, databaseForCli, newCampaign, problemOf, type TestCampaign } from '../support/fixtures.js';
import { mentionsIndexProblems } from '../support/mentions-integrity.js';
import { dialect } from '../support/test-db.js';
import { IN_A_YEAR } from '../fixtures/image-app.js';
import { png } from '../fixtures/images.js';
import { everyElement, mention, p, t } from '../fixtures/rich-text.js';

let ctx: TestContext;
let owner: TestUser;
let stranger: TestUser;
let dataDir: string;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-rich-'));
  ({ ctx, owner, stranger } = await contextWithUsers({ DATA_DIR: dataDir }));
  await setPremium(ctx.app, ctx.database, owner.email, IN_A_YEAR);
});
afterAll(async () => {
  // Whatever the suite did, the index equals what the records' rich text says.
  expect(await mentionsIndexProblems(ctx.database.kysely)).toEqual([]);
  await ctx.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});


interface Backlink {
  type: string;
  id: number;
  slug: string;
  name: string;
  fields: string[];
  updatedAt: string;
}

const get = (url: string, user: TestUser = owner, headers: Record<string, string> = {}) => ctx.app.inject({ method: 'GET', url, headers: { ...user.headers, ...headers } });

async function ok<T>(url: string, user: TestUser = owner): Promise<T> {
  const res = await get(url, user);
  expect(res.statusCode, res.body).toBe(200);
  return json<T>(res);
}

async function write(method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, status = method === 'POST' ? 201 : method === 'DELETE' ? 204 : 200) {
  const res = await ctx.app.inject({ method, url, headers: owner.headers, ...(payload ? { payload } : {}) });
  expect(res.statusCode, res.body).toBe(status);
  return res.body === '' ? undefined : json(res);
}

const backlinks = (c: TestCampaign, kind: 'things' | 'arcs', slug: string) => ok<Backlink[]>(`${c.base}/${kind}/${slug}/backlinks`);
const sources = async (c: TestCampaign, kind: 'things' | 'arcs', slug: string) => (await backlinks(c, kind, slug)).map((b) => `${b.type}:${b.slug}:${b.fields.join(',')}`);
const renderedThing = async (c: TestCampaign, slug: string, format = 'html') => (await ok<{ format: string; fields: { description: string } }>(`${c.base}/things/${slug}/rendered?format=${format}`)).fields.description;

async function newArc(c: TestCampaign, name: string, fields: Record<string, unknown> = {}) {
  return (await write('POST', `${c.base}/arcs`, { newArc: { name, ...fields } })) as { id: number; slug: string; name: string };
}

describe(`mentions and backlinks on ${dialect}`, () => {
  let c: TestCampaign;
  beforeAll(async () => {
    c = await newCampaign(ctx.app, owner, 'Lost Mine');
  });

  it('lists every record that mentions a thing, with the fields that do, newest change first', async () => {
    const bob = await createThing(ctx.app, owner, c, 'Bob');
    const tavern = await createThing(ctx.app, owner, c, 'Tavern', { description: [p(t('Home of '), mention('thing', bob.id))] });
    const arc = await newArc(c, 'The Heist', { hook: [p(t('Bob is [[thing#bob]].'))], notes: [p(mention('thing', bob.id, 'him'))] });
    expect(await sources(c, 'things', bob.slug)).toEqual([`arc:${arc.slug}:hook,notes`, `thing:${tavern.slug}:description`]);
    const list = await backlinks(c, 'things', bob.slug);
    expect(list[0]).toEqual({ type: 'arc', id: arc.id, slug: arc.slug, name: 'The Heist', fields: ['hook', 'notes'], updatedAt: expect.any(String) as string });
    expect(await backlinks(c, 'things', tavern.slug)).toEqual([]);

    // The campaign's description is a source too.
    await write('PUT', c.base, { updatedCampaign: { description: [p(t('Starring [[thing#bob]]'))] } });
    expect((await sources(c, 'things', bob.slug))[0]).toBe(`campaign:${c.slug}:description`);
    await write('PUT', c.base, { updatedCampaign: { description: [p(t('No one.'))] } });

    // Editing the source away removes the backlink; editing it back restores it, newest first.
    await write('PUT', `${c.base}/things/${tavern.slug}`, { updatedThing: { description: [p(t('Empty now.'))] } });
    expect(await sources(c, 'things', bob.slug)).toEqual([`arc:${arc.slug}:hook,notes`]);
    await write('PUT', `${c.base}/things/${tavern.slug}`, { updatedThing: { description: [p(t('Back: [[thing#bob]]'))] } });
    expect(await sources(c, 'things', bob.slug)).toEqual([`thing:${tavern.slug}:description`, `arc:${arc.slug}:hook,notes`]);

    // Deleting the source removes its backlinks.
    await write('DELETE', `${c.base}/arcs/${arc.slug}`);
    expect(await sources(c, 'things', bob.slug)).toEqual([`thing:${tavern.slug}:description`]);
  });

  it('writes no mentions statement for an edit that leaves a record’s mentions as they were, and renews them when they change', async () => {
    const bob = await createThing(ctx.app, owner, c, 'Quiet Bob');
    const inn = await createThing(ctx.app, owner, c, 'Quiet Inn', { description: [p(t('Home of '), mention('thing', bob.id)), p(t('Open late.'))] });
    const arc = await newArc(c, 'Quiet Heist', { hook: [p(t('Bob is [[thing#quiet-bob]].'))] });
    const mentionStatements = () => ctx.queries.filter((q) => /\b(delete from|insert into) "?mentions"?/i.test(q));
    // Other words around the same mentions, in a thing, an arc and the campaign's description.
    ctx.queries.length = 0;
    await write('PUT', `${c.base}/things/${inn.slug}`, { updatedThing: { description: [p(t('Home of '), mention('thing', bob.id)), p(t('Closed on feast days.'))] } });
    await write('PUT', `${c.base}/arcs/${arc.slug}`, { updatedArc: { hook: [p(t('Bob, [[thing#quiet-bob]], knows.'))] } });
    await write('PUT', c.base, { updatedCampaign: { description: [p(t('Nothing here yet.'))] } });
    await write('PUT', c.base, { updatedCampaign: { description: [p(t('Still nothing.'))] } });
    expect(mentionStatements()).toEqual([]);
    expect(await sources(c, 'things', bob.slug)).toEqual([`arc:${arc.slug}:hook`, `thing:${inn.slug}:description`]);
    // A mention made secret, then gone: the rows change, so they are written.
    await write('PUT', `${c.base}/things/${inn.slug}`, { updatedThing: { description: [{ ...p(t('Home of '), mention('thing', bob.id)), isSecret: true }] } });
    expect(mentionStatements().length).toBeGreaterThan(0);
    ctx.queries.length = 0;
    await write('PUT', `${c.base}/arcs/${arc.slug}`, { updatedArc: { hook: [p(t('No one.'))] } });
    expect(mentionStatements().length).toBeGreaterThan(0);
    expect(await sources(c, 'things', bob.slug)).toEqual([`thing:${inn.slug}:description`]);
    expect(await mentionsIndexProblems(ctx.database.kysely)).toEqual([]);
  });

  it('queues a thing once for search when its slug change rewrites its own text (one upsert may not touch a row twice)', async () => {
    const mirror = await createThing(ctx.app, owner, c, 'Mirror', { description: [p(t('The [[thing#mirror]] shows a quicksilver face.'))] });
    await write('PUT', `${c.base}/things/${mirror.slug}`, { updatedThing: { slug: 'looking-glass', description: [p(t('The [[thing#mirror]] shows a moonlit face.'))] } });
    const after = json<{ description: unknown }>(await get(`${c.base}/things/looking-glass`));
    expect(after.description).toEqual([p(t('The [[thing#looking-glass]] shows a moonlit face.'))]);
    const found = await ok<{ results: { slug: string }[] }>(`${c.base}/search?q=moonlit`);
    expect(found.results.map((r) => r.slug)).toEqual(['looking-glass']);
    expect((await ok<{ results: unknown[] }>(`${c.base}/search?q=quicksilver`)).results).toEqual([]);
  });

  it('lists where an arc is mentioned, and an arc mentioning itself', async () => {
    const arc = await newArc(c, 'Self Aware');
    await write('PUT', `${c.base}/arcs/${arc.slug}`, { updatedArc: { key: [p(mention('arc', arc.id))] } });
    const npc = await createThing(ctx.app, owner, c, 'Witness', { description: [p(t('Saw [[arc#self-aware]]'))] });
    expect(await sources(c, 'arcs', arc.slug)).toEqual([`thing:${npc.slug}:description`, `arc:${arc.slug}:key`]);
  });

  it('keeps a mention by id through a rename and a slug change of its target', async () => {
    const target = await createThing(ctx.app, owner, c, 'Nezznar');
    // As the editor inserts it: no name, so the current one shows.
    const source = await createThing(ctx.app, owner, c, 'Cave', { description: [p(t('Lair of '), mention('thing', target.id, ''))] });
    await write('PUT', `${c.base}/things/${target.slug}`, { updatedThing: { name: 'The Black Spider', slug: 'black-spider' } });
    expect(await renderedThing(c, source.slug)).toBe(
      `<p>Lair of <a class="mention" data-type="thing" data-id="${target.id}" href="/campaigns/${c.slug}/things/black-spider">The Black Spider</a></p>`,
    );
    expect(await renderedThing(c, source.slug, 'markdown')).toBe(`Lair of [The Black Spider](/campaigns/${c.slug}/things/black-spider)\n`);
    expect(await sources(c, 'things', 'black-spider')).toEqual([`thing:${source.slug}:description`]);
    // The stored element is not rewritten: it holds an id.
    expect(json<{ description: unknown }>(await get(`${c.base}/things/${source.slug}`)).description).toEqual([p(t('Lair of '), mention('thing', target.id, ''))]);
    // A mention with a label renders its label, through the rename too.
    const labelled = await createThing(ctx.app, owner, c, 'Web', { description: [p(mention('thing', target.id, 'the wizard'))] });
    expect(await renderedThing(c, labelled.slug)).toBe(`<p><a class="mention" data-type="thing" data-id="${target.id}" href="/campaigns/${c.slug}/things/black-spider">the wizard</a></p>`);
  });

  it('rewrites [[kind#old-slug]] text links across the campaign on a slug change, with a new version', async () => {
    const target = await createThing(ctx.app, owner, c, 'Glasstaff');
    const arcTarget = await newArc(c, 'Redbrands');
    const source = await createThing(ctx.app, owner, c, 'Manor', {
      description: [p(t('See [[thing#glasstaff]] and [[arc#redbrands]], '), t('[[thing#glasstaff]]', { code: true })), { type: 'code-block', children: [t('[[thing#glasstaff]]')] }],
    });
    const arcSource = await newArc(c, 'Plot', { problem: [p(t('[[thing#glasstaff]] again'))] });
    const before = await get(`${c.base}/things/${source.slug}`);

    await write('PUT', `${c.base}/things/${target.slug}`, { updatedThing: { slug: 'iarno' } });
    const after = await get(`${c.base}/things/${source.slug}`);
    expect(json(after).description).toEqual([
      p(t('See [[thing#iarno]] and [[arc#redbrands]], '), t('[[thing#glasstaff]]', { code: true })),
      { type: 'code-block', children: [t('[[thing#glasstaff]]')] },
    ]);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(json(after).updatedAt >= json(before).updatedAt).toBe(true);
    expect(json<{ problem: unknown }>(await get(`${c.base}/arcs/${arcSource.slug}`)).problem).toEqual([p(t('[[thing#iarno]] again'))]);
    expect(await sources(c, 'things', 'iarno')).toEqual(expect.arrayContaining([`thing:${source.slug}:description`, `arc:${arcSource.slug}:problem`]));

    await write('PUT', `${c.base}/arcs/${arcTarget.slug}`, { updatedArc: { slug: 'the-redbrands' } });
    expect(json<{ description: { children: { text: string }[] }[] }>(await get(`${c.base}/things/${source.slug}`)).description[0]!.children[0]!.text).toBe(
      'See [[thing#iarno]] and [[arc#the-redbrands]], ',
    );
  });

  it('makes a [[thing#slug]] written before its target exists a mention once it does', async () => {
    const source = await createThing(ctx.app, owner, c, 'Prophecy', { description: [p(t('One day [[thing#the-chosen]] will come.'))] });
    expect(await renderedThing(c, source.slug)).toBe('<p>One day <span class="mention missing">[[thing#the-chosen]]</span> will come.</p>');
    const chosen = await createThing(ctx.app, owner, c, 'The Chosen');
    expect(await sources(c, 'things', chosen.slug)).toEqual([`thing:${source.slug}:description`]);
    expect(await renderedThing(c, source.slug)).toContain(`href="/campaigns/${c.slug}/things/the-chosen">The Chosen</a>`);
  });

  it('stores a mention of another campaign’s record or of no record, renders it as missing, and lists it nowhere', async () => {
    const other = await newCampaign(ctx.app, owner, 'Elsewhere');
    const foreign = await createThing(ctx.app, owner, other, 'Foreigner');
    const description = [p(mention('thing', foreign.id, 'Foreigner'), t(' and '), mention('arc', 2_000_000_000, 'Nobody'))];
    const source = await createThing(ctx.app, owner, c, 'Border', { description });
    expect(json<{ description: unknown }>(await get(`${c.base}/things/${source.slug}`)).description).toEqual(description);
    expect(await renderedThing(c, source.slug)).toBe('<p><span class="mention missing">Foreigner</span> and <span class="mention missing">Nobody</span></p>');
    expect(await backlinks(other, 'things', foreign.slug)).toEqual([]);
  });

  it('renders a deleted target as plain text and drops the backlinks of a deleted target', async () => {
    const doomed = await createThing(ctx.app, owner, c, 'Doomed');
    const source = await createThing(ctx.app, owner, c, 'Grave', { description: [p(mention('thing', doomed.id, 'Doomed one'))] });
    await write('DELETE', `${c.base}/things/${doomed.slug}`);
    expect(await renderedThing(c, source.slug)).toBe('<p><span class="mention missing">Doomed one</span></p>');
    expect(await renderedThing(c, source.slug, 'markdown')).toBe('Doomed one\n');
    // A new record that takes the slug is not the old target of an id mention.
    const heir = await createThing(ctx.app, owner, c, 'Doomed');
    expect(await backlinks(c, 'things', heir.slug)).toEqual([]);
  });
});

describe(`rendered fields on ${dialect}`, () => {
  let c: TestCampaign;
  beforeAll(async () => {
    c = await newCampaign(ctx.app, owner, 'Rendering');
  });

  it('renders every narrative field of an arc and the campaign description, secrets included for the owner', async () => {
    const arc = await newArc(c, 'Finale', {
      hook: [p(t('A *literal* hook'))],
      notes: [p(t('Open')), { type: 'paragraph', isSecret: true, children: [t('Bob did it')] }],
    });
    const html = await ok<{ format: string; fields: Record<string, string> }>(`${c.base}/arcs/${arc.slug}/rendered`);
    expect(html).toEqual({
      format: 'html',
      fields: { hook: '<p>A *literal* hook</p>', protagonist: '<p></p>', antagonist: '<p></p>', problem: '<p></p>', key: '<p></p>', outcome: '<p></p>', notes: '<p>Open</p><section class="secret"><p>Bob did it</p></section>' },
      properties: '',
    });
    const markdown = await ok<{ format: string; fields: Record<string, string> }>(`${c.base}/arcs/${arc.slug}/rendered?format=markdown`);
    expect(markdown.format).toBe('markdown');
    expect(markdown.fields.hook).toBe('A \\*literal\\* hook\n');
    expect(markdown.fields.protagonist).toBe('');
    expect(markdown.fields.notes).toBe('Open\n\n> [!secret]\n> Bob did it\n');

    await write('PUT', c.base, { updatedCampaign: { description: [{ type: 'heading-one', children: [t('Welcome')] }, p(t('to [[arc#finale]]'))] } });
    expect(await ok(`${c.base}/rendered?format=markdown`)).toEqual({ format: 'markdown', fields: { description: `# Welcome\n\nto [Finale](/campaigns/${c.slug}/arcs/finale)\n` } });
  });

  it('answers 400 invalid_query for a format it does not know, and 404 to a stranger', async () => {
    const thing = await createThing(ctx.app, owner, c, 'Formatted');
    for (const query of ['format=pdf', 'format=HTML', 'format=', 'format=html&format=markdown']) {
      const res = await get(`${c.base}/things/${thing.slug}/rendered?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(problemOf(res)).toMatchObject({ code: 'invalid_query', errors: [{ path: '/format' }] });
    }
    for (const url of [`${c.base}/things/${thing.slug}/rendered`, `${c.base}/things/${thing.slug}/backlinks`, `${c.base}/rendered`]) {
      expect((await get(url, stranger)).statusCode).toBe(404);
    }
    expect(problemOf(await get(`${c.base}/things/nobody/rendered`)).code).toBe('thing_not_found');
    expect(problemOf(await get(`${c.base}/arcs/nobody/backlinks`)).code).toBe('arc_not_found');
  });

  it('shows an asset’s current URL, with its label as alt text and caption, and falls back to the url once it is gone', async () => {
    const grant = json<{ imageId: string; uploadURL: string }>(
      await ctx.app.inject({ method: 'POST', url: `${c.base}/assets/upload-url`, headers: owner.headers, payload: { label: 'Cragmaw map' } }),
    );
    const put = await ctx.app.inject({ method: 'PUT', url: new URL(grant.uploadURL).pathname, payload: png(), headers: { 'content-type': 'image/png' } });
    expect(put.statusCode, put.body).toBe(200);
    const confirmed = await ctx.app.inject({ method: 'POST', url: `${c.base}/assets/confirm-upload`, headers: owner.headers, payload: { imageId: grant.imageId, label: 'Cragmaw map' } });
    const { asset } = json<{ asset: { id: number; url: string } }>(confirmed);
    const thing = await createThing(ctx.app, owner, c, 'Castle', {
      description: [
        { type: 'image', url: 'https://stale.example.test/old.png', assetId: asset.id, alt: 'typed alt', caption: 'typed caption', children: [t('')] },
        p(t(`![whatever](${asset.url})`)),
      ],
    });
    // A 1×1 PNG: the asset's size, read at upload, so the browser reserves the box.
    // Its variant (images/variants.ts) as srcset; the first image of the text is eager and first in line.
    const img = `<img src="${asset.url}" alt="Cragmaw map" width="1" height="1" srcset="${asset.url.replace(/\.png$/, '-480.webp')} 1w" sizes="min(100vw, 1px)"`;
    const figure = (loading: string) => `<figure>${img} ${loading}><figcaption>Cragmaw map</figcaption></figure>`;
    expect(await renderedThing(c, thing.slug)).toBe(figure('fetchpriority="high"') + figure('loading="lazy"'));
    expect(await renderedThing(c, thing.slug, 'markdown')).toBe(`![Cragmaw map](${asset.url})\n\n*Cragmaw map*\n\n![Cragmaw map](${asset.url})\n\n*Cragmaw map*\n`);

    await write('DELETE', `${c.base}/assets/${asset.id}`);
    expect(await renderedThing(c, thing.slug)).toBe(
      '<figure><img src="https://stale.example.test/old.png" alt="typed alt" fetchpriority="high"><figcaption>typed caption</figcaption></figure>' +
        `<figure><img src="${asset.url}" alt="whatever" loading="lazy"><figcaption>whatever</figcaption></figure>`,
    );
  });

  it('answers 304 to If-None-Match until a mentioned record is renamed, then the new name', async () => {
    const target = await createThing(ctx.app, owner, c, 'Sildar');
    const source = await createThing(ctx.app, owner, c, 'Road', { description: [p(mention('thing', target.id))] });
    for (const url of [`${c.base}/things/${source.slug}/rendered`, `${c.base}/things/${target.slug}/backlinks`]) {
      const first = await get(url);
      expect(first.statusCode).toBe(200);
      expect(first.headers.etag).toMatch(/^W\//);
      expect((await get(url, owner, { 'if-none-match': first.headers.etag as string })).statusCode).toBe(304);
    }
    const url = `${c.base}/things/${source.slug}/rendered`;
    const before = await get(url);
    await write('PUT', `${c.base}/things/${target.slug}`, { updatedThing: { name: 'Sildar Hallwinter' } });
    const after = await get(url, owner, { 'if-none-match': before.headers.etag as string });
    expect(after.statusCode).toBe(200);
    expect(json<{ fields: { description: string } }>(after).fields.description).toContain('>Sildar Hallwinter</a>');
    const links = await get(`${c.base}/things/${target.slug}/backlinks`);
    await write('PUT', `${c.base}/things/${source.slug}`, { updatedThing: { name: 'High Road' } });
    const renamedSource = await get(`${c.base}/things/${target.slug}/backlinks`, owner, { 'if-none-match': links.headers.etag as string });
    expect(renamedSource.statusCode).toBe(200);
    expect(json<Backlink[]>(renamedSource)[0]!.name).toBe('High Road');
  });
});

describe(`every element of the vocabulary through the API on ${dialect}`, () => {
  it('comes back exactly as the editor stored it, unknown elements and keys included', async () => {
    const c = await newCampaign(ctx.app, owner, 'Round trip');
    const target = await createThing(ctx.app, owner, c, 'Target');
    const document = everyElement(target.id);
    const thing = await createThing(ctx.app, owner, c, 'Everything', { description: document });
    expect(thing.description).toEqual(document);
    expect(json<{ description: unknown }>(await get(`${c.base}/things/${thing.slug}`)).description).toEqual(document);
    await write('PUT', `${c.base}/things/${thing.slug}`, { updatedThing: { description: document } });
    expect(json<{ description: unknown }>(await get(`${c.base}/things/${thing.slug}`)).description).toEqual(document);
    const rendered = await renderedThing(c, thing.slug);
    for (const tag of ['<h1>', '<h6>', '<strong>', '<em>', '<u>', '<code>', '<s>', '<a href=', '<a class="mention"', '<blockquote>', '<ul>', '<ol>', '<pre>', '<hr>', '<figure>', '<table>', '<section class="secret">']) {
      expect(rendered, tag).toContain(tag);
    }
  });
});

describe(`npm run cli -- search reindex rebuilds the mentions index on ${dialect}`, () => {
  let cli: Awaited<ReturnType<typeof databaseForCli>>;
  beforeAll(async () => (cli = await databaseForCli()));
  afterAll(() => cli.close());

  it('restores backlinks lost from the index', async () => {
    let app = await buildCheckedApp(loadConfig(cli.env), { database: cli.database, logger: false });
    const user = await createTestUser(cli.database);
    const c = await newCampaign(app, user, 'Reindexed mentions');
    const target = await createThing(app, user, c, 'Remembered');
    const source = await createThing(app, user, c, 'Rememberer', { description: [p(t('[[thing#remembered]] '), mention('thing', target.id))] });
    const list = async () => json<Backlink[]>(await app.inject({ method: 'GET', url: `${c.base}/things/${target.slug}/backlinks`, headers: user.headers })).map((b) => b.slug);
    expect(await list()).toEqual([source.slug]);
    await app.close();
    // Lose the index, as if it had been damaged or written before the records.
    await cli.database.kysely.deleteFrom('mentions').execute();
    expect(await mentionsIndexProblems(cli.database.kysely)).toHaveLength(2);

    const out: string[] = [];
    const err: string[] = [];
    const status = await runCli(['search', 'reindex'], cli.env, { out: (line) => out.push(line), err: (line) => err.push(line) });
    expect({ status, err }).toEqual({ status: 0, err: [] });
    expect(out.join('\n')).toMatch(/Rebuilt the mentions index: 1 campaign, 2 mentions in \d+\.\d s\./);
    expect(await mentionsIndexProblems(cli.database.kysely)).toEqual([]);
    app = await buildCheckedApp(loadConfig(cli.env), { database: cli.database, logger: false });
    try {
      expect(await list()).toEqual([source.slug]);
    } finally {
      await app.close();
    }
  });
});
