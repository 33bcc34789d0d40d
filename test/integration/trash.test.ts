// The trash (CONTRACT "# Phase 3" › "History and trash"): every delete moves the record, with what
// it took along, to the campaign's trash; outside the trash routes it exists nowhere; a restore
// brings it back as it was (its GET answer, but for version fields), in one transaction.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type TestContext, type TestUser } from '../support/app.js';
import { contextWithUsers, createThing, newCampaign, type TestCampaign } from '../support/fixtures.js';
import { mentionsIndexProblems } from '../support/mentions-integrity.js';
import { joinCampaign } from '../support/sharing.js';
import { dialect } from '../support/test-db.js';
import { mention, p, t } from '../fixtures/rich-text.js';
import { sweepTrash } from '../../src/history/trash-sweeper.js';
import { rebuildSearchIndex } from '../../src/db/indexes/search.js';
import { rebuildMentionsIndex } from '../../src/db/indexes/mentions.js';

let ctx: TestContext;
let owner: TestUser;
let stranger: TestUser;
let gm: TestUser;
let player: TestUser;

beforeAll(async () => {
  ({ ctx, owner, stranger } = await contextWithUsers());
  gm = await ctx.createUser();
  player = await ctx.createUser();
});
afterAll(async () => {
  expect(await mentionsIndexProblems(ctx.database.kysely)).toEqual([]);
  await ctx.close();
});

const send = (user: TestUser, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
  ctx.app.inject({ method, url, headers: user.headers, ...(payload === undefined ? {} : { payload: payload as object }) });

async function ok<T = any>(user: TestUser, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, status?: number): Promise<T> {
  const res = await send(user, method, url, payload);
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status ?? (method === 'POST' ? 201 : method === 'DELETE' ? 204 : 200));
  return (res.body === '' ? undefined : json(res)) as T;
}

/** The answer of a GET without what a restore may move (version fields and slugs). */
function stable(record: Record<string, unknown>): Record<string, unknown> {
  const { updatedAt: _u, version: _v, ...rest } = record;
  return rest;
}

async function setUp(name: string): Promise<TestCampaign> {
  const c = await newCampaign(ctx.app, owner, name);
  await joinCampaign(ctx.app, owner, c.slug, gm, 'gm');
  await joinCampaign(ctx.app, owner, c.slug, player, 'player');
  return c;
}

async function arc(c: TestCampaign, name: string, fields: Record<string, unknown> = {}) {
  return ok(owner, 'POST', `${c.base}/arcs`, { newArc: { name, ...fields } });
}

const link = (c: TestCampaign, thingSlug: string, arcSlug: string) => ok(owner, 'POST', `${c.base}/things/${thingSlug}/arcs`, { arcSlug }, 200);
const searchIds = async (c: TestCampaign, q: string, user: TestUser = owner) =>
  (await ok<{ results: { id: number }[] }>(user, 'GET', `${c.base}/search?q=${encodeURIComponent(q)}`)).results.map((r) => r.id);

describe(`the trash on ${dialect}`, () => {
  it('deleting a thing moves it to the trash; it exists nowhere else; a restore gives back its GET answer, links, mentions and search', async () => {
    const c = await setUp('Trash Things');
    const target = await createThing(ctx.app, owner, c, 'Zanzibar Quokka', { description: [p(t('a wombatish xylograph'))] });
    const mentioner = await createThing(ctx.app, owner, c, 'Mentioner', { description: [p(t('see '), mention('thing', target.id), t(''))] });
    const a = await arc(c, 'The Hunt');
    await link(c, target.slug, a.slug);
    const before = await ok(owner, 'GET', `${c.base}/things/${target.slug}`);
    const backlinksBefore = await ok(owner, 'GET', `${c.base}/things/${target.slug}/backlinks`);
    expect(backlinksBefore).not.toEqual([]);

    await ok(gm, 'DELETE', `${c.base}/things/${target.slug}`);
    expect((await send(owner, 'GET', `${c.base}/things/${target.slug}`)).statusCode).toBe(404);
    expect((await ok<{ id: number }[]>(owner, 'GET', `${c.base}/things?fetchAll=true`)).map((x) => x.id)).not.toContain(target.id);
    expect(await searchIds(c, 'xylograph')).toEqual([]);
    expect((await ok<{ things: { id: number }[] }>(owner, 'GET', `${c.base}/arcs/${a.slug}`)).things).toEqual([]);
    const rendered = await ok<{ html: string }>(owner, 'GET', `${c.base}/things/${mentioner.slug}/rendered`);
    expect(JSON.stringify(rendered)).not.toContain('Zanzibar');

    const trash = await ok<any[]>(owner, 'GET', `${c.base}/trash`);
    expect(trash).toEqual([
      {
        kind: 'thing',
        id: target.id,
        slug: target.slug,
        name: 'Zanzibar Quokka',
        deletedAt: expect.any(String),
        deletedBy: { userId: gm.id, name: expect.any(String) },
        with: { things: 0, arcs: 0, links: 1 },
      },
    ]);

    const restored = await ok(gm, 'POST', `${c.base}/trash/thing/${target.id}/restore`, undefined, 200);
    expect(restored).toMatchObject({ kind: 'thing', slug: target.slug, slugChanged: false, restored: { things: 0, arcs: 0, links: 1 } });
    expect(stable(restored.record)).toEqual(stable(before));
    const after = await ok(owner, 'GET', `${c.base}/things/${target.slug}`);
    expect(stable(after)).toEqual(stable(before));
    expect(await searchIds(c, 'xylograph')).toEqual([target.id]);
    expect(await ok(owner, 'GET', `${c.base}/things/${target.slug}/backlinks`)).toEqual(backlinksBefore);
    expect(JSON.stringify(await ok(owner, 'GET', `${c.base}/things/${mentioner.slug}/rendered`))).toContain('Zanzibar');
    expect((await ok<{ things: { id: number }[] }>(owner, 'GET', `${c.base}/arcs/${a.slug}`)).things.map((x) => x.id)).toEqual([target.id]);
    expect(await ok(owner, 'GET', `${c.base}/trash`)).toEqual([]);
    expectProblem(await send(owner, 'POST', `${c.base}/trash/thing/${target.id}/restore`), 404, 'trash_entry_not_found');
  });

  it('frees the slug at once; a restore whose slug was taken meanwhile comes back as -2 and says so', async () => {
    const c = await setUp('Trash Slugs');
    const first = await createThing(ctx.app, owner, c, 'Twin');
    await ok(owner, 'DELETE', `${c.base}/things/${first.slug}`);
    const second = await createThing(ctx.app, owner, c, 'Twin');
    expect(second.slug).toBe(first.slug);
    const restored = await ok(owner, 'POST', `${c.base}/trash/thing/${first.id}/restore`, undefined, 200);
    expect(restored).toMatchObject({ slug: `${first.slug}-2`, slugChanged: true });
    expect(restored.record).toMatchObject({ id: first.id, slug: `${first.slug}-2` });
    expect((await ok(owner, 'GET', `${c.base}/things/${first.slug}-2`)).id).toBe(first.id);
    // The new slug is a change its history keeps.
    const latest = (await ok<{ id: number }[]>(owner, 'GET', `${c.base}/things/${first.slug}-2/revisions`))[0]!;
    expect((await ok(owner, 'GET', `${c.base}/things/${first.slug}-2/revisions/${latest.id}`)).record.slug).toBe(`${first.slug}-2`);
    expect((await ok(owner, 'GET', `${c.base}/things/${first.slug}`)).id).toBe(second.id);
  });

  it('a thing type goes with its things and their links; they come back only with the type; a thing of a trashed type is 409 restore_container_first', async () => {
    const c = await setUp('Trash Types');
    const type = await ok(owner, 'POST', `${c.base}/thing-types`, { newThingType: { name: 'Factions' } });
    const a = await arc(c, 'War');
    const things = [];
    for (const name of ['Zhentarim', 'Harpers', 'Emerald Enclave']) things.push(await createThing(ctx.app, owner, c, name, { typeId: type.id }));
    await link(c, things[0]!.slug, a.slug);
    await link(c, things[1]!.slug, a.slug);
    // One of them was deleted before its type: it cannot come back without it.
    await ok(owner, 'DELETE', `${c.base}/things/${things[2]!.slug}`);
    const before = await Promise.all(things.slice(0, 2).map((thing) => ok(owner, 'GET', `${c.base}/things/${thing.slug}`)));

    await ok(owner, 'DELETE', `${c.base}/thing-types/${type.id}`);
    for (const thing of things) expect((await send(owner, 'GET', `${c.base}/things/${thing.slug}`)).statusCode).toBe(404);
    expect((await ok<{ things: unknown[] }>(owner, 'GET', `${c.base}/arcs/${a.slug}`)).things).toEqual([]);
    const trash = await ok<any[]>(owner, 'GET', `${c.base}/trash`);
    expect(trash.map((e) => [e.kind, e.id, e.with])).toEqual([
      ['thing-type', type.id, { things: 2, arcs: 0, links: 2 }],
      ['thing', things[2]!.id, { things: 0, arcs: 0, links: 0 }],
    ]);
    const refused = await send(owner, 'POST', `${c.base}/trash/thing/${things[2]!.id}/restore`);
    expectProblem(refused, 409, 'restore_container_first');
    expect(JSON.parse(refused.body).detail).toContain('“Factions” is in the trash');

    const restored = await ok(owner, 'POST', `${c.base}/trash/thing-type/${type.id}/restore`, undefined, 200);
    expect(restored).toMatchObject({ kind: 'thing-type', slug: null, slugChanged: false, record: { id: type.id, name: 'Factions' }, restored: { things: 2, arcs: 0, links: 2 } });
    for (const [i, thing] of things.slice(0, 2).entries()) expect(stable(await ok(owner, 'GET', `${c.base}/things/${thing.slug}`))).toEqual(stable(before[i]));
    expect((await ok<{ things: { id: number }[] }>(owner, 'GET', `${c.base}/arcs/${a.slug}`)).things.map((x) => x.id).sort()).toEqual([things[0]!.id, things[1]!.id].sort());
    // Now its separately trashed thing can come back.
    await ok(owner, 'POST', `${c.base}/trash/thing/${things[2]!.id}/restore`, undefined, 200);
    expect((await ok<unknown[]>(owner, 'GET', `${c.base}/things?typeId=${type.id}`)).length).toBe(3);
  });

  it('erasing a type’s entry erases the entries of its things deleted before it', async () => {
    const c = await setUp('Trash Erase Types');
    const type = await ok(owner, 'POST', `${c.base}/thing-types`, { newThingType: { name: 'Cults' } });
    const thing = await createThing(ctx.app, owner, c, 'Cult of the Dragon', { typeId: type.id });
    await ok(owner, 'DELETE', `${c.base}/things/${thing.slug}`);
    await ok(owner, 'DELETE', `${c.base}/thing-types/${type.id}`);
    await ok(owner, 'DELETE', `${c.base}/trash/thing-type/${type.id}`);
    expect(await ok(owner, 'GET', `${c.base}/trash`)).toEqual([]);
  });

  it('an arc’s children become top-level and come back under it unless moved since; its links come back', async () => {
    const c = await setUp('Trash Arcs');
    const parent = await arc(c, 'Act One');
    const a = await arc(c, 'Chapter', { parentArcId: parent.id });
    const stay = await arc(c, 'Stays', { parentArcId: a.id });
    const moved = await arc(c, 'Moves', { parentArcId: a.id });
    const other = await arc(c, 'Elsewhere');
    const thing = await createThing(ctx.app, owner, c, 'Linked');
    await link(c, thing.slug, a.slug);
    const before = await ok(owner, 'GET', `${c.base}/arcs/${a.slug}`);

    await ok(owner, 'DELETE', `${c.base}/arcs/${a.slug}`);
    expect((await ok(owner, 'GET', `${c.base}/arcs/${stay.slug}`)).parentArcId).toBeNull();
    await ok(owner, 'PUT', `${c.base}/arcs/${moved.slug}`, { updatedArc: { parentArcId: other.id } });
    expect((await ok<any[]>(owner, 'GET', `${c.base}/trash`))[0]).toMatchObject({ kind: 'arc', id: a.id, slug: a.slug, with: { things: 0, arcs: 0, links: 1 } });

    const restored = await ok(owner, 'POST', `${c.base}/trash/arc/${a.id}/restore`, undefined, 200);
    expect(restored.restored).toEqual({ things: 0, arcs: 1, links: 1 });
    expect((await ok(owner, 'GET', `${c.base}/arcs/${stay.slug}`)).parentArcId).toBe(a.id);
    expect((await ok(owner, 'GET', `${c.base}/arcs/${moved.slug}`)).parentArcId).toBe(other.id);
    const after = await ok(owner, 'GET', `${c.base}/arcs/${a.slug}`);
    // The child moved away since is the one difference (and the children's own version fields).
    expect(stable({ ...after, childArcs: undefined })).toEqual(stable({ ...before, childArcs: undefined }));
    expect(after.childArcs.map((x: { id: number }) => x.id)).toEqual([stay.id]);
    expect(after.parentArcId).toBe(parent.id);
  });

  it('an arc and a thing deleted one after the other come back linked, in either order; an erased end takes the link with it', async () => {
    const c = await setUp('Trash Waiting Links');
    for (const order of [['arc', 'thing'], ['thing', 'arc']] as const) {
      const a = await arc(c, `Linked arc ${order[0]}`);
      const thing = await createThing(ctx.app, owner, c, `Linked thing ${order[0]}`);
      await link(c, thing.slug, a.slug);
      await ok(owner, 'DELETE', `${c.base}/arcs/${a.slug}`);
      await ok(owner, 'DELETE', `${c.base}/things/${thing.slug}`);
      const first = await ok(owner, 'POST', `${c.base}/trash/${order[0]}/${order[0] === 'arc' ? a.id : thing.id}/restore`, undefined, 200);
      expect(first.restored.links).toBe(0);
      const second = await ok(owner, 'POST', `${c.base}/trash/${order[1]}/${order[1] === 'arc' ? a.id : thing.id}/restore`, undefined, 200);
      expect(second.restored.links).toBe(1);
      expect((await ok<{ things: { id: number }[] }>(owner, 'GET', `${c.base}/arcs/${a.slug}`)).things.map((x) => x.id)).toEqual([thing.id]);
    }
    // Restored, then its other end erased: the waiting link goes too.
    const a = await arc(c, 'Erased end');
    const thing = await createThing(ctx.app, owner, c, 'Survives');
    await link(c, thing.slug, a.slug);
    await ok(owner, 'DELETE', `${c.base}/arcs/${a.slug}`);
    await ok(owner, 'DELETE', `${c.base}/things/${thing.slug}`);
    await ok(owner, 'POST', `${c.base}/trash/thing/${thing.id}/restore`, undefined, 200);
    await ok(owner, 'DELETE', `${c.base}/trash/arc/${a.id}`);
    expect(await ctx.database.kysely.selectFrom('trash_links').select('thing_id').where('campaign_id', '=', c.id).execute()).toEqual([]);
  });

  it('never closes a loop: a child that became an ancestor of the arc’s parent stays where it is', async () => {
    const c = await setUp('Trash Loops');
    const top = await arc(c, 'Top');
    const middle = await arc(c, 'Middle', { parentArcId: top.id });
    const child = await arc(c, 'Child', { parentArcId: middle.id });
    await ok(owner, 'DELETE', `${c.base}/arcs/${middle.slug}`);
    // Child is top-level now; Top moves under it.
    await ok(owner, 'PUT', `${c.base}/arcs/${top.slug}`, { updatedArc: { parentArcId: child.id } });
    const restored = await ok(owner, 'POST', `${c.base}/trash/arc/${middle.id}/restore`, undefined, 200);
    expect(restored.restored.arcs).toBe(0);
    expect((await ok(owner, 'GET', `${c.base}/arcs/${middle.slug}`)).parentArcId).toBe(top.id);
    expect((await ok(owner, 'GET', `${c.base}/arcs/${child.slug}`)).parentArcId).toBeNull();
  });

  it('an export holds what exists, never what is in the trash', async () => {
    const c = await setUp('Trash Export');
    const kept = await createThing(ctx.app, owner, c, 'Kept Exporter');
    const binned = await createThing(ctx.app, owner, c, 'Binned Exporter');
    await ok(owner, 'DELETE', `${c.base}/things/${binned.slug}`);
    const res = await send(owner, 'GET', `${c.base}/export?format=json`);
    expect(res.statusCode).toBe(200);
    const names = json<{ things: { id: number; name: string }[] }>(res).things.map((t) => [t.id, t.name]);
    expect(names).toContainEqual([kept.id, 'Kept Exporter']);
    expect(JSON.stringify(names)).not.toContain('Binned Exporter');
  });

  it('the changes feed has the tombstone, then the upsert', async () => {
    const c = await setUp('Trash Feed');
    const thing = await createThing(ctx.app, owner, c, 'Fed');
    const start = await ok<{ cursor: string }>(owner, 'GET', `${c.base}/changes`);
    await ok(owner, 'DELETE', `${c.base}/things/${thing.slug}`);
    const deleted = await ok<{ changes: any[]; cursor: string }>(owner, 'GET', `${c.base}/changes?since=${encodeURIComponent(start.cursor)}`);
    expect(deleted.changes).toContainEqual(expect.objectContaining({ kind: 'thing', id: thing.id, op: 'delete' }));
    await ok(owner, 'POST', `${c.base}/trash/thing/${thing.id}/restore`, undefined, 200);
    const back = await ok<{ changes: any[] }>(owner, 'GET', `${c.base}/changes?since=${encodeURIComponent(deleted.cursor)}`);
    expect(back.changes).toContainEqual(expect.objectContaining({ kind: 'thing', id: thing.id, op: 'upsert' }));
  });

  it('is for the owner and game masters: players 403, strangers 404, and bad kinds or ids are clear', async () => {
    const c = await setUp('Trash Roles');
    const thing = await createThing(ctx.app, owner, c, 'Hidden Villain', { visibility: 'gm' });
    await ok(owner, 'DELETE', `${c.base}/things/${thing.slug}`);
    expectProblem(await send(player, 'GET', `${c.base}/trash`), 403, 'role_forbidden');
    expectProblem(await send(player, 'POST', `${c.base}/trash/thing/${thing.id}/restore`), 403, 'role_forbidden');
    expectProblem(await send(player, 'DELETE', `${c.base}/trash/thing/${thing.id}`), 403, 'role_forbidden');
    expectProblem(await send(stranger, 'GET', `${c.base}/trash`), 404, 'campaign_not_found');
    expectProblem(await send(owner, 'POST', `${c.base}/trash/widget/${thing.id}/restore`), 404, 'trash_entry_not_found');
    expectProblem(await send(owner, 'POST', `${c.base}/trash/thing/abc/restore`), 400, 'invalid_id');
    expectProblem(await send(owner, 'POST', `${c.base}/trash/arc/${thing.id}/restore`), 404, 'trash_entry_not_found');
    expectProblem(await send(owner, 'DELETE', `${c.base}/trash/thing/99999999999`), 404, 'trash_entry_not_found');
    // Another campaign's entry is not this campaign's.
    const other = await setUp('Trash Roles Other');
    expectProblem(await send(owner, 'POST', `${other.base}/trash/thing/${thing.id}/restore`), 404, 'trash_entry_not_found');
  });
});

describe(`the trash and revisions on ${dialect}`, () => {
  it('a restored record has its history back; an erased one’s history goes with it', async () => {
    const c = await setUp('Trash History');
    const kept = await createThing(ctx.app, owner, c, 'Kept History');
    await ok(owner, 'PUT', `${c.base}/things/${kept.slug}`, { updatedThing: { name: 'Kept History, renamed' } });
    const history = await ok<unknown[]>(owner, 'GET', `${c.base}/things/${kept.slug}/revisions`);
    expect(history.length).toBeGreaterThan(0);
    await ok(owner, 'DELETE', `${c.base}/things/${kept.slug}`);
    expect((await send(owner, 'GET', `${c.base}/things/${kept.slug}/revisions`)).statusCode).toBe(404);
    await ok(owner, 'POST', `${c.base}/trash/thing/${kept.id}/restore`, undefined, 200);
    expect(await ok<unknown[]>(owner, 'GET', `${c.base}/things/${kept.slug}/revisions`)).toEqual(history);

    const type = await ok(owner, 'POST', `${c.base}/thing-types`, { newThingType: { name: 'Erased Kind' } });
    const gone = await createThing(ctx.app, owner, c, 'Erased History', { typeId: type.id });
    const alone = await createThing(ctx.app, owner, c, 'Erased Alone');
    await ok(owner, 'DELETE', `${c.base}/thing-types/${type.id}`);
    await ok(owner, 'DELETE', `${c.base}/things/${alone.slug}`);
    const revisionsOf = (id: number) => ctx.database.kysely.selectFrom('revisions').select('id').where('campaign_id', '=', c.id).where('record_id', '=', id).execute();
    expect((await revisionsOf(gone.id)).length).toBeGreaterThan(0);
    await ok(owner, 'DELETE', `${c.base}/trash/thing-type/${type.id}`);
    await ok(owner, 'DELETE', `${c.base}/trash/thing/${alone.id}`);
    expect(await revisionsOf(gone.id)).toEqual([]);
    expect(await revisionsOf(alone.id)).toEqual([]);
    expect((await revisionsOf(kept.id)).length).toBeGreaterThan(0);
  });
});

describe(`a deleted campaign on ${dialect}`, () => {
  it('goes to its owner’s trash: 404 for every member, its slug free; restore brings it back with everything', async () => {
    const c = await setUp('Trash Campaign');
    const thing = await createThing(ctx.app, owner, c, 'Survivor');
    expectProblem(await send(gm, 'DELETE', `${c.base}`), 403, 'role_forbidden');
    await ok(owner, 'DELETE', c.base);
    for (const user of [owner, gm, player]) {
      expect((await send(user, 'GET', c.base)).statusCode).toBe(404);
      expect((await send(user, 'GET', `${c.base}/things/${thing.slug}`)).statusCode).toBe(404);
      expect((await ok<{ id: number }[]>(user, 'GET', '/api/campaigns')).map((x) => x.id)).not.toContain(c.id);
    }
    expect(await ok(gm, 'GET', '/api/trash/campaigns')).toEqual([]);
    const listed = await ok<any[]>(owner, 'GET', '/api/trash/campaigns');
    expect(listed).toEqual([{ id: c.id, slug: c.slug, name: 'Trash Campaign', deletedAt: expect.any(String), deletedBy: { userId: owner.id, name: expect.any(String) } }]);
    expectProblem(await send(gm, 'POST', `/api/trash/campaigns/${c.id}/restore`), 404, 'trash_entry_not_found');
    expectProblem(await send(stranger, 'DELETE', `/api/trash/campaigns/${c.id}`), 404, 'trash_entry_not_found');

    // Its slug is free: another campaign takes it; the restore then gets -2.
    const taker = await newCampaign(ctx.app, stranger, 'Trash Campaign');
    expect(taker.slug).toBe(c.slug);
    const restored = await ok(owner, 'POST', `/api/trash/campaigns/${c.id}/restore`, undefined, 200);
    expect(restored).toMatchObject({ slug: `${c.slug}-2`, slugChanged: true, record: { id: c.id, name: 'Trash Campaign', role: 'owner' } });
    const base = `/api/campaigns/${c.slug}-2`;
    expect((await ok(player, 'GET', `${base}/things/${thing.slug}`)).id).toBe(thing.id);
    expect((await ok<{ id: number }[]>(gm, 'GET', '/api/campaigns')).map((x) => x.id)).toContain(c.id);
    expect(await ok(owner, 'GET', '/api/trash/campaigns')).toEqual([]);
  });

  it('is rebuilt with the others when the indexes are (a restore finds them current)', async () => {
    const c = await setUp('Trash Rebuild');
    const other = await createThing(ctx.app, owner, c, 'Other Relic');
    const thing = await createThing(ctx.app, owner, c, 'Quillathe', { description: [p(t('a zymurgical relic, see '), mention('thing', other.id), t(''))] });
    await ok(owner, 'DELETE', c.base);
    // As a migration that drops an index does before it asks for a rebuild.
    await ctx.database.kysely.deleteFrom('search_documents').where('campaign_id', '=', c.id).execute();
    await ctx.database.kysely.deleteFrom('mentions').where('campaign_id', '=', c.id).execute();
    expect((await rebuildSearchIndex(ctx.database)).campaigns).toBeGreaterThan(0);
    await rebuildMentionsIndex(ctx.database);
    const restored = await ok(owner, 'POST', `/api/trash/campaigns/${c.id}/restore`, undefined, 200);
    const base = `/api/campaigns/${restored.slug}`;
    const hits = await ok<{ results: { id: number }[] }>(owner, 'GET', `${base}/search?q=zymurgical`);
    expect(hits.results.map((r) => r.id)).toEqual([thing.id]);
    expect(await ctx.database.kysely.selectFrom('mentions').select('id').where('campaign_id', '=', c.id).execute()).not.toEqual([]);
  });

  it('is erased now on request, or by the sweeper after the retention', async () => {
    const c = await setUp('Erased Campaign');
    await ok(owner, 'DELETE', c.base);
    await ok(owner, 'DELETE', `/api/trash/campaigns/${c.id}`);
    expect(await ctx.database.kysely.selectFrom('campaigns').select('id').where('id', '=', c.id).execute()).toEqual([]);

    const swept = await setUp('Swept Campaign');
    const thing = await createThing(ctx.app, owner, swept, 'Old');
    await ok(owner, 'DELETE', `${swept.base}/things/${thing.slug}`);
    await ok(owner, 'DELETE', swept.base);
    const kept = await setUp('Kept Trash');
    const keptThing = await createThing(ctx.app, owner, kept, 'Recent');
    await ok(owner, 'DELETE', `${kept.base}/things/${keptThing.slug}`);
    // Nothing is older than the retention yet.
    expect(await sweepTrash(ctx.database, ctx.app.imageHost, new Date(Date.now() - 30 * 86_400_000), ctx.app.log)).toEqual({ entries: 0, campaigns: 0 });
    // With the clock moved past it, both go (the campaign with its own trash).
    const later = await sweepTrash(ctx.database, ctx.app.imageHost, new Date(Date.now() + 1000), ctx.app.log);
    expect(later.campaigns).toBeGreaterThanOrEqual(1);
    expect(later.entries).toBeGreaterThanOrEqual(1);
    expect(await ctx.database.kysely.selectFrom('campaigns').select('id').where('id', '=', swept.id).execute()).toEqual([]);
    expect(await ok(owner, 'GET', `${kept.base}/trash`)).toEqual([]);
  });

  it('an invitation to a campaign in the trash is unavailable', async () => {
    const c = await setUp('Trash Invite');
    const invitation = await ok<{ token: string }>(owner, 'POST', `${c.base}/invitations`, { role: 'player' });
    await ok(owner, 'DELETE', c.base);
    const newcomer = await ctx.createUser();
    expect((await send(newcomer, 'POST', '/api/invitations/preview', { token: invitation.token })).statusCode).toBe(410);
    expect((await send(newcomer, 'POST', '/api/invitations/accept', { token: invitation.token })).statusCode).toBe(410);
  });
});

function expectProblem(res: { statusCode: number; body: string }, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(JSON.parse(res.body).code).toBe(code);
}
