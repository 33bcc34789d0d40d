// GET /things, GET /things/{slug} and GET /arcs are written as JSON text with the stored texts
// spliced in (src/http/schemas/splice.ts). For random campaigns — awkward names, rich text with
// secrets and mentions, GM-only records, properties with GM-only entries and links, tags, aliases —
// each answer must be byte for byte what the response schema's serializer writes of the values the
// presenters give (presentThing, presentArc), for a game master, a player and a game master viewing
// as a player.
import { Type } from '@sinclair/typebox';
import fc from 'fast-check';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeView, type View } from '../../src/access/view.js';
import { listArcsByCampaign } from '../../src/db/repositories/arcs.js';
import { findVisibleThing, listThings } from '../../src/db/repositories/things.js';
import { loadHiddenRecords } from '../../src/db/repositories/visible.js';
import { parseThingListQuery } from '../../src/domain/list-cursor.js';
import { Arc, presentArc } from '../../src/http/schemas/arc.js';
import { presentThing, Thing } from '../../src/http/schemas/thing.js';
import { json, type TestContext, type TestUser } from '../support/app.js';
import { contextWithUsers, newCampaign, sendAs, type TestCampaign } from '../support/fixtures.js';
import { joinCampaign } from '../support/sharing.js';
import { dialect } from '../support/test-db.js';

let ctx: TestContext;
let owner: TestUser;
let player: TestUser;
let reference: FastifyInstance;
let referenceValue: unknown;

beforeAll(async () => {
  // The response cache off: every answer is written by the route (test/integration/response-cache.test.ts
  // and arcs-serialization.test.ts hold the cached bytes the same).
  ({ ctx, owner, stranger: player } = await contextWithUsers({ RESPONSE_CACHE_MB: '0' }));
  // The schema's serializer as Fastify compiles it for a route answering these schemas.
  reference = Fastify({ logger: false });
  reference.get('/things', { schema: { response: { 200: Type.Array(Thing) } } }, () => referenceValue);
  reference.get('/thing', { schema: { response: { 200: Thing } } }, () => referenceValue);
  reference.get('/arcs', { schema: { response: { 200: Type.Array(Arc) } } }, () => referenceValue);
  await reference.ready();
});
afterAll(async () => {
  await reference.close();
  await ctx.close();
});

async function serialized(route: '/things' | '/thing' | '/arcs', value: unknown): Promise<string> {
  referenceValue = value;
  return (await reference.inject({ method: 'GET', url: route })).body;
}

// ---- the model: what a game master writes, as the editor and the API send it ----

type Target = { kind: 'thing' | 'arc'; index: number };
type Inline = { text: string; marks: string[] } | { mention: Target };
interface Block {
  type: string;
  secret: boolean;
  children: Inline[];
}
type Scalar = string | number | boolean | null | { link: Target };
interface PropertyModel {
  value: Scalar | Scalar[];
  gmOnly: boolean;
}
interface Record {
  name: string;
  gmOnly: boolean;
  text: Block[];
  properties: PropertyModel[];
  tags: string[];
  aliases: string[];
}

const awkward = fc.constantFrom('Quote " and \\ backslash', 'Tab\tand newline\n', 'Line\u2028separator', 'Émile & 東京 🐉', '<script>', 'control \u0001 char', '', ' ');
const text = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 8 }), awkward);
const label = fc.oneof(fc.string({ minLength: 1, maxLength: 10 }), fc.constantFrom('Émile', '東京', 'a"b', 'x\\y')).filter((s) => s.trim().length > 0 && [...s].every((c) => c.charCodeAt(0) >= 0x20 && c.charCodeAt(0) !== 0x7f));
const target = fc.record({ kind: fc.constantFrom<'thing' | 'arc'>('thing', 'arc'), index: fc.nat(5) });
const inline: fc.Arbitrary<Inline> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ text, marks: fc.subarray(['bold', 'italic', 'underline', 'code', 'strikethrough', 'highlight']) }) },
  { weight: 1, arbitrary: fc.record({ mention: target }) },
);
const block = fc.record({ type: fc.constantFrom('paragraph', 'heading-two', 'block-quote'), secret: fc.boolean(), children: fc.array(inline, { minLength: 1, maxLength: 4 }) });
const scalar: fc.Arbitrary<Scalar> = fc.oneof(
  text,
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.record({ link: target }),
);
const property = fc.record({ value: fc.oneof(scalar, fc.array(scalar, { maxLength: 4 })), gmOnly: fc.boolean() });
const uniqueLabels = fc.uniqueArray(label, { maxLength: 3, selector: (s) => s.normalize('NFC').toLowerCase().trim() });
const record = fc.record({
  name: fc.oneof(label, awkward.filter((s) => s.trim().length > 0)),
  // Mostly visible: campaigns with no GM-only record at all take a shorter path for players.
  gmOnly: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  text: fc.array(block, { maxLength: 3 }),
  properties: fc.array(property, { maxLength: 4 }),
  tags: uniqueLabels,
  aliases: uniqueLabels,
});
const model = fc.record({ things: fc.array(record, { minLength: 1, maxLength: 6 }), arcs: fc.array(record, { maxLength: 3 }) });

// ---- building it through the API ----

interface Built {
  campaign: TestCampaign;
  ids: { thing: number[]; arc: number[] };
}

function toRichText(blocks: Block[], ids: Built['ids']) {
  if (blocks.length === 0) return undefined;
  const inlineNode = (node: Inline) => {
    if ('mention' in node) {
      const list = ids[node.mention.kind];
      return { type: 'mention', targetType: node.mention.kind, targetId: list[node.mention.index % list.length]!, children: [{ text: '' }] };
    }
    return { text: node.text, ...Object.fromEntries(node.marks.map((mark) => [mark, true])) };
  };
  // A mention of a kind the campaign has none of reads as plain text.
  const usable = (node: Inline) => !('mention' in node) || ids[node.mention.kind].length > 0;
  return blocks.map((b) => ({
    type: b.type,
    ...(b.secret ? { isSecret: true } : {}),
    children: [{ text: '' }, ...b.children.map((node) => (usable(node) ? inlineNode(node) : { text: 'plain' }))],
  }));
}

function toProperties(properties: PropertyModel[], ids: Built['ids']) {
  const value = (s: Scalar) => {
    if (s === null || typeof s !== 'object') return s;
    const list = ids[s.link.kind];
    return list.length === 0 ? null : { targetType: s.link.kind, targetId: list[s.link.index % list.length]! };
  };
  return properties.map((p, i) => ({ key: `k${i}`, value: Array.isArray(p.value) ? p.value.map(value) : value(p.value), gmOnly: p.gmOnly }));
}

async function build(m: { things: Record[]; arcs: Record[] }): Promise<Built> {
  const campaign = await newCampaign(ctx.app, owner);
  await joinCampaign(ctx.app, owner, campaign.slug, player, 'player');
  const ids: Built['ids'] = { thing: [], arc: [] };
  const slugs: { thing: string[]; arc: string[] } = { thing: [], arc: [] };
  const create = async (kind: 'thing' | 'arc', r: Record, i: number) => {
    const body = kind === 'thing' ? { newThing: { name: r.name, typeId: campaign.types[i % campaign.types.length]!.id, visibility: r.gmOnly ? 'gm' : 'all' } } : { newArc: { name: r.name, visibility: r.gmOnly ? 'gm' : 'all' } };
    const res = await sendAs(ctx.app, owner, 'POST', `${campaign.base}/${kind}s`, body);
    expect(res.statusCode, res.body).toBe(201);
    ids[kind].push(json(res).id);
    slugs[kind].push(json(res).slug);
  };
  for (const [i, r] of m.things.entries()) await create('thing', r, i);
  for (const [i, r] of m.arcs.entries()) await create('arc', r, i);
  // Then the texts and properties, which may name any record of the campaign.
  const fill = async (kind: 'thing' | 'arc', r: Record, i: number) => {
    const rich = toRichText(r.text, ids);
    const fields = { ...(rich ? { [kind === 'thing' ? 'description' : 'hook']: rich } : {}), properties: toProperties(r.properties, ids), tags: r.tags, aliases: r.aliases };
    const res = await sendAs(ctx.app, owner, 'PUT', `${campaign.base}/${kind}s/${slugs[kind][i]}`, kind === 'thing' ? { updatedThing: fields } : { updatedArc: fields });
    expect(res.statusCode, res.body).toBe(200);
  };
  for (const [i, r] of m.things.entries()) await fill('thing', r, i);
  for (const [i, r] of m.arcs.entries()) await fill('arc', r, i);
  for (const [i, slug] of slugs.thing.entries()) {
    if (ids.arc.length > 0) await sendAs(ctx.app, owner, 'POST', `${campaign.base}/things/${slug}/arcs`, { arcSlug: slugs.arc[i % slugs.arc.length] });
  }
  return { campaign, ids };
}

// ---- the three views, as the server builds them ----

const views: { name: string; user: () => TestUser; headers: { [name: string]: string }; role: 'owner' | 'player'; asPlayer: boolean }[] = [
  { name: 'game master', user: () => owner, headers: {}, role: 'owner', asPlayer: false },
  { name: 'player', user: () => player, headers: {}, role: 'player', asPlayer: false },
  { name: 'game master as player', user: () => owner, headers: { 'loreforge-view': 'player' }, role: 'owner', asPlayer: true },
];

async function viewOf(campaign: TestCampaign, role: 'owner' | 'player', asPlayer: boolean): Promise<View> {
  const view = makeView({ id: campaign.id, content_version: 0 }, role, asPlayer);
  if (view.players) view.hidden = await loadHiddenRecords(ctx.database.kysely, campaign.id);
  return view;
}

async function get(url: string, user: TestUser, headers: { [name: string]: string }) {
  const res = await ctx.app.inject({ method: 'GET', url, headers: { ...user.headers, ...headers } });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  return res.body;
}

async function checkCampaign(built: Built): Promise<void> {
  const { campaign } = built;
  for (const v of views) {
    const view = await viewOf(campaign, v.role, v.asPlayer);
    const user = v.user();
    let all: Awaited<ReturnType<typeof listThings>>['rows'] = [];
    const queries: { [name: string]: string }[] = [{ fetchAll: 'true' }, { count: '2', sort: 'name' }, { typeId: String(campaign.typeId) }];
    for (const query of queries) {
      const parsed = parseThingListQuery(query);
      if (!parsed.ok) throw new Error(`bad query ${JSON.stringify(query)}`);
      const page = await listThings(ctx.database.kysely, view, parsed.value);
      if (query.fetchAll) all = page.rows;
      const expected = await serialized('/things', page.rows.map((row) => presentThing(row, view)));
      expect(await get(`${campaign.base}/things?${new URLSearchParams(query).toString()}`, user, v.headers), `${v.name} ${JSON.stringify(query)}`).toBe(expected);
    }
    for (const row of all) {
      const found = await findVisibleThing(ctx.database.kysely, view, row.slug);
      const expected = await serialized('/thing', presentThing(found!, view));
      expect(await get(`${campaign.base}/things/${row.slug}`, user, v.headers), `${v.name} ${row.slug}`).toBe(expected);
    }
    const arcs = await listArcsByCampaign(ctx.database.kysely, view);
    expect(await get(`${campaign.base}/arcs`, user, v.headers), `${v.name} arcs`).toBe(await serialized('/arcs', arcs.map((detail) => presentArc(detail, view))));
  }
}

describe(`answers written with the stored texts spliced in, on ${dialect}`, () => {
  it('are byte for byte the schema serializer’s, for every view of random campaigns', async () => {
    await fc.assert(
      fc.asyncProperty(model, async (m) => checkCampaign(await build(m))),
      { numRuns: 16 },
    );
  }, 240_000);
});
