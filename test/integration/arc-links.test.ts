import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type TestContext, type TestUser } from '../support/app.js';
import { contextWithUsers, createThing as createThingAs, newCampaign as newCampaignAs, problemOf, type TestCampaign } from '../support/fixtures.js';

const EMPTY = [{ type: 'paragraph', children: [{ text: '' }] }];
const LINKED_ARC_KEYS = ['aliases', 'antagonist', 'campaignId', 'createdAt', 'hook', 'id', 'key', 'name', 'outcome', 'problem', 'properties', 'protagonist', 'slug', 'tags', 'updatedAt'];


interface RecordBody {
  id: number;
  slug: string;
  name: string;
  createdAt: string;
  updatedAt: string;
}

type ThingBody = RecordBody & { typeId: number; description: unknown; campaignId: number };
type ArcBody = RecordBody & { campaignId: number; things: ThingBody[] };




let ctx: TestContext;
let owner: TestUser;
let stranger: TestUser;
beforeAll(async () => ({ ctx, owner, stranger } = await contextWithUsers()));
afterAll(() => ctx.close());

type Campaign = TestCampaign;
const newCampaign = (user = owner) => newCampaignAs(ctx.app, user);
const createThing = (c: Campaign, name: string, user = owner) => createThingAs(ctx.app, user, c, name);


async function createArc(c: Campaign, name: string, extra: Record<string, unknown> = {}, user = owner): Promise<ArcBody> {
  const res = await ctx.app.inject({ method: 'POST', url: `/api/campaigns/${c.slug}/arcs`, headers: user.headers, payload: { newArc: { name, ...extra } } });
  expect(res.statusCode, res.body).toBe(201);
  return json<ArcBody>(res);
}

function linkRequest(c: Campaign, thingSlug: string, payload: unknown, user = owner) {
  return ctx.app.inject({ method: 'POST', url: `/api/campaigns/${c.slug}/things/${thingSlug}/arcs`, headers: user.headers, payload: payload as object });
}

function unlinkRequest(c: Campaign, thingSlug: string, arcSlug: string, user = owner) {
  return ctx.app.inject({ method: 'DELETE', url: `/api/campaigns/${c.slug}/things/${thingSlug}/arcs/${arcSlug}`, headers: user.headers });
}

function arcsOfThing(c: Campaign, thingSlug: string, user = owner) {
  return ctx.app.inject({ method: 'GET', url: `/api/campaigns/${c.slug}/things/${thingSlug}/arcs`, headers: user.headers });
}

async function linkRows(c: Campaign) {
  return ctx.database.kysely.selectFrom('arc_things').selectAll().where('campaign_id', '=', c.id).orderBy('arc_id').orderBy('thing_id').execute();
}

describe('POST things/{thingSlug}/arcs', () => {
  it('links a thing to an arc with a message naming both', async () => {
    const c = await newCampaign();
    const thing = await createThing(c, 'Sildar Hallwinter');
    const arc = await createArc(c, 'Goblin Arrows');
    const res = await linkRequest(c, thing.slug, { arcSlug: arc.slug });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(json(res)).toEqual({ message: 'Added Sildar Hallwinter to Goblin Arrows successfully.' });
    expect((await linkRows(c)).map((r) => [r.arc_id, r.thing_id])).toEqual([[arc.id, thing.id]]);
    const got = json<ArcBody>(await ctx.app.inject({ method: 'GET', url: `/api/campaigns/${c.slug}/arcs/${arc.slug}`, headers: owner.headers }));
    expect(got.things).toEqual([thing]);
  });

  it('treats linking an already-linked pair as a success that changes nothing', async () => {
    const c = await newCampaign();
    const thing = await createThing(c, 'Cragmaw Castle');
    const arc = await createArc(c, 'The Castle');
    expect((await linkRequest(c, thing.slug, { arcSlug: arc.slug })).statusCode).toBe(200);
    const before = await linkRows(c);
    const again = await linkRequest(c, thing.slug, { arcSlug: arc.slug });
    expect(again.statusCode).toBe(200);
    expect(json<{ message: string }>(again).message).toBe('Added Cragmaw Castle to The Castle successfully.');
    expect(await linkRows(c)).toEqual(before);
  });

  it('does not count as an edit of the arc or the thing: versions and updatedAt stay (the arc’s ETag moves with its things)', async () => {
    const c = await newCampaign();
    const thing = await createThing(c, 'Lantern');
    const arc = await createArc(c, 'Darkness');
    await linkRequest(c, thing.slug, { arcSlug: arc.slug });
    const arcNow = await ctx.app.inject({ method: 'GET', url: `/api/campaigns/${c.slug}/arcs/${arc.slug}`, headers: owner.headers });
    expect(json<ArcBody>(arcNow).updatedAt).toBe(arc.updatedAt);
    expect(arcNow.headers.etag).toMatch(new RegExp(`^"${arc.id}-1-a[0-9a-f]{16}"$`));
    const thingNow = await ctx.app.inject({ method: 'GET', url: `/api/campaigns/${c.slug}/things/${thing.slug}`, headers: owner.headers });
    expect(json<ThingBody>(thingNow).updatedAt).toBe(thing.updatedAt);
    await unlinkRequest(c, thing.slug, arc.slug);
    expect(json<ArcBody>(await ctx.app.inject({ method: 'GET', url: `/api/campaigns/${c.slug}/arcs/${arc.slug}`, headers: owner.headers })).updatedAt).toBe(arc.updatedAt);
  });

  it('answers 404 for an unknown thing or arc, including those of another campaign, linking nothing', async () => {
    const c = await newCampaign();
    const other = await newCampaign();
    const thing = await createThing(c, 'Known Thing');
    const arc = await createArc(c, 'Known Arc');
    const foreignThing = await createThing(other, 'Foreign Thing');
    const foreignArc = await createArc(other, 'Foreign Arc');
    const cases: [string, string, string][] = [
      ['no-such-thing', arc.slug, 'thing_not_found'],
      [foreignThing.slug, arc.slug, 'thing_not_found'],
      ['Not_A_Slug', arc.slug, 'thing_not_found'],
      [thing.slug, 'no-such-arc', 'arc_not_found'],
      [thing.slug, foreignArc.slug, 'arc_not_found'],
      [thing.slug, 'Not A Slug', 'arc_not_found'],
      ['no-such-thing', 'no-such-arc', 'thing_not_found'],
    ];
    for (const [thingSlug, arcSlug, code] of cases) {
      const res = await linkRequest(c, thingSlug, { arcSlug });
      expect(res.statusCode, `${thingSlug} → ${arcSlug}`).toBe(404);
      expect(json(res)).toMatchObject({ status: 404, code });
    }
    expect(await linkRows(c)).toEqual([]);
    expect(await linkRows(other)).toEqual([]);
  });

  it('answers 400 to a missing or non-string arcSlug', async () => {
    const c = await newCampaign();
    const thing = await createThing(c, 'Body Check');
    await createArc(c, 'Target');
    for (const payload of [{}, { arcSlug: 7 }, { arcSlug: null }, { arcSlug: ['target'] }, { arcSlug: '' }, { slug: 'target' }]) {
      const res = await linkRequest(c, thing.slug, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(json(res)).toMatchObject({ code: 'validation_failed', errors: [{ path: '/arcSlug' }] });
    }
    const noBody = await ctx.app.inject({ method: 'POST', url: `/api/campaigns/${c.slug}/things/${thing.slug}/arcs`, headers: owner.headers });
    expect(noBody.statusCode).toBe(400);
    expect(await linkRows(c)).toEqual([]);
  });
});

describe('GET things/{thingSlug}/arcs', () => {
  it('lists the linked arcs with exactly the spec’s fields, in link order', async () => {
    const c = await newCampaign();
    const thing = await createThing(c, 'Nezznar');
    const hook = [{ type: 'paragraph', children: [{ text: 'The Black Spider schemes' }] }];
    const first = await createArc(c, 'Zed Arc', { hook, notes: hook });
    const second = await createArc(c, 'Alpha Arc');
    await createArc(c, 'Unlinked');
    // Linked in the order second, first: link order wins over creation order and name.
    expect((await linkRequest(c, thing.slug, { arcSlug: second.slug })).statusCode).toBe(200);
    // Make the link times differ whatever the clock's resolution.
    await ctx.database.kysely.updateTable('arc_things').set({ created_at: '2020-01-01T00:00:00.000Z' }).where('arc_id', '=', second.id).execute();
    expect((await linkRequest(c, thing.slug, { arcSlug: first.slug })).statusCode).toBe(200);

    const res = await arcsOfThing(c, thing.slug);
    expect(res.statusCode).toBe(200);
    const list = json<RecordBody[]>(res);
    expect(list.map((a) => a.slug)).toEqual([second.slug, first.slug]);
    for (const arc of list) expect(Object.keys(arc).sort()).toEqual(LINKED_ARC_KEYS);
    expect(list[1]).toEqual({
      id: first.id,
      slug: first.slug,
      name: 'Zed Arc',
      hook,
      protagonist: EMPTY,
      antagonist: EMPTY,
      problem: EMPTY,
      key: EMPTY,
      outcome: EMPTY,
      properties: [],
      tags: [],
      aliases: [],
      campaignId: c.id,
      createdAt: first.createdAt,
      updatedAt: first.updatedAt,
    });
  });

  it('breaks a tie in link time by arc id', async () => {
    const c = await newCampaign();
    const thing = await createThing(c, 'Tie');
    const a = await createArc(c, 'A');
    const b = await createArc(c, 'B');
    await linkRequest(c, thing.slug, { arcSlug: b.slug });
    await linkRequest(c, thing.slug, { arcSlug: a.slug });
    await ctx.database.kysely.updateTable('arc_things').set({ created_at: '2020-01-01T00:00:00.000Z' }).where('thing_id', '=', thing.id).execute();
    expect(json<{ id: number }[]>(await arcsOfThing(c, thing.slug)).map((x) => x.id)).toEqual([a.id, b.id]);
  });

  it('lists [] for a thing with no links and 404 for an unknown thing', async () => {
    const c = await newCampaign();
    const thing = await createThing(c, 'Loner');
    expect(json(await arcsOfThing(c, thing.slug))).toEqual([]);
    const foreign = await createThing(await newCampaign(), 'Elsewhere');
    for (const slug of ['nobody', foreign.slug, 'NOT-VALID']) {
      const res = await arcsOfThing(c, slug);
      expect(res.statusCode, slug).toBe(404);
      expect(problemOf(res).code).toBe('thing_not_found');
    }
  });
});

describe('DELETE things/{thingSlug}/arcs/{arcSlug}', () => {
  it('unlinks (204, no body), leaving other links alone', async () => {
    const c = await newCampaign();
    const thing = await createThing(c, 'Gundren');
    const other = await createThing(c, 'Tharden');
    const arc = await createArc(c, 'Wave Echo Cave');
    const arc2 = await createArc(c, 'Phandalin');
    for (const [t, a] of [[thing.slug, arc.slug], [thing.slug, arc2.slug], [other.slug, arc.slug]] as const) {
      expect((await linkRequest(c, t, { arcSlug: a })).statusCode).toBe(200);
    }
    const res = await unlinkRequest(c, thing.slug, arc.slug);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await linkRows(c)).map((r) => [r.arc_id, r.thing_id])).toEqual([
      [arc.id, other.id],
      [arc2.id, thing.id],
    ]);
    expect(json<{ slug: string }[]>(await arcsOfThing(c, thing.slug)).map((a) => a.slug)).toEqual([arc2.slug]);

    // Unlinking again: the pair exists but is not linked.
    const again = await unlinkRequest(c, thing.slug, arc.slug);
    expect(again.statusCode).toBe(404);
    expect(problemOf(again).code).toBe('link_not_found');
    // And it can be linked again.
    expect((await linkRequest(c, thing.slug, { arcSlug: arc.slug })).statusCode).toBe(200);
  });

  it('answers 404 for an unknown thing or arc', async () => {
    const c = await newCampaign();
    const thing = await createThing(c, 'Real');
    const arc = await createArc(c, 'Real Arc');
    await linkRequest(c, thing.slug, { arcSlug: arc.slug });
    const cases: [string, string, string][] = [
      ['ghost', arc.slug, 'thing_not_found'],
      [thing.slug, 'ghost-arc', 'arc_not_found'],
      ['ghost', 'ghost-arc', 'thing_not_found'],
    ];
    for (const [t, a, code] of cases) {
      const res = await unlinkRequest(c, t, a);
      expect(res.statusCode, `${t} ${a}`).toBe(404);
      expect(problemOf(res).code).toBe(code);
    }
    expect(await linkRows(c)).toHaveLength(1);
  });
});

describe('links and deletes', () => {
  it('drops the links of a deleted arc and of a deleted thing', async () => {
    const c = await newCampaign();
    const thing = await createThing(c, 'Doomed Thing');
    const keeper = await createThing(c, 'Keeper');
    const arc = await createArc(c, 'Doomed Arc');
    const arc2 = await createArc(c, 'Survivor');
    await linkRequest(c, thing.slug, { arcSlug: arc.slug });
    await linkRequest(c, keeper.slug, { arcSlug: arc.slug });
    await linkRequest(c, thing.slug, { arcSlug: arc2.slug });
    await linkRequest(c, keeper.slug, { arcSlug: arc2.slug });
    expect((await ctx.app.inject({ method: 'DELETE', url: `/api/campaigns/${c.slug}/arcs/${arc.slug}`, headers: owner.headers })).statusCode).toBe(204);
    expect(json<{ slug: string }[]>(await arcsOfThing(c, keeper.slug)).map((a) => a.slug)).toEqual([arc2.slug]);
    expect((await ctx.app.inject({ method: 'DELETE', url: `/api/campaigns/${c.slug}/things/${thing.slug}`, headers: owner.headers })).statusCode).toBe(204);
    const survivor = json<ArcBody>(await ctx.app.inject({ method: 'GET', url: `/api/campaigns/${c.slug}/arcs/${arc2.slug}`, headers: owner.headers }));
    expect(survivor.things.map((t) => t.slug)).toEqual([keeper.slug]);
    expect((await linkRows(c)).map((r) => [r.arc_id, r.thing_id])).toEqual([[arc2.id, keeper.id]]);
  });
});

describe('access', () => {
  it('hides another user’s campaign behind 404 on every link route', async () => {
    const c = await newCampaign();
    const thing = await createThing(c, 'Private Thing');
    const arc = await createArc(c, 'Private Arc');
    await linkRequest(c, thing.slug, { arcSlug: arc.slug });
    const base = `/api/campaigns/${c.slug}/things/${thing.slug}/arcs`;
    const requests = [
      { method: 'GET' as const, url: base },
      { method: 'POST' as const, url: base, payload: { arcSlug: arc.slug } },
      { method: 'DELETE' as const, url: `${base}/${arc.slug}` },
    ];
    for (const request of requests) {
      const res = await ctx.app.inject({ ...request, headers: stranger.headers });
      expect(res.statusCode, request.method).toBe(404);
      expect(problemOf(res).code).toBe('campaign_not_found');
      expect((await ctx.app.inject(request)).statusCode, `${request.method} anonymous`).toBe(401);
    }
    expect(await linkRows(c)).toHaveLength(1);
  });

  it('never links across campaigns, even with the stranger’s own arc slug', async () => {
    const mine = await newCampaign();
    const theirs = await newCampaign(stranger);
    const thing = await createThing(mine, 'Mine');
    const theirArc = await createArc(theirs, 'Theirs', {}, stranger);
    const res = await linkRequest(mine, thing.slug, { arcSlug: theirArc.slug });
    expect(res.statusCode).toBe(404);
    expect(problemOf(res).code).toBe('arc_not_found');
    expect((await linkRequest(theirs, thing.slug, { arcSlug: theirArc.slug }, stranger)).statusCode).toBe(404);
  });
});
