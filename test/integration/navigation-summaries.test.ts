import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type TestContext, type TestUser } from '../support/app.js';
import { contextWithUsers, createThing, errorPathsOf, newCampaign, problemOf, type TestCampaign } from '../support/fixtures.js';
import { joinCampaign } from '../support/sharing.js';

// CONTRACT "The web app, phase 3": navigation never downloads texts. `GET …/things?fields=summary`
// answers {id, slug, name, typeId, visibility, updatedAt} per thing with the list's parameters and
// paging; `GET …/arcs?things=none` answers every arc without its `things` and its seven texts.
// Neither reads what it does not send, and the response cache and ETags keep each shape apart.

let ctx: TestContext;
let owner: TestUser;
let player: TestUser;
let campaign: TestCampaign;
const SUMMARY_KEYS = ['id', 'name', 'slug', 'typeId', 'updatedAt', 'visibility'];
const ARC_TEXTS = ['hook', 'protagonist', 'antagonist', 'problem', 'key', 'outcome', 'notes'];
/** An arc of the full list as `things=none` has it: without things and texts. */
const treeArcOf = (arc: Row) => Object.fromEntries(Object.entries(arc).filter(([key]) => key !== 'things' && !ARC_TEXTS.includes(key)));
const text = (words: string) => [{ type: 'paragraph', children: [{ text: words }] }];

type Row = Record<string, unknown> & { id: number; name: string };

beforeAll(async () => {
  ({ ctx, owner, stranger: player } = await contextWithUsers());
  campaign = await newCampaign(ctx.app, owner, 'Summaries');
  await joinCampaign(ctx.app, owner, campaign.slug, player, 'player');
  const [npcs, places] = campaign.types;
  for (let i = 0; i < 9; i++) {
    await createThing(ctx.app, owner, campaign, `${i % 2 === 0 ? 'Zed' : 'abe'} ${i}`, {
      typeId: (i % 3 === 0 ? places : npcs)!.id,
      description: text(`Long description ${i} that navigation never needs`),
      visibility: i % 4 === 3 ? 'gm' : 'all',
      tags: i % 2 === 0 ? ['villain'] : [],
    });
  }
  const post = (url: string, payload: object) => ctx.app.inject({ method: 'POST', url: `${campaign.base}${url}`, headers: owner.headers, payload });
  const root = json<{ id: number; slug: string }>(
    await post('/arcs', { newArc: { name: 'Root', hook: text('A hook'), notes: text('Notes for the table'), tags: ['main'], properties: [{ key: 'Act', value: 1 }] } }),
  );
  await post('/arcs', { newArc: { name: 'Child', parentArcId: root.id } });
  await post('/arcs', { newArc: { name: 'Hidden', parentArcId: root.id, visibility: 'gm' } });
  for (const slug of ['zed-0', 'abe-3', 'zed-4']) await post(`/things/${slug}/arcs`, { arcSlug: root.slug });
});
afterAll(() => ctx.close());

const get = (url: string, as: TestUser = owner, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'GET', url: `${campaign.base}${url}`, headers: { ...as.headers, ...headers } });
const rows = (res: LightMyRequestResponse): Row[] => {
  expect(res.statusCode, res.body).toBe(200);
  return json<Row[]>(res);
};
/** A change in the campaign: its lists are built anew rather than served from the response cache. */
const touch = async () => {
  const res = await ctx.app.inject({ method: 'PUT', url: `${campaign.base}/things/zed-8`, headers: owner.headers, payload: { updatedThing: { description: text(`Touched ${Math.random()}`) } } });
  expect(res.statusCode, res.body).toBe(200);
};
const summaryOf = (thing: Row) => Object.fromEntries(SUMMARY_KEYS.map((key) => [key, thing[key]]));

/** Every page of `url`, following its Link headers. */
async function allPages(url: string, as: TestUser = owner): Promise<{ rows: Row[]; links: string[] }> {
  const out: Row[] = [];
  const links: string[] = [];
  let next: string | undefined = `${campaign.base}${url}`;
  while (next !== undefined) {
    const res: LightMyRequestResponse = await ctx.app.inject({ method: 'GET', url: next, headers: as.headers });
    out.push(...rows(res));
    const link: unknown = res.headers.link;
    next = typeof link === 'string' ? /<([^>]+)>; rel="next"/.exec(link)![1] : undefined;
    if (next !== undefined) links.push(next);
  }
  return { rows: out, links };
}

const VIEWERS: [string, () => TestUser, Record<string, string>][] = [
  ['a game master', () => owner, {}],
  ['a player', () => player, {}],
  ['a game master viewing as a player', () => owner, { 'loreforge-view': 'player' }],
];

describe('GET …/things?fields=summary', () => {
  it.each(VIEWERS)('is, for %s, the list’s things with only their summary fields, whatever the parameters', async (_name, viewer, headers) => {
    for (const query of ['fetchAll=true', 'sort=name&fetchAll=true', `typeId=${campaign.types[0]!.id}`, 'tag=VILLAIN', 'count=3', 'fetchAll=false&count=2&sort=updatedAt']) {
      const full = rows(await get(`/things?${query}`, viewer(), headers));
      const summary = rows(await get(`/things?${query}&fields=summary`, viewer(), headers));
      expect(full.length, query).toBeGreaterThan(0);
      for (const item of summary) expect(Object.keys(item).sort(), query).toEqual(SUMMARY_KEYS);
      expect(summary, query).toEqual(full.map(summaryOf));
    }
  });

  it('never shows a player a GM-only thing, not even its id or name', async () => {
    const gm = rows(await get('/things?fields=summary&fetchAll=true'));
    const hidden = gm.filter((thing) => thing.visibility === 'gm');
    expect(hidden.map((thing) => thing.name)).toEqual(['abe 7', 'abe 3']);
    for (const [name, viewer, headers] of VIEWERS.slice(1)) {
      for (const query of ['fetchAll=true', 'sort=name&count=1000', 'tag=villain', `typeId=${campaign.types[0]!.id}`]) {
        const res = await get(`/things?fields=summary&${query}`, viewer(), headers);
        const seen = rows(res);
        expect(seen.length, `${name} ${query}`).toBeGreaterThan(0);
        expect(seen.some((thing) => thing.visibility === 'gm'), `${name} ${query}`).toBe(false);
        for (const thing of hidden) {
          expect(res.body.includes(thing.name), `${name} ${query}`).toBe(false);
          expect(seen.some((item) => item.id === thing.id), `${name} ${query}`).toBe(false);
        }
      }
    }
  });

  it('pages like the list: the Link header keeps fields=summary and the pages make up the whole list', async () => {
    for (const sort of ['', '&sort=name']) {
      for (const as of [owner, player]) {
        const paged = await allPages(`/things?fields=summary&count=2${sort}`, as);
        const whole = rows(await get(`/things?fields=summary&fetchAll=true${sort}`, as));
        expect(paged.links.length).toBe(Math.ceil(whole.length / 2) - 1);
        for (const link of paged.links) expect(new URL(link, 'http://x').searchParams.get('fields'), link).toBe('summary');
        expect(paged.rows).toEqual(whole);
      }
    }
  });

  it('refuses any other value of fields with 400 invalid_query and nothing else', async () => {
    for (const query of ['fields=full', 'fields=', 'fields=SUMMARY', 'fields=summary&fields=summary', 'fields=summary,name']) {
      const res = await get(`/things?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(problemOf(res).code, query).toBe('invalid_query');
      expect(errorPathsOf(res), query).toEqual(['/fields']);
    }
  });

  it('reads no description, properties or tags from the database', async () => {
    await touch();
    ctx.queries.length = 0;
    rows(await get('/things?fields=summary&count=5&sort=name'));
    rows(await get('/things?fields=summary&count=6', player));
    // The page's statement (the player's other read of things is the ids of GM-only records).
    const reads = ctx.queries.filter((statement) => /from "things"/i.test(statement) && /limit/i.test(statement));
    expect(reads.length).toBe(2);
    for (const statement of reads) expect(statement).toMatch(/^select "id", "slug", "name", "type_id", "visibility", "updated_at", "players_updated_at" from "things" /);
  });
});

describe('GET …/arcs?things=none', () => {
  it.each(VIEWERS)('is, for %s, every arc as the full list has it, without things and without its seven texts', async (_name, viewer, headers) => {
    const full = rows(await get('/arcs', viewer(), headers));
    const none = rows(await get('/arcs?things=none', viewer(), headers));
    expect(full.some((arc) => (arc.things as unknown[]).length > 0)).toBe(true);
    expect(full.find((arc) => arc.name === 'Root')!.hook).toEqual(text('A hook'));
    expect(none).toEqual(full.map(treeArcOf));
    expect(Object.keys(none.find((arc) => arc.name === 'Root')!).sort()).toEqual(
      ['aliases', 'campaignId', 'childArcs', 'createdAt', 'id', 'name', 'parentArc', 'parentArcId', 'properties', 'slug', 'tags', 'updatedAt', 'visibility'],
    );
    expect(none.find((arc) => arc.name === 'Root')).toMatchObject({ tags: ['main'], properties: [{ key: 'Act', value: 1 }] });
    expect(none.find((arc) => arc.name === 'Root')!.childArcs).toEqual(full.find((arc) => arc.name === 'Root')!.childArcs);
    expect(rows(await get('/arcs?things=all', viewer(), headers))).toEqual(full);
  });

  it('never reads the links, their things or the texts', async () => {
    await touch();
    ctx.queries.length = 0;
    rows(await get('/arcs?things=none'));
    rows(await get('/arcs?things=none', player));
    expect(ctx.queries.some((statement) => /arc_things/.test(statement))).toBe(false);
    // One statement per request reads the arcs (a player's other read of arcs is the ids of GM-only records).
    const reads = ctx.queries.filter((statement) => /from "arcs"/i.test(statement) && /order by/i.test(statement));
    expect(reads.length).toBe(2);
    for (const statement of reads) for (const field of ARC_TEXTS) expect(statement).not.toContain(`"${field}"`);
  });

  it('refuses any other value of things with 400 invalid_query and nothing else', async () => {
    for (const query of ['things=some', 'things=', 'things=NONE', 'things=none&things=none']) {
      const res = await get(`/arcs?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(problemOf(res).code, query).toBe('invalid_query');
      expect(errorPathsOf(res), query).toEqual(['/things']);
    }
  });
});

describe('the response cache and ETags keep each shape apart', () => {
  const shapes: [string, string, (body: Row[]) => boolean][] = [
    ['/things?fetchAll=true', '/things?fetchAll=true&fields=summary', (body) => body.every((thing) => 'description' in thing)],
    ['/arcs', '/arcs?things=none', (body) => body.every((arc) => 'things' in arc)],
  ];

  it.each(VIEWERS)('for %s: full, then short, then full again, with and without If-None-Match', async (_name, viewer, headers) => {
    // A write first, so neither shape is cached yet for this campaign version.
    await touch();
    for (const [fullUrl, shortUrl, isFull] of shapes) {
      const full = await get(fullUrl, viewer(), headers);
      const short = await get(shortUrl, viewer(), headers);
      const again = await get(fullUrl, viewer(), headers);
      expect(isFull(rows(full)), fullUrl).toBe(true);
      expect(rows(short).length, shortUrl).toBeGreaterThan(0);
      expect(rows(short).some((item) => isFull([item])), shortUrl).toBe(false);
      expect(again.body, fullUrl).toBe(full.body);
      const fullTag = String(full.headers.etag);
      const shortTag = String(short.headers.etag);
      expect(shortTag, shortUrl).not.toBe(fullTag);
      // The full list's tag never confirms the short one, nor the other way round.
      const shortWithFullTag = await get(shortUrl, viewer(), { ...headers, 'if-none-match': fullTag });
      expect(shortWithFullTag.statusCode, shortUrl).toBe(200);
      expect(shortWithFullTag.body, shortUrl).toBe(short.body);
      const fullWithShortTag = await get(fullUrl, viewer(), { ...headers, 'if-none-match': shortTag });
      expect(fullWithShortTag.statusCode, fullUrl).toBe(200);
      expect(fullWithShortTag.body, fullUrl).toBe(full.body);
      // Each shape's own tag does.
      expect((await get(shortUrl, viewer(), { ...headers, 'if-none-match': shortTag })).statusCode, shortUrl).toBe(304);
      expect((await get(fullUrl, viewer(), { ...headers, 'if-none-match': fullTag })).statusCode, fullUrl).toBe(304);
    }
  });

  it('answers a bad value 400 even with a list tag in If-None-Match', async () => {
    for (const [fullUrl, bad] of [['/things', '/things?fields=full'], ['/arcs', '/arcs?things=some']] as const) {
      const tag = String((await get(fullUrl)).headers.etag);
      expect((await get(bad, owner, { 'if-none-match': tag })).statusCode, bad).toBe(400);
    }
  });
});
