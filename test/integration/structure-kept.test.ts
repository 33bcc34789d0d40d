// Properties, tags and aliases travel wherever the record does (CONTRACT "Records: properties, tags,
// aliases"): the changes feed carries them (as the view may read them), and the trash keeps them: a
// restored thing or arc has them back, a restored thing type its fields.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type TestContext, type TestUser } from '../support/app.js';
import { contextWithUsers, createThing, newCampaign, type TestCampaign } from '../support/fixtures.js';
import { joinCampaign } from '../support/sharing.js';
import { dialect } from '../support/test-db.js';

let ctx: TestContext;
let owner: TestUser;
let gm: TestUser;

beforeAll(async () => {
  ({ ctx, owner, stranger: gm } = await contextWithUsers());
});
afterAll(async () => {
  await ctx.close();
});

async function ok<T = any>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = {}, user: TestUser = owner): Promise<T> {
  const res = await ctx.app.inject({ method, url, headers: { ...user.headers, ...headers }, ...(payload === undefined ? {} : { payload: payload as object }) });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(method === 'POST' && !url.endsWith('/restore') ? 201 : method === 'DELETE' ? 204 : 200);
  return (res.body === '' ? undefined : json(res)) as T;
}

/** A GET answer without what a restore may move. */
function stable(record: Record<string, unknown>): Record<string, unknown> {
  const { updatedAt: _u, version: _v, ...rest } = record;
  return rest;
}

interface Change {
  kind: string;
  op: string;
  id: number | string;
  record?: { properties?: unknown[]; tags?: string[]; aliases?: string[]; fields?: unknown[] };
}

async function feed(c: TestCampaign, headers: Record<string, string> = {}, user: TestUser = owner): Promise<Change[]> {
  const changes: Change[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await ok<{ changes: Change[]; cursor: string; more: boolean }>('GET', `${c.base}/changes${cursor === undefined ? '' : `?since=${encodeURIComponent(cursor)}`}`, undefined, headers, user);
    changes.push(...page.changes);
    if (!page.more) return changes;
    cursor = page.cursor;
  }
  throw new Error('the feed does not end');
}

async function structured(c: TestCampaign) {
  const hidden = await createThing(ctx.app, owner, c, 'The Black Spider', { visibility: 'gm' });
  const shown = await createThing(ctx.app, owner, c, 'Gundren');
  const properties = [
    { key: 'Employer', value: { targetType: 'thing', targetId: hidden.id }, gmOnly: false },
    { key: 'Friends', value: [{ targetType: 'thing', targetId: shown.id }, { targetType: 'thing', targetId: hidden.id }, 'Sildar'], gmOnly: false },
    { key: 'True name', value: 'Nezznar', gmOnly: true },
    { key: 'Level', value: 9, gmOnly: false },
  ];
  const thing = await createThing(ctx.app, owner, c, 'Drow', { properties, tags: ['villain', 'Drow'], aliases: ['The Spider’s hand'] });
  const arc = await ok<{ id: number; slug: string }>('POST', `${c.base}/arcs`, {
    newArc: { name: 'Wave Echo Cave', properties: [{ key: 'Found by', value: { targetType: 'thing', targetId: shown.id } }, { key: 'Secret door', value: true, gmOnly: true }], tags: ['dungeon'], aliases: ['The lost mine'] },
  });
  return { hidden, shown, thing, arc, properties };
}

describe(`properties, tags and aliases kept on ${dialect}`, () => {
  it('the changes feed carries them, GM-only properties included, and a type’s fields (players have no feed)', async () => {
    const c = await newCampaign(ctx.app, owner, 'Feed with structure');
    await joinCampaign(ctx.app, owner, c.slug, gm, 'gm');
    const { shown, thing, arc, properties } = await structured(c);
    const record = (changes: Change[], kind: string, id: number) => changes.find((change) => change.kind === kind && change.id === id)?.record;

    const full = await feed(c);
    expect(record(full, 'thing', thing.id)).toMatchObject({ properties, tags: ['villain', 'Drow'], aliases: ['The Spider’s hand'] });
    expect(record(full, 'arc', arc.id)).toMatchObject({
      properties: [
        { key: 'Found by', value: { targetType: 'thing', targetId: shown.id }, gmOnly: false },
        { key: 'Secret door', value: true, gmOnly: true },
      ],
      tags: ['dungeon'],
      aliases: ['The lost mine'],
    });
    // A thing type's fields too.
    const type = await ok<{ id: number }>('POST', `${c.base}/thing-types`, { newThingType: { name: 'Factions', fields: [{ key: 'Leader', kind: 'link' }] } });
    expect((await feed(c)).find((change) => change.kind === 'thing-type' && change.id === type.id)?.record).toMatchObject({ fields: [{ key: 'Leader', kind: 'link' }] });
    // A game master's feed is the same.
    expect(record(await feed(c, {}, gm), 'thing', thing.id)).toEqual(record(full, 'thing', thing.id));

    // Players have no feed at all (it is for the owner and game masters), nor a game master viewing as one.
    const player = await ctx.createUser();
    await joinCampaign(ctx.app, owner, c.slug, player, 'player');
    for (const [user, headers] of [
      [player, {}],
      [gm, { 'loreforge-view': 'player' }],
    ] as const) {
      const res = await ctx.app.inject({ method: 'GET', url: `${c.base}/changes`, headers: { ...user.headers, ...headers } });
      expect(res.statusCode).toBe(403);
      expect(res.body).not.toMatch(/Nezznar|Secret door|Employer|Black Spider/);
    }
  });

  it('the trash keeps them: a restored thing and arc have their properties, tags and aliases, and their links count again', async () => {
    const c = await newCampaign(ctx.app, owner, 'Trash with structure');
    const { shown, thing, arc } = await structured(c);
    const thingBefore = await ok('GET', `${c.base}/things/${thing.slug}`);
    const arcBefore = await ok('GET', `${c.base}/arcs/${arc.slug}`);
    expect(thingBefore.properties).toHaveLength(4);
    const backlinksBefore = await ok<{ slug: string; fields: string[]; updatedAt: string }[]>('GET', `${c.base}/things/${shown.slug}/backlinks`);
    expect(backlinksBefore.map((b) => `${b.slug}:${b.fields.join(',')}`).sort()).toEqual([`${thing.slug}:properties.Friends`, `${arc.slug}:properties.Found by`].sort());

    await ok('DELETE', `${c.base}/things/${thing.slug}`);
    await ok('DELETE', `${c.base}/arcs/${arc.slug}`);
    expect(await ok('GET', `${c.base}/things/${shown.slug}/backlinks`)).toEqual([]);
    expect(await ok('GET', `${c.base}/things?tag=villain`)).toEqual([]);

    const restoredThing = await ok('POST', `${c.base}/trash/thing/${thing.id}/restore`);
    const restoredArc = await ok('POST', `${c.base}/trash/arc/${arc.id}/restore`);
    expect(stable(restoredThing.record)).toEqual(stable(thingBefore));
    expect(stable(await ok('GET', `${c.base}/things/${thing.slug}`))).toEqual(stable(thingBefore));
    expect(stable(restoredArc.record)).toEqual(stable(arcBefore));
    expect(stable(await ok('GET', `${c.base}/arcs/${arc.slug}`))).toEqual(stable(arcBefore));
    const withoutTimes = (list: { updatedAt?: string; slug: string }[]) => list.map(({ updatedAt: _u, ...rest }) => rest);
    expect(withoutTimes(await ok('GET', `${c.base}/things/${shown.slug}/backlinks`))).toEqual(withoutTimes(backlinksBefore));
    expect((await ok<{ id: number }[]>('GET', `${c.base}/things?tag=villain`)).map((x) => x.id)).toEqual([thing.id]);
  });

  it('the trash keeps a thing type’s fields, and its things’ properties', async () => {
    const c = await newCampaign(ctx.app, owner, 'Trash with fields');
    const fields = [
      { key: 'CR', kind: 'number' },
      { key: 'Lair', kind: 'link' },
    ];
    const type = await ok<{ id: number; name: string; fields: unknown }>('POST', `${c.base}/thing-types`, { newThingType: { name: 'Monsters', fields } });
    const monster = await createThing(ctx.app, owner, c, 'Young green dragon', { typeId: type.id, properties: [{ key: 'CR', value: 8 }], tags: ['dragon'] });
    expect(monster).toMatchObject({ properties: [{ key: 'CR', value: 8, gmOnly: false }, { key: 'Lair', value: null, gmOnly: false }], tags: ['dragon'] });
    const typeFields = async () => (await ok<{ id: number; fields: unknown }[]>('GET', `${c.base}/thing-types`)).find((x) => x.id === type.id)?.fields;
    expect(await typeFields()).toEqual(fields);

    await ok('DELETE', `${c.base}/thing-types/${type.id}`);
    expect(await typeFields()).toBeUndefined();
    const restored = await ok<{ record: { fields: unknown } }>('POST', `${c.base}/trash/thing-type/${type.id}/restore`);
    expect(restored.record.fields).toEqual(fields);
    expect(await typeFields()).toEqual(fields);
    expect((await ok<{ thingTypes: { id: number; fields: unknown }[] }>('GET', `${c.base}/export?format=json`)).thingTypes.find((x) => x.id === type.id)?.fields).toEqual(fields);
    expect(stable(await ok('GET', `${c.base}/things/${(monster as { slug: string }).slug}`))).toEqual(stable(monster as unknown as Record<string, unknown>));
    // The fields still rule: a value of a declared key must match its kind.
    const wrong = await ctx.app.inject({ method: 'POST', url: `${c.base}/things`, headers: owner.headers, payload: { newThing: { name: 'Wyrmling', typeId: type.id, properties: [{ key: 'CR', value: 'two' }] } } });
    expect(wrong.statusCode).toBe(400);
  });
});
