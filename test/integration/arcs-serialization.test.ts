import { fullView } from '../../src/access/view.js';
import { Type } from '@sinclair/typebox';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listArcsByCampaign, listArcTree } from '../../src/db/repositories/arcs.js';
import { Arc, ArcWithoutThings, presentArc, serializeArcs } from '../../src/http/schemas/arc.js';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { dialect } from '../support/test-db.js';

// GET /arcs is written as JSON text by serializeArcs, splicing in the stored rich text. It must be
// byte for byte what the response schema's serializer writes of the arcs presented by presentArc(),
// the presenter every other arc route uses.

let ctx: TestContext;
let owner: TestUser;
let campaignId: number;
let base: string;

const awkward = ['Quote " and \\ backslash', 'Tab\tand newline\n', 'Line\u2028separator', 'Émile & 東京 🐉', '<script>', 'control \u0001 char'];

function rich(text: string) {
  return [
    { type: 'heading', level: 2, children: [{ text, bold: true }] },
    { type: 'paragraph', children: [{ text: `${text} — `, italic: true }, { text: 'plain "quoted" \\ text', underline: true, code: true }] },
  ];
}

beforeAll(async () => {
  ctx = await createTestContext();
  owner = await ctx.createUser();
  const post = async (url: string, payload: object) => {
    const response = await ctx.app.inject({ method: 'POST', url, headers: owner.headers, payload });
    expect(response.statusCode, response.body).toBeLessThan(300);
    return json(response);
  };
  const campaign = await post('/api/campaigns', { newCampaign: { name: 'Serialized' } });
  campaignId = campaign.id;
  base = `/api/campaigns/${campaign.slug}`;
  const types = json(await ctx.app.inject({ method: 'GET', url: `${base}/thing-types`, headers: owner.headers }));
  const things = [];
  for (const [i, name] of awkward.entries()) {
    things.push(await post(`${base}/things`, { newThing: { name, typeId: types[i % types.length].id, ...(i % 2 === 0 ? { description: rich(name) } : {}) } }));
  }
  const top = await post(`${base}/arcs`, { newArc: { name: awkward[0], hook: rich('hook'), notes: rich(awkward[3]!) } });
  const middle = await post(`${base}/arcs`, { newArc: { name: awkward[1], parentArcId: top.id, protagonist: rich(awkward[2]!) } });
  await post(`${base}/arcs`, { newArc: { name: awkward[4], parentArcId: middle.id } });
  await post(`${base}/arcs`, { newArc: { name: 'Bare', outcome: rich('end') } });
  for (const [i, thing] of things.entries()) {
    await post(`${base}/things/${thing.slug}/arcs`, { arcSlug: (i % 2 === 0 ? top : middle).slug });
    if (i % 3 === 0) await post(`${base}/things/${thing.slug}/arcs`, { arcSlug: i % 2 === 0 ? middle.slug : top.slug });
  }
});
afterAll(async () => {
  await ctx.close();
});

async function schemaSerialized(value: unknown, schema: typeof Arc | typeof ArcWithoutThings = Arc): Promise<string> {
  const reference = Fastify({ logger: false });
  reference.get('/', { schema: { response: { 200: Type.Array(schema) } } }, () => value);
  const response = await reference.inject({ method: 'GET', url: '/' });
  await reference.close();
  return response.body;
}

describe(`GET /arcs serialization on ${dialect}`, () => {
  it('writes exactly the bytes the response schema writes of the presented arcs', async () => {
    const view = fullView({ id: campaignId, content_version: 0 });
    const details = await listArcsByCampaign(ctx.database.kysely, view);
    expect(details.length).toBe(4);
    expect(details.some((d) => d.things.length > 0 && d.children.length > 0 && d.parent !== null)).toBe(true);
    const expected = await schemaSerialized(details.map((detail) => presentArc(detail, view)));
    expect(serializeArcs(details, view)).toBe(expected);
    const response = await ctx.app.inject({ method: 'GET', url: `${base}/arcs`, headers: owner.headers });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.body).toBe(expected);
    // and again from the response cache
    expect((await ctx.app.inject({ method: 'GET', url: `${base}/arcs`, headers: owner.headers })).body).toBe(expected);
  });

  it('with things=none, writes exactly the bytes the ArcWithoutThings schema writes of the presented arcs (no texts, no things)', async () => {
    const view = fullView({ id: campaignId, content_version: 0 });
    const full = (await listArcsByCampaign(ctx.database.kysely, view)).map((detail) => presentArc(detail, view));
    const expected = await schemaSerialized(full, ArcWithoutThings);
    const tree = await listArcTree(ctx.database.kysely, view);
    expect(serializeArcs(tree, view, { things: false })).toBe(expected);
    expect(expected).not.toContain('hook');
    const response = await ctx.app.inject({ method: 'GET', url: `${base}/arcs?things=none`, headers: owner.headers });
    expect(response.body).toBe(expected);
  });

  it('writes an empty campaign as an empty array', async () => {
    expect(serializeArcs([], fullView({ id: campaignId, content_version: 0 }))).toBe(await schemaSerialized([]));
  });
});
