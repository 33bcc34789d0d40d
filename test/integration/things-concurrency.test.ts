import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppInstance } from '../../src/http/app-types.js';
import { createScaledOutContext, json, type TestContext, type TestUser } from '../support/app.js';
import { newCampaign as newCampaignAs, problemOf } from '../support/fixtures.js';



// Simultaneous writers of one campaign must never collide on a generated slug: creation locks the
// campaign (PostgreSQL) or runs in SQLite's single writer. On PostgreSQL the requests are spread over
// two app instances with their own pools on one database, as in a scaled-out deployment.

const SIMULTANEOUS = 25;

let ctx: TestContext & { apps: AppInstance[] };
let owner: TestUser;
let apps: AppInstance[];

beforeAll(async () => {
  ctx = await createScaledOutContext();
  owner = await ctx.createUser();
  apps = ctx.apps;
});
afterAll(() => ctx.close());


const newCampaign = (name: string) => newCampaignAs(ctx.app, owner, name);

function appFor(i: number): AppInstance {
  return apps[i % apps.length]!;
}

describe('simultaneous writes to things', () => {
  it(`gives ${SIMULTANEOUS} simultaneous creations of one name ${SIMULTANEOUS} distinct slugs`, async () => {
    const campaign = await newCampaign('Concurrent Things');
    const responses = await Promise.all(
      Array.from({ length: SIMULTANEOUS }, (_, i) =>
        appFor(i).inject({
          method: 'POST',
          url: `/api/campaigns/${campaign.slug}/things`,
          headers: owner.headers,
          payload: { newThing: { name: 'Goblin Scout', typeId: campaign.typeId } },
        }),
      ),
    );
    for (const res of responses) expect(res.statusCode, res.body).toBe(201);
    const slugs = responses.map((res) => json<{ slug: string }>(res).slug);
    const expected = ['goblin-scout', ...Array.from({ length: SIMULTANEOUS - 1 }, (_, i) => `goblin-scout-${i + 2}`)];
    expect([...slugs].sort()).toEqual([...expected].sort());
    for (const res of responses) {
      expect(res.headers.location).toBe(`/api/campaigns/${campaign.slug}/things/${json<{ slug: string }>(res).slug}`);
    }
    const stored = await ctx.database.kysely.selectFrom('things').select('slug').where('campaign_id', '=', campaign.id).execute();
    expect(stored.map((r) => r.slug).sort()).toEqual([...expected].sort());
  });

  it('keeps slugs distinct when creations and explicit slug changes race', async () => {
    const campaign = await newCampaign('Concurrent Renames');
    const url = `/api/campaigns/${campaign.slug}/things`;
    const seeds = await Promise.all(
      ['Alpha', 'Beta', 'Gamma', 'Delta', 'Epsilon'].map((name) =>
        ctx.app.inject({ method: 'POST', url, headers: owner.headers, payload: { newThing: { name, typeId: campaign.typeId } } }),
      ),
    );
    for (const res of seeds) expect(res.statusCode).toBe(201);
    const requests = [
      // Five things all try to take the slug `wolf`: exactly one may get it.
      ...['alpha', 'beta', 'gamma', 'delta', 'epsilon'].map((slug) => ({
        method: 'PUT' as const,
        url: `${url}/${slug}`,
        payload: { updatedThing: { slug: 'wolf' } },
      })),
      // Meanwhile new things named Wolf are created.
      ...Array.from({ length: 10 }, () => ({ method: 'POST' as const, url, payload: { newThing: { name: 'Wolf', typeId: campaign.typeId } } })),
    ];
    const responses = await Promise.all(requests.map((request, i) => appFor(i).inject({ ...request, headers: owner.headers })));
    const puts = responses.slice(0, 5);
    const posts = responses.slice(5);
    for (const res of posts) expect(res.statusCode, res.body).toBe(201);
    for (const res of puts) {
      expect([200, 409], res.body).toContain(res.statusCode);
      if (res.statusCode === 409) expect(problemOf(res).code).toBe('slug_taken');
    }
    const stored = await ctx.database.kysely.selectFrom('things').select('slug').where('campaign_id', '=', campaign.id).execute();
    const slugs = stored.map((r) => r.slug);
    expect(stored).toHaveLength(15);
    expect(new Set(slugs).size).toBe(15);
    expect(slugs).toContain('wolf');
    expect(puts.filter((res) => res.statusCode === 200).length + posts.filter((res) => json<{ slug: string }>(res).slug === 'wolf').length).toBe(1);
  });
});
