import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';
import { eraseRevisionsOf, holdRevisionMerge, keepRevision, revisionMergeStatement, takeHeldRevisionMerge, thinRevisions } from '../../src/db/repositories/revisions.js';
import { decodeSnapshot, encodeSnapshot, type ThingSnapshot } from '../../src/history/snapshots.js';
import { revisionThinner } from '../../src/history/thinning.js';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { newCampaign, problemOf, type TestCampaign } from '../support/fixtures.js';
import { joinCampaign } from '../support/sharing.js';
import { dialect } from '../support/test-db.js';

// Revisions (CONTRACT "# Phase 3" › "History and trash"): every change to a thing, an arc or the
// campaign keeps a snapshot; a burst of saves by one author is one revision; identical snapshots are
// not kept; named revisions are kept for ever; a restore is a new change; players get 403.

let ctx: TestContext;
let owner: TestUser;
let gm: TestUser;
let player: TestUser;

beforeAll(async () => {
  ctx = await createTestContext();
  owner = await ctx.createUser();
  gm = await ctx.createUser();
  player = await ctx.createUser();
  await ctx.database.kysely.updateTable('users').set({ name: 'Owner Olga' }).where('id', '=', owner.id).execute();
  await ctx.database.kysely.updateTable('users').set({ name: 'Gamemaster Gil' }).where('id', '=', gm.id).execute();
});
afterAll(() => ctx.close());
afterEach(() => {
  vi.useRealTimers();
});

const MINUTE = 60_000;
let clock = Date.parse('2026-06-01T12:00:00.000Z');
/** Moves the clock (Date only) forward by `ms` and freezes it there. */
function advance(ms: number) {
  clock += ms;
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(clock);
}

const p = (text: string, secret = false) => ({ type: 'paragraph', ...(secret ? { isSecret: true } : {}), children: [{ text }] });

async function send(user: TestUser, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return ctx.app.inject({ method, url, headers: { ...user.headers, ...headers }, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
}

async function ok<T = any>(res: Promise<LightMyRequestResponse>, status = 200): Promise<T> {
  const r = await res;
  expect(r.statusCode, r.body).toBe(status);
  return (status === 204 ? undefined : json<T>(r)) as T;
}

interface Summary {
  id: number;
  createdAt: string;
  author: { userId: string; name: string } | null;
  name: string | null;
  fields: string[];
}

async function setUp(): Promise<{ campaign: TestCampaign; thing: { id: number; slug: string } }> {
  advance(MINUTE);
  const campaign = await newCampaign(ctx.app, owner);
  await joinCampaign(ctx.app, owner, campaign.slug, gm, 'gm');
  await joinCampaign(ctx.app, owner, campaign.slug, player, 'player');
  const thing = await ok<{ id: number; slug: string }>(
    send(gm, 'POST', `${campaign.base}/things`, { newThing: { name: 'Sildar', typeId: campaign.typeId, description: [p('A knight.')] } }),
    201,
  );
  return { campaign, thing };
}

const revisionsOf = (campaign: TestCampaign, path: string) => ok<Summary[]>(send(gm, 'GET', `${campaign.base}${path}/revisions`));
const saveThing = (user: TestUser, campaign: TestCampaign, slug: string, changes: Record<string, unknown>, headers: Record<string, string> = {}) =>
  send(user, 'PUT', `${campaign.base}/things/${slug}`, { updatedThing: changes }, headers);

describe(`revisions of things, on ${dialect}`, () => {
  it('keeps the created thing as its first revision, by its author, with every field', async () => {
    const { campaign, thing } = await setUp();
    const list = await revisionsOf(campaign, `/things/${thing.slug}`);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ author: { userId: gm.id, name: 'Gamemaster Gil' }, name: null, fields: ['name', 'slug', 'typeId', 'visibility', 'description', 'properties', 'tags', 'aliases'] });
    const one = await ok(send(owner, 'GET', `${campaign.base}/things/${thing.slug}/revisions/${list[0]!.id}`));
    expect(one.record).toEqual({ name: 'Sildar', slug: thing.slug, typeId: campaign.typeId, visibility: 'all', description: [p('A knight.')], properties: [], tags: [], aliases: [] });
    expect(one.createdAt).toBe(new Date(clock).toISOString());
  });

  it('merges a burst of saves by one author into one revision, and starts another for another author or after the merge window', async () => {
    const { campaign, thing } = await setUp();
    advance(MINUTE);
    // The first save by someone else than the creator: a revision of its own.
    await ok(saveThing(owner, campaign, thing.slug, { description: [p('A knight of the order.')] }));
    for (let i = 0; i < 20; i++) {
      advance(2_000);
      await ok(saveThing(owner, campaign, thing.slug, { description: [p(`A knight of the order, ${i}.`)] }));
    }
    advance(2_000);
    await ok(saveThing(owner, campaign, thing.slug, { name: 'Sildar Hallwinter' }));
    let list = await revisionsOf(campaign, `/things/${thing.slug}`);
    expect(list).toHaveLength(2);
    // What changed from the revision before, in the record's field order.
    expect(list[0]).toMatchObject({ author: { userId: owner.id, name: 'Owner Olga' }, fields: ['name', 'description'] });
    const latest = await ok(send(gm, 'GET', `${campaign.base}/things/${thing.slug}/revisions/${list[0]!.id}`));
    expect(latest.record).toMatchObject({ name: 'Sildar Hallwinter', description: [p('A knight of the order, 19.')] });

    // Another author: a new revision, though within the window.
    advance(2_000);
    await ok(saveThing(gm, campaign, thing.slug, { visibility: 'gm' }));
    list = await revisionsOf(campaign, `/things/${thing.slug}`);
    expect(list.map((r) => r.author?.userId)).toEqual([gm.id, owner.id, gm.id]);
    expect(list[0]!.fields).toEqual(['visibility']);

    // The same author again, 300 s after that revision began: a new one.
    advance(299_000);
    await ok(saveThing(gm, campaign, thing.slug, { name: 'Sildar the Knight' }));
    expect(await revisionsOf(campaign, `/things/${thing.slug}`)).toHaveLength(3);
    advance(1_000);
    await ok(saveThing(gm, campaign, thing.slug, { name: 'Sildar the Brave' }));
    list = await revisionsOf(campaign, `/things/${thing.slug}`);
    expect(list).toHaveLength(4);
    expect(list[0]).toMatchObject({ fields: ['name'], createdAt: new Date(clock).toISOString() });
  });

  it('keeps no revision for a burst that undid itself, and lists what changed from the revision before', async () => {
    const { campaign, thing } = await setUp();
    const before = await revisionsOf(campaign, `/things/${thing.slug}`);
    advance(10 * MINUTE);
    await ok(saveThing(owner, campaign, thing.slug, { name: 'Sildar Hallwinter' }));
    advance(MINUTE);
    await ok(saveThing(owner, campaign, thing.slug, { description: [p('A knight errant.')] }));
    let list = await revisionsOf(campaign, `/things/${thing.slug}`);
    expect(list).toHaveLength(before.length + 1);
    expect(list[0]!.fields).toEqual(['name', 'description']);
    // Both changes taken back within the burst: the record is as the revision before has it.
    advance(MINUTE);
    const original = await ok(send(gm, 'GET', `${campaign.base}/things/${thing.slug}/revisions/${before[0]!.id}`));
    await ok(saveThing(owner, campaign, thing.slug, { name: original.record.name, description: original.record.description }));
    list = await revisionsOf(campaign, `/things/${thing.slug}`);
    expect(list).toEqual(before);
  });

  it('compares with revisions kept before digests existed (no digests stored) as with any other', async () => {
    const { campaign, thing } = await setUp();
    const before = await revisionsOf(campaign, `/things/${thing.slug}`);
    advance(10 * MINUTE);
    await ok(saveThing(owner, campaign, thing.slug, { name: 'Sildar Hallwinter', tags: ['knight'] }));
    const ofThing = () => ctx.database.kysely.selectFrom('revisions').select(['id', 'digests']).where('record_kind', '=', 1).where('record_id', '=', thing.id).orderBy('id');
    await ctx.database.kysely.updateTable('revisions').set({ digests: null }).where('record_kind', '=', 1).where('record_id', '=', thing.id).execute();
    // The same again: no change, nothing kept, nothing rewritten.
    advance(MINUTE);
    await ok(saveThing(owner, campaign, thing.slug, { name: 'Sildar Hallwinter', tags: ['knight'] }));
    expect((await ofThing().execute()).map((r) => r.digests)).toEqual([null, null]);
    // A change merges into the latest, with what changed from the one before it.
    advance(MINUTE);
    await ok(saveThing(owner, campaign, thing.slug, { description: [p('A knight errant.')] }));
    let list = await revisionsOf(campaign, `/things/${thing.slug}`);
    expect(list).toHaveLength(2);
    expect(list[0]!.fields).toEqual(['name', 'description', 'tags']);
    const rows = await ofThing().execute();
    expect(rows[0]!.digests).toBeNull();
    expect(JSON.parse(rows[1]!.digests!)).toMatchObject({ name: '"Sildar Hallwinter"', description: expect.stringMatching(/^#/), tags: '["knight"]' });
    // Taken back to the revision before (which has no digests): the burst's revision goes.
    advance(MINUTE);
    await ok(saveThing(owner, campaign, thing.slug, { name: 'Sildar', tags: [], description: [p('A knight.')] }));
    list = await revisionsOf(campaign, `/things/${thing.slug}`);
    expect(list).toEqual(before);
  });

  it('stores a record’s latest revision plain, rewritten by its burst, and deflates it once the next revision starts', async () => {
    const { campaign } = await setUp();
    const long = Array.from({ length: 30 }, (_, i) => p(`The harbour ledger, page ${i}: the same smugglers, the same tides, the same bribes.`));
    const thing = await ok<{ id: number; slug: string }>(send(gm, 'POST', `${campaign.base}/things`, { newThing: { name: 'Ledger', typeId: campaign.typeId, description: long } }), 201);
    const stored = async () =>
      (await ctx.database.kysely.selectFrom('revisions').select(['id', 'snapshot']).where('record_kind', '=', 1).where('record_id', '=', thing.id).orderBy('id').execute()).map((r) => ({
        id: r.id,
        header: r.snapshot[0],
        bytes: r.snapshot.length,
      }));
    for (let i = 0; i < 3; i++) {
      advance(2_000);
      await ok(saveThing(gm, campaign, thing.slug, { description: [...long, p(`Burst ${i}.`)] }));
    }
    const [first] = await stored();
    expect(first).toMatchObject({ header: 0 });
    const [firstRevision] = await revisionsOf(campaign, `/things/${thing.slug}`);
    const asKept = await ok(send(gm, 'GET', `${campaign.base}/things/${thing.slug}/revisions/${firstRevision!.id}`));
    // Another author starts the next revision: the first is deflated, and reads the same.
    advance(2_000);
    await ok(saveThing(owner, campaign, thing.slug, { name: 'The Ledger' }));
    const [closed, latest] = await stored();
    expect(closed).toMatchObject({ id: first!.id, header: 1 });
    expect(closed!.bytes).toBeLessThan(first!.bytes / 3);
    expect(latest).toMatchObject({ header: 0 });
    expect(await ok(send(gm, 'GET', `${campaign.base}/things/${thing.slug}/revisions/${first!.id}`))).toEqual(asKept);
    expect(asKept.record.description).toEqual([...long, p('Burst 2.')]);
  });

  it('keeps nothing for a save that changes nothing', async () => {
    const { campaign, thing } = await setUp();
    advance(10 * MINUTE);
    await ok(saveThing(owner, campaign, thing.slug, { name: 'Sildar', description: [p('A knight.')] }));
    await ok(saveThing(gm, campaign, thing.slug, {}));
    expect(await revisionsOf(campaign, `/things/${thing.slug}`)).toHaveLength(1);
  });

  it('keeps the state of a thing without history before its first change overwrites it', async () => {
    const { campaign } = await setUp();
    // As the import and records from before revisions existed: no revision.
    const now = '2026-01-02T03:04:05.006Z';
    const row = await ctx.database.kysely
      .insertInto('things')
      .values({ campaign_id: campaign.id, type_id: campaign.typeId, slug: 'imported', name: 'Imported', description: JSON.stringify([p('Old text.')]), version: 1, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect(await revisionsOf(campaign, '/things/imported')).toEqual([]);
    advance(MINUTE);
    await ok(saveThing(gm, campaign, 'imported', { description: [p('New text.')] }));
    const list = await revisionsOf(campaign, '/things/imported');
    expect(list).toHaveLength(2);
    expect(list[1]).toMatchObject({ author: null, createdAt: now, fields: ['name', 'slug', 'typeId', 'visibility', 'description', 'properties', 'tags', 'aliases'] });
    expect(list[0]).toMatchObject({ author: { userId: gm.id }, fields: ['description'] });
    const baseline = await ok(send(gm, 'GET', `${campaign.base}/things/imported/revisions/${list[1]!.id}`));
    expect(baseline.record).toEqual({ name: 'Imported', slug: 'imported', typeId: campaign.typeId, visibility: 'all', description: [p('Old text.')], properties: [], tags: [], aliases: [] });
    expect(row.id).toBeGreaterThan(0);
  });

  it('names a revision (1 to 100 characters, or null), and never merges into a named one', async () => {
    const { campaign, thing } = await setUp();
    const [first] = await revisionsOf(campaign, `/things/${thing.slug}`);
    const url = `${campaign.base}/things/${thing.slug}/revisions/${first!.id}`;
    for (const name of ['', '   ', 'x'.repeat(101), 12, true, { a: 1 }]) {
      const res = await send(gm, 'PUT', url, { name });
      expect(res.statusCode, `${JSON.stringify(name)}: ${res.body}`).toBe(400);
    }
    expect((await send(gm, 'PUT', url, {})).statusCode).toBe(400);
    const named = await ok<Summary>(send(gm, 'PUT', url, { name: `  ${'é'.repeat(100)}  ` }));
    expect(named).toMatchObject({ id: first!.id, name: 'é'.repeat(100), author: { userId: gm.id } });
    await ok(send(gm, 'PUT', url, { name: 'Before the ambush' }));
    // The same author within the window: a named revision is not merged into.
    advance(2_000);
    await ok(saveThing(gm, campaign, thing.slug, { name: 'Sildar H.' }));
    let list = await revisionsOf(campaign, `/things/${thing.slug}`);
    expect(list.map((r) => r.name)).toEqual([null, 'Before the ambush']);
    const unnamed = await ok<Summary>(send(owner, 'PUT', url, { name: null }));
    expect(unnamed.name).toBeNull();
    list = await revisionsOf(campaign, `/things/${thing.slug}`);
    expect(list.map((r) => r.name)).toEqual([null, null]);
    // A revision of another thing, a malformed id and one no row can have.
    const other = await ok<{ slug: string }>(send(gm, 'POST', `${campaign.base}/things`, { newThing: { name: 'Other', typeId: campaign.typeId } }), 201);
    const otherFirst = (await revisionsOf(campaign, `/things/${other.slug}`))[0]!;
    expect(problemOf(await send(gm, 'PUT', `${campaign.base}/things/${thing.slug}/revisions/${otherFirst.id}`, { name: 'x' })).code).toBe('revision_not_found');
    expect(problemOf(await send(gm, 'PUT', `${campaign.base}/things/${thing.slug}/revisions/abc`, { name: 'x' })).code).toBe('invalid_id');
    expect(problemOf(await send(gm, 'PUT', `${campaign.base}/things/${thing.slug}/revisions/99999999999`, { name: 'x' })).code).toBe('revision_not_found');
  });

  it('restores a revision as a new change, with the ETag of the thing', async () => {
    const { campaign, thing } = await setUp();
    const [first] = await revisionsOf(campaign, `/things/${thing.slug}`);
    advance(10 * MINUTE);
    await ok(saveThing(gm, campaign, thing.slug, { name: 'Renamed', description: [p('Overwritten by mistake.')], visibility: 'gm' }));
    advance(10 * MINUTE);
    const res = await send(owner, 'POST', `${campaign.base}/things/${thing.slug}/revisions/${first!.id}/restore`);
    expect(res.statusCode, res.body).toBe(200);
    const restored = json(res);
    expect(restored).toMatchObject({ name: 'Sildar', description: [p('A knight.')], visibility: 'all', slug: thing.slug });
    const get = await send(owner, 'GET', `${campaign.base}/things/${thing.slug}`);
    expect(res.body).toBe(get.body);
    expect(res.headers.etag).toBe(get.headers.etag);
    const list = await revisionsOf(campaign, `/things/${thing.slug}`);
    expect(list).toHaveLength(3);
    expect(list[0]).toMatchObject({ author: { userId: owner.id }, fields: ['name', 'visibility', 'description'] });
  });

  it('keeps properties, tags and aliases, lists them as changed, and restores them', async () => {
    const { campaign, thing } = await setUp();
    const other = await ok<{ id: number }>(send(gm, 'POST', `${campaign.base}/things`, { newThing: { name: 'Iarno', typeId: campaign.typeId } }), 201);
    const properties = [
      { key: 'rank', value: 'knight', gmOnly: false },
      { key: 'ally', value: { targetType: 'thing', targetId: other.id }, gmOnly: true },
    ];
    advance(10 * MINUTE);
    await ok(saveThing(gm, campaign, thing.slug, { properties, tags: ['Lords Alliance'], aliases: ['Sir Sildar'] }));
    const [kept] = await revisionsOf(campaign, `/things/${thing.slug}`);
    expect(kept!.fields).toEqual(['properties', 'tags', 'aliases']);
    advance(10 * MINUTE);
    await ok(saveThing(gm, campaign, thing.slug, { properties: [], tags: ['dead'], aliases: [] }));
    const [latest] = await revisionsOf(campaign, `/things/${thing.slug}`);
    expect(latest!.fields).toEqual(['properties', 'tags', 'aliases']);
    const restored = await ok(send(owner, 'POST', `${campaign.base}/things/${thing.slug}/revisions/${kept!.id}/restore`));
    expect(restored).toMatchObject({ properties, tags: ['Lords Alliance'], aliases: ['Sir Sildar'] });
    // A revision kept before records had properties (no keys in its snapshot) leaves them as they are.
    const [oldest] = (await revisionsOf(campaign, `/things/${thing.slug}`)).slice(-1);
    const snapshot = { name: 'Sildar', slug: thing.slug, typeId: campaign.typeId, visibility: 'all', description: [p('A knight.')] };
    await ctx.database.kysely.updateTable('revisions').set({ snapshot: encodeSnapshot(snapshot as never), digests: null }).where('id', '=', oldest!.id).execute();
    advance(10 * MINUTE);
    const again = await ok(send(owner, 'POST', `${campaign.base}/things/${thing.slug}/revisions/${oldest!.id}/restore`));
    expect(again).toMatchObject({ properties, tags: ['Lords Alliance'], aliases: ['Sir Sildar'] });
  });

  it('refuses a restore with a stale If-Match (412) and changes nothing', async () => {
    const { campaign, thing } = await setUp();
    const [first] = await revisionsOf(campaign, `/things/${thing.slug}`);
    const before = await send(gm, 'GET', `${campaign.base}/things/${thing.slug}`);
    advance(10 * MINUTE);
    await ok(saveThing(gm, campaign, thing.slug, { name: 'Renamed' }));
    const current = await send(gm, 'GET', `${campaign.base}/things/${thing.slug}`);
    const revisionsBefore = await revisionsOf(campaign, `/things/${thing.slug}`);
    const stale = await send(gm, 'POST', `${campaign.base}/things/${thing.slug}/revisions/${first!.id}/restore`, undefined, { 'if-match': String(before.headers.etag) });
    expect(stale.statusCode, stale.body).toBe(412);
    expect((await send(gm, 'GET', `${campaign.base}/things/${thing.slug}`)).body).toBe(current.body);
    expect(await revisionsOf(campaign, `/things/${thing.slug}`)).toEqual(revisionsBefore);
    const fresh = await send(gm, 'POST', `${campaign.base}/things/${thing.slug}/revisions/${first!.id}/restore`, undefined, { 'if-match': String(current.headers.etag) });
    expect(fresh.statusCode, fresh.body).toBe(200);
    expect(json(fresh).name).toBe('Sildar');
  });

  it('keeps the current slug when another thing took it, and the current type when the old one is gone', async () => {
    const { campaign, thing } = await setUp();
    const spells = await ok<{ id: number }>(send(gm, 'POST', `${campaign.base}/thing-types`, { newThingType: { name: 'Spells' } }), 201);
    advance(10 * MINUTE);
    await ok(saveThing(gm, campaign, thing.slug, { typeId: spells.id }));
    const [withSpells] = await revisionsOf(campaign, `/things/${thing.slug}`);
    advance(10 * MINUTE);
    await ok(saveThing(gm, campaign, thing.slug, { typeId: campaign.typeId, slug: 'sildar-the-knight', name: 'Sildar the Knight' }));
    await ok(send(gm, 'POST', `${campaign.base}/things`, { newThing: { name: 'Sildar', typeId: campaign.typeId } }), 201);
    await ok(send(gm, 'DELETE', `${campaign.base}/thing-types/${spells.id}`), 204);
    const restored = await ok(send(gm, 'POST', `${campaign.base}/things/sildar-the-knight/revisions/${withSpells!.id}/restore`));
    expect(restored).toMatchObject({ name: 'Sildar', slug: 'sildar-the-knight', typeId: campaign.typeId });
  });

  it('follows a previous slug on GET (308) and answers 404 for a revision of another campaign', async () => {
    const { campaign, thing } = await setUp();
    const [first] = await revisionsOf(campaign, `/things/${thing.slug}`);
    await ok(saveThing(gm, campaign, thing.slug, { slug: 'renamed-knight' }));
    const moved = await send(gm, 'GET', `${campaign.base}/things/${thing.slug}/revisions/${first!.id}`);
    expect(moved.statusCode).toBe(308);
    expect(moved.headers.location).toBe(`${campaign.base}/things/renamed-knight/revisions/${first!.id}`);
    const other = await setUp();
    const [otherFirst] = await revisionsOf(other.campaign, `/things/${other.thing.slug}`);
    for (const path of [`/things/renamed-knight/revisions/${otherFirst!.id}`, `/revisions/${otherFirst!.id}`]) {
      const res = await send(gm, 'GET', `${campaign.base}${path}`);
      expect(res.statusCode, path).toBe(404);
      expect(problemOf(res).code).toBe('revision_not_found');
      expect((await send(gm, 'POST', `${campaign.base}${path}/restore`)).statusCode, path).toBe(404);
    }
    expect(problemOf(await send(gm, 'GET', `${campaign.base}/things/nobody/revisions`)).code).toBe('thing_not_found');
  });
});

describe(`merging, against a model, on ${dialect}`, () => {
  it('keeps one revision per burst of one author’s saves, whatever the sequence (property)', async () => {
    const { campaign } = await setUp();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ byOwner: fc.boolean(), seconds: fc.integer({ min: 0, max: 600 }), changes: fc.boolean() }), { minLength: 1, maxLength: 12 }),
        async (saves) => {
          n += 1;
          advance(MINUTE);
          const thing = await ok<{ slug: string }>(send(gm, 'POST', `${campaign.base}/things`, { newThing: { name: `Merge ${n} v0`, typeId: campaign.typeId } }), 201);
          const model = [{ author: gm.id, createdAt: clock }];
          let name = `Merge ${n} v0`;
          for (const [i, save] of saves.entries()) {
            advance(save.seconds * 1000);
            const author = save.byOwner ? owner : gm;
            if (save.changes) name = `Merge ${n} v${i + 1}`;
            await ok(saveThing(author, campaign, thing.slug, { name }));
            if (!save.changes) continue;
            const latest = model.at(-1)!;
            if (latest.author !== author.id || clock - latest.createdAt >= 300_000) model.push({ author: author.id, createdAt: clock });
          }
          const list = [...(await revisionsOf(campaign, `/things/${thing.slug}`))].reverse();
          expect(list.map((r) => ({ author: r.author?.userId, createdAt: Date.parse(r.createdAt) }))).toEqual(model);
          const latest = await ok(send(gm, 'GET', `${campaign.base}/things/${thing.slug}/revisions/${list.at(-1)!.id}`));
          expect(latest.record.name).toBe(name);
        },
      ),
      { numRuns: 15 },
    );
  });
});

describe(`authors and erasure, on ${dialect}`, () => {
  it('shows the name an author had when their account is gone', async () => {
    const { campaign, thing } = await setUp();
    const leaving = await ctx.createUser();
    await ctx.database.kysely.updateTable('users').set({ name: 'Departed Dana' }).where('id', '=', leaving.id).execute();
    await joinCampaign(ctx.app, owner, campaign.slug, leaving, 'gm');
    advance(10 * MINUTE);
    await ok(saveThing(leaving, campaign, thing.slug, { name: 'Sildar, edited by Dana' }));
    await ctx.database.kysely.deleteFrom('campaign_members').where('user_id', '=', leaving.id).execute();
    await ctx.database.kysely.deleteFrom('api_tokens').where('user_id', '=', leaving.id).execute();
    await ctx.database.kysely.deleteFrom('users').where('id', '=', leaving.id).execute();
    const [latest] = await revisionsOf(campaign, `/things/${thing.slug}`);
    expect(latest!.author).toEqual({ userId: leaving.id, name: 'Departed Dana' });
  });

  it('erases the revisions of the given things or arcs only (what the trash calls)', async () => {
    const { campaign, thing } = await setUp();
    const other = await ok<{ id: number; slug: string }>(send(gm, 'POST', `${campaign.base}/things`, { newThing: { name: 'Other', typeId: campaign.typeId } }), 201);
    const arc = await ok<{ id: number; slug: string }>(send(gm, 'POST', `${campaign.base}/arcs`, { newArc: { name: 'Arc' } }), 201);
    // An arc with the thing's id, if there is one, keeps its revisions: kinds are apart.
    await ctx.database.write((trx) => eraseRevisionsOf(trx, campaign.id, 'thing', [thing.id, arc.id]));
    expect(await revisionsOf(campaign, `/things/${thing.slug}`)).toEqual([]);
    expect(await revisionsOf(campaign, `/things/${other.slug}`)).toHaveLength(1);
    expect(await revisionsOf(campaign, `/arcs/${arc.slug}`)).toHaveLength(1);
    await ctx.database.write((trx) => eraseRevisionsOf(trx, campaign.id, 'arc', [arc.id]));
    expect(await revisionsOf(campaign, `/arcs/${arc.slug}`)).toEqual([]);
    expect(await revisionsOf(campaign, '')).toHaveLength(1);
  });
});

describe(`revisions of arcs and of the campaign, on ${dialect}`, () => {
  it('keeps an arc’s fields and parent, and restores them', async () => {
    const { campaign } = await setUp();
    const parent = await ok<{ id: number; slug: string }>(send(gm, 'POST', `${campaign.base}/arcs`, { newArc: { name: 'Lost Mine' } }), 201);
    const arc = await ok<{ id: number; slug: string }>(
      send(gm, 'POST', `${campaign.base}/arcs`, { newArc: { name: 'Goblin Arrows', parentArcId: parent.id, hook: [p('Ambush.')], notes: [p('Twist.', true)] } }),
      201,
    );
    const [first] = await revisionsOf(campaign, `/arcs/${arc.slug}`);
    expect(first!.fields).toEqual(['name', 'slug', 'parentArcId', 'visibility', 'hook', 'protagonist', 'antagonist', 'problem', 'key', 'outcome', 'notes', 'properties', 'tags', 'aliases']);
    const one = await ok(send(gm, 'GET', `${campaign.base}/arcs/${arc.slug}/revisions/${first!.id}`));
    expect(one.record).toMatchObject({ name: 'Goblin Arrows', parentArcId: parent.id, parentArc: { id: parent.id, slug: parent.slug, name: 'Lost Mine' }, hook: [p('Ambush.')], notes: [p('Twist.', true)] });
    advance(10 * MINUTE);
    await ok(send(gm, 'PUT', `${campaign.base}/arcs/${arc.slug}`, { updatedArc: { parentArcId: null, hook: [p('Nothing.')] } }));
    const list = await revisionsOf(campaign, `/arcs/${arc.slug}`);
    expect(list[0]!.fields).toEqual(['parentArcId', 'hook']);
    // A parent's rename is no change of its child.
    const res = await send(owner, 'POST', `${campaign.base}/arcs/${arc.slug}/revisions/${first!.id}/restore`);
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toMatchObject({ parentArcId: parent.id, hook: [p('Ambush.')] });
    const get = await send(owner, 'GET', `${campaign.base}/arcs/${arc.slug}`);
    expect(res.body).toBe(get.body);
    expect(res.headers.etag).toBe(get.headers.etag);
    // The parent gone: the arc keeps its current (top-level after the delete) parent.
    advance(10 * MINUTE);
    await ok(send(gm, 'DELETE', `${campaign.base}/arcs/${parent.slug}`), 204);
    const again = await ok(send(owner, 'POST', `${campaign.base}/arcs/${arc.slug}/revisions/${first!.id}/restore`));
    expect(again.parentArcId).toBeNull();
  });

  it('keeps an arc’s current parent when the old one would now close a loop', async () => {
    const { campaign } = await setUp();
    const a = await ok<{ id: number; slug: string }>(send(gm, 'POST', `${campaign.base}/arcs`, { newArc: { name: 'Arc A' } }), 201);
    const b = await ok<{ id: number; slug: string }>(send(gm, 'POST', `${campaign.base}/arcs`, { newArc: { name: 'Arc B' } }), 201);
    advance(10 * MINUTE);
    await ok(send(owner, 'PUT', `${campaign.base}/arcs/${a.slug}`, { updatedArc: { parentArcId: b.id, name: 'Arc A under B' } }));
    const [underB] = await revisionsOf(campaign, `/arcs/${a.slug}`);
    await ok(send(owner, 'PUT', `${campaign.base}/arcs/${a.slug}`, { updatedArc: { parentArcId: null } }));
    await ok(send(owner, 'PUT', `${campaign.base}/arcs/${b.slug}`, { updatedArc: { parentArcId: a.id } }));
    const restored = await ok(send(gm, 'POST', `${campaign.base}/arcs/${a.slug}/revisions/${underB!.id}/restore`));
    expect(restored).toMatchObject({ name: 'Arc A under B', parentArcId: null });
  });

  it('keeps the campaign’s own revisions and restores them', async () => {
    const { campaign } = await setUp();
    const [created] = await revisionsOf(campaign, '');
    expect(created).toMatchObject({ author: { userId: owner.id }, fields: ['name', 'slug', 'description', 'defaultVisibility'] });
    advance(10 * MINUTE);
    await ok(send(gm, 'PUT', campaign.base, { updatedCampaign: { description: [p('Welcome.')], defaultVisibility: 'gm' } }));
    const list = await revisionsOf(campaign, '');
    expect(list[0]).toMatchObject({ author: { userId: gm.id }, fields: ['description', 'defaultVisibility'] });
    const res = await send(gm, 'POST', `${campaign.base}/revisions/${created!.id}/restore`);
    expect(res.statusCode, res.body).toBe(200);
    const get = await send(gm, 'GET', campaign.base);
    expect(res.body).toBe(get.body);
    expect(res.headers.etag).toBe(get.headers.etag);
    expect(json(get)).toMatchObject({ defaultVisibility: 'all', name: campaign.name });
  });
});

describe(`who reads history, on ${dialect}`, () => {
  it('refuses players and a game master viewing as a player (403), and shows them no text', async () => {
    const { campaign, thing } = await setUp();
    await ok(saveThing(gm, campaign, thing.slug, { description: [p('zanthrovelsecret', true)] }));
    const arc = await ok<{ slug: string }>(send(gm, 'POST', `${campaign.base}/arcs`, { newArc: { name: 'Arc', hook: [p('zanthrovelsecret', true)] } }), 201);
    const [thingRevision] = await revisionsOf(campaign, `/things/${thing.slug}`);
    const [arcRevision] = await revisionsOf(campaign, `/arcs/${arc.slug}`);
    const [campaignRevision] = await revisionsOf(campaign, '');
    const paths = [
      `/things/${thing.slug}/revisions`,
      `/things/${thing.slug}/revisions/${thingRevision!.id}`,
      `/arcs/${arc.slug}/revisions`,
      `/arcs/${arc.slug}/revisions/${arcRevision!.id}`,
      '/revisions',
      `/revisions/${campaignRevision!.id}`,
    ];
    for (const [who, user, headers] of [
      ['player', player, {}],
      ['gm as player', gm, { 'loreforge-view': 'player' }],
    ] as const) {
      for (const path of paths) {
        const requests = [send(user, 'GET', `${campaign.base}${path}`, undefined, headers)];
        if (/\/\d+$/.test(path)) {
          requests.push(send(user, 'PUT', `${campaign.base}${path}`, { name: 'Mine' }, headers), send(user, 'POST', `${campaign.base}${path}/restore`, undefined, headers));
        }
        for (const res of await Promise.all(requests)) {
          expect(res.statusCode, `${who} ${path}`).toBe(403);
          expect(problemOf(res).code).toBe('role_forbidden');
          expect(res.body).not.toContain('zanthrovel');
        }
      }
    }
    // The names stay as they were: nothing a refused caller sent changed anything.
    expect((await revisionsOf(campaign, `/things/${thing.slug}`)).map((r) => r.name)).toEqual([null]);
    const gmSees = await send(gm, 'GET', `${campaign.base}/things/${thing.slug}/revisions/${thingRevision!.id}`);
    expect(gmSees.body).toContain('zanthrovelsecret');
  });
});

describe(`thinning, on ${dialect}`, () => {
  it('keeps every revision for 30 days, then the newest of each UTC day to 90 days, then of each ISO week; named ones for ever', async () => {
    const { campaign } = await setUp();
    // Alternating authors, so no save merges into the one before.
    const times = [
      '2026-01-05T10:00:00.000Z', // Monday: created (named below)
      '2026-01-07T12:00:00.000Z', // the same ISO week: erased
      '2026-01-11T20:00:00.000Z', // Sunday, the week's newest: kept
      '2026-01-12T09:00:00.000Z', // the next Monday: kept
      '2026-03-10T08:00:00.000Z', // erased: a newer one the same day
      '2026-03-10T18:00:00.000Z',
      '2026-03-11T09:00:00.000Z',
      '2026-04-20T10:00:00.000Z', // within 30 days: both kept
      '2026-04-20T11:00:00.000Z',
    ];
    const at = (iso: string) => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.parse(iso));
    };
    at(times[0]!);
    const thing = await ok<{ slug: string }>(send(gm, 'POST', `${campaign.base}/things`, { newThing: { name: 'Version 0', typeId: campaign.typeId } }), 201);
    for (let i = 1; i < times.length; i++) {
      at(times[i]!);
      await ok(saveThing(i % 2 === 1 ? owner : gm, campaign, thing.slug, { name: `Version ${i}` }));
    }
    vi.useRealTimers();
    const all = [...(await revisionsOf(campaign, `/things/${thing.slug}`))].reverse();
    expect(all.map((r) => r.createdAt)).toEqual(times);
    await ok(send(gm, 'PUT', `${campaign.base}/things/${thing.slug}/revisions/${all[0]!.id}`, { name: 'First draft' }));

    // Two revisions a batch: the thinner goes through the table over several passes.
    const thinner = revisionThinner(ctx.database, { batch: 2, batchesPerRun: 1_000_000 });
    await thinner.run(new Date('2026-05-01T00:00:00.000Z'));
    const kept = async () => (await revisionsOf(campaign, `/things/${thing.slug}`)).map((r) => r.createdAt).reverse();
    expect(await kept()).toEqual([times[0], times[2], times[3], times[5], times[6], times[7], times[8]]);
    // Again at the same time: nothing more goes.
    expect(await thinner.run(new Date('2026-05-01T00:00:00.000Z'))).toBe(0);
    // Three months on, March and April are past 90 days: the newest of each week stays.
    await thinner.run(new Date('2026-08-01T00:00:00.000Z'));
    expect(await kept()).toEqual([times[0], times[2], times[3], times[6], times[8]]);
    // The revision that held the first draft's name is still there, named.
    expect((await revisionsOf(campaign, `/things/${thing.slug}`)).at(-1)).toMatchObject({ name: 'First draft' });
  });

  it('erases exactly what the rule says, for any set of revisions (property)', async () => {
    const { campaign } = await setUp();
    const now = Date.parse('2026-09-01T00:00:00.000Z');
    const DAY = 86_400_000;
    const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const mondayOf = (ms: number) => {
      const date = new Date(ms);
      return dayOf(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()) - ((date.getUTCDay() + 6) % 7) * DAY);
    };
    let recordId = 1_000_000;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ ageMinutes: fc.integer({ min: 0, max: 200 * 24 * 60 }), named: fc.boolean() }), { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 1, max: 7 }),
        async (revisions, batch) => {
          recordId += 1;
          const rows = revisions.map((r) => ({ created: now - r.ageMinutes * MINUTE, named: r.named }));
          const inserted = await ctx.database.kysely
            .insertInto('revisions')
            .values(
              rows.map((r) => ({
                campaign_id: campaign.id,
                record_kind: 1,
                record_id: recordId,
                author_id: null,
                author_name: null,
                created_at: new Date(r.created).toISOString(),
                updated_at: new Date(r.created).toISOString(),
                name: r.named ? 'kept' : null,
                fields: '[]',
                snapshot: encodeSnapshot({ name: 'x', slug: 'x', typeId: 1, visibility: 'all', description: [] }),
              })),
            )
            .returning('id')
            .execute();
          const model = rows.map((r, i) => ({ ...r, id: inserted[i]!.id }));
          const erased = new Set(
            model
              .filter((r) => !r.named && r.created < now - 30 * DAY)
              .filter((r) => {
                const bucket = r.created < now - 90 * DAY ? mondayOf : dayOf;
                return model.some((n) => !n.named && (n.created > r.created || (n.created === r.created && n.id > r.id)) && bucket(n.created) === bucket(r.created));
              })
              .map((r) => r.id),
          );
          let after = 0;
          do after = (await thinRevisions(ctx.database, { now: new Date(now), after, batch })).next;
          while (after !== 0);
          const left = await ctx.database.kysely.selectFrom('revisions').select('id').where('record_id', '=', recordId).where('record_kind', '=', 1).orderBy('id').execute();
          expect(left.map((r) => r.id)).toEqual(model.filter((r) => !erased.has(r.id)).map((r) => r.id));
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe(`a revision merge held for the transaction's last statement, on ${dialect}`, () => {
  // On PostgreSQL a request's write sends the merge of a save with its mark (common.ts
  // campaignWrite). Held or sent at once, the revisions are the same, also when the transaction
  // keeps a revision again after it.
  const snapshot = (text: string): ThingSnapshot => ({ name: 'Sildar', slug: 'sildar', typeId: 1, visibility: 'all', description: [p(text)] });
  const rowsOf = (campaignId: number, recordId: number, db: Db = ctx.database.kysely) =>
    db.selectFrom('revisions').select(['fields', 'snapshot', 'digests']).where('campaign_id', '=', campaignId).where('record_kind', '=', 1).where('record_id', '=', recordId).orderBy('id').execute();

  it('writes what keepRevision writes at once, the held merge sent first by a later keepRevision', async () => {
    const { campaign } = await setUp();
    const results = [];
    for (const [recordId, held] of [
      [900_001, false],
      [900_002, true],
    ] as const) {
      const keep = (trx: Parameters<typeof keepRevision>[0], text: string) =>
        keepRevision(trx, { campaignId: campaign.id, kind: 'thing', recordId, snapshot: snapshot(text), authorId: gm.id });
      await ctx.database.write((trx) => keep(trx, 'one'));
      let sentWithMark: string | undefined;
      await ctx.database.write(async (trx) => {
        if (held) holdRevisionMerge(trx);
        await keep(trx, 'two');
        // Held: nothing written yet.
        if (held) expect(decodeSnapshot<ThingSnapshot>((await rowsOf(campaign.id, recordId, trx)).at(-1)!.snapshot).description).toEqual([p('one')]);
        // The next keepRevision reads the revisions as the merge leaves them (sent first), so going
        // back to the first text is a change from the second, merged again.
        await keep(trx, 'one');
        const merge = held ? takeHeldRevisionMerge(trx) : undefined;
        if (held) {
          expect(merge).toBeDefined();
          sentWithMark = merge && JSON.stringify(decodeSnapshot<ThingSnapshot>(merge.snapshot).description);
          await sql`${revisionMergeStatement(merge!)}`.execute(trx);
        }
      });
      if (held) expect(sentWithMark).toBe(JSON.stringify([p('one')]));
      results.push((await rowsOf(campaign.id, recordId)).map((r) => ({ fields: r.fields, digests: r.digests, snapshot: decodeSnapshot(r.snapshot) })));
    }
    expect(results[1]).toEqual(results[0]);
    expect(results[0]).toHaveLength(1);
    expect((results[0]![0]!.snapshot as ThingSnapshot).description).toEqual([p('one')]);
  });
});
