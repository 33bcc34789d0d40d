import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { newCampaign, problemOf, type TestCampaign } from '../support/fixtures.js';
import { minimalDoc } from '../support/zip.js';

// CONTRACT "Hostile input": rich text too deep for the limits is a 400, never a 500, whatever its
// depth (a JSON document nested 100,000 levels included), on every route that takes rich text; and
// nothing is stored. Each body is sent as raw JSON text: building such values as objects and letting
// the test client serialise them would overflow the test's own stack first.

const BLOCK_DEPTHS = [5_000, 20_000];
const JSON_DEPTH = 100_000;

/** Rich text whose blocks nest `depth` levels deep, as JSON text. */
function deepBlocks(depth: number): string {
  return `${'[{"type":"block-quote","children":'.repeat(depth)}[{"text":"deep"}]${'}]'.repeat(depth)}`;
}

/** A JSON array nested `depth` levels deep: not rich text at all. */
function deepArrays(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

/** A paragraph whose extra key holds an object nested `depth` levels deep (extra keys are kept as given). */
function deepExtraKey(depth: number): string {
  return `[{"type":"paragraph","children":[{"text":"x"}],"extra":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}]`;
}

const HOSTILE: { name: string; text: () => string }[] = [
  ...BLOCK_DEPTHS.map((depth) => ({ name: `blocks nested ${depth} deep`, text: () => deepBlocks(depth) })),
  { name: `arrays nested ${JSON_DEPTH} deep`, text: () => deepArrays(JSON_DEPTH) },
  { name: `an extra key nested ${JSON_DEPTH} deep`, text: () => deepExtraKey(JSON_DEPTH) },
];

let ctx: TestContext;
let owner: TestUser;
let campaign: TestCampaign;

beforeAll(async () => {
  // Bodies of 100,000 levels are about 1 MB of JSON text: BODY_LIMIT must not be what refuses them.
  ctx = await createTestContext({ BODY_LIMIT: String(8 * 1024 * 1024) });
  owner = await ctx.createUser();
  campaign = await newCampaign(ctx.app, owner, 'Deep');
});
afterAll(async () => {
  await ctx.close();
});

function sendRaw(method: 'POST' | 'PUT', url: string, body: string) {
  return ctx.app.inject({ method, url, headers: { ...owner.headers, 'content-type': 'application/json' }, payload: body });
}

async function counts(): Promise<{ campaigns: number; things: number; arcs: number }> {
  const campaigns = json<unknown[]>(await ctx.app.inject({ method: 'GET', url: '/api/campaigns', headers: owner.headers })).length;
  const things = json<{ things?: unknown[] } | unknown[]>(await ctx.app.inject({ method: 'GET', url: `${campaign.base}/things?fetchAll=true`, headers: owner.headers }));
  const arcs = json<unknown[]>(await ctx.app.inject({ method: 'GET', url: `${campaign.base}/arcs`, headers: owner.headers }));
  return { campaigns, things: Array.isArray(things) ? things.length : (things.things?.length ?? 0), arcs: Array.isArray(arcs) ? arcs.length : 0 };
}

describe('rich text nested deeper than the limits', () => {
  let thingSlug: string;
  let arcSlug: string;

  beforeAll(async () => {
    const thing = await ctx.app.inject({ method: 'POST', url: `${campaign.base}/things`, headers: owner.headers, payload: { newThing: { name: 'Target', typeId: campaign.typeId } } });
    expect(thing.statusCode, thing.body).toBe(201);
    thingSlug = json<{ slug: string }>(thing).slug;
    const arc = await ctx.app.inject({ method: 'POST', url: `${campaign.base}/arcs`, headers: owner.headers, payload: { newArc: { name: 'Target arc' } } });
    expect(arc.statusCode, arc.body).toBe(201);
    arcSlug = json<{ slug: string }>(arc).slug;
  });

  const routes: { name: string; method: 'POST' | 'PUT'; url: () => string; body: (rich: string) => string }[] = [
    { name: 'POST a campaign', method: 'POST', url: () => '/api/campaigns', body: (rich) => `{"newCampaign":{"name":"Deep one","description":${rich}}}` },
    { name: 'PUT a campaign', method: 'PUT', url: () => campaign.base, body: (rich) => `{"updatedCampaign":{"description":${rich}}}` },
    { name: 'POST a thing', method: 'POST', url: () => `${campaign.base}/things`, body: (rich) => `{"newThing":{"name":"Deep thing","typeId":${campaign.typeId},"description":${rich}}}` },
    { name: 'PUT a thing', method: 'PUT', url: () => `${campaign.base}/things/${thingSlug}`, body: (rich) => `{"updatedThing":{"description":${rich}}}` },
    { name: 'POST an arc', method: 'POST', url: () => `${campaign.base}/arcs`, body: (rich) => `{"newArc":{"name":"Deep arc","hook":${rich}}}` },
    { name: 'PUT an arc', method: 'PUT', url: () => `${campaign.base}/arcs/${arcSlug}`, body: (rich) => `{"updatedArc":{"notes":${rich}}}` },
    {
      name: 'import a json document',
      method: 'POST',
      url: () => '/api/campaigns/import',
      body: (rich) => minimalDoc({ campaign: '@@RICH@@' }).replace('"@@RICH@@"', `{"id":1,"slug":"deep","name":"Deep","createdAt":"2026-01-01T00:00:00.000Z","updatedAt":"2026-01-01T00:00:00.000Z","description":${rich}}`),
    },
    {
      name: 'import a json document (a thing description)',
      method: 'POST',
      url: () => '/api/campaigns/import',
      body: (rich) => {
        const at = '2026-01-01T00:00:00.000Z';
        const things = [{ id: 1, slug: 'deep', typeId: 1, name: 'Deep', description: '@@RICH@@', createdAt: at, updatedAt: at }];
        return minimalDoc({ things }).replace('"@@RICH@@"', rich);
      },
    },
  ];

  for (const route of routes) {
    for (const hostile of HOSTILE) {
      it(`${route.name}: ${hostile.name} is 400 and stores nothing`, async () => {
        const before = await counts();
        const readBefore = await ctx.app.inject({ method: 'GET', url: `${campaign.base}/things/${thingSlug}`, headers: owner.headers });
        const res = await sendRaw(route.method, route.url(), route.body(hostile.text()));
        expect(res.statusCode, res.body.slice(0, 500)).toBe(400);
        expect(['validation_failed', 'invalid_import', 'malformed_json']).toContain(problemOf(res).code);
        expect(await counts()).toEqual(before);
        const readAfter = await ctx.app.inject({ method: 'GET', url: `${campaign.base}/things/${thingSlug}`, headers: owner.headers });
        expect(readAfter.body).toBe(readBefore.body);
      }, 30_000);
    }
  }
});
