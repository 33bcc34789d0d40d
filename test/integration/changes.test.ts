import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneTombstones } from '../../src/db/repositories/changes.js';
import { campaignWrite, heldRecordUpdate } from '../../src/db/repositories/common.js';
import { findThingBySlug } from '../../src/db/repositories/things.js';
import { inWriteScope } from '../../src/db/write-scope.js';
import { premiumUser } from '../fixtures/image-app.js';
import { sendAs } from '../support/fixtures.js';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { joinCampaign } from '../support/sharing.js';
import { dialect } from '../support/test-db.js';
import { png } from '../fixtures/images.js';

// The changes feed (CONTRACT "Portability"): tombstones, cascades, cursors, retention, and a
// model-based property test: random writes interleaved with a client that syncs by the feed, whose
// copy must equal the campaign as the API reads it after every step.

let ctx: TestContext;
let owner: TestUser;

beforeAll(async () => {
  ctx = await createTestContext();
  // Premium, to upload the images the feed lists as assets.
  owner = await premiumUser(ctx);
});
afterAll(async () => {
  await ctx.close();
});

interface Change {
  kind: string;
  op: 'upsert' | 'delete';
  id: number | string;
  record?: Record<string, unknown>;
}
interface Page {
  changes: Change[];
  cursor: string;
  more: boolean;
}

const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, user: TestUser = owner) => sendAs(ctx.app, user, method, url, payload);

let campaignCounter = 0;
async function newCampaign() {
  const campaign = json<{ slug: string; id: number }>(await send('POST', '/api/campaigns', { newCampaign: { name: `Feed ${++campaignCounter}` } }));
  const base = `/api/campaigns/${campaign.slug}`;
  const types = json<{ id: number }[]>(await send('GET', `${base}/thing-types`));
  return { ...campaign, base, typeId: types[0]!.id };
}

async function page(base: string, since?: string, limit?: number): Promise<Page> {
  const query = new URLSearchParams();
  if (since !== undefined) query.set('since', since);
  if (limit !== undefined) query.set('limit', String(limit));
  const res = await send('GET', `${base}/changes?${query.toString()}`);
  expect(res.statusCode, res.body).toBe(200);
  return json<Page>(res);
}

/** Pages until `more` is false; answers every change in order and the last cursor. */
async function drain(base: string, since?: string, limit?: number): Promise<{ changes: Change[]; cursor: string; pages: number }> {
  const changes: Change[] = [];
  let cursor = since;
  let pages = 0;
  for (;;) {
    const p = await page(base, cursor, limit);
    pages += 1;
    changes.push(...p.changes);
    cursor = p.cursor;
    if (!p.more) return { changes, cursor: p.cursor, pages };
    if (pages > 10_000) throw new Error('the feed does not end');
  }
}

const key = (c: Pick<Change, 'kind' | 'id'>) => `${c.kind}:${String(c.id)}`;

describe(`the changes feed on ${dialect}`, () => {
  it('starts with the whole campaign, then answers only what changed, each record once in its latest state', async () => {
    const c = await newCampaign();
    const first = await drain(c.base);
    expect(first.changes.map(key).sort()).toEqual([`campaign:${c.id}`, ...json<{ id: number }[]>(await send('GET', `${c.base}/thing-types`)).map((t) => `thing-type:${t.id}`)].sort());
    expect(first.changes.every((change) => change.op === 'upsert')).toBe(true);
    expect(first.changes.find((change) => change.kind === 'campaign')!.record).toEqual(json(await send('GET', c.base)));

    // Nothing since: the same cursor back, no changes.
    const idle = await page(c.base, first.cursor);
    expect(idle).toEqual({ changes: [], cursor: first.cursor, more: false });

    const thing = json<{ id: number; slug: string }>(await send('POST', `${c.base}/things`, { newThing: { name: 'Gundren', typeId: c.typeId } }));
    await send('PUT', `${c.base}/things/${thing.slug}`, { updatedThing: { name: 'Gundren Rockseeker' } });
    await send('PUT', `${c.base}/things/${thing.slug}`, { updatedThing: { name: 'Gundren, missing' } });
    const next = await drain(c.base, first.cursor);
    // The type answers its thingCount, so a thing joining it lists the type too.
    const type = json(await send('GET', `${c.base}/thing-types/${c.typeId}`));
    expect(type).toMatchObject({ thingCount: 1 });
    expect(next.changes).toEqual([
      { kind: 'thing-type', op: 'upsert', id: c.typeId, record: type },
      { kind: 'thing', op: 'upsert', id: thing.id, record: json(await send('GET', `${c.base}/things/${thing.slug}`)) },
    ]);

    await send('DELETE', `${c.base}/things/${thing.slug}`);
    const gone = await drain(c.base, next.cursor);
    expect(gone.changes).toEqual([
      { kind: 'thing-type', op: 'upsert', id: c.typeId, record: { ...type, thingCount: 0 } },
      { kind: 'thing', op: 'delete', id: thing.id },
    ]);
    // From the beginning, the thing is a tombstone only.
    const all = await drain(c.base);
    expect(all.changes.filter((change) => change.kind === 'thing')).toEqual([{ kind: 'thing', op: 'delete', id: thing.id }]);
  });

  it('lists deletions by cascade: a type’s things and their links, an arc’s links, and its children made top-level', async () => {
    const c = await newCampaign();
    const type = json<{ id: number }>(await send('POST', `${c.base}/thing-types`, { newThingType: { name: 'Spells' } }));
    const spell = json<{ id: number; slug: string }>(await send('POST', `${c.base}/things`, { newThing: { name: 'Fireball', typeId: type.id } }));
    const npc = json<{ id: number; slug: string }>(await send('POST', `${c.base}/things`, { newThing: { name: 'Sildar', typeId: c.typeId } }));
    const parent = json<{ id: number; slug: string }>(await send('POST', `${c.base}/arcs`, { newArc: { name: 'Act One' } }));
    const child = json<{ id: number; slug: string }>(await send('POST', `${c.base}/arcs`, { newArc: { name: 'Scene', parentArcId: parent.id } }));
    await send('POST', `${c.base}/things/${spell.slug}/arcs`, { arcSlug: child.slug });
    await send('POST', `${c.base}/things/${npc.slug}/arcs`, { arcSlug: parent.slug });
    const before = await drain(c.base);

    await send('DELETE', `${c.base}/thing-types/${type.id}`);
    const afterType = await drain(c.base, before.cursor);
    const byKey = new Map(afterType.changes.map((change) => [key(change), change]));
    expect(byKey.get(`thing-type:${type.id}`)?.op).toBe('delete');
    expect(byKey.get(`thing:${spell.id}`)?.op).toBe('delete');
    expect(byKey.get(`link:${spell.id}:${child.id}`)?.op).toBe('delete');
    // The arc's `things` changed: it is listed with its new answer.
    expect(byKey.get(`arc:${child.id}`)).toEqual({ kind: 'arc', op: 'upsert', id: child.id, record: json(await send('GET', `${c.base}/arcs/${child.slug}`)) });

    await send('DELETE', `${c.base}/arcs/${parent.slug}`);
    const afterArc = await drain(c.base, afterType.cursor);
    const arcKeys = new Map(afterArc.changes.map((change) => [key(change), change]));
    expect(arcKeys.get(`arc:${parent.id}`)?.op).toBe('delete');
    expect(arcKeys.get(`link:${npc.id}:${parent.id}`)?.op).toBe('delete');
    expect(arcKeys.get(`arc:${child.id}`)?.record).toMatchObject({ parentArcId: null, parentArc: null });
  });

  it('pages in order with any limit, and refuses bad cursors and limits', async () => {
    const c = await newCampaign();
    for (let i = 0; i < 7; i++) await send('POST', `${c.base}/things`, { newThing: { name: `Goblin ${i}`, typeId: c.typeId } });
    const whole = await drain(c.base);
    const paged = await drain(c.base, undefined, 2);
    expect(paged.changes).toEqual(whole.changes);
    expect(paged.pages).toBe(Math.ceil(whole.changes.length / 2) + (whole.changes.length % 2 === 0 ? 1 : 0));
    expect(paged.cursor).toBe(whole.cursor);
    for (const query of ['since=nonsense', 'since=YzEuMS4yLjM', 'since=', 'limit=0', 'limit=1001', 'limit=ten', 'limit=1&limit=2']) {
      const res = await send('GET', `${c.base}/changes?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(json(res).code).toBe('invalid_query');
    }
  });

  it('is for the owner and game masters: a player is 403', async () => {
    const c = await newCampaign();
    const player = await ctx.createUser();
    const gm = await ctx.createUser();
    await joinCampaign(ctx.app, owner, c.slug, player, 'player');
    await joinCampaign(ctx.app, owner, c.slug, gm, 'gm');
    expect(json(await send('GET', `${c.base}/changes`, undefined, player)).code).toBe('role_forbidden');
    expect((await send('GET', `${c.base}/changes`, undefined, gm)).statusCode).toBe(200);
  });

  it('answers 410 cursor_expired to a cursor from before the tombstones it keeps', async () => {
    const c = await newCampaign();
    const thing = json<{ slug: string }>(await send('POST', `${c.base}/things`, { newThing: { name: 'Doomed', typeId: c.typeId } }));
    const old = await drain(c.base);
    await send('DELETE', `${c.base}/things/${thing.slug}`);
    const current = await drain(c.base, old.cursor);
    // As the sweeper would once the retention has passed.
    await ctx.database.write((trx) => pruneTombstones(trx, ctx.database.dialect, new Date(Date.now() + 60_000).toISOString()));
    const expired = await send('GET', `${c.base}/changes?since=${old.cursor}`);
    expect(expired.statusCode).toBe(410);
    expect(json(expired).code).toBe('cursor_expired');
    expect((await send('GET', `${c.base}/changes?since=${current.cursor}`)).statusCode).toBe(200);
    // From the beginning is always possible, and holds no tombstone any more.
    expect((await drain(c.base)).changes.some((change) => change.op === 'delete')).toBe(false);
  });

  it('reads a page in the same number of statements for a small and a large campaign', async () => {
    const small = await newCampaign();
    const large = await newCampaign();
    for (let i = 0; i < 60; i++) {
      const thing = json<{ slug: string }>(await send('POST', `${large.base}/things`, { newThing: { name: `Orc ${i}`, typeId: large.typeId } }));
      const arc = json<{ slug: string }>(await send('POST', `${large.base}/arcs`, { newArc: { name: `Raid ${i}` } }));
      await send('POST', `${large.base}/things/${thing.slug}/arcs`, { arcSlug: arc.slug });
    }
    const smallThing = json<{ slug: string }>(await send('POST', `${small.base}/things`, { newThing: { name: 'Orc', typeId: small.typeId } }));
    const smallArc = json<{ slug: string }>(await send('POST', `${small.base}/arcs`, { newArc: { name: 'Raid' } }));
    await send('POST', `${small.base}/things/${smallThing.slug}/arcs`, { arcSlug: smallArc.slug });
    const count = async (url: string) => {
      ctx.queries.length = 0;
      expect((await send('GET', url)).statusCode).toBe(200);
      return ctx.queries.length;
    };
    expect(await count(`${large.base}/changes?limit=1000`)).toBe(await count(`${small.base}/changes?limit=1000`));
  });
});

// A client that keeps a copy of the campaign by the feed alone.
class SyncClient {
  copy = new Map<string, unknown>();
  cursor: string | undefined;
  constructor(readonly base: string) {}
  async sync(limit: number) {
    const { changes, cursor } = await drain(this.base, this.cursor, limit);
    for (const change of changes) {
      if (change.op === 'delete') this.copy.delete(key(change));
      else this.copy.set(key(change), change.record);
    }
    this.cursor = cursor;
  }
}

/** The campaign as the API reads it, keyed as the feed keys records. */
async function apiState(base: string): Promise<Map<string, unknown>> {
  const state = new Map<string, unknown>();
  const campaign = json<{ id: number }>(await send('GET', base));
  state.set(`campaign:${campaign.id}`, campaign);
  for (const type of json<{ id: number }[]>(await send('GET', `${base}/thing-types`))) state.set(`thing-type:${type.id}`, type);
  for (const thing of json<{ id: number }[]>(await send('GET', `${base}/things?fetchAll=true`))) state.set(`thing:${thing.id}`, thing);
  for (const arc of json<{ id: number; slug: string; things: { id: number }[] }[]>(await send('GET', `${base}/arcs`))) {
    state.set(`arc:${arc.id}`, arc);
  }
  // Links with their time, from each thing's side (in link order), and assets.
  const links = await ctx.database.kysely.selectFrom('arc_things').innerJoin('campaigns', 'campaigns.id', 'arc_things.campaign_id').select(['thing_id', 'arc_id', 'arc_things.created_at']).where('campaigns.id', '=', campaign.id).execute();
  for (const link of links) state.set(`link:${link.thing_id}:${link.arc_id}`, { thingId: link.thing_id, arcId: link.arc_id, createdAt: link.created_at });
  for (const asset of json<{ id: number }[]>(await send('GET', `${base}/assets`))) state.set(`asset:${asset.id}`, asset);
  return state;
}

interface Model {
  base: string;
  typeIds: number[];
  things: string[];
  arcs: { id: number; slug: string }[];
  assets: number[];
}
interface Real {
  client: SyncClient;
  counter: number;
}

const pick = <T,>(items: readonly T[], n: number): T | undefined => (items.length === 0 ? undefined : items[n % items.length]);

type Step = fc.AsyncCommand<Model, Real>;

function command(name: string, run: (model: Model, real: Real) => Promise<void>, canRun: (model: Model) => boolean = () => true): Step {
  return {
    check: canRun,
    async run(model, real) {
      await run(model, real);
    },
    toString: () => name,
  };
}

const steps = [
  fc.nat().map((n) =>
    command(`new thing ${n}`, async (m, r) => {
      const thing = json<{ slug: string }>(await send('POST', `${m.base}/things`, { newThing: { name: `Thing ${++r.counter}`, typeId: pick(m.typeIds, n)!, description: [{ type: 'paragraph', children: [{ text: `words ${n}` }] }] } }));
      m.things.push(thing.slug);
    }),
  ),
  fc.tuple(fc.nat(), fc.boolean()).map(([n, slug]) =>
    command(`edit thing ${n}${slug ? ' and its slug' : ''}`, async (m, r) => {
      const at = n % m.things.length;
      const body: Record<string, unknown> = { name: `Renamed ${++r.counter}`, typeId: pick(m.typeIds, n)! };
      if (slug) body.slug = `moved-${r.counter}`;
      await send('PUT', `${m.base}/things/${m.things[at]!}`, { updatedThing: body });
      if (slug) m.things[at] = `moved-${r.counter}`;
    }, (m) => m.things.length > 0),
  ),
  fc.nat().map((n) =>
    command(`delete thing ${n}`, async (m) => {
      const [slug] = m.things.splice(n % m.things.length, 1);
      await send('DELETE', `${m.base}/things/${slug!}`);
    }, (m) => m.things.length > 0),
  ),
  fc.constant(
    command('new type', async (m, r) => {
      m.typeIds.push(json<{ id: number }>(await send('POST', `${m.base}/thing-types`, { newThingType: { name: `Kind ${++r.counter}` } })).id);
    }),
  ),
  fc.nat().map((n) =>
    command(`delete type ${n} (its things go with it)`, async (m) => {
      const [typeId] = m.typeIds.splice(n % m.typeIds.length, 1);
      await send('DELETE', `${m.base}/thing-types/${typeId!}`);
      const left = new Set(json<{ slug: string }[]>(await send('GET', `${m.base}/things?fetchAll=true`)).map((t) => t.slug));
      m.things = m.things.filter((slug) => left.has(slug));
    }, (m) => m.typeIds.length > 1),
  ),
  fc.option(fc.nat(), { nil: undefined }).map((parent) =>
    command(`new arc under ${String(parent)}`, async (m, r) => {
      const parentArcId = parent === undefined ? null : (pick(m.arcs, parent)?.id ?? null);
      const arc = json<{ id: number; slug: string }>(await send('POST', `${m.base}/arcs`, { newArc: { name: `Arc ${++r.counter}`, parentArcId } }));
      m.arcs.push(arc);
    }),
  ),
  fc.tuple(fc.nat(), fc.nat()).map(([a, b]) =>
    command(`rename arc ${a} or move it under ${b}`, async (m, r) => {
      const arc = pick(m.arcs, a)!;
      const parent = pick(m.arcs, b)!;
      const res = await ctx.app.inject({ method: 'PUT', url: `${m.base}/arcs/${arc.slug}`, headers: owner.headers, payload: { updatedArc: { name: `Arc ${++r.counter}`, parentArcId: parent.id === arc.id ? null : parent.id } } });
      // A loop is refused and changes nothing: a fine step too.
      if (res.statusCode !== 200 && json(res).code !== 'arc_cycle') throw new Error(res.body);
    }, (m) => m.arcs.length > 0),
  ),
  fc.nat().map((n) =>
    command(`delete arc ${n}`, async (m) => {
      const [arc] = m.arcs.splice(n % m.arcs.length, 1);
      await send('DELETE', `${m.base}/arcs/${arc!.slug}`);
    }, (m) => m.arcs.length > 0),
  ),
  fc.tuple(fc.nat(), fc.nat(), fc.boolean()).map(([t, a, unlink]) =>
    command(`${unlink ? 'unlink' : 'link'} thing ${t} and arc ${a}`, async (m) => {
      const thing = pick(m.things, t)!;
      const arc = pick(m.arcs, a)!;
      if (unlink) {
        const res = await ctx.app.inject({ method: 'DELETE', url: `${m.base}/things/${thing}/arcs/${arc.slug}`, headers: owner.headers });
        if (res.statusCode !== 204 && json(res).code !== 'link_not_found') throw new Error(res.body);
      } else await send('POST', `${m.base}/things/${thing}/arcs`, { arcSlug: arc.slug });
    }, (m) => m.things.length > 0 && m.arcs.length > 0),
  ),
  fc.constant(
    command('upload an image', async (m, r) => {
      const granted = json<{ imageId: string; uploadURL: string }>(await send('POST', `${m.base}/assets/upload-url`, { label: `Map ${++r.counter}` }));
      const put = await ctx.app.inject({ method: 'PUT', url: new URL(granted.uploadURL).pathname, payload: png(), headers: { 'content-type': 'image/png' } });
      if (put.statusCode !== 200) throw new Error(put.body);
      const confirmed = json<{ asset: { id: number } }>(await send('POST', `${m.base}/assets/confirm-upload`, { imageId: granted.imageId, label: `Map ${r.counter}` }));
      m.assets.push(confirmed.asset.id);
    }),
  ),
  fc.nat().map((n) =>
    command(`delete image ${n}`, async (m) => {
      const [id] = m.assets.splice(n % m.assets.length, 1);
      await send('DELETE', `${m.base}/assets/${id!}`);
    }, (m) => m.assets.length > 0),
  ),
  fc.constant(
    command('edit the campaign', async (m, r) => {
      await send('PUT', m.base, { updatedCampaign: { description: [{ type: 'paragraph', children: [{ text: `Chapter ${++r.counter}` }] }] } });
    }),
  ),
  fc.integer({ min: 1, max: 5 }).map((limit) =>
    command(`sync with pages of ${limit}`, async (_m, r) => {
      await r.client.sync(limit);
    }),
  ),
];

describe(`a client that syncs by the feed, on ${dialect}`, () => {
  it('holds exactly the campaign after every step (model-based, fast-check commands)', async () => {
    let runs = 0;
    let checks = 0;
    await fc.assert(
      fc.asyncProperty(fc.commands(steps, { maxCommands: 30, size: '+1' }), async (commands) => {
        runs += 1;
        const c = await newCampaign();
        const model: Model = { base: c.base, typeIds: json<{ id: number }[]>(await send('GET', `${c.base}/thing-types`)).map((t) => t.id), things: [], arcs: [], assets: [] };
        const real: Real = { client: new SyncClient(c.base), counter: 0 };
        const checked = [...commands].map((step) => ({
          check: step.check.bind(step),
          toString: step.toString.bind(step),
          async run(m: Model, r: Real) {
            await step.run(m, r);
            // After every step the client catches up, and must then hold exactly what the API reads.
            await r.client.sync(7);
            const expected = await apiState(m.base);
            checks += 1;
            expect(Object.fromEntries([...r.client.copy].sort(([a], [b]) => a.localeCompare(b)))).toEqual(Object.fromEntries([...expected].sort(([a], [b]) => a.localeCompare(b))));
          },
        }));
        await fc.asyncModelRun(() => ({ model, real }), checked);
      }),
      { numRuns: 15 },
    );
    console.log(`changes feed model test (${dialect}): ${runs} runs, ${checks} comparisons of the client's copy with the API`);
  });
});

// PostgreSQL: a campaign write's content_version is bumped by its COMMIT (migration 0031), through
// a mark that lives only inside its transaction.
describe.runIf(dialect === 'postgres')('the version a write takes at its commit, on postgres', () => {
  const versionOf = async (id: number) => Number((await ctx.database.kysely.selectFrom('campaigns').select('content_version').where('id', '=', id).executeTakeFirstOrThrow()).content_version);
  const marks = async () => (await ctx.database.kysely.selectFrom('campaign_write_marks' as never).select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n;

  it('moves the version on by one a write, stamps the feed with it and leaves no mark; a refused write moves nothing', async () => {
    const c = await newCampaign();
    const created = await send('POST', `${c.base}/things`, { newThing: { name: 'Counted', typeId: c.typeId } });
    const thing = json<{ slug: string; id: number }>(created);
    const firstTag = String(created.headers.etag);
    let version = await versionOf(c.id);
    for (const text of ['one', 'two', 'three']) {
      const res = await send('PUT', `${c.base}/things/${thing.slug}`, { updatedThing: { description: [{ type: 'paragraph', children: [{ text }] }] } });
      expect(res.statusCode, res.body).toBe(200);
      expect(await versionOf(c.id)).toBe(version + 1);
      version += 1;
      expect(Number(await marks())).toBe(0);
      const row = await ctx.database.kysely.selectFrom('changes').select('version').where('campaign_id', '=', c.id).where('kind', '=', 3).where('record_id', '=', thing.id).executeTakeFirstOrThrow();
      expect(Number(row.version)).toBe(version);
    }
    const refused = await ctx.app.inject({ method: 'PUT', url: `${c.base}/things/${thing.slug}`, headers: { ...owner.headers, 'if-match': firstTag }, payload: { updatedThing: { name: 'Late' } } });
    expect(refused.statusCode, refused.body).toBe(412);
    expect(await versionOf(c.id)).toBe(version);
    expect(Number(await marks())).toBe(0);
  });

  // The mark is written with the COMMIT after it (db/pipeline.ts): a campaign gone by then must make
  // the mark fail, so that COMMIT rolls back every statement of the write (migration 0034).
  it('rolls back the whole write, and answers 404, when its campaign is gone at the mark', async () => {
    const c = await newCampaign();
    const thing = json<{ slug: string; id: number; name: string }>(await send('POST', `${c.base}/things`, { newThing: { name: 'Kept', typeId: c.typeId } }));
    const version = await versionOf(c.id);
    const announced: number[] = [];
    const scope = { committed: (campaignId: number) => announced.push(campaignId), unannounced: () => {} };
    const write = inWriteScope(scope, () =>
      campaignWrite(ctx.database, c.id, async (trx) => {
        await trx.updateTable('things').set({ name: 'Lost' }).where('id', '=', thing.id).execute();
        // The campaign goes to the trash inside the write itself, after its write lock was taken.
        await trx.updateTable('campaigns').set({ deleted_at: new Date().toISOString() }).where('id', '=', c.id).execute();
        return 'done';
      }),
    );
    await expect(write).rejects.toMatchObject({ code: 'campaign_not_found' });
    const row = await ctx.database.kysely.selectFrom('things').select('name').where('id', '=', thing.id).executeTakeFirstOrThrow();
    expect(row.name).toBe('Kept');
    const campaign = await ctx.database.kysely.selectFrom('campaigns').select('deleted_at').where('id', '=', c.id).executeTakeFirstOrThrow();
    expect(campaign.deleted_at).toBeNull();
    expect(await versionOf(c.id)).toBe(version);
    expect(Number(await marks())).toBe(0);
    expect(announced).toEqual([]);
    // The connection is fit for the next write.
    const res = await send('PUT', `${c.base}/things/${thing.slug}`, { updatedThing: { name: 'Renamed' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(await versionOf(c.id)).toBe(version + 1);
  });

  // A save's UPDATE goes with the mark, its answer built from the row it read (common.ts
  // heldRecordUpdate). The locks keep the row as read; should it have moved on all the same, the
  // mark fails (migration 0035), the whole write rolls back and runs again from a fresh read.
  it('runs a write again when the row a held UPDATE was built from moved on since its read', async () => {
    const c = await newCampaign();
    const thing = json<{ slug: string; id: number }>(await send('POST', `${c.base}/things`, { newThing: { name: 'Read once', typeId: c.typeId } }));
    const version = await versionOf(c.id);
    const reruns = ctx.database.reruns;
    const answers: { version: number; name: string }[] = [];
    let attempts = 0;
    const scope = { committed: () => {}, unannounced: () => {} };
    await inWriteScope(scope, () =>
      campaignWrite(ctx.database, c.id, async (trx) => {
        attempts += 1;
        const row = (await findThingBySlug(trx, c.id, thing.slug, { forUpdate: true }))!;
        // The first attempt's read is one version behind the row, as if another writer had changed it unseen.
        const read = attempts === 1 ? { ...row, version: row.version - 1 } : row;
        const built = heldRecordUpdate(trx, 'things', read, { name: `Attempt ${attempts}` }, true, new Date().toISOString());
        answers.push({ version: built.version, name: built.name });
      }, 'concurrent'),
    );
    expect(attempts).toBe(2);
    expect(ctx.database.reruns).toBe(reruns + 1);
    const stored = await ctx.database.kysely.selectFrom('things').select(['name', 'version']).where('id', '=', thing.id).executeTakeFirstOrThrow();
    // What the second attempt answered is what is stored: one update, at the version it read.
    expect(stored).toEqual(answers[1]);
    expect(answers[0]!.version).toBe(stored.version - 1);
    expect(await versionOf(c.id)).toBe(version + 1);
    expect(Number(await marks())).toBe(0);
  });
});
