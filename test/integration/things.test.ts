import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type TestContext, type TestUser } from '../support/app.js';
import { contextWithUsers, createThing as createThingAs, errorPathsOf, newCampaign as newCampaignAs, problemOf, type TestCampaign, type ThingBody } from '../support/fixtures.js';

type Campaign = TestCampaign;

const THING_KEYS = ['aliases', 'campaignId', 'createdAt', 'description', 'id', 'name', 'properties', 'slug', 'tags', 'typeId', 'updatedAt', 'visibility'];
const EMPTY = [{ type: 'paragraph', children: [{ text: '' }] }];
const DOC = [
  { type: 'heading', level: 2, children: [{ text: 'Cragmaw', bold: true }] },
  { type: 'paragraph', children: [{ text: 'A goblin boss. ' }, { type: 'link', url: 'https://example.com', children: [{ text: 'lore', italic: true }] }] },
];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let ctx: TestContext;
let owner: TestUser;
let stranger: TestUser;
beforeAll(async () => ({ ctx, owner, stranger } = await contextWithUsers()));
afterAll(() => ctx.close());

const newCampaign = (name: string) => newCampaignAs(ctx.app, owner, name);

function thingsUrl(c: Campaign, slug?: string, query = '') {
  return `/api/campaigns/${c.slug}/things${slug === undefined ? '' : `/${slug}`}${query === '' ? '' : `?${query}`}`;
}

function postThing(c: Campaign, payload: unknown) {
  return ctx.app.inject({ method: 'POST', url: thingsUrl(c), headers: owner.headers, payload: payload as object });
}

const createThing = (c: Campaign, name: string, extra: Record<string, unknown> = {}) => createThingAs(ctx.app, owner, c, name, extra);

function putThing(c: Campaign, slug: string, payload: unknown, headers: Record<string, string> = {}) {
  return ctx.app.inject({ method: 'PUT', url: thingsUrl(c, slug), headers: { ...owner.headers, ...headers }, payload: payload as object });
}

async function getThing(c: Campaign, slug: string) {
  return ctx.app.inject({ method: 'GET', url: thingsUrl(c, slug), headers: owner.headers });
}

async function list(url: string) {
  const res = await ctx.app.inject({ method: 'GET', url, headers: owner.headers });
  return { res, body: res.statusCode === 200 ? json<ThingBody[]>(res) : [], next: nextLink(res.headers.link) };
}

function nextLink(header: string | string[] | number | undefined): string | undefined {
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header.join(', ') : String(header);
  const match = /^<([^>]+)>; rel="next"$/.exec(text);
  expect(match, text).not.toBeNull();
  return match![1];
}

async function thingCount(campaignId: number): Promise<number> {
  return (await ctx.database.kysely.selectFrom('things').select('id').where('campaign_id', '=', campaignId).execute()).length;
}

/** Inserts things straight into the database, in batches; `updatedAt(i)` chooses each one's timestamp. */
async function insertThings(c: Campaign, n: number, updatedAt: (i: number) => string, typeOf: (i: number) => number = () => c.types[0]!.id) {
  const rows = Array.from({ length: n }, (_, i) => ({
    campaign_id: c.id,
    type_id: typeOf(i),
    slug: `bulk-${i}`,
    name: `Bulk ${i}`,
    description: null,
    version: 1,
    created_at: updatedAt(i),
    updated_at: updatedAt(i),
  }));
  for (let start = 0; start < rows.length; start += 250) {
    await ctx.database.kysely.insertInto('things').values(rows.slice(start, start + 250)).execute();
  }
}

/** The campaign's things in list order, read straight from the database. */
async function expectedOrder(campaignId: number, typeId?: number): Promise<number[]> {
  let query = ctx.database.kysely.selectFrom('things').select('id').where('campaign_id', '=', campaignId);
  if (typeId !== undefined) query = query.where('type_id', '=', typeId);
  const rows = await query.orderBy('updated_at', 'desc').orderBy('id', 'desc').execute();
  return rows.map((r) => r.id);
}

const minutesAfter2020 = (i: number) => new Date(Date.UTC(2020, 0, 1) + i * 60_000).toISOString();

describe('creating things', () => {
  let c: Campaign;
  beforeAll(async () => {
    c = await newCampaign('Creating Things');
  });

  it('answers 201 with exactly the Thing fields, Location and ETag; GET returns the same', async () => {
    const res = await postThing(c, { newThing: { name: '  Gundren Rockseeker  ', typeId: c.types[0]!.id } });
    expect(res.statusCode).toBe(201);
    const body = json<ThingBody>(res);
    expect(Object.keys(body).sort()).toEqual(THING_KEYS);
    expect(body).toMatchObject({ slug: 'gundren-rockseeker', name: 'Gundren Rockseeker', typeId: c.types[0]!.id, campaignId: c.id, description: EMPTY });
    expect(body.createdAt).toMatch(ISO);
    expect(body.updatedAt).toBe(body.createdAt);
    expect(res.headers.location).toBe(`/api/campaigns/${c.slug}/things/gundren-rockseeker`);
    expect(res.headers.etag).toMatch(/^"\d+-\d+"$/);
    const got = await ctx.app.inject({ method: 'GET', url: res.headers.location as string, headers: owner.headers });
    expect(got.statusCode).toBe(200);
    expect(json(got)).toEqual(body);
    expect(got.headers.etag).toBe(res.headers.etag);
  });

  it('stores a rich-text description as given, extra block keys included', async () => {
    const body = await createThing(c, 'Klarg', { description: DOC, typeId: c.types[1]!.id });
    expect(body.description).toEqual(DOC);
    expect(body.typeId).toBe(c.types[1]!.id);
    expect(json<ThingBody>(await getThing(c, body.slug)).description).toEqual(DOC);
  });

  it('generates unique slugs: -2, -3 on collisions, transliteration, and `thing` when nothing is left', async () => {
    expect((await createThing(c, 'Goblin Boss')).slug).toBe('goblin-boss');
    expect((await createThing(c, 'goblin boss')).slug).toBe('goblin-boss-2');
    expect((await createThing(c, 'Goblin  Boss!')).slug).toBe('goblin-boss-3');
    expect((await createThing(c, 'Goblin Boss 2')).slug).toBe('goblin-boss-2-2');
    expect((await createThing(c, 'Émile Zola')).slug).toBe('emile-zola');
    expect((await createThing(c, '!!!')).slug).toBe('thing');
    expect((await createThing(c, '???')).slug).toBe('thing-2');
    // A slug of the same base in another campaign does not count.
    const other = await newCampaign('Creating Things Elsewhere');
    expect((await createThing(other, 'Goblin Boss')).slug).toBe('goblin-boss');
  });

  it('cuts long slugs to 100 characters and still suffixes within the limit', async () => {
    const name = 'a'.repeat(255);
    const first = await createThing(c, name);
    expect(first.name).toBe(name);
    expect(first.slug).toBe('a'.repeat(100));
    const second = await createThing(c, name);
    expect(second.slug).toBe(`${'a'.repeat(98)}-2`);
    const third = await createThing(c, name);
    expect(third.slug).toBe(`${'a'.repeat(98)}-3`);
  });

  it('refuses a typeId that is not a type of this campaign with 400 invalid_reference, storing nothing', async () => {
    const other = await newCampaign('Other Types');
    const before = await thingCount(c.id);
    for (const typeId of [other.types[0]!.id, 999_999, 2_147_483_647, 2_147_483_648, 9_007_199_254_740_991]) {
      const res = await postThing(c, { newThing: { name: 'Stray', typeId } });
      expect(res.statusCode, String(typeId)).toBe(400);
      expect(json(res)).toMatchObject({ code: 'invalid_reference', errors: [{ path: '/newThing/typeId' }] });
    }
    expect(await thingCount(c.id)).toBe(before);
    expect(await thingCount(other.id)).toBe(0);
  });

  it('rejects bad bodies with 400 and pointers, storing nothing', async () => {
    const typeId = c.types[0]!.id;
    const before = await thingCount(c.id);
    const cases: [unknown, string][] = [
      [{}, '/newThing'],
      [{ newThing: {} }, '/newThing/name'],
      [{ newThing: {} }, '/newThing/typeId'],
      [{ newThing: { name: 'x' } }, '/newThing/typeId'],
      [{ newThing: { typeId } }, '/newThing/name'],
      [{ newThing: { name: '', typeId } }, '/newThing/name'],
      [{ newThing: { name: ' \t ', typeId } }, '/newThing/name'],
      [{ newThing: { name: 'x'.repeat(256), typeId } }, '/newThing/name'],
      [{ newThing: { name: 42, typeId } }, '/newThing/name'],
      [{ newThing: { name: 'x', typeId: String(typeId) } }, '/newThing/typeId'],
      [{ newThing: { name: 'x', typeId: 1.5 } }, '/newThing/typeId'],
      [{ newThing: { name: 'x', typeId: 0 } }, '/newThing/typeId'],
      [{ newThing: { name: 'x', typeId: -3 } }, '/newThing/typeId'],
      [{ newThing: { name: 'x', typeId: null } }, '/newThing/typeId'],
      [{ newThing: { name: 'x', typeId: 1e20 } }, '/newThing/typeId'],
      [{ newThing: { name: 'x', typeId, description: 'plain' } }, '/newThing/description'],
      [{ newThing: { name: 'x', typeId, description: [] } }, '/newThing/description'],
      [{ newThing: { name: 'x', typeId, description: [{ type: 'paragraph' }] } }, '/newThing/description/0/children'],
      [{ newThing: { name: 'x', typeId, description: [{ type: 'paragraph', children: [{ text: 1 }] }] } }, '/newThing/description/0/children/0/text'],
      [{ newThing: { name: 'x', typeId, description: [{ type: 'p', children: [{ text: 'a', bold: 'yes' }] }] } }, '/newThing/description/0/children/0/bold'],
      [{ newThing: { name: 'x', typeId, description: [{ type: '', children: [] }] } }, '/newThing/description/0/type'],
    ];
    for (const [payload, path] of cases) {
      const res = await postThing(c, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      const body = problemOf(res);
      expect(body).toMatchObject({ type: 'about:blank', title: 'Bad Request', status: 400, code: 'validation_failed' });
      expect(errorPathsOf(res), JSON.stringify(payload)).toContain(path);
    }
    // All the problems of one body at once.
    const both = await postThing(c, { newThing: { name: ' ', typeId: 0, description: [{ type: 'p', children: [{ text: 2 }] }] } });
    expect(errorPathsOf(both).sort()).toEqual(['/newThing/description/0/children/0/text', '/newThing/name', '/newThing/typeId']);
    expect(await thingCount(c.id)).toBe(before);
    expect((await createThing(c, `  ${'b'.repeat(255)}  `)).name).toBe('b'.repeat(255));
  });

  it('ignores unknown body fields, including ones that name real columns', async () => {
    const res = await postThing(c, {
      newThing: { name: 'Sildar Hallwinter', typeId: c.types[0]!.id, slug: 'custom', id: 1, campaignId: 999, createdAt: '2000-01-01T00:00:00.000Z', color: 'red' },
      other: true,
    });
    expect(res.statusCode).toBe(201);
    const body = json<ThingBody>(res);
    expect(body).toMatchObject({ slug: 'sildar-hallwinter', campaignId: c.id });
    expect(body.createdAt).not.toBe('2000-01-01T00:00:00.000Z');
  });
});

describe('reading, changing and deleting one thing', () => {
  let c: Campaign;
  beforeAll(async () => {
    c = await newCampaign('One Thing');
  });

  it('answers unknown and malformed slugs with 404 thing_not_found on GET, PUT and DELETE', async () => {
    for (const slug of ['nobody', 'UPPER', 'a--b', '-x', 'x'.repeat(101), 'caf%C3%A9', 'two%20words']) {
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        const res = await ctx.app.inject({
          method,
          url: thingsUrl(c, slug),
          headers: owner.headers,
          ...(method === 'PUT' ? { payload: { updatedThing: { name: 'x' } } } : {}),
        });
        expect(res.statusCode, `${method} ${slug}`).toBe(404);
        expect(problemOf(res).code).toBe('thing_not_found');
      }
    }
  });

  it('updates only the given fields; a new name keeps the slug; updatedAt and the ETag move', async () => {
    const created = await createThing(c, 'Nundro', { description: DOC });
    const res = await putThing(c, created.slug, { updatedThing: { name: 'Nundro Rockseeker', extra: 1 } });
    expect(res.statusCode).toBe(200);
    const body = json<ThingBody>(res);
    expect(Object.keys(body).sort()).toEqual(THING_KEYS);
    expect(body).toEqual({ ...created, name: 'Nundro Rockseeker', updatedAt: body.updatedAt });
    expect(body.updatedAt >= created.updatedAt).toBe(true);
    expect(res.headers.etag).toMatch(/^"\d+-\d+"$/);
    const got = await getThing(c, 'nundro');
    expect(json(got)).toEqual(body);
    expect(got.headers.etag).toBe(res.headers.etag);

    const moved = json<ThingBody>(await putThing(c, 'nundro', { updatedThing: { typeId: c.types[2]!.id } }));
    expect(moved).toMatchObject({ typeId: c.types[2]!.id, name: 'Nundro Rockseeker', description: DOC, slug: 'nundro' });
    const described = json<ThingBody>(await putThing(c, 'nundro', { updatedThing: { description: EMPTY } }));
    expect(described).toMatchObject({ typeId: c.types[2]!.id, name: 'Nundro Rockseeker', description: EMPTY });
    const nothing = await putThing(c, 'nundro', { updatedThing: {} });
    expect(nothing.statusCode).toBe(200);
    expect(json(nothing)).toMatchObject({ typeId: c.types[2]!.id, name: 'Nundro Rockseeker', description: EMPTY, slug: 'nundro' });
  });

  it('changes the slug only when one is given; a taken slug is 409, a malformed one 400, changing nothing', async () => {
    const a = await createThing(c, 'Tharden');
    const b = await createThing(c, 'Glasstaff');
    const renamed = await putThing(c, a.slug, { updatedThing: { slug: 'tharden-rockseeker', name: 'Tharden R.' } });
    expect(renamed.statusCode).toBe(200);
    expect(json(renamed)).toMatchObject({ id: a.id, slug: 'tharden-rockseeker', name: 'Tharden R.' });
    // The old slug answers with the current URL (CONTRACT "Secrets that hold": previous slugs).
    const previous = await getThing(c, 'tharden');
    expect(previous.statusCode).toBe(308);
    expect(previous.headers.location).toBe(`/api/campaigns/${c.slug}/things/tharden-rockseeker`);
    expect((await getThing(c, 'tharden-rockseeker')).statusCode).toBe(200);
    // Its own slug again is no conflict.
    expect((await putThing(c, 'tharden-rockseeker', { updatedThing: { slug: 'tharden-rockseeker' } })).statusCode).toBe(200);

    const taken = await putThing(c, b.slug, { updatedThing: { slug: 'tharden-rockseeker', name: 'Changed' } });
    expect(taken.statusCode).toBe(409);
    expect(json(taken)).toMatchObject({ status: 409, code: 'slug_taken' });
    for (const slug of ['Bad Slug', 'UPPER', '-x', 'x-', 'a--b', '', 'x'.repeat(101), 5, null]) {
      const res = await putThing(c, b.slug, { updatedThing: { slug, name: 'Changed' } });
      expect(res.statusCode, JSON.stringify(slug)).toBe(400);
      expect(errorPathsOf(res)).toContain('/updatedThing/slug');
    }
    expect(json(await getThing(c, b.slug))).toEqual(b);
    // A freed slug can be taken by another thing, and generation then skips the taken one.
    expect((await putThing(c, b.slug, { updatedThing: { slug: 'tharden' } })).statusCode).toBe(200);
    expect((await createThing(c, 'Tharden')).slug).toBe('tharden-2');
  });

  it('refuses a typeId of another campaign or unknown with 400 invalid_reference, changing nothing', async () => {
    const other = await newCampaign('One Thing Other');
    const thing = await createThing(c, 'Halia Thornton');
    for (const typeId of [other.types[0]!.id, 424_242, 2_147_483_648]) {
      const res = await putThing(c, thing.slug, { updatedThing: { typeId, name: 'Changed' } });
      expect(res.statusCode, String(typeId)).toBe(400);
      expect(json(res)).toMatchObject({ code: 'invalid_reference', errors: [{ path: '/updatedThing/typeId' }] });
    }
    expect(json(await getThing(c, thing.slug))).toEqual(thing);
  });

  it('rejects bad PUT bodies with 400 and pointers, changing nothing', async () => {
    const thing = await createThing(c, 'Daran Edermath');
    const cases: [unknown, string][] = [
      [{}, '/updatedThing'],
      [{ updatedThing: 'x' }, '/updatedThing'],
      [{ updatedThing: { name: '  ' } }, '/updatedThing/name'],
      [{ updatedThing: { name: 'x'.repeat(256) } }, '/updatedThing/name'],
      [{ updatedThing: { name: false } }, '/updatedThing/name'],
      [{ updatedThing: { typeId: '1' } }, '/updatedThing/typeId'],
      [{ updatedThing: { typeId: 0 } }, '/updatedThing/typeId'],
      [{ updatedThing: { description: null } }, '/updatedThing/description'],
      [{ updatedThing: { description: [{ type: 'p', children: [{ text: 'x', children: [] }] }] } }, '/updatedThing/description/0/children/0/children'],
    ];
    for (const [payload, path] of cases) {
      const res = await putThing(c, thing.slug, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(errorPathsOf(res), JSON.stringify(payload)).toContain(path);
    }
    expect(json(await getThing(c, thing.slug))).toEqual(thing);
    expect(json<ThingBody>(await putThing(c, thing.slug, { updatedThing: { name: 'd'.repeat(255) } })).name).toBe('d'.repeat(255));
  });

  it('honours If-Match: current ETag succeeds, a stale one gets 412 and changes nothing', async () => {
    const thing = await createThing(c, 'Reidoth');
    const etag = (await getThing(c, thing.slug)).headers.etag as string;
    const ok = await putThing(c, thing.slug, { updatedThing: { name: 'Reidoth the Druid' } }, { 'if-match': etag });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers.etag).not.toBe(etag);
    const stale = await putThing(c, thing.slug, { updatedThing: { name: 'Lost', slug: 'lost' } }, { 'if-match': etag });
    expect(stale.statusCode).toBe(412);
    expect(problemOf(stale).code).toBe('precondition_failed');
    const now = await getThing(c, thing.slug);
    expect(json<ThingBody>(now).name).toBe('Reidoth the Druid');
    expect(now.headers.etag).toBe(ok.headers.etag);
    const list = await ctx.app.inject({ method: 'PUT', url: thingsUrl(c, thing.slug), headers: { ...owner.headers, 'if-match': `"0-0", ${ok.headers.etag as string}` }, payload: { updatedThing: { name: 'Reidoth' } } });
    expect(list.statusCode).toBe(200);
  });

  it('deletes a thing with its arc links (204), leaving the arc', async () => {
    const thing = await createThing(c, 'Agatha');
    const keep = await createThing(c, 'Kept');
    const db = ctx.database.kysely;
    const now = new Date().toISOString();
    const arc = await db
      .insertInto('arcs')
      .values({ campaign_id: c.id, parent_arc_id: null, slug: 'banshee', name: 'Banshee', version: 1, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('arc_things')
      .values([thing, keep].map((t) => ({ campaign_id: c.id, arc_id: arc.id, thing_id: t.id, created_at: now })))
      .execute();
    const del = await ctx.app.inject({ method: 'DELETE', url: thingsUrl(c, thing.slug), headers: owner.headers });
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect((await getThing(c, thing.slug)).statusCode).toBe(404);
    expect((await ctx.app.inject({ method: 'DELETE', url: thingsUrl(c, thing.slug), headers: owner.headers })).statusCode).toBe(404);
    const links = await db.selectFrom('arc_things').select('thing_id').where('arc_id', '=', arc.id).execute();
    expect(links.map((l) => l.thing_id)).toEqual([keep.id]);
    expect(await db.selectFrom('arcs').select('id').where('id', '=', arc.id).executeTakeFirst()).toBeDefined();
  });

  it('hides another user’s campaign behind 404 on every route and asks anonymous callers to sign in', async () => {
    const thing = await createThing(c, 'Secret');
    const requests = [
      { method: 'GET' as const, url: thingsUrl(c) },
      { method: 'GET' as const, url: thingsUrl(c, undefined, 'count=5') },
      { method: 'POST' as const, url: thingsUrl(c), payload: { newThing: { name: 'Mine', typeId: c.types[0]!.id } } },
      { method: 'GET' as const, url: thingsUrl(c, thing.slug) },
      { method: 'PUT' as const, url: thingsUrl(c, thing.slug), payload: { updatedThing: { name: 'Mine' } } },
      { method: 'DELETE' as const, url: thingsUrl(c, thing.slug) },
    ];
    const before = await thingCount(c.id);
    for (const request of requests) {
      const res = await ctx.app.inject({ ...request, headers: stranger.headers });
      expect(res.statusCode, `${request.method} ${request.url}`).toBe(404);
      expect(problemOf(res).code).toBe('campaign_not_found');
      expect((await ctx.app.inject(request)).statusCode).toBe(401);
    }
    expect(await thingCount(c.id)).toBe(before);
    expect(json(await getThing(c, thing.slug))).toEqual(thing);
  });
});

describe('listing things', () => {
  let c: Campaign;
  beforeAll(async () => {
    c = await newCampaign('Listing');
    // 30 things a minute apart, alternating NPCs and Locations.
    await insertThings(c, 30, minutesAfter2020, (i) => c.types[i % 2]!.id);
  });

  it('returns the 20 most recently updated by default, as plain Things, with a Link to the rest', async () => {
    const expected = await expectedOrder(c.id);
    const { res, body, next } = await list(thingsUrl(c));
    expect(res.statusCode).toBe(200);
    expect(body.map((t) => t.id)).toEqual(expected.slice(0, 20));
    for (const t of body) expect(Object.keys(t).sort()).toEqual(THING_KEYS);
    expect(body[0]).toMatchObject({ name: 'Bulk 29', description: EMPTY, campaignId: c.id, updatedAt: minutesAfter2020(29) });
    expect(next).toMatch(new RegExp(`^/api/campaigns/${c.slug}/things\\?cursor=[A-Za-z0-9_-]+$`));
    const rest = await list(next!);
    expect(rest.body.map((t) => t.id)).toEqual(expected.slice(20));
    expect(rest.next).toBeUndefined();
  });

  it('returns count things; fetchAll=true wins over count; fetchAll=false keeps count', async () => {
    const expected = await expectedOrder(c.id);
    const cases: [string, number, boolean][] = [
      ['count=1', 1, true],
      ['count=5', 5, true],
      ['count=29', 29, true],
      ['count=30', 30, false],
      ['count=1000', 30, false],
      ['fetchAll=true', 30, false],
      ['fetchAll=true&count=5', 30, false],
      ['count=5&fetchAll=true', 30, false],
      ['fetchAll=false', 20, true],
      ['fetchAll=false&count=7', 7, true],
      ['count=3&unknown=whatever', 3, true],
    ];
    for (const [query, n, more] of cases) {
      const { res, body, next } = await list(thingsUrl(c, undefined, query));
      expect(res.statusCode, query).toBe(200);
      expect(body.map((t) => t.id), query).toEqual(expected.slice(0, n));
      expect(next !== undefined, query).toBe(more);
    }
  });

  it('keeps the parameters in the Link and pages to the end without gaps or duplicates', async () => {
    const expected = await expectedOrder(c.id);
    const seen: number[] = [];
    let url: string | undefined = thingsUrl(c, undefined, 'count=7&fetchAll=false');
    let pages = 0;
    while (url !== undefined) {
      const page = await list(url);
      expect(page.res.statusCode).toBe(200);
      if (page.next !== undefined) expect(page.next).toMatch(/\?count=7&fetchAll=false&cursor=/);
      seen.push(...page.body.map((t) => t.id));
      url = page.next;
      pages += 1;
    }
    expect(pages).toBe(5);
    expect(seen).toEqual(expected);
  });

  it('moves a thing to the top when it is updated', async () => {
    const oldest = (await expectedOrder(c.id)).at(-1)!;
    const row = await ctx.database.kysely.selectFrom('things').select('slug').where('id', '=', oldest).executeTakeFirstOrThrow();
    expect((await putThing(c, row.slug, { updatedThing: { name: 'Freshly Updated' } })).statusCode).toBe(200);
    const { body } = await list(thingsUrl(c, undefined, 'count=1'));
    expect(body.map((t) => t.id)).toEqual([oldest]);
    expect(body[0]!.name).toBe('Freshly Updated');
  });

  it('filters by typeId, also across pages, with the filter kept in the Link', async () => {
    const npcs = c.types[0]!.id;
    const expected = await expectedOrder(c.id, npcs);
    expect(expected.length).toBeGreaterThanOrEqual(15);
    const first = await list(thingsUrl(c, undefined, `typeId=${npcs}&count=10`));
    expect(first.body.map((t) => t.id)).toEqual(expected.slice(0, 10));
    expect(first.body.every((t) => t.typeId === npcs)).toBe(true);
    expect(first.next).toMatch(new RegExp(`\\?count=10&typeId=${npcs}&cursor=`));
    const second = await list(first.next!);
    expect(second.body.map((t) => t.id)).toEqual(expected.slice(10));
    expect(second.next).toBeUndefined();
    // A type with no things lists nothing.
    const items = await list(thingsUrl(c, undefined, `typeId=${c.types[2]!.id}`));
    expect(items.res.statusCode).toBe(200);
    expect(items.body).toEqual([]);
  });

  it('answers a typeId that is not a type of this campaign with 400 invalid_reference', async () => {
    const other = await newCampaign('Listing Other');
    for (const typeId of [String(other.types[0]!.id), '999999', '2147483648', '9999999999999999']) {
      const { res } = await list(thingsUrl(c, undefined, `typeId=${typeId}`));
      expect(res.statusCode, typeId).toBe(400);
      expect(json(res)).toMatchObject({ code: 'invalid_reference', errors: [{ path: '/typeId' }] });
    }
  });

  it('answers every bad query value with 400 invalid_query and a pointer into the query', async () => {
    const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const cases: [string, string][] = [
      ['count=0', '/count'],
      ['count=1001', '/count'],
      ['count=-1', '/count'],
      ['count=abc', '/count'],
      ['count=1.5', '/count'],
      ['count=1e2', '/count'],
      ['count=05', '/count'],
      ['count=+5', '/count'],
      ['count=%205', '/count'],
      ['count=', '/count'],
      ['count', '/count'],
      ['count=99999999999999999999', '/count'],
      ['count=5&count=6', '/count'],
      ['fetchAll=yes', '/fetchAll'],
      ['fetchAll=TRUE', '/fetchAll'],
      ['fetchAll=1', '/fetchAll'],
      ['fetchAll=', '/fetchAll'],
      ['fetchAll=true&fetchAll=true', '/fetchAll'],
      ['fetchAll=true&count=0', '/count'],
      ['typeId=abc', '/typeId'],
      ['typeId=0', '/typeId'],
      ['typeId=-1', '/typeId'],
      ['typeId=1.0', '/typeId'],
      ['typeId=', '/typeId'],
      ['typeId=1&typeId=2', '/typeId'],
      ['cursor=', '/cursor'],
      ['cursor=!!!', '/cursor'],
      ['cursor=abc', '/cursor'],
      ['cursor=a&cursor=b', '/cursor'],
      [`cursor=${cursorOf({ u: 'x', i: 1 })}`, '/cursor'],
      [`cursor=${cursorOf([1, 2])}`, '/cursor'],
      [`cursor=${cursorOf(null)}`, '/cursor'],
      [`cursor=${cursorOf({ u: '2026-01-01T00:00:00.000Z', i: 0 })}`, '/cursor'],
      [`cursor=${cursorOf({ u: '2026-01-01T00:00:00.000Z', i: 2_147_483_648 })}`, '/cursor'],
      [`cursor=${cursorOf({ u: '2026-01-01T00:00:00.000Z', i: '5' })}`, '/cursor'],
      [`cursor=${cursorOf({ u: '2026-02-31T00:00:00.000Z', i: 5 })}`, '/cursor'],
      [`cursor=${cursorOf({ u: '2026-01-01T00:00:00Z', i: 5 })}`, '/cursor'],
      [`cursor=${cursorOf({ u: '2026-01-01T00:00:00.000Z', i: 5, x: 1 })}`, '/cursor'],
      [`cursor=${'A'.repeat(600)}`, '/cursor'],
    ];
    for (const [query, path] of cases) {
      const { res } = await list(thingsUrl(c, undefined, query));
      expect(res.statusCode, query).toBe(400);
      const body = problemOf(res);
      expect(body, query).toMatchObject({ status: 400, code: 'invalid_query', title: 'Bad Request' });
      expect(errorPathsOf(res), query).toContain(path);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    // Every bad parameter is reported at once.
    const { res } = await list(thingsUrl(c, undefined, 'count=0&fetchAll=maybe&typeId=x&cursor=%25'));
    expect(errorPathsOf(res)).toEqual(['/count', '/fetchAll', '/typeId', '/cursor']);
    // A cursor that is well-formed continues after its position.
    const position = await ctx.database.kysely.selectFrom('things').select(['id', 'updated_at']).where('campaign_id', '=', c.id).orderBy('updated_at', 'desc').orderBy('id', 'desc').executeTakeFirstOrThrow();
    const after = await list(thingsUrl(c, undefined, `count=1000&cursor=${cursorOf({ u: position.updated_at, i: position.id })}`));
    expect(after.body.map((t) => t.id)).toEqual((await expectedOrder(c.id)).slice(1));
  });

  it('lists an empty campaign as [] with no Link', async () => {
    const empty = await newCampaign('Listing Empty');
    const { res, body, next } = await list(thingsUrl(empty, undefined, 'fetchAll=true'));
    expect(res.statusCode).toBe(200);
    expect(body).toEqual([]);
    expect(next).toBeUndefined();
  });
});

describe('listing more than 1000 things', () => {
  let big: Campaign;
  beforeAll(async () => {
    big = await newCampaign('Big Campaign');
    // Seven things share each timestamp, so pages also break inside runs of equal updatedAt.
    await insertThings(big, 1050, (i) => new Date(Date.UTC(2021, 5, 1) + Math.floor(i / 7) * 1000).toISOString(), (i) => big.types[i % 3]!.id);
  });

  it('caps fetchAll=true at 1000 and follows the Link cursor to the end without duplicates or gaps', async () => {
    const expected = await expectedOrder(big.id);
    expect(expected).toHaveLength(1050);
    const first = await list(thingsUrl(big, undefined, 'fetchAll=true'));
    expect(first.body).toHaveLength(1000);
    expect(first.next).toMatch(new RegExp(`^/api/campaigns/${big.slug}/things\\?fetchAll=true&cursor=`));
    const second = await list(first.next!);
    expect(second.body).toHaveLength(50);
    expect(second.next).toBeUndefined();
    const ids = [...first.body, ...second.body].map((t) => t.id);
    expect(new Set(ids).size).toBe(1050);
    expect(ids).toEqual(expected);
  });

  it('pages through everything with count=100, and with a typeId filter', async () => {
    for (const [query, typeId] of [['count=100', undefined], [`count=99&typeId=${big.types[1]!.id}`, big.types[1]!.id]] as const) {
      const expected = await expectedOrder(big.id, typeId);
      const seen: number[] = [];
      let url: string | undefined = thingsUrl(big, undefined, query);
      while (url !== undefined) {
        const page = await list(url);
        expect(page.res.statusCode).toBe(200);
        seen.push(...page.body.map((t) => t.id));
        url = page.next;
      }
      expect(seen, query).toEqual(expected);
    }
  });

  it('runs the same number of SQL statements whatever the number of things', async () => {
    const small = await newCampaign('Small Campaign');
    await insertThings(small, 3, minutesAfter2020);
    const statements = async (url: string) => {
      // On PostgreSQL the caller is kept in memory only by a lookup no notice overtook: the set-up's notices first.
      await ctx.app.callerCache?.notifications.sync();
      await ctx.app.inject({ method: 'GET', url, headers: owner.headers }); // warm-up (token use is recorded now and then)
      ctx.queries.length = 0;
      const res = await ctx.app.inject({ method: 'GET', url, headers: owner.headers });
      expect(res.statusCode).toBe(200);
      return ctx.queries.length;
    };
    const fewAll = await statements(thingsUrl(small, undefined, 'fetchAll=true'));
    const manyAll = await statements(thingsUrl(big, undefined, 'fetchAll=true'));
    expect(manyAll).toBe(fewAll);
    const fewTyped = await statements(thingsUrl(small, undefined, `fetchAll=true&typeId=${small.types[0]!.id}`));
    const manyTyped = await statements(thingsUrl(big, undefined, `fetchAll=true&typeId=${big.types[0]!.id}`));
    expect(manyTyped).toBe(fewTyped);
    expect(manyTyped).toBeLessThanOrEqual(fewAll + 1);
  });
});
