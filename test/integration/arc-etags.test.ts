import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type TestContext, type TestUser } from '../support/app.js';
import { contextWithUsers, createThing, newCampaign, type TestCampaign } from '../support/fixtures.js';

// An arc's answer lists its linked things, its parent and its children: its ETag must move when
// they do, though the arc's version does not (a link is no edit of the arc). If-Match still names
// the arc's own version, so a tag read before a link is no lost update.

interface ArcBody {
  id: number;
  slug: string;
  things: { id: number; name: string }[];
  childArcs: { id: number; name: string }[];
  parentArc: { id: number; name: string } | null;
}

let ctx: TestContext;
let owner: TestUser;
beforeAll(async () => ({ ctx, owner } = await contextWithUsers()));
afterAll(() => ctx.close());

const url = (c: TestCampaign, path: string) => `/api/campaigns/${c.slug}${path}`;
const get = (c: TestCampaign, path: string, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'GET', url: url(c, path), headers: { ...owner.headers, ...headers } });
const send = (c: TestCampaign, method: 'POST' | 'PUT' | 'DELETE', path: string, payload?: object, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method, url: url(c, path), headers: { ...owner.headers, ...headers }, payload });

async function createArc(c: TestCampaign, name: string, extra: object = {}): Promise<ArcBody & { etag: string }> {
  const res = await send(c, 'POST', '/arcs', { newArc: { name, ...extra } });
  expect(res.statusCode, res.body).toBe(201);
  return { ...json<ArcBody>(res), etag: String(res.headers.etag) };
}
const link = (c: TestCampaign, thingSlug: string, arcSlug: string) => send(c, 'POST', `/things/${thingSlug}/arcs`, { arcSlug });
const unlink = (c: TestCampaign, thingSlug: string, arcSlug: string) => send(c, 'DELETE', `/things/${thingSlug}/arcs/${arcSlug}`);

describe('an arc’s ETag follows its answer', () => {
  it('moves on link and unlink: the old tag gets 200 with the thing listed (and then gone), never 304', async () => {
    const c = await newCampaign(ctx.app, owner);
    const arc = await createArc(c, 'Goblin Arrows');
    const thing = await createThing(ctx.app, owner, c, 'Sildar');
    const before = await get(c, `/arcs/${arc.slug}`);
    expect(before.headers.etag).toBe(arc.etag);
    expect((await get(c, `/arcs/${arc.slug}`, { 'if-none-match': arc.etag })).statusCode).toBe(304);

    expect((await link(c, thing.slug, arc.slug)).statusCode).toBe(200);
    const linked = await get(c, `/arcs/${arc.slug}`, { 'if-none-match': arc.etag });
    expect(linked.statusCode).toBe(200);
    expect(json<ArcBody>(linked).things.map((t) => t.id)).toEqual([thing.id]);
    const linkedTag = String(linked.headers.etag);
    expect(linkedTag).not.toBe(arc.etag);
    // The same answer again (from the response cache or not) confirms with a 304.
    expect((await get(c, `/arcs/${arc.slug}`, { 'if-none-match': linkedTag })).statusCode).toBe(304);

    expect((await unlink(c, thing.slug, arc.slug)).statusCode).toBe(204);
    const unlinked = await get(c, `/arcs/${arc.slug}`, { 'if-none-match': linkedTag });
    expect(unlinked.statusCode).toBe(200);
    expect(json<ArcBody>(unlinked).things).toEqual([]);
    // The answer is the one from before the link again, and so is its tag.
    expect(unlinked.headers.etag).toBe(arc.etag);
  });

  it('a PUT with If-Match read before a link succeeds (the arc’s own version), and its ETag is the next GET’s', async () => {
    const c = await newCampaign(ctx.app, owner);
    const arc = await createArc(c, 'Redbrand Ruffians');
    const thing = await createThing(ctx.app, owner, c, 'Glasstaff');
    await link(c, thing.slug, arc.slug);
    const put = await send(c, 'PUT', `/arcs/${arc.slug}`, { updatedArc: { name: 'Redbrands' } }, { 'if-match': arc.etag });
    expect(put.statusCode, put.body).toBe(200);
    expect(json<ArcBody>(put).things.map((t) => t.id)).toEqual([thing.id]);
    const after = await get(c, `/arcs/${arc.slug}`, { 'if-none-match': String(put.headers.etag) });
    expect(after.statusCode).toBe(304);
    // The arc's version moved with the PUT: the tag from before it is stale, link or not.
    const stale = await send(c, 'PUT', `/arcs/${arc.slug}`, { updatedArc: { name: 'Lost' } }, { 'if-match': arc.etag });
    expect(stale.statusCode).toBe(412);
    expect(json<ArcBody & { name: string }>(await get(c, `/arcs/${arc.slug}`)).name).toBe('Redbrands');
  });

  it('moves when a linked thing, the parent or a child changes', async () => {
    const c = await newCampaign(ctx.app, owner);
    const parent = await createArc(c, 'Lost Mine');
    const arc = await createArc(c, 'Cragmaw', { parentArcId: parent.id });
    const thing = await createThing(ctx.app, owner, c, 'Klarg');
    await link(c, thing.slug, arc.slug);
    const tagOf = async (slug: string) => String((await get(c, `/arcs/${slug}`)).headers.etag);
    let tag = await tagOf(arc.slug);
    expect((await send(c, 'PUT', `/things/${thing.slug}`, { updatedThing: { name: 'Klarg the Bugbear' } })).statusCode).toBe(200);
    const renamed = await get(c, `/arcs/${arc.slug}`, { 'if-none-match': tag });
    expect(renamed.statusCode).toBe(200);
    expect(json<ArcBody>(renamed).things[0]?.name).toBe('Klarg the Bugbear');
    tag = String(renamed.headers.etag);
    await send(c, 'PUT', `/arcs/${parent.slug}`, { updatedArc: { name: 'Lost Mine of Phandelver' } });
    const parentRenamed = await get(c, `/arcs/${arc.slug}`, { 'if-none-match': tag });
    expect(parentRenamed.statusCode).toBe(200);
    expect(json<ArcBody>(parentRenamed).parentArc?.name).toBe('Lost Mine of Phandelver');
    // A new child moves the parent's tag (its childArcs), not its version.
    const parentTag = await tagOf(parent.slug);
    const child = await createArc(c, 'Wave Echo Cave', { parentArcId: parent.id });
    const withChild = await get(c, `/arcs/${parent.slug}`, { 'if-none-match': parentTag });
    expect(withChild.statusCode).toBe(200);
    expect(json<ArcBody>(withChild).childArcs.map((a) => a.id)).toContain(child.id);
    const put = await send(c, 'PUT', `/arcs/${parent.slug}`, { updatedArc: { name: 'Phandelver' } }, { 'if-match': parentTag });
    expect(put.statusCode).toBe(200);
  });

  it('moves the arcs list’s tags (both shapes) on link and unlink', async () => {
    const c = await newCampaign(ctx.app, owner);
    const arc = await createArc(c, 'Thundertree');
    const thing = await createThing(ctx.app, owner, c, 'Venomfang');
    const steps = [
      { op: () => link(c, thing.slug, arc.slug), things: 1 },
      { op: () => unlink(c, thing.slug, arc.slug), things: 0 },
    ];
    for (const { op, things } of steps) {
      const full = String((await get(c, '/arcs')).headers.etag);
      const none = String((await get(c, '/arcs?things=none')).headers.etag);
      expect((await op()).statusCode).toBeLessThan(300);
      const fullAfter = await get(c, '/arcs', { 'if-none-match': full });
      expect(fullAfter.statusCode).toBe(200);
      expect(json<ArcBody[]>(fullAfter)[0]?.things.length).toBe(things);
      expect((await get(c, '/arcs?things=none', { 'if-none-match': none })).statusCode).toBe(200);
    }
  });
});
