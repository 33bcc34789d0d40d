import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type TestContext, type TestUser } from '../support/app.js';
import { contextWithUsers, errorPathsOf, newCampaign as newCampaignAs, problemOf } from '../support/fixtures.js';

const EMPTY = [{ type: 'paragraph', children: [{ text: '' }] }];
const TEXT_FIELDS = ['hook', 'protagonist', 'antagonist', 'problem', 'key', 'outcome', 'notes'] as const;
const ARC_KEYS = [
  'aliases',
  'antagonist',
  'campaignId',
  'childArcs',
  'createdAt',
  'hook',
  'id',
  'key',
  'name',
  'notes',
  'outcome',
  'parentArc',
  'parentArcId',
  'problem',
  'properties',
  'protagonist',
  'slug',
  'tags',
  'things',
  'updatedAt',
  'visibility',
];
const THING_KEYS = ['aliases', 'campaignId', 'createdAt', 'description', 'id', 'name', 'properties', 'slug', 'tags', 'typeId', 'updatedAt', 'visibility'];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function doc(text: string) {
  return [{ type: 'paragraph', children: [{ text, italic: true }] }, { type: 'quote', cite: 'x', children: [{ text: 'q' }] }];
}

interface Campaign {
  id: number;
  slug: string;
}

interface ArcRefBody {
  id: number;
  slug: string;
  name: string;
}

interface ArcChildBody extends ArcRefBody {
  createdAt: string;
  updatedAt: string;
}

interface ThingBody extends ArcRefBody {
  typeId: number;
  description: unknown;
  campaignId: number;
  createdAt: string;
  updatedAt: string;
}

type ArcBody = ArcChildBody &
  Record<(typeof TEXT_FIELDS)[number], unknown> & {
    campaignId: number;
    parentArcId: number | null;
    parentArc: ArcRefBody | null;
    childArcs: ArcChildBody[];
    things: ThingBody[];
  };


type Response = Awaited<ReturnType<TestContext['app']['inject']>>;

function arcOf(res: Response): ArcBody {
  return json<ArcBody>(res);
}




let ctx: TestContext;
let owner: TestUser;
let stranger: TestUser;
beforeAll(async () => ({ ctx, owner, stranger } = await contextWithUsers()));
afterAll(() => ctx.close());

const newCampaign = (user = owner) => newCampaignAs(ctx.app, user);

function arcsUrl(c: Campaign, rest = '') {
  return `/api/campaigns/${c.slug}/arcs${rest}`;
}

async function postArc(c: Campaign, newArc: Record<string, unknown>, user = owner) {
  return ctx.app.inject({ method: 'POST', url: arcsUrl(c), headers: user.headers, payload: { newArc } });
}

async function createArc(c: Campaign, name: string, extra: Record<string, unknown> = {}, user = owner): Promise<ArcBody> {
  const res = await postArc(c, { name, ...extra }, user);
  expect(res.statusCode, res.body).toBe(201);
  return arcOf(res);
}

async function getArc(c: Campaign, slug: string, user = owner) {
  return ctx.app.inject({ method: 'GET', url: arcsUrl(c, `/${slug}`), headers: user.headers });
}

async function putArc(c: Campaign, slug: string, updatedArc: Record<string, unknown>, headers: Record<string, string> = {}) {
  return ctx.app.inject({ method: 'PUT', url: arcsUrl(c, `/${slug}`), headers: { ...owner.headers, ...headers }, payload: { updatedArc } });
}

async function listArcs(c: Campaign): Promise<ArcBody[]> {
  const res = await ctx.app.inject({ method: 'GET', url: arcsUrl(c), headers: owner.headers });
  expect(res.statusCode).toBe(200);
  return json<ArcBody[]>(res);
}

// Things are made straight in the database so this suite does not depend on the things routes.
async function insertThing(c: Campaign, name: string, slug: string, createdAt = new Date().toISOString()) {
  const type = await ctx.database.kysely.selectFrom('thing_types').select('id').where('campaign_id', '=', c.id).orderBy('id').executeTakeFirstOrThrow();
  return ctx.database.kysely
    .insertInto('things')
    .values({ campaign_id: c.id, type_id: type.id, slug, name, description: null, version: 1, created_at: createdAt, updated_at: createdAt })
    .returningAll()
    .executeTakeFirstOrThrow();
}

async function link(c: Campaign, thingSlug: string, arcSlug: string) {
  const res = await ctx.app.inject({ method: 'POST', url: `/api/campaigns/${c.slug}/things/${thingSlug}/arcs`, headers: owner.headers, payload: { arcSlug } });
  expect(res.statusCode, res.body).toBe(200);
}

async function arcCount(c: Campaign) {
  return (await ctx.database.kysely.selectFrom('arcs').select('id').where('campaign_id', '=', c.id).execute()).length;
}

describe('POST arcs', () => {
  it('creates an arc from a name alone: 201, Location, ETag, every field, empty rich text', async () => {
    const c = await newCampaign();
    const res = await postArc(c, { name: '  The Black Spider  ' });
    expect(res.statusCode).toBe(201);
    const arc = arcOf(res);
    expect(Object.keys(arc).sort()).toEqual(ARC_KEYS);
    expect(arc).toMatchObject({ slug: 'the-black-spider', name: 'The Black Spider', campaignId: c.id, parentArcId: null, parentArc: null, childArcs: [], things: [] });
    for (const field of TEXT_FIELDS) expect(arc[field], field).toEqual(EMPTY);
    expect(arc.createdAt).toMatch(ISO);
    expect(arc.updatedAt).toBe(arc.createdAt);
    expect(res.headers.location).toBe(`/api/campaigns/${c.slug}/arcs/the-black-spider`);
    expect(res.headers.etag).toMatch(/^"\d+-1-a[0-9a-f]{16}"$/);
    // A rich-text field never written is NULL in the database and still reads as an empty paragraph.
    const stored = await ctx.database.kysely.selectFrom('arcs').selectAll().where('id', '=', arc.id).executeTakeFirstOrThrow();
    expect(stored.hook).toBeNull();
    expect(arcOf(await getArc(c, arc.slug)).notes).toEqual(EMPTY);
  });

  it('accepts every field at creation, including a parent', async () => {
    const c = await newCampaign();
    const parent = await createArc(c, 'Parent');
    const texts = Object.fromEntries(TEXT_FIELDS.map((f) => [f, doc(f)]));
    const arc = await createArc(c, 'Child', { ...texts, parentArcId: parent.id });
    for (const field of TEXT_FIELDS) expect(arc[field], field).toEqual(doc(field));
    expect(arc.parentArcId).toBe(parent.id);
    expect(arc.parentArc).toEqual({ id: parent.id, slug: 'parent', name: 'Parent' });
    const explicitNull = await createArc(c, 'Orphan', { parentArcId: null });
    expect(explicitNull.parentArcId).toBeNull();
  });

  it('generates free slugs within the campaign, with a fallback for names that leave none', async () => {
    const c = await newCampaign();
    const other = await newCampaign();
    expect((await createArc(c, 'Dragon Heist')).slug).toBe('dragon-heist');
    expect((await createArc(c, 'Dragon Heist')).slug).toBe('dragon-heist-2');
    expect((await createArc(c, 'dragon heist!')).slug).toBe('dragon-heist-3');
    expect((await createArc(other, 'Dragon Heist')).slug).toBe('dragon-heist');
    expect((await createArc(c, 'Émile Zola')).slug).toBe('emile-zola');
    expect((await createArc(c, '★★★')).slug).toBe('arc');
    expect((await createArc(c, '†††')).slug).toBe('arc-2');
    // A name whose slug fills the 100 characters: suffixed candidates cut the base.
    const long = 'Saga '.repeat(30);
    const longSlugs: string[] = [];
    for (let i = 0; i < 4; i += 1) longSlugs.push((await createArc(c, long)).slug);
    expect(new Set(longSlugs).size).toBe(4);
    for (const slug of longSlugs) expect(slug.length).toBeLessThanOrEqual(100);
    expect(longSlugs[3]).toMatch(/-4$/);
  });

  it('rejects bad bodies with 400 and pointers, storing nothing', async () => {
    const c = await newCampaign();
    const parent = await createArc(c, 'Existing');
    const before = await arcCount(c);
    const badLeaf = [{ type: 'paragraph', children: [{ text: 1 }] }];
    const cases: [unknown, string][] = [
      [{}, '/newArc'],
      [{ newArc: {} }, '/newArc/name'],
      [{ newArc: { name: '   ' } }, '/newArc/name'],
      [{ newArc: { name: 'x'.repeat(256) } }, '/newArc/name'],
      [{ newArc: { name: 7 } }, '/newArc/name'],
      [{ newArc: { name: 'ok', parentArcId: 'one' } }, '/newArc/parentArcId'],
      [{ newArc: { name: 'ok', parentArcId: 1.5 } }, '/newArc/parentArcId'],
      [{ newArc: { name: 'ok', parentArcId: 0 } }, '/newArc/parentArcId'],
      ...TEXT_FIELDS.flatMap((f): [unknown, string][] => [
        [{ newArc: { name: 'ok', [f]: 'plain' } }, `/newArc/${f}`],
        [{ newArc: { name: 'ok', [f]: [] } }, `/newArc/${f}`],
        [{ newArc: { name: 'ok', [f]: null } }, `/newArc/${f}`],
        [{ newArc: { name: 'ok', [f]: badLeaf } }, `/newArc/${f}/0/children/0/text`],
      ]),
    ];
    for (const [payload, path] of cases) {
      const res = await ctx.app.inject({ method: 'POST', url: arcsUrl(c), headers: owner.headers, payload: payload as object });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(problemOf(res)).toMatchObject({ status: 400, code: 'validation_failed', title: 'Bad Request' });
      expect(errorPathsOf(res), JSON.stringify(payload)).toContain(path);
    }
    // Every issue at once, one pointer per field.
    const all = await postArc(c, { name: '', ...Object.fromEntries(TEXT_FIELDS.map((f) => [f, badLeaf])) });
    expect(errorPathsOf(all).sort()).toEqual(
      ['/newArc/name', ...TEXT_FIELDS.map((f) => `/newArc/${f}/0/children/0/text`)].sort(),
    );
    // A parent of another campaign, or none at all.
    const foreign = await createArc(await newCampaign(), 'Elsewhere');
    for (const parentArcId of [foreign.id, 999_999, 2_147_483_648, 1e15]) {
      const res = await postArc(c, { name: 'ok', parentArcId });
      expect(res.statusCode, String(parentArcId)).toBe(400);
      expect(json(res)).toMatchObject({ code: 'invalid_reference', errors: [{ path: '/newArc/parentArcId' }] });
    }
    expect(await arcCount(c)).toBe(before);
    expect((await postArc(c, { name: 'ok', parentArcId: parent.id })).statusCode).toBe(201);
  });

  it('ignores unknown fields', async () => {
    const c = await newCampaign();
    const arc = await createArc(c, 'Extra', { campaignId: 1, id: 5, slug: 'chosen', things: [1] });
    expect(arc).toMatchObject({ slug: 'extra', campaignId: c.id, things: [] });
  });
});

describe('GET arcs', () => {
  it('lists every arc newest first (createdAt, then id), each with parentArc, childArcs and full things', async () => {
    const c = await newCampaign();
    const root = await createArc(c, 'Root');
    const childA = await createArc(c, 'Child A', { parentArcId: root.id });
    const childB = await createArc(c, 'Child B', { parentArcId: root.id });
    const lone = await createArc(c, 'Lone');
    const db = ctx.database.kysely;
    // createdAt decides before id: give Child B the oldest time, and Root and Lone the same time.
    await db.updateTable('arcs').set({ created_at: '2020-01-01T00:00:00.000Z' }).where('id', '=', childB.id).execute();
    await db.updateTable('arcs').set({ created_at: '2030-01-01T00:00:00.000Z' }).where('id', 'in', [root.id, lone.id]).execute();
    await db.updateTable('arcs').set({ created_at: '2025-01-01T00:00:00.000Z' }).where('id', '=', childA.id).execute();

    const spear = await insertThing(c, 'Spear', 'spear');
    const axe = await insertThing(c, 'Axe', 'axe');
    // Link order decides, not thing id or name: spear first, then axe.
    await db.insertInto('arc_things').values([
      { campaign_id: c.id, arc_id: root.id, thing_id: axe.id, created_at: '2030-01-02T00:00:00.000Z' },
      { campaign_id: c.id, arc_id: root.id, thing_id: spear.id, created_at: '2030-01-01T00:00:00.000Z' },
      { campaign_id: c.id, arc_id: lone.id, thing_id: axe.id, created_at: '2030-01-01T00:00:00.000Z' },
    ]).execute();

    const list = await listArcs(c);
    expect(list.map((a) => a.name)).toEqual(['Lone', 'Root', 'Child A', 'Child B']);
    for (const arc of list) expect(Object.keys(arc).sort()).toEqual(ARC_KEYS);
    const [l, r, a, b] = list as [ArcBody, ArcBody, ArcBody, ArcBody];
    expect(r.parentArc).toBeNull();
    // Children oldest first: Child B (2020) before Child A (2025).
    expect(r.childArcs.map((x) => x.name)).toEqual(['Child B', 'Child A']);
    expect(Object.keys(r.childArcs[0] ?? {}).sort()).toEqual(['createdAt', 'id', 'name', 'slug', 'updatedAt']);
    expect(r.childArcs[0]).toEqual({ id: childB.id, slug: 'child-b', name: 'Child B', createdAt: '2020-01-01T00:00:00.000Z', updatedAt: childB.updatedAt });
    expect(a.parentArc).toEqual({ id: root.id, slug: 'root', name: 'Root' });
    expect(a.parentArcId).toBe(root.id);
    expect(b.parentArc).toEqual({ id: root.id, slug: 'root', name: 'Root' });
    expect(r.things.map((t) => t.slug)).toEqual(['spear', 'axe']);
    expect(Object.keys(r.things[0] ?? {}).sort()).toEqual(THING_KEYS);
    expect(r.things[1]).toEqual({
      id: axe.id,
      slug: 'axe',
      typeId: axe.type_id,
      name: 'Axe',
      description: EMPTY,
      visibility: 'all',
      properties: [],
      tags: [],
      aliases: [],
      campaignId: c.id,
      createdAt: axe.created_at,
      updatedAt: axe.updated_at,
    });
    expect(l.things.map((t) => t.slug)).toEqual(['axe']);
    expect(a.things).toEqual([]);
  });

  it('breaks a tie in link time by thing id', async () => {
    const c = await newCampaign();
    const arc = await createArc(c, 'Tied');
    const first = await insertThing(c, 'Zed', 'zed');
    const second = await insertThing(c, 'Abe', 'abe');
    const at = '2030-01-01T00:00:00.000Z';
    await ctx.database.kysely.insertInto('arc_things').values([
      { campaign_id: c.id, arc_id: arc.id, thing_id: second.id, created_at: at },
      { campaign_id: c.id, arc_id: arc.id, thing_id: first.id, created_at: at },
    ]).execute();
    expect(arcOf(await getArc(c, arc.slug)).things.map((t) => t.slug)).toEqual(['zed', 'abe']);
    expect((await listArcs(c))[0]?.things.map((t) => t.slug)).toEqual(['zed', 'abe']);
  });

  it('lists an empty campaign as []', async () => {
    expect(await listArcs(await newCampaign())).toEqual([]);
  });

  it('gets one arc with parentArc, childArcs, things and an ETag', async () => {
    const c = await newCampaign();
    const parent = await createArc(c, 'Saga');
    const arc = await createArc(c, 'Chapter One', { parentArcId: parent.id, hook: doc('hook') });
    const sub1 = await createArc(c, 'Scene 1', { parentArcId: arc.id });
    const sub2 = await createArc(c, 'Scene 2', { parentArcId: arc.id });
    await createArc(c, 'Unrelated', { parentArcId: parent.id });
    await insertThing(c, 'Mira', 'mira');
    await link(c, 'mira', arc.slug);
    const res = await getArc(c, arc.slug);
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toMatch(new RegExp(`^"${arc.id}-1-a[0-9a-f]{16}"$`));
    const body = arcOf(res);
    expect(Object.keys(body).sort()).toEqual(ARC_KEYS);
    expect(body).toMatchObject({ id: arc.id, name: 'Chapter One', hook: doc('hook'), problem: EMPTY, parentArcId: parent.id });
    expect(body.parentArc).toEqual({ id: parent.id, slug: 'saga', name: 'Saga' });
    expect(body.childArcs).toEqual([
      { id: sub1.id, slug: sub1.slug, name: 'Scene 1', createdAt: sub1.createdAt, updatedAt: sub1.updatedAt },
      { id: sub2.id, slug: sub2.slug, name: 'Scene 2', createdAt: sub2.createdAt, updatedAt: sub2.updatedAt },
    ]);
    expect(body.things.map((t) => t.slug)).toEqual(['mira']);
    expect(Object.keys(body.things[0] ?? {}).sort()).toEqual(THING_KEYS);
    const top = arcOf(await getArc(c, parent.slug));
    expect(top.parentArc).toBeNull();
    expect(top.childArcs.map((x) => x.name)).toEqual(['Chapter One', 'Unrelated']);
  });

  it('answers 404 arc_not_found for unknown or malformed slugs and for another campaign’s arc', async () => {
    const c = await newCampaign();
    const other = await newCampaign();
    await createArc(other, 'Theirs');
    for (const slug of ['nope', 'Not%20A%20Slug', 'theirs']) {
      const res = await getArc(c, slug);
      expect(res.statusCode, slug).toBe(404);
      expect(json(res)).toMatchObject({ status: 404, code: 'arc_not_found' });
    }
    expect((await putArc(c, 'theirs', { name: 'x' })).statusCode).toBe(404);
    expect((await ctx.app.inject({ method: 'DELETE', url: arcsUrl(c, '/theirs'), headers: owner.headers })).statusCode).toBe(404);
    expect(arcOf(await getArc(other, 'theirs')).name).toBe('Theirs');
  });
});

describe('PUT arcs', () => {
  it('changes only the given fields; a name change keeps the slug; version and updatedAt move', async () => {
    const c = await newCampaign();
    const arc = await createArc(c, 'Original', { hook: doc('h'), notes: doc('n') });
    const res = await putArc(c, arc.slug, { name: '  Renamed  ', problem: doc('p') });
    expect(res.statusCode).toBe(200);
    const body = arcOf(res);
    expect(Object.keys(body).sort()).toEqual(ARC_KEYS);
    expect(body).toMatchObject({ slug: 'original', name: 'Renamed', hook: doc('h'), notes: doc('n'), problem: doc('p'), key: EMPTY, parentArc: null });
    expect(body.updatedAt >= arc.updatedAt).toBe(true);
    expect(body.createdAt).toBe(arc.createdAt);
    expect(res.headers.etag).toMatch(new RegExp(`^"${arc.id}-2-a[0-9a-f]{16}"$`));
    expect(arcOf(await getArc(c, 'original'))).toEqual(body);

    for (const field of TEXT_FIELDS) {
      const changed = arcOf(await putArc(c, arc.slug, { [field]: doc(`new ${field}`) }));
      expect(changed[field], field).toEqual(doc(`new ${field}`));
    }
    const final = arcOf(await getArc(c, arc.slug));
    for (const field of TEXT_FIELDS) expect(final[field], field).toEqual(doc(`new ${field}`));
  });

  it('changes the slug when given explicitly: 409 when taken, 400 when malformed', async () => {
    const c = await newCampaign();
    const a = await createArc(c, 'Alpha');
    const b = await createArc(c, 'Beta');
    const other = await newCampaign();
    await createArc(other, 'Gamma');

    const taken = await putArc(c, b.slug, { slug: a.slug, name: 'Changed' });
    expect(taken.statusCode).toBe(409);
    expect(json(taken)).toMatchObject({ status: 409, code: 'slug_taken' });
    for (const slug of ['Bad Slug', '-x', 'x-', 'a--b', '', 'x'.repeat(101), 5, null]) {
      const res = await putArc(c, b.slug, { slug, name: 'Changed' });
      expect(res.statusCode, JSON.stringify(slug)).toBe(400);
      expect(errorPathsOf(res)).toContain('/updatedArc/slug');
    }
    expect(arcOf(await getArc(c, b.slug)).name).toBe('Beta');

    // Its own slug is not "taken"; a slug used in another campaign is free here.
    expect((await putArc(c, b.slug, { slug: 'beta' })).statusCode).toBe(200);
    const moved = await putArc(c, b.slug, { slug: 'gamma' });
    expect(moved.statusCode).toBe(200);
    expect(arcOf(moved).slug).toBe('gamma');
    // The old slug answers with the current URL (CONTRACT "Secrets that hold": previous slugs).
    const previous = await getArc(c, 'beta');
    expect(previous.statusCode).toBe(308);
    expect(previous.headers.location).toBe(`/api/campaigns/${c.slug}/arcs/gamma`);
    expect((await getArc(c, 'gamma')).statusCode).toBe(200);
  });

  it('rejects bad fields with 400 and pointers, changing nothing', async () => {
    const c = await newCampaign();
    const arc = await createArc(c, 'Steady', { hook: doc('kept') });
    const badLeaf = [{ type: 'paragraph', children: [{ text: 'x', bold: 'yes' }] }];
    const cases: [unknown, string][] = [
      [{}, '/updatedArc'],
      [{ updatedArc: { name: '' } }, '/updatedArc/name'],
      [{ updatedArc: { name: 3 } }, '/updatedArc/name'],
      [{ updatedArc: { parentArcId: '1' } }, '/updatedArc/parentArcId'],
      [{ updatedArc: { parentArcId: -1 } }, '/updatedArc/parentArcId'],
      ...TEXT_FIELDS.flatMap((f): [unknown, string][] => [
        [{ updatedArc: { name: 'New', [f]: { type: 'paragraph' } } }, `/updatedArc/${f}`],
        [{ updatedArc: { name: 'New', [f]: [] } }, `/updatedArc/${f}`],
        [{ updatedArc: { name: 'New', [f]: badLeaf } }, `/updatedArc/${f}/0/children/0/bold`],
      ]),
    ];
    for (const [payload, path] of cases) {
      const res = await ctx.app.inject({ method: 'PUT', url: arcsUrl(c, `/${arc.slug}`), headers: owner.headers, payload: payload as object });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(errorPathsOf(res), JSON.stringify(payload)).toContain(path);
    }
    const res = await getArc(c, arc.slug);
    expect(json(res)).toMatchObject({ name: 'Steady', hook: doc('kept') });
    expect(res.headers.etag).toMatch(new RegExp(`^"${arc.id}-1-a[0-9a-f]{16}"$`));
  });

  it('honours If-Match: a current ETag passes, a stale one gets 412 and changes nothing', async () => {
    const c = await newCampaign();
    const arc = await createArc(c, 'Guarded');
    const etag = (await getArc(c, arc.slug)).headers.etag as string;
    const ok = await putArc(c, arc.slug, { name: 'Guarded Once' }, { 'if-match': etag });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers.etag).not.toBe(etag);

    const stale = await putArc(c, arc.slug, { name: 'Lost Update' }, { 'if-match': etag });
    expect(stale.statusCode).toBe(412);
    expect(json(stale)).toMatchObject({ status: 412, code: 'precondition_failed' });
    expect(arcOf(await getArc(c, arc.slug)).name).toBe('Guarded Once');

    expect((await putArc(c, arc.slug, { name: 'Any' }, { 'if-match': '*' })).statusCode).toBe(200);
    const previous = (await getArc(c, arc.slug)).headers.etag as string;
    expect((await putArc(c, arc.slug, { name: 'Listed' }, { 'if-match': `"0-0", ${previous}` })).statusCode).toBe(200);
    // A stale ETag is refused before any other rule is looked at.
    expect((await putArc(c, arc.slug, { parentArcId: arc.id }, { 'if-match': previous })).statusCode).toBe(412);
  });

  describe('parentArcId', () => {
    async function tree() {
      const c = await newCampaign();
      const root = await createArc(c, 'Root');
      const mid = await createArc(c, 'Mid', { parentArcId: root.id });
      const leaf = await createArc(c, 'Leaf', { parentArcId: mid.id });
      const side = await createArc(c, 'Side');
      return { c, root, mid, leaf, side };
    }

    it('sets a parent and answers with parentArc; the parent lists the child', async () => {
      const { c, root, side } = await tree();
      const res = await putArc(c, side.slug, { parentArcId: root.id });
      expect(res.statusCode).toBe(200);
      expect(json(res)).toMatchObject({ parentArcId: root.id, parentArc: { id: root.id, slug: 'root', name: 'Root' } });
      expect(arcOf(await getArc(c, root.slug)).childArcs.map((x) => x.name)).toEqual(['Mid', 'Side']);
    });

    it('moves an arc below another branch (not a cycle)', async () => {
      const { c, leaf, side, mid } = await tree();
      expect((await putArc(c, leaf.slug, { parentArcId: side.id })).statusCode).toBe(200);
      expect(arcOf(await getArc(c, mid.slug)).childArcs).toEqual([]);
      // Moving a whole subtree under a former sibling's descendant.
      expect((await putArc(c, side.slug, { parentArcId: mid.id })).statusCode).toBe(200);
      expect(arcOf(await getArc(c, leaf.slug)).parentArc?.name).toBe('Side');
    });

    it('clears the parent with null', async () => {
      const { c, mid, root } = await tree();
      const res = await putArc(c, mid.slug, { parentArcId: null });
      expect(res.statusCode).toBe(200);
      expect(json(res)).toMatchObject({ parentArcId: null, parentArc: null });
      expect(arcOf(await getArc(c, root.slug)).childArcs).toEqual([]);
      // Omitting the field keeps the parent.
      const leafNow = arcOf(await putArc(c, 'leaf', { name: 'Leaf Renamed' }));
      expect(leafNow.parentArcId).toBe(mid.id);
    });

    it('refuses the arc itself and any descendant with 400 arc_cycle', async () => {
      const { c, root, mid, leaf } = await tree();
      const cases: [string, number][] = [
        [root.slug, root.id],
        [root.slug, mid.id],
        [root.slug, leaf.id],
        [mid.slug, leaf.id],
        [leaf.slug, leaf.id],
      ];
      for (const [slug, parentArcId] of cases) {
        const res = await putArc(c, slug, { parentArcId, name: 'Should Not Stick' });
        expect(res.statusCode, `${slug} → ${parentArcId}`).toBe(400);
        expect(json(res)).toMatchObject({ status: 400, code: 'arc_cycle', errors: [{ path: '/updatedArc/parentArcId' }] });
      }
      const stored = await ctx.database.kysely.selectFrom('arcs').select(['name', 'parent_arc_id', 'version']).where('campaign_id', '=', c.id).orderBy('id').execute();
      expect(stored).toEqual([
        { name: 'Root', parent_arc_id: null, version: 1 },
        { name: 'Mid', parent_arc_id: root.id, version: 1 },
        { name: 'Leaf', parent_arc_id: mid.id, version: 1 },
        { name: 'Side', parent_arc_id: null, version: 1 },
      ]);
    });

    it('refuses an arc of another campaign or an unknown id with 400 invalid_reference', async () => {
      const { c, mid, root } = await tree();
      const foreign = await createArc(await newCampaign(stranger), 'Foreign', {}, stranger);
      for (const parentArcId of [foreign.id, 999_999, 2_147_483_647, 2_147_483_648, Number.MAX_SAFE_INTEGER]) {
        const res = await putArc(c, mid.slug, { parentArcId });
        expect(res.statusCode, String(parentArcId)).toBe(400);
        expect(json(res)).toMatchObject({ code: 'invalid_reference', errors: [{ path: '/updatedArc/parentArcId' }] });
      }
      expect(arcOf(await getArc(c, mid.slug)).parentArcId).toBe(root.id);
    });
  });
});

describe('concurrent writers', () => {
  it('give concurrent creates with one name distinct slugs', async () => {
    const c = await newCampaign();
    const results = await Promise.all(Array.from({ length: 8 }, () => postArc(c, { name: 'Rush' })));
    expect(results.map((r) => r.statusCode)).toEqual(Array.from({ length: 8 }, () => 201));
    const made = results.map((r) => arcOf(r).slug).sort();
    expect(made).toEqual(['rush', 'rush-2', 'rush-3', 'rush-4', 'rush-5', 'rush-6', 'rush-7', 'rush-8'].sort());
  });

  it('never let two concurrent parent changes close a loop', async () => {
    const c = await newCampaign();
    const a = await createArc(c, 'Left');
    const b = await createArc(c, 'Right');
    const [toB, toA] = await Promise.all([putArc(c, a.slug, { parentArcId: b.id }), putArc(c, b.slug, { parentArcId: a.id })]);
    expect([toB.statusCode, toA.statusCode].sort()).toEqual([200, 400]);
    expect(problemOf(toB.statusCode === 400 ? toB : toA).code).toBe('arc_cycle');
    const stored = await ctx.database.kysely.selectFrom('arcs').select(['id', 'parent_arc_id']).where('campaign_id', '=', c.id).execute();
    expect(stored.filter((row) => row.parent_arc_id !== null)).toHaveLength(1);
  });
});

describe('DELETE arcs', () => {
  it('deletes the arc, lifts its children to the top level and removes its links', async () => {
    const c = await newCampaign();
    const root = await createArc(c, 'Root');
    const doomed = await createArc(c, 'Doomed', { parentArcId: root.id });
    const kid1 = await createArc(c, 'Kid 1', { parentArcId: doomed.id });
    const kid2 = await createArc(c, 'Kid 2', { parentArcId: doomed.id });
    const grandkid = await createArc(c, 'Grandkid', { parentArcId: kid1.id });
    const thing = await insertThing(c, 'Relic', 'relic');
    await link(c, 'relic', doomed.slug);
    await link(c, 'relic', kid1.slug);

    const res = await ctx.app.inject({ method: 'DELETE', url: arcsUrl(c, `/${doomed.slug}`), headers: owner.headers });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await getArc(c, doomed.slug)).statusCode).toBe(404);

    for (const kid of [kid1, kid2]) {
      const got = await getArc(c, kid.slug);
      expect(json(got)).toMatchObject({ parentArcId: null, parentArc: null });
      // Their own field changed, so their ETag does too.
      expect(got.headers.etag).toMatch(new RegExp(`^"${kid.id}-2-a[0-9a-f]{16}"$`));
    }
    expect(arcOf(await getArc(c, kid1.slug)).childArcs.map((x) => x.id)).toEqual([grandkid.id]);
    expect(arcOf(await getArc(c, grandkid.slug)).parentArcId).toBe(kid1.id);
    expect(arcOf(await getArc(c, root.slug)).childArcs).toEqual([]);
    const links = await ctx.database.kysely.selectFrom('arc_things').select(['arc_id']).where('thing_id', '=', thing.id).execute();
    expect(links).toEqual([{ arc_id: kid1.id }]);
    expect((await listArcs(c)).map((a) => a.name)).toEqual(['Grandkid', 'Kid 2', 'Kid 1', 'Root']);
    expect((await ctx.app.inject({ method: 'DELETE', url: arcsUrl(c, `/${doomed.slug}`), headers: owner.headers })).statusCode).toBe(404);
  });
});

describe('access', () => {
  it('hides another user’s campaign behind 404 on every arcs route', async () => {
    const c = await newCampaign();
    const arc = await createArc(c, 'Secret');
    const requests = [
      { method: 'GET' as const, url: arcsUrl(c) },
      { method: 'POST' as const, url: arcsUrl(c), payload: { newArc: { name: 'Intruder' } } },
      { method: 'GET' as const, url: arcsUrl(c, `/${arc.slug}`) },
      { method: 'PUT' as const, url: arcsUrl(c, `/${arc.slug}`), payload: { updatedArc: { name: 'Hacked' } } },
      { method: 'DELETE' as const, url: arcsUrl(c, `/${arc.slug}`) },
    ];
    for (const request of requests) {
      const res = await ctx.app.inject({ ...request, headers: stranger.headers });
      expect(res.statusCode, `${request.method} ${request.url}`).toBe(404);
      expect(problemOf(res).code).toBe('campaign_not_found');
      const anonymous = await ctx.app.inject(request);
      expect(anonymous.statusCode).toBe(401);
    }
    expect(arcOf(await getArc(c, arc.slug)).name).toBe('Secret');
    expect(await arcCount(c)).toBe(1);
  });
});

describe('statement count', () => {
  // Seeds arcs, things and links straight into the database in batches.
  async function seed(c: Campaign, arcs: number, things: number, linksPerArc: number) {
    const db = ctx.database.kysely;
    const type = await db.selectFrom('thing_types').select('id').where('campaign_id', '=', c.id).orderBy('id').executeTakeFirstOrThrow();
    const base = Date.parse('2030-01-01T00:00:00.000Z');
    const at = (i: number) => new Date(base + i * 1000).toISOString();
    const thingIds: number[] = [];
    for (let start = 0; start < things; start += 250) {
      const rows = Array.from({ length: Math.min(250, things - start) }, (_, k) => ({
        campaign_id: c.id,
        type_id: type.id,
        slug: `thing-${start + k}`,
        name: `Thing ${start + k}`,
        description: JSON.stringify(doc(`thing ${start + k}`)),
        version: 1,
        created_at: at(start + k),
        updated_at: at(start + k),
      }));
      thingIds.push(...(await db.insertInto('things').values(rows).returning('id').execute()).map((r) => r.id));
    }
    const arcIds: number[] = [];
    // Half the arcs top-level, the other half children of those.
    const half = Math.ceil(arcs / 2);
    for (let start = 0; start < arcs; start += 100) {
      const rows = Array.from({ length: Math.min(100, arcs - start) }, (_, k) => {
        const i = start + k;
        return {
          campaign_id: c.id,
          parent_arc_id: i >= half ? arcIds[i - half]! : null,
          slug: `arc-${i}`,
          name: `Arc ${i}`,
          hook: JSON.stringify(doc(`hook ${i}`)),
          version: 1,
          created_at: at(i),
          updated_at: at(i),
        };
      });
      arcIds.push(...(await db.insertInto('arcs').values(rows).returning('id').execute()).map((r) => r.id));
    }
    const links = arcIds.flatMap((arcId, i) =>
      Array.from({ length: linksPerArc }, (_, k) => ({ campaign_id: c.id, arc_id: arcId, thing_id: thingIds[(i * linksPerArc + k) % thingIds.length]!, created_at: at(k) })),
    );
    for (let start = 0; start < links.length; start += 400) await db.insertInto('arc_things').values(links.slice(start, start + 400)).execute();
    return { arcIds, thingIds };
  }

  async function countStatements<T>(url: string): Promise<{ count: number; body: T }> {
    // Once to warm up (the token's last-use time is written at most once a minute), then measured.
    // On PostgreSQL the caller is kept in memory only by a lookup no notice overtook: the notices of
    // the set-up's writes are applied first (src/db/caller-cache.ts).
    await ctx.app.callerCache?.notifications.sync();
    expect((await ctx.app.inject({ method: 'GET', url, headers: owner.headers })).statusCode).toBe(200);
    ctx.queries.length = 0;
    const res = await ctx.app.inject({ method: 'GET', url, headers: owner.headers });
    expect(res.statusCode).toBe(200);
    return { count: ctx.queries.length, body: json<T>(res) };
  }

  it('lists 1 arc and 200 arcs with 2,000 links in the same number of statements', async () => {
    const small = await newCampaign();
    await seed(small, 1, 1, 1);
    const large = await newCampaign();
    await seed(large, 200, 150, 10);

    const one = await countStatements<ArcBody[]>(arcsUrl(small));
    const many = await countStatements<ArcBody[]>(arcsUrl(large));
    expect(one.body).toHaveLength(1);
    expect(many.body).toHaveLength(200);
    expect(many.body.reduce((n, a) => n + a.things.length, 0)).toBe(2000);
    expect(many.body.filter((a) => a.parentArc !== null)).toHaveLength(100);
    expect(many.body.find((a) => a.slug === 'arc-0')?.childArcs.map((x) => x.slug)).toEqual(['arc-100']);
    expect(many.body[0]?.slug).toBe('arc-199');
    expect(many.count).toBe(one.count);
    // Caller, campaign, arcs, links.
    expect(many.count).toBeLessThanOrEqual(4);
  });

  it('gets one arc in the same small number of statements however many children and links it has', async () => {
    const c = await newCampaign();
    await seed(c, 200, 300, 10);
    const bare = await createArc(c, 'Bare');
    const db = ctx.database.kysely;
    const busy = await db.selectFrom('arcs').select(['id', 'slug']).where('campaign_id', '=', c.id).where('slug', '=', 'arc-0').executeTakeFirstOrThrow();
    // arc-0 gets every other top-level arc as a child too, and 300 links.
    await db.updateTable('arcs').set({ parent_arc_id: busy.id }).where('campaign_id', '=', c.id).where('parent_arc_id', 'is', null).where('id', '!=', busy.id).where('slug', '!=', 'bare').execute();
    const things = await db.selectFrom('things').select('id').where('campaign_id', '=', c.id).execute();
    await db.deleteFrom('arc_things').where('arc_id', '=', busy.id).execute();
    for (let start = 0; start < things.length; start += 300) {
      await db.insertInto('arc_things').values(things.slice(start, start + 300).map((t) => ({ campaign_id: c.id, arc_id: busy.id, thing_id: t.id, created_at: '2030-01-01T00:00:00.000Z' }))).execute();
    }
    const lean = await countStatements<ArcBody>(arcsUrl(c, `/${bare.slug}`));
    const heavy = await countStatements<ArcBody>(arcsUrl(c, `/${busy.slug}`));
    expect(lean.body.things).toEqual([]);
    expect(heavy.body.things).toHaveLength(300);
    expect(heavy.body.childArcs).toHaveLength(100);
    expect(heavy.count).toBe(lean.count);
    expect(heavy.count).toBeLessThanOrEqual(5);
  });
});
