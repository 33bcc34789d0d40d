import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { errorPathsOf, newCampaign, problemOf, type TestCampaign } from '../support/fixtures.js';
import { joinCampaign } from '../support/sharing.js';
import { dialect } from '../support/test-db.js';

// Records with structure (CONTRACT "# Phase 3" › "Records: properties, tags, aliases"): the shapes
// and their validation with pointers, a thing type's fields, link properties as relations
// (backlinks through renames, deletes and restores), the tag filter and sort, the tags route,
// thingCount in both views, and what players do and do not see move.

interface Property {
  key: string;
  value: unknown;
  gmOnly: boolean;
}
interface Structured {
  id: number;
  slug: string;
  name: string;
  updatedAt: string;
  properties: Property[];
  tags: string[];
  aliases: string[];
}
interface ThingType {
  id: number;
  name: string;
  fields: { key: string; kind: string }[];
  thingCount: number;
}

let ctx: TestContext;
let owner: TestUser;
let player: TestUser;
let other: TestUser;

beforeAll(async () => {
  ctx = await createTestContext();
  owner = await ctx.createUser();
  player = await ctx.createUser();
  other = await ctx.createUser();
});
afterAll(() => ctx.close());

async function send(user: TestUser, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return ctx.app.inject({ method, url, headers: { ...user.headers, ...headers }, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
}

async function ok<T = Structured>(res: Promise<LightMyRequestResponse>, status = 200): Promise<T> {
  const answer = await res;
  expect(answer.statusCode, answer.body).toBe(status);
  return json<T>(answer);
}

/** A campaign of the owner's with the player as a member. */
async function sharedCampaign(): Promise<TestCampaign> {
  const campaign = await newCampaign(ctx.app, owner);
  await joinCampaign(ctx.app, owner, campaign.slug, player, 'player');
  return campaign;
}

const postThing = (c: TestCampaign, body: Record<string, unknown>, typeId = c.typeId) => send(owner, 'POST', `${c.base}/things`, { newThing: { name: 'Meepo', typeId, ...body } });
const putThing = (c: TestCampaign, slug: string, body: Record<string, unknown>) => send(owner, 'PUT', `${c.base}/things/${slug}`, { updatedThing: body });
const postArc = (c: TestCampaign, body: Record<string, unknown>) => send(owner, 'POST', `${c.base}/arcs`, { newArc: { name: 'Sunless Citadel', ...body } });
const putArc = (c: TestCampaign, slug: string, body: Record<string, unknown>) => send(owner, 'PUT', `${c.base}/arcs/${slug}`, { updatedArc: body });
const thing = (c: TestCampaign, name: string, body: Record<string, unknown> = {}) => ok(postThing(c, { name, ...body }), 201);
const arc = (c: TestCampaign, name: string, body: Record<string, unknown> = {}) => ok(postArc(c, { name, ...body }), 201);
const link = (targetType: 'thing' | 'arc', targetId: number) => ({ targetType, targetId });

/** A 400 with exactly these pointers (in any order) and this code. */
async function rejected(res: Promise<LightMyRequestResponse>, paths: string[], code = 'validation_failed'): Promise<void> {
  const answer = await res;
  expect(answer.statusCode, answer.body).toBe(400);
  expect(problemOf(answer).code, answer.body).toBe(code);
  expect(errorPathsOf(answer).sort(), answer.body).toEqual([...paths].sort());
}

describe(`properties, tags and aliases: shapes and validation, on ${dialect}`, () => {
  let c: TestCampaign;
  beforeAll(async () => {
    c = await sharedCampaign();
  });

  it('defaults to none in a POST, and keeps every kind of value, in order, on things and arcs', async () => {
    const bare = await thing(c, 'Bare');
    expect(bare).toMatchObject({ properties: [], tags: [], aliases: [] });
    const bareArc = await arc(c, 'Bare arc');
    expect(bareArc).toMatchObject({ properties: [], tags: [], aliases: [] });
    const properties = [
      { key: 'species', value: 'kobold', gmOnly: false },
      { key: 'level', value: 1.5, gmOnly: false },
      { key: 'alive', value: true, gmOnly: false },
      { key: 'fate', value: null, gmOnly: true },
      { key: 'serves', value: link('thing', bare.id), gmOnly: false },
      { key: 'in', value: link('arc', bareArc.id), gmOnly: false },
      { key: 'mixed', value: ['a', 2, false, null, link('thing', bare.id), link('arc', bareArc.id)], gmOnly: false },
      { key: 'empty list', value: [], gmOnly: false },
      { key: 'long text', value: 'é'.repeat(10_000), gmOnly: false },
    ];
    // gmOnly is optional in a request (false).
    const sent = properties.map(({ gmOnly, ...rest }) => (gmOnly ? { ...rest, gmOnly } : rest));
    const created = await thing(c, 'Meepo', { properties: sent, tags: ['Kobold', 'ally'], aliases: ['Meepo the Keeper'] });
    expect(created).toMatchObject({ properties, tags: ['Kobold', 'ally'], aliases: ['Meepo the Keeper'] });
    expect(await ok(send(owner, 'GET', `${c.base}/things/${created.slug}`))).toMatchObject({ properties, tags: ['Kobold', 'ally'], aliases: ['Meepo the Keeper'] });
    const createdArc = await arc(c, 'Dragon hunt', { properties: sent, tags: ['main'], aliases: ['The Hunt'] });
    expect(createdArc).toMatchObject({ properties, tags: ['main'], aliases: ['The Hunt'] });
    expect(await ok(send(owner, 'GET', `${c.base}/arcs/${createdArc.slug}`))).toMatchObject({ properties, tags: ['main'], aliases: ['The Hunt'] });
  });

  it('trims tags, aliases and keys and keeps their order and case', async () => {
    const created = await thing(c, 'Trimmed', { properties: [{ key: '  Home  ', value: '  kept as sent  ' }], tags: ['  b ', 'A'], aliases: [' Zed ', 'alpha'] });
    expect(created).toMatchObject({ properties: [{ key: 'Home', value: '  kept as sent  ', gmOnly: false }], tags: ['b', 'A'], aliases: ['Zed', 'alpha'] });
  });

  it('replaces a given array in a PUT and keeps an omitted one', async () => {
    const created = await thing(c, 'Replaced', { properties: [{ key: 'a', value: 1 }, { key: 'b', value: 2 }], tags: ['x', 'y'], aliases: ['One'] });
    const tagsOnly = await ok(putThing(c, created.slug, { tags: ['z'] }));
    expect(tagsOnly).toMatchObject({ properties: [{ key: 'a', value: 1, gmOnly: false }, { key: 'b', value: 2, gmOnly: false }], tags: ['z'], aliases: ['One'] });
    const replaced = await ok(putThing(c, created.slug, { properties: [{ key: 'b', value: 3 }], aliases: [] }));
    expect(replaced).toMatchObject({ properties: [{ key: 'b', value: 3, gmOnly: false }], tags: ['z'], aliases: [] });
    const cleared = await ok(putThing(c, created.slug, { properties: [], tags: [] }));
    expect(cleared).toMatchObject({ properties: [], tags: [], aliases: [] });
    const createdArc = await arc(c, 'Replaced arc', { properties: [{ key: 'a', value: 1 }], tags: ['x'] });
    expect(await ok(putArc(c, createdArc.slug, { name: 'Renamed arc' }))).toMatchObject({ properties: [{ key: 'a', value: 1, gmOnly: false }], tags: ['x'] });
    expect(await ok(putArc(c, createdArc.slug, { properties: [{ key: 'c', value: 'd', gmOnly: true }], tags: [], aliases: ['Other'] }))).toMatchObject({
      properties: [{ key: 'c', value: 'd', gmOnly: true }],
      tags: [],
      aliases: ['Other'],
    });
  });

  it('rejects each malformed property with a pointer to it, on POST and PUT, things and arcs', async () => {
    const target = await thing(c, 'Target');
    const cases: [unknown, string[]][] = [
      ['not an array', ['properties']],
      [[null], ['properties/0']],
      [['text'], ['properties/0']],
      [[[]], ['properties/0']],
      [[{ key: '', value: 1 }], ['properties/0/key']],
      [[{ key: '   ', value: 1 }], ['properties/0/key']],
      [[{ key: 'k'.repeat(101), value: 1 }], ['properties/0/key']],
      [[{ key: 'tab\there', value: 1 }], ['properties/0/key']],
      [[{ key: 7, value: 1 }], ['properties/0/key']],
      [[{ value: 1 }], ['properties/0/key']],
      [[{ key: 'Level', value: 1 }, { key: 'level', value: 2 }], ['properties/1/key']],
      [[{ key: 'Ärger', value: 1 }, { key: 'äRGER', value: 2 }], ['properties/1/key']],
      [[{ key: 'no value' }], ['properties/0/value']],
      [[{ key: 'a', value: 'x'.repeat(10_001) }], ['properties/0/value']],
      [[{ key: 'a', value: 'nul\u0000' }], ['properties/0/value']],
      [[{ key: 'a', value: { text: 'object' } }], ['properties/0/value']],
      [[{ key: 'a', value: link('thing', 0) }], ['properties/0/value']],
      [[{ key: 'a', value: link('thing', -3) }], ['properties/0/value']],
      [[{ key: 'a', value: link('thing', 1.5) }], ['properties/0/value']],
      [[{ key: 'a', value: { targetType: 'campaign', targetId: 1 } }], ['properties/0/value']],
      [[{ key: 'a', value: { targetType: 'thing', targetId: '1' } }], ['properties/0/value']],
      [[{ key: 'a', value: { targetType: 'thing' } }], ['properties/0/value']],
      [[{ key: 'a', value: { ...link('thing', target.id), label: 'extra' } }], ['properties/0/value']],
      [[{ key: 'a', value: [1, [2]] }], ['properties/0/value/1']],
      [[{ key: 'a', value: [1, 'ok', { x: 1 }] }], ['properties/0/value/2']],
      [[{ key: 'a', value: Array.from({ length: 101 }, (_, i) => i) }], ['properties/0/value']],
      [[{ key: 'a', value: 1, gmOnly: 'yes' }], ['properties/0/gmOnly']],
      [[{ key: 'a', value: 1, gmOnly: null }], ['properties/0/gmOnly']],
      [[{ key: 'a', value: 1, secret: true }], ['properties/0/secret']],
      [Array.from({ length: 201 }, (_, i) => ({ key: `k${i}`, value: i })), ['properties']],
      // Every problem is reported, each at its place.
      [[{ key: '', value: [[1]] }, { key: 'b', value: 1, gmOnly: 1 }], ['properties/0/key', 'properties/0/value/0', 'properties/1/gmOnly']],
    ];
    for (const [properties, paths] of cases) {
      await rejected(postThing(c, { properties }), paths.map((path) => `/newThing/${path}`));
      await rejected(putThing(c, target.slug, { properties }), paths.map((path) => `/updatedThing/${path}`));
      await rejected(postArc(c, { properties }), paths.map((path) => `/newArc/${path}`));
    }
    // Nothing was written by the refused PUTs.
    expect(await ok(send(owner, 'GET', `${c.base}/things/${target.slug}`))).toMatchObject({ properties: [] });
    // The limits themselves are allowed.
    const most = Array.from({ length: 200 }, (_, i) => ({ key: `${'k'.repeat(96)}${String(i).padStart(3, '0')}`, value: i }));
    expect((await ok(putThing(c, target.slug, { properties: most }))).properties).toHaveLength(200);
    expect((await ok(putThing(c, target.slug, { properties: [{ key: 'list', value: Array.from({ length: 100 }, (_, i) => i) }] }))).properties[0]!.value).toHaveLength(100);
  });

  it('rejects tags and aliases that break the rules, with pointers', async () => {
    const target = await thing(c, 'Tagged');
    const tagCases: [unknown, string[]][] = [
      ['villain', ['tags']],
      [[''], ['tags/0']],
      [['  '], ['tags/0']],
      [['t'.repeat(51)], ['tags/0']],
      [[3], ['tags/0']],
      [['line\nbreak'], ['tags/0']],
      [['Villain', 'VILLAIN'], ['tags/1']],
      [['a', ' a '], ['tags/1']],
      [Array.from({ length: 101 }, (_, i) => `t${i}`), ['tags']],
    ];
    for (const [tags, paths] of tagCases) {
      await rejected(postThing(c, { tags }), paths.map((path) => `/newThing/${path}`));
      await rejected(putArc(c, (await arc(c, 'Tag target')).slug, { tags }), paths.map((path) => `/updatedArc/${path}`));
    }
    const aliasCases: [unknown, string[]][] = [
      [{ alias: 'x' }, ['aliases']],
      [[''], ['aliases/0']],
      [['a'.repeat(256)], ['aliases/0']],
      [[null], ['aliases/0']],
      [['Meepo', 'meepo'], ['aliases/1']],
      [Array.from({ length: 21 }, (_, i) => `Name ${i}`), ['aliases']],
    ];
    for (const [aliases, paths] of aliasCases) {
      await rejected(putThing(c, target.slug, { aliases }), paths.map((path) => `/updatedThing/${path}`));
      await rejected(postArc(c, { aliases }), paths.map((path) => `/newArc/${path}`));
    }
    // The limits are allowed.
    const most = await ok(putThing(c, target.slug, { tags: Array.from({ length: 100 }, (_, i) => `${'t'.repeat(47)}${String(i).padStart(3, '0')}`), aliases: Array.from({ length: 20 }, (_, i) => `${'a'.repeat(253)}${String(i).padStart(2, '0')}`) }));
    expect([most.tags.length, most.aliases.length]).toEqual([100, 20]);
  });

  it('refuses a link to a record this campaign does not have: 400 invalid_reference with a pointer', async () => {
    const elsewhere = await newCampaign(ctx.app, other);
    const foreignThing = await ok(send(other, 'POST', `${elsewhere.base}/things`, { newThing: { name: 'Foreign', typeId: elsewhere.typeId } }), 201);
    const foreignArc = await ok(send(other, 'POST', `${elsewhere.base}/arcs`, { newArc: { name: 'Foreign arc' } }), 201);
    const mine = await thing(c, 'Mine');
    const myArc = await arc(c, 'My arc');
    const properties = [
      { key: 'ok', value: link('thing', mine.id) },
      { key: 'foreign thing', value: link('thing', foreignThing.id) },
      { key: 'list', value: [link('arc', myArc.id), link('arc', foreignArc.id), link('thing', 2_000_000_000)] },
      { key: 'unknown arc', value: link('arc', 2_000_000_001) },
    ];
    const paths = ['properties/1/value', 'properties/2/value/1', 'properties/2/value/2', 'properties/3/value'];
    await rejected(postThing(c, { properties }), paths.map((path) => `/newThing/${path}`), 'invalid_reference');
    await rejected(putThing(c, mine.slug, { properties }), paths.map((path) => `/updatedThing/${path}`), 'invalid_reference');
    await rejected(postArc(c, { properties }), paths.map((path) => `/newArc/${path}`), 'invalid_reference');
    await rejected(putArc(c, myArc.slug, { properties }), paths.map((path) => `/updatedArc/${path}`), 'invalid_reference');
    // A link to itself is a link to a record of the campaign.
    expect((await ok(putThing(c, mine.slug, { properties: [{ key: 'self', value: link('thing', mine.id) }] }))).properties).toHaveLength(1);
  });

  it('checks values with fast-check: whatever is sent, a 201 stores exactly what the rules keep, and a 400 stores nothing', async () => {
    const campaign = await newCampaign(ctx.app, owner);
    const target = await ok(send(owner, 'POST', `${campaign.base}/things`, { newThing: { name: 'Anchor', typeId: campaign.typeId } }), 201);
    const scalar = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
      fc.constant(link('thing', target.id)),
      fc.record({ targetType: fc.constantFrom('thing', 'arc', 'page'), targetId: fc.oneof(fc.integer({ min: -2, max: 3 }), fc.constant(target.id)) }),
      fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
    );
    const value = fc.oneof(scalar, fc.array(fc.oneof(scalar, fc.array(fc.integer(), { maxLength: 1 })), { maxLength: 3 }));
    const property = fc.record(
      { key: fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('Level', 'level', ' x ', ''), fc.integer()), value, gmOnly: fc.oneof(fc.boolean(), fc.constant('no')) },
      { requiredKeys: ['key'] },
    );
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(property, { maxLength: 4 }), async (properties) => {
        const res = await send(owner, 'POST', `${campaign.base}/things`, { newThing: { name: 'Random', typeId: campaign.typeId, properties } });
        if (res.statusCode === 201) {
          accepted += 1;
          const body = json<Structured>(res);
          expect(body.properties.map((p) => p.key)).toEqual(properties.map((p) => String(p.key).trim()));
          for (const [i, sent] of properties.entries()) {
            expect(body.properties[i]!.gmOnly).toBe(sent.gmOnly ?? false);
            expect(body.properties[i]!.value).toEqual(sent.value === undefined ? undefined : JSON.parse(JSON.stringify(sent.value)));
          }
          expect(await ok(send(owner, 'GET', `${campaign.base}/things/${body.slug}`))).toEqual(body);
        } else {
          expect(res.statusCode, res.body).toBe(400);
          expect(['validation_failed', 'invalid_reference']).toContain(problemOf(res).code);
          for (const path of errorPathsOf(res)) expect(path).toMatch(/^\/newThing\/properties(\/\d+(\/(key|value|gmOnly|[^/]+)(\/\d+)?)?)?$/);
        }
      }),
      { numRuns: 60 },
    );
    expect(accepted).toBeGreaterThan(0);
    // The refused ones left nothing behind: the anchor and the accepted things only.
    const listed = await ok<Structured[]>(send(owner, 'GET', `${campaign.base}/things?fetchAll=true`));
    expect(listed.length).toBe(accepted + 1);
  });
});

describe(`fields per thing type, on ${dialect}`, () => {
  let c: TestCampaign;
  beforeAll(async () => {
    c = await sharedCampaign();
  });

  const fields = [
    { key: 'Species', kind: 'text' },
    { key: 'Level', kind: 'number' },
    { key: 'Alive', kind: 'boolean' },
    { key: 'Born', kind: 'date' },
    { key: 'Serves', kind: 'link' },
    { key: 'Allies', kind: 'list' },
  ];

  it('answers and takes fields on thing types, and checks them with pointers', async () => {
    const created = await ok<ThingType>(send(owner, 'POST', `${c.base}/thing-types`, { newThingType: { name: 'Monsters', fields } }), 201);
    expect(created).toMatchObject({ fields, thingCount: 0 });
    expect(await ok<ThingType>(send(owner, 'GET', `${c.base}/thing-types/${created.id}`))).toMatchObject({ fields });
    const listed = await ok<ThingType[]>(send(owner, 'GET', `${c.base}/thing-types`));
    expect(listed.find((type) => type.id === created.id)).toMatchObject({ fields });
    expect(listed.filter((type) => type.id !== created.id).every((type) => type.fields.length === 0)).toBe(true);
    const changed = await ok<ThingType>(send(owner, 'PUT', `${c.base}/thing-types/${created.id}`, { updatedThingType: { fields: fields.slice(0, 2) } }));
    expect(changed).toMatchObject({ name: 'Monsters', fields: fields.slice(0, 2) });
    const bad: [unknown, string[]][] = [
      ['text', ['fields']],
      [[null], ['fields/0']],
      [[{ key: '', kind: 'text' }], ['fields/0/key']],
      [[{ key: 'k'.repeat(101), kind: 'text' }], ['fields/0/key']],
      [[{ key: 'a', kind: 'color' }], ['fields/0/kind']],
      [[{ key: 'a' }], ['fields/0/kind']],
      [[{ key: 'a', kind: 'text', required: true }], ['fields/0/required']],
      [[{ key: 'Level', kind: 'number' }, { key: 'LEVEL', kind: 'text' }], ['fields/1/key']],
      [Array.from({ length: 101 }, (_, i) => ({ key: `f${i}`, kind: 'text' })), ['fields']],
    ];
    for (const [value, paths] of bad) {
      await rejected(send(owner, 'POST', `${c.base}/thing-types`, { newThingType: { name: `Bad ${paths.join()}`, fields: value } }), paths.map((path) => `/newThingType/${path}`));
      await rejected(send(owner, 'PUT', `${c.base}/thing-types/${created.id}`, { updatedThingType: { fields: value } }), paths.map((path) => `/updatedThingType/${path}`));
    }
    expect(await ok<ThingType>(send(owner, 'GET', `${c.base}/thing-types/${created.id}`))).toMatchObject({ fields: fields.slice(0, 2) });
  });

  it('starts a new thing with the declared keys (null), after the properties given, without repeating a given one', async () => {
    const type = await ok<ThingType>(send(owner, 'POST', `${c.base}/thing-types`, { newThingType: { name: 'Creatures', fields } }), 201);
    const empty = await thing(c, 'Blank', { typeId: type.id });
    expect(empty.properties).toEqual(fields.map((field) => ({ key: field.key, value: null, gmOnly: false })));
    const some = await thing(c, 'Some', { typeId: type.id, properties: [{ key: 'colour', value: 'red' }, { key: 'level', value: 3, gmOnly: true }] });
    expect(some.properties).toEqual([
      { key: 'colour', value: 'red', gmOnly: false },
      { key: 'level', value: 3, gmOnly: true },
      ...fields.filter((field) => field.key !== 'Level').map((field) => ({ key: field.key, value: null, gmOnly: false })),
    ]);
    // A PUT replaces: the declared keys are not added back.
    expect((await ok(putThing(c, some.slug, { properties: [{ key: 'colour', value: 'blue' }] }))).properties).toEqual([{ key: 'colour', value: 'blue', gmOnly: false }]);
  });

  it('checks a declared key’s value against its kind (each kind, date included), leaves other keys free', async () => {
    const type = await ok<ThingType>(send(owner, 'POST', `${c.base}/thing-types`, { newThingType: { name: 'Checked', fields } }), 201);
    const target = await thing(c, 'Yusdrayl');
    const good: Record<string, unknown[]> = {
      Species: ['kobold', '', null],
      Level: [3, -1.5, 0, null],
      Alive: [true, false, null],
      Born: ['2026-11-24', '1492-02-29', '2026-11-24T10:30:00Z', '2026-11-24T10:30+02:00', null],
      Serves: [link('thing', target.id), null],
      Allies: [[], ['a', 1, link('thing', target.id)], null],
    };
    const bad: Record<string, unknown[]> = {
      Species: [3, true, link('thing', target.id), ['a']],
      Level: ['3', true, [3]],
      Alive: ['true', 1, [true]],
      Born: ['24/11/2026', '2026-02-30', '1493-02-29', '2026-13-01', 'tomorrow', 20261124, ['2026-11-24']],
      Serves: ['Yusdrayl', target.id, [link('thing', target.id)]],
      Allies: ['a', 1, link('thing', target.id)],
    };
    for (const [key, values] of Object.entries(good)) {
      for (const value of values) {
        // The kind is checked ignoring the key's case, as keys are compared.
        const created = await thing(c, `Good ${key}`, { typeId: type.id, properties: [{ key: 'free', value: 'anything' }, { key: key.toLowerCase(), value }] });
        expect(created.properties[1]).toEqual({ key: key.toLowerCase(), value, gmOnly: false });
      }
    }
    const existing = await thing(c, 'Existing', { typeId: type.id });
    for (const [key, values] of Object.entries(bad)) {
      for (const value of values) {
        const properties = [{ key: 'free', value: 7 }, { key, value }];
        await rejected(postThing(c, { properties }, type.id), ['/newThing/properties/1/value']);
        await rejected(putThing(c, existing.slug, { properties }), ['/updatedThing/properties/1/value']);
      }
    }
    // Undeclared keys take any value.
    expect((await thing(c, 'Free', { typeId: type.id, properties: [{ key: 'Levels', value: 'many' }, { key: 'born on', value: 'a Tuesday' }] })).properties.slice(0, 2)).toEqual([
      { key: 'Levels', value: 'many', gmOnly: false },
      { key: 'born on', value: 'a Tuesday', gmOnly: false },
    ]);
  });

  it('checks values against the type the thing will have when the type changes in the same PUT', async () => {
    const numbers = await ok<ThingType>(send(owner, 'POST', `${c.base}/thing-types`, { newThingType: { name: 'Numbered', fields: [{ key: 'rank', kind: 'number' }] } }), 201);
    const plain = await thing(c, 'Mover', { properties: [{ key: 'rank', value: 'high' }] });
    await rejected(putThing(c, plain.slug, { typeId: numbers.id, properties: [{ key: 'rank', value: 'high' }] }), ['/updatedThing/properties/0/value']);
    expect(await ok(putThing(c, plain.slug, { typeId: numbers.id, properties: [{ key: 'rank', value: 2 }] }))).toMatchObject({ properties: [{ key: 'rank', value: 2, gmOnly: false }] });
  });
});

interface Backlink {
  type: string;
  id: number;
  slug: string;
  fields: string[];
}

describe(`link properties are relations, on ${dialect}`, () => {
  it('count in the target’s backlinks as properties.<key>, for a GM; for players only when the property and its source are visible', async () => {
    const c = await sharedCampaign();
    const yusdrayl = await thing(c, 'Yusdrayl');
    const hunt = await arc(c, 'Dragon hunt');
    const meepo = await thing(c, 'Meepo', {
      properties: [
        { key: 'serves', value: link('thing', yusdrayl.id) },
        { key: 'quest', value: [link('arc', hunt.id), 'and more'] },
        { key: 'really serves', value: link('thing', yusdrayl.id), gmOnly: true },
      ],
    });
    const fromArc = await arc(c, 'Kobold war', { properties: [{ key: 'leader', value: link('thing', yusdrayl.id) }] });
    const hiddenSource = await thing(c, 'Calcryx', { visibility: 'gm', properties: [{ key: 'rival', value: link('thing', yusdrayl.id) }] });
    const gmLinks = await ok<Backlink[]>(send(owner, 'GET', `${c.base}/things/${yusdrayl.slug}/backlinks`));
    expect(gmLinks.map((b) => [b.type, b.slug, b.fields]).sort()).toEqual(
      [
        ['thing', meepo.slug, ['properties.really serves', 'properties.serves']],
        ['arc', fromArc.slug, ['properties.leader']],
        ['thing', hiddenSource.slug, ['properties.rival']],
      ].sort(),
    );
    const arcLinks = await ok<Backlink[]>(send(owner, 'GET', `${c.base}/arcs/${hunt.slug}/backlinks`));
    expect(arcLinks.map((b) => [b.slug, b.fields])).toEqual([[meepo.slug, ['properties.quest']]]);
    const playerLinks = await ok<Backlink[]>(send(player, 'GET', `${c.base}/things/${yusdrayl.slug}/backlinks`));
    expect(playerLinks.map((b) => [b.type, b.slug, b.fields]).sort()).toEqual(
      [
        ['thing', meepo.slug, ['properties.serves']],
        ['arc', fromArc.slug, ['properties.leader']],
      ].sort(),
    );
    // Removing the link property removes the backlink; making the property GM-only hides it from players.
    await ok(putArc(c, fromArc.slug, { properties: [] }));
    await ok(putThing(c, meepo.slug, { properties: [{ key: 'serves', value: link('thing', yusdrayl.id), gmOnly: true }] }));
    expect((await ok<Backlink[]>(send(owner, 'GET', `${c.base}/things/${yusdrayl.slug}/backlinks`))).map((b) => [b.slug, b.fields]).sort()).toEqual(
      [
        [meepo.slug, ['properties.serves']],
        [hiddenSource.slug, ['properties.rival']],
      ].sort(),
    );
    expect(await ok<Backlink[]>(send(player, 'GET', `${c.base}/things/${yusdrayl.slug}/backlinks`))).toEqual([]);
    expect(await ok<Backlink[]>(send(owner, 'GET', `${c.base}/arcs/${hunt.slug}/backlinks`))).toEqual([]);
  });

  it('survive a rename and a slug change of the target: still linked by id, still a backlink', async () => {
    const c = await sharedCampaign();
    const target = await thing(c, 'Yusdrayl');
    const source = await thing(c, 'Meepo', { properties: [{ key: 'serves', value: link('thing', target.id) }] });
    await ok(putThing(c, target.slug, { name: 'Queen Yusdrayl', slug: 'queen-yusdrayl' }));
    expect((await ok(send(owner, 'GET', `${c.base}/things/${source.slug}`))).properties).toEqual([{ key: 'serves', value: link('thing', target.id), gmOnly: false }]);
    expect((await ok<Backlink[]>(send(player, 'GET', `${c.base}/things/queen-yusdrayl/backlinks`))).map((b) => [b.slug, b.fields])).toEqual([[source.slug, ['properties.serves']]]);
  });

  it('survive the target’s delete and restore, and the source’s: the backlink comes back with the record', async () => {
    const c = await sharedCampaign();
    const target = await thing(c, 'Yusdrayl');
    const targetArc = await arc(c, 'Hunt');
    const source = await thing(c, 'Meepo', { properties: [{ key: 'serves', value: link('thing', target.id) }, { key: 'on', value: link('arc', targetArc.id) }] });
    const backlinks = async (what: string) => (await ok<Backlink[]>(send(owner, 'GET', `${c.base}/${what}/backlinks`))).map((b) => [b.slug, b.fields]);
    // The target in the trash: gone from reads; the source keeps its value as stored.
    expect((await send(owner, 'DELETE', `${c.base}/things/${target.slug}`)).statusCode).toBe(204);
    expect((await send(owner, 'GET', `${c.base}/things/${target.slug}/backlinks`)).statusCode).toBe(404);
    expect((await ok(send(owner, 'GET', `${c.base}/things/${source.slug}`))).properties[0]).toEqual({ key: 'serves', value: link('thing', target.id), gmOnly: false });
    // A new link to a record in the trash names no record of the campaign.
    await rejected(postThing(c, { properties: [{ key: 'serves', value: link('thing', target.id) }] }), ['/newThing/properties/0/value'], 'invalid_reference');
    // The source stays writable with the link it already had (the web app sends every property back).
    const edited = await ok(putThing(c, source.slug, { properties: [{ key: 'serves', value: link('thing', target.id) }, { key: 'on', value: link('arc', targetArc.id) }, { key: 'mood', value: 'sad' }] }));
    expect(edited.properties).toHaveLength(3);
    // …but no other record may make a new one to it.
    const bystander = await thing(c, 'Bystander');
    await rejected(putThing(c, bystander.slug, { properties: [{ key: 'serves', value: link('thing', target.id) }] }), ['/updatedThing/properties/0/value'], 'invalid_reference');
    await ok(send(owner, 'POST', `${c.base}/trash/thing/${target.id}/restore`));
    expect(await backlinks(`things/${target.slug}`)).toEqual([[source.slug, ['properties.serves']]]);
    // The source in the trash, then back: its relations are indexed again.
    expect((await send(owner, 'DELETE', `${c.base}/things/${source.slug}`)).statusCode).toBe(204);
    expect(await backlinks(`things/${target.slug}`)).toEqual([]);
    expect(await backlinks(`arcs/${targetArc.slug}`)).toEqual([]);
    await ok(send(owner, 'POST', `${c.base}/trash/thing/${source.id}/restore`));
    expect(await backlinks(`things/${target.slug}`)).toEqual([[source.slug, ['properties.serves']]]);
    expect(await backlinks(`arcs/${targetArc.slug}`)).toEqual([[source.slug, ['properties.on']]]);
  });

  it('are removed for players when the target is hidden, a list keeping its other items', async () => {
    const c = await sharedCampaign();
    const seen = await thing(c, 'Seen');
    const hidden = await thing(c, 'Hidden', { visibility: 'gm' });
    const hiddenArc = await arc(c, 'Hidden arc', { visibility: 'gm' });
    const properties = [
      { key: 'a', value: link('thing', hidden.id), gmOnly: false },
      { key: 'b', value: [link('thing', seen.id), link('thing', hidden.id), 'text', link('arc', hiddenArc.id)], gmOnly: false },
      { key: 'c', value: [link('thing', hidden.id)], gmOnly: false },
      { key: 'd', value: link('thing', seen.id), gmOnly: false },
      { key: 'e', value: 'secret', gmOnly: true },
    ];
    const source = await thing(c, 'Source', { properties });
    const sourceArc = await arc(c, 'Source arc', { properties });
    const forPlayers = [
      { key: 'b', value: [link('thing', seen.id), 'text'], gmOnly: false },
      { key: 'd', value: link('thing', seen.id), gmOnly: false },
    ];
    expect((await ok(send(player, 'GET', `${c.base}/things/${source.slug}`))).properties).toEqual(forPlayers);
    expect((await ok(send(player, 'GET', `${c.base}/arcs/${sourceArc.slug}`))).properties).toEqual(forPlayers);
    expect((await ok(send(owner, 'GET', `${c.base}/things/${source.slug}`, undefined, { 'loreforge-view': 'player' }))).properties).toEqual(forPlayers);
    expect((await ok<Structured[]>(send(player, 'GET', `${c.base}/things?fetchAll=true`))).find((t) => t.id === source.id)!.properties).toEqual(forPlayers);
    expect((await ok<Structured[]>(send(player, 'GET', `${c.base}/arcs`))).find((a) => a.id === sourceArc.id)!.properties).toEqual(forPlayers);
    expect((await ok(send(owner, 'GET', `${c.base}/things/${source.slug}`))).properties).toEqual(properties);
    // The target made visible: the link is there for players too.
    await ok(putThing(c, hidden.slug, { visibility: 'all' }));
    expect((await ok(send(player, 'GET', `${c.base}/things/${source.slug}`))).properties.map((p) => p.key)).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe(`tags: the filter, the sort and the tags route, on ${dialect}`, () => {
  const names = (rows: Structured[]) => rows.map((row) => row.name);

  async function allPages(user: TestUser, url: string): Promise<{ rows: Structured[]; pages: number }> {
    const rows: Structured[] = [];
    let next: string | undefined = url;
    let pages = 0;
    while (next !== undefined) {
      const res = await send(user, 'GET', next);
      expect(res.statusCode, res.body).toBe(200);
      rows.push(...json<Structured[]>(res));
      pages += 1;
      const header = res.headers.link;
      next = typeof header === 'string' ? /<([^>]+)>; rel="next"/.exec(header)?.[1] : undefined;
      expect(pages).toBeLessThan(100);
    }
    return { rows, pages };
  }

  it('keeps the things with every tag given, ignoring case; players never match through GM-only things', async () => {
    const c = await sharedCampaign();
    await thing(c, 'Meepo', { tags: ['Kobold', 'Ally'] });
    await thing(c, 'Yusdrayl', { tags: ['kobold', 'Queen'] });
    await thing(c, 'Calcryx', { tags: ['Dragon', 'ally'], visibility: 'gm' });
    await thing(c, 'Belak', { tags: ['villain_1', 'a%b'] });
    await thing(c, 'Plain');
    const list = async (user: TestUser, query: string) => names(await ok<Structured[]>(send(user, 'GET', `${c.base}/things?sort=name&${query}`))).join(',');
    expect(await list(owner, 'tag=kobold')).toBe('Meepo,Yusdrayl');
    expect(await list(owner, 'tag=KOBOLD&tag=ally')).toBe('Meepo');
    expect(await list(owner, 'tag=ally')).toBe('Calcryx,Meepo');
    expect(await list(player, 'tag=ally')).toBe('Meepo');
    expect(await list(player, 'tag=dragon')).toBe('');
    expect(await list(owner, 'tag=dragon')).toBe('Calcryx');
    expect(await list(owner, 'tag=kobold&tag=dragon')).toBe('');
    // Tags are matched whole: no prefix, no LIKE wildcards.
    expect(await list(owner, 'tag=kob')).toBe('');
    expect(await list(owner, 'tag=villain%251')).toBe('');
    expect(await list(owner, 'tag=villain_1')).toBe('Belak');
    expect(await list(owner, 'tag=a%25b')).toBe('Belak');
    expect(await list(owner, 'tag=a_b')).toBe('');
    // With a type filter and the default sort.
    expect(names(await ok<Structured[]>(send(owner, 'GET', `${c.base}/things?tag=kobold&typeId=${c.typeId}`))).sort()).toEqual(['Meepo', 'Yusdrayl']);
    // A changed tag list is what the filter reads.
    const yusdrayl = (await ok<Structured[]>(send(owner, 'GET', `${c.base}/things?tag=queen`)))[0]!;
    await ok(putThing(c, yusdrayl.slug, { tags: ['Queen'] }));
    expect(await list(owner, 'tag=kobold')).toBe('Meepo');
  });

  it('sorts by name with sort=name and pages through Link headers, the filter kept', async () => {
    const c = await sharedCampaign();
    const created = ['delta', 'Alpha', 'charlie', 'Bravo', 'echo', 'alpha', 'Foxtrot', 'golf'];
    for (const [i, name] of created.entries()) await thing(c, name, { tags: i % 2 === 0 ? ['even'] : ['odd'], visibility: name === 'echo' ? 'gm' : 'all' });
    const expected = ['Alpha', 'alpha', 'Bravo', 'charlie', 'delta', 'echo', 'Foxtrot', 'golf'];
    const all = await allPages(owner, `${c.base}/things?sort=name&count=3`);
    expect(names(all.rows)).toEqual(expected);
    expect(all.pages).toBe(3);
    // Equal names ignoring case: by id.
    expect(all.rows[0]!.id).toBeLessThan(all.rows[1]!.id);
    const forPlayer = await allPages(player, `${c.base}/things?sort=name&count=2`);
    expect(names(forPlayer.rows)).toEqual(expected.filter((name) => name !== 'echo'));
    const even = await allPages(owner, `${c.base}/things?sort=name&count=1&tag=even`);
    expect(names(even.rows)).toEqual(['charlie', 'delta', 'echo', 'Foxtrot']);
    // The default order stays most recently updated first.
    expect(names((await allPages(owner, `${c.base}/things?count=5`)).rows)).toEqual([...created].reverse());
    expect(names((await allPages(owner, `${c.base}/things?count=5&sort=updatedAt`)).rows)).toEqual([...created].reverse());
    const bad = await send(owner, 'GET', `${c.base}/things?sort=size`);
    expect(bad.statusCode, bad.body).toBe(400);
  });

  it('counts tags in the caller’s view: GM and player', async () => {
    const c = await sharedCampaign();
    await thing(c, 'Meepo', { tags: ['Kobold', 'ally'] });
    await thing(c, 'Yusdrayl', { tags: ['kobold'] });
    await thing(c, 'Calcryx', { tags: ['dragon', 'Ally'], visibility: 'gm' });
    await arc(c, 'Hunt', { tags: ['kobold', 'quest'] });
    await arc(c, 'Secret plot', { tags: ['plot'], visibility: 'gm' });
    const gm = await ok<{ tag: string; things: number; arcs: number }[]>(send(owner, 'GET', `${c.base}/tags`));
    expect(gm).toEqual([
      { tag: 'ally', things: 2, arcs: 0 },
      { tag: 'dragon', things: 1, arcs: 0 },
      { tag: 'kobold', things: 2, arcs: 1 },
      { tag: 'plot', things: 0, arcs: 1 },
      { tag: 'quest', things: 0, arcs: 1 },
    ].map((row) => ({ ...row, tag: gm.find((g) => g.tag.toLowerCase() === row.tag)?.tag ?? row.tag })));
    // Spelled as most records spell it.
    expect(gm.find((row) => row.tag.toLowerCase() === 'kobold')!.tag).toBe('kobold');
    const players = await ok<{ tag: string; things: number; arcs: number }[]>(send(player, 'GET', `${c.base}/tags`));
    expect(players).toEqual([
      { tag: 'ally', things: 1, arcs: 0 },
      { tag: 'kobold', things: 2, arcs: 1 },
      { tag: 'quest', things: 0, arcs: 1 },
    ]);
    expect(await ok(send(owner, 'GET', `${c.base}/tags`, undefined, { 'loreforge-view': 'player' }))).toEqual(players);
    expect((await send(other, 'GET', `${c.base}/tags`)).statusCode).toBe(404);
  });
});

describe(`thingCount in both views, on ${dialect}`, () => {
  it('counts the things of each type the caller sees, and follows creates, deletes, type and visibility changes', async () => {
    const c = await sharedCampaign();
    const [first, second] = c.types;
    const counts = async (user: TestUser) => {
      const types = await ok<ThingType[]>(send(user, 'GET', `${c.base}/thing-types`));
      const one = await ok<ThingType>(send(user, 'GET', `${c.base}/thing-types/${first!.id}`));
      expect(types.find((type) => type.id === first!.id)!.thingCount).toBe(one.thingCount);
      return types.map((type) => type.thingCount);
    };
    expect(await counts(owner)).toEqual([0, 0, 0]);
    const a = await thing(c, 'A');
    const b = await thing(c, 'B', { visibility: 'gm' });
    await thing(c, 'C', { typeId: second!.id });
    expect(await counts(owner)).toEqual([2, 1, 0]);
    expect(await counts(player)).toEqual([1, 1, 0]);
    await ok(putThing(c, b.slug, { typeId: second!.id }));
    expect(await counts(owner)).toEqual([1, 2, 0]);
    expect(await counts(player)).toEqual([1, 1, 0]);
    await ok(putThing(c, b.slug, { visibility: 'all' }));
    expect(await counts(player)).toEqual([1, 2, 0]);
    expect((await send(owner, 'DELETE', `${c.base}/things/${a.slug}`)).statusCode).toBe(204);
    expect(await counts(owner)).toEqual([0, 2, 0]);
    expect(await counts(player)).toEqual([0, 2, 0]);
    await ok(send(owner, 'POST', `${c.base}/trash/thing/${a.id}/restore`));
    expect(await counts(owner)).toEqual([1, 2, 0]);
  });

  it('carries the count in the GM’s ETag (a 304 never confirms a stale count) and takes it in If-Match as the type’s version', async () => {
    const c = await sharedCampaign();
    const url = `${c.base}/thing-types/${c.typeId}`;
    const before = await send(owner, 'GET', url);
    const etag = String(before.headers.etag);
    expect(etag).toMatch(/^"\d+-\d+-n0"$/);
    expect((await send(owner, 'GET', url, undefined, { 'if-none-match': etag })).statusCode).toBe(304);
    await thing(c, 'Counted');
    const after = await send(owner, 'GET', url);
    expect(String(after.headers.etag)).toMatch(/^"\d+-\d+-n1"$/);
    expect((await send(owner, 'GET', url, undefined, { 'if-none-match': etag })).statusCode).toBe(200);
    // The type itself did not change: the old ETag still names its version for a write.
    const renamed = await send(owner, 'PUT', url, { updatedThingType: { name: 'People' } }, { 'if-match': etag });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(String(renamed.headers.etag)).toMatch(/^"\d+-\d+-n1"$/);
    const stale = await send(owner, 'PUT', url, { updatedThingType: { name: 'Folk' } }, { 'if-match': String(after.headers.etag) });
    expect(stale.statusCode, stale.body).toBe(412);
    expect((await send(owner, 'PUT', url, { updatedThingType: { fields: [{ key: 'home', kind: 'text' }] } }, { 'if-match': String(renamed.headers.etag) })).statusCode).toBe(200);
    // A player's ETag moves with the count the player sees, and only with it.
    const playerEtag = String((await send(player, 'GET', url)).headers.etag);
    await thing(c, 'Hidden', { visibility: 'gm' });
    expect((await send(player, 'GET', url, undefined, { 'if-none-match': playerEtag })).statusCode).toBe(304);
    await thing(c, 'Seen');
    const moved = await send(player, 'GET', url, undefined, { 'if-none-match': playerEtag });
    expect(moved.statusCode).toBe(200);
    expect(json<ThingType>(moved).thingCount).toBe(2);
  });
});

describe(`what players see move, on ${dialect}`, () => {
  it('keeps a player’s updatedAt and ETag when only a GM-only property changes, and moves them when a visible one does', async () => {
    const c = await sharedCampaign();
    const created = await thing(c, 'Meepo', { properties: [{ key: 'species', value: 'kobold' }, { key: 'secret', value: 'a spy', gmOnly: true }] });
    const createdArc = await arc(c, 'Hunt', { properties: [{ key: 'secret', value: 'a trap', gmOnly: true }] });
    for (const [path, put] of [
      [`${c.base}/things/${created.slug}`, (body: Record<string, unknown>) => putThing(c, created.slug, body)],
      [`${c.base}/arcs/${createdArc.slug}`, (body: Record<string, unknown>) => putArc(c, createdArc.slug, body)],
    ] as const) {
      const before = await send(player, 'GET', path);
      const seen = json<Structured>(before);
      const gmBefore = await ok(send(owner, 'GET', path));
      const visible = seen.properties;
      await ok(put({ properties: [...visible, { key: 'secret', value: 'a traitor', gmOnly: true }, { key: 'more', value: 3, gmOnly: true }] }));
      const gmAfter = await ok(send(owner, 'GET', path));
      expect(gmAfter.updatedAt > gmBefore.updatedAt || gmAfter.updatedAt === gmBefore.updatedAt).toBe(true);
      const after = await send(player, 'GET', path);
      expect(after.body, path).toBe(before.body);
      expect((await send(player, 'GET', path, undefined, { 'if-none-match': String(before.headers.etag) })).statusCode, path).toBe(304);
      // A visible change moves it.
      await ok(put({ properties: [...visible, { key: 'public', value: 'yes' }, { key: 'secret', value: 'a traitor', gmOnly: true }] }));
      const changed = await send(player, 'GET', path);
      expect(json<Structured>(changed).properties.map((p) => p.key), path).toEqual([...visible.map((p) => p.key), 'public']);
      expect(json<Structured>(changed).updatedAt > seen.updatedAt, path).toBe(true);
    }
    // And in the list players read.
    const listed = (await ok<Structured[]>(send(player, 'GET', `${c.base}/things`))).find((t) => t.id === created.id)!;
    expect(listed.properties.some((p) => p.gmOnly)).toBe(false);
  });

  it('keeps a player’s updatedAt and ETag when a link to a GM-only record is added', async () => {
    const c = await sharedCampaign();
    const villain = await thing(c, 'Villain', { visibility: 'gm' });
    const npc = await thing(c, 'Innkeeper', { properties: [{ key: 'species', value: 'human' }] });
    const path = `${c.base}/things/${npc.slug}`;
    const before = await send(player, 'GET', path);
    await ok(putThing(c, npc.slug, { properties: [{ key: 'species', value: 'human' }, { key: 'patron', value: link('thing', villain.id) }] }));
    const after = await send(player, 'GET', path);
    expect(after.body).toBe(before.body);
    expect(after.headers.etag).toBe(before.headers.etag);
  });

  it('never shows players a link or a mention to a GM-only record once it is gone: trashed, erased, or restored still GM-only', async () => {
    const c = await sharedCampaign();
    const villain = await thing(c, 'Villain', { visibility: 'gm' });
    const plot = await arc(c, 'Secret plot', { visibility: 'gm' });
    const mention = { type: 'paragraph', children: [{ text: 'Fears ' }, { type: 'mention', targetType: 'thing', targetId: villain.id, children: [{ text: '' }] }, { text: '.' }] };
    const npc = await thing(c, 'Innkeeper', {
      description: [mention],
      properties: [{ key: 'secret patron', value: link('thing', villain.id) }, { key: 'plots', value: [link('arc', plot.id), 'bread'] }],
    });
    const path = `${c.base}/things/${npc.slug}`;
    const before = await send(player, 'GET', path);
    expect(json<Structured>(before).properties).toEqual([{ key: 'plots', value: ['bread'], gmOnly: false }]);
    const rendered = async () => (await send(player, 'GET', `${path}/rendered`)).body;
    const renderedBefore = await rendered();
    const unchanged = async (when: string) => {
      const now = await send(player, 'GET', path);
      expect(now.body, when).toBe(before.body);
      expect(now.headers.etag, when).toBe(before.headers.etag);
      expect(await rendered(), when).toBe(renderedBefore);
    };
    expect((await send(owner, 'DELETE', `${c.base}/things/${villain.slug}`)).statusCode).toBe(204);
    expect((await send(owner, 'DELETE', `${c.base}/arcs/${plot.slug}`)).statusCode).toBe(204);
    await unchanged('in the trash');
    expect((await send(owner, 'DELETE', `${c.base}/trash/arc/${plot.id}`)).statusCode).toBe(204);
    await unchanged('erased');
    expect((await send(owner, 'POST', `${c.base}/trash/thing/${villain.id}/restore`)).statusCode).toBe(200);
    await unchanged('restored, still GM-only');
    // Made visible after its restore, the link is the players' to read.
    await ok(putThing(c, villain.slug, { visibility: 'all' }));
    expect(json<Structured>(await send(player, 'GET', path)).properties.map((p) => p.key)).toEqual(['secret patron', 'plots']);
  });
});

describe(`bounds that hold after a type's declared keys are added, on ${dialect}`, () => {
  it('refuses a new thing whose declared keys take it past 200 properties (nothing stored)', async () => {
    const c = await sharedCampaign();
    const wide = await ok<ThingType>(
      send(owner, 'POST', `${c.base}/thing-types`, { newThingType: { name: 'Wide', fields: Array.from({ length: 100 }, (_, i) => ({ key: `field ${i}`, kind: 'text' })) } }),
      201,
    );
    const properties = Array.from({ length: 150 }, (_, i) => ({ key: `own ${i}`, value: i }));
    await rejected(postThing(c, { name: 'Too wide', properties }, wide.id), ['/newThing/properties']);
    expect((await ok<ThingType>(send(owner, 'GET', `${c.base}/thing-types/${wide.id}`))).thingCount).toBe(0);
    const fits = await thing(c, 'Fits', { typeId: wide.id, properties: properties.slice(0, 100) });
    expect(fits.properties).toHaveLength(200);
  });

  it('refuses lone surrogates in keys, tags, aliases and text values', async () => {
    const c = await sharedCampaign();
    await rejected(postThing(c, { tags: ['\ud800'] }), ['/newThing/tags/0']);
    await rejected(postThing(c, { aliases: ['a\udc00b'] }), ['/newThing/aliases/0']);
    await rejected(postThing(c, { properties: [{ key: 'x\ud800', value: 1 }] }), ['/newThing/properties/0/key']);
    await rejected(postThing(c, { properties: [{ key: 'x', value: ['ok', '\udbff'] }] }), ['/newThing/properties/0/value/1']);
    expect((await thing(c, 'Emoji', { tags: ['🐉'] })).tags).toEqual(['🐉']);
  });
});
