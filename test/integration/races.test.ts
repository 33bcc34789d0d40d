import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppInstance } from '../../src/http/app-types.js';
import { createScaledOutContext, json, type TestContext, type TestUser } from '../support/app.js';
import { integrityProblems } from '../support/integrity.js';

// Races between writers, each on both databases. On PostgreSQL the requests of every race are
// spread over two app instances with their own connection pools on one database, as behind a load
// balancer; on SQLite they interleave in one process at every await, as they do in production.
//
// Covered elsewhere, not repeated here: simultaneous creations of one thing name and slug changes
// racing creations (things-concurrency.test.ts), of one arc name and two arcs re-parented onto each
// other (arcs.test.ts), of one thing type name (thing-types.test.ts).

let ctx: TestContext & { apps: AppInstance[] };
let owner: TestUser;
let apps: AppInstance[];

beforeAll(async () => {
  ctx = await createScaledOutContext();
  owner = await ctx.createUser();
  apps = ctx.apps;
});
afterAll(() => ctx.close());

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Sends every request at once, alternating between the app instances. */
function all(requests: { method: Method; url: string; payload?: unknown; headers?: Record<string, string> }[]): Promise<LightMyRequestResponse[]> {
  return Promise.all(
    requests.map((r, i) =>
      apps[i % apps.length]!.inject({
        method: r.method,
        url: r.url,
        headers: { ...owner.headers, ...r.headers },
        ...(r.payload === undefined ? {} : { payload: r.payload as Record<string, unknown> }),
      }),
    ),
  );
}

async function call(method: Method, url: string, payload?: unknown, headers: Record<string, string> = {}) {
  const [res] = await all([{ method, url, payload, headers }]);
  return res!;
}

async function created(method: Method, url: string, payload: unknown) {
  const res = await call(method, url, payload);
  expect(res.statusCode, res.body).toBeLessThan(300);
  return json(res);
}

let campaignCounter = 0;
async function newCampaign() {
  campaignCounter += 1;
  const campaign = await created('POST', '/api/campaigns', { newCampaign: { name: `Race ${campaignCounter}` } });
  const types = json(await call('GET', `/api/campaigns/${campaign.slug}/thing-types`));
  return { id: campaign.id as number, slug: campaign.slug as string, base: `/api/campaigns/${campaign.slug}`, typeId: types[0].id as number };
}

function statusesOf(responses: LightMyRequestResponse[]): number[] {
  return responses.map((r) => r.statusCode);
}

function expectNoServerErrors(responses: LightMyRequestResponse[]) {
  for (const res of responses) expect(res.statusCode, res.body).toBeLessThan(500);
}

async function expectSoundDatabase() {
  expect(await integrityProblems(ctx.database.kysely, ctx.database.dialect)).toEqual([]);
}

// A small deterministic generator, so a failing interleaving can be replayed.
function random(seed: number) {
  let state = seed >>> 0;
  return (n: number) => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state % n;
  };
}

describe('races', () => {
  it('gives simultaneous campaigns of one name distinct slugs', async () => {
    const responses = await all(Array.from({ length: 12 }, () => ({ method: 'POST' as const, url: '/api/campaigns', payload: { newCampaign: { name: 'Curse of Strahd' } } })));
    expect(statusesOf(responses)).toEqual(Array<number>(12).fill(201));
    const slugs = responses.map((r) => json(r).slug as string);
    expect(new Set(slugs).size).toBe(12);
    for (const slug of slugs) expect(slug).toMatch(/^curse-of-strahd(-[a-z0-9]+)?$/);
    // Each got its three default types, no more, no fewer.
    const ids = responses.map((r) => json(r).id as number);
    const types = await ctx.database.kysely.selectFrom('thing_types').select('campaign_id').where('campaign_id', 'in', ids).execute();
    expect(types).toHaveLength(36);
  });

  it('keeps one link row at most when the same pair is linked and unlinked at once', async () => {
    const c = await newCampaign();
    const thing = await created('POST', `${c.base}/things`, { newThing: { name: 'Glasstaff', typeId: c.typeId } });
    const arc = await created('POST', `${c.base}/arcs`, { newArc: { name: 'Redbrand Hideout' } });
    const link = { method: 'POST' as const, url: `${c.base}/things/${thing.slug}/arcs`, payload: { arcSlug: arc.slug } };
    const unlink = { method: 'DELETE' as const, url: `${c.base}/things/${thing.slug}/arcs/${arc.slug}` };

    // Only links first: all succeed, one row.
    const links = await all(Array.from({ length: 12 }, () => link));
    expect(statusesOf(links)).toEqual(Array<number>(12).fill(200));
    const rows = () => ctx.database.kysely.selectFrom('arc_things').selectAll().where('campaign_id', '=', c.id).execute();
    expect(await rows()).toHaveLength(1);

    for (let round = 0; round < 4; round++) {
      const responses = await all(Array.from({ length: 16 }, (_, i) => (i % 2 === round % 2 ? link : unlink)));
      expectNoServerErrors(responses);
      responses.forEach((res, i) => {
        const isLink = i % 2 === round % 2;
        if (isLink) expect(res.statusCode, res.body).toBe(200);
        else {
          expect([204, 404], res.body).toContain(res.statusCode);
          if (res.statusCode === 404) expect(json(res).code).toBe('link_not_found');
        }
      });
      const stored = await rows();
      expect(stored.length).toBeLessThanOrEqual(1);
      // What the API reports agrees with the table.
      const listed = json(await call('GET', `${c.base}/things/${thing.slug}/arcs`));
      expect(listed.map((a: { id: number }) => a.id)).toEqual(stored.map((r) => r.arc_id));
    }
    await expectSoundDatabase();
  });

  it.each(['thing', 'arc', 'thing type', 'campaign'])('lets exactly one of simultaneous PUTs with the same If-Match win (%s)', async (kind) => {
    const c = await newCampaign();
    let url: string;
    let body: (i: number) => unknown;
    if (kind === 'thing') {
      const thing = await created('POST', `${c.base}/things`, { newThing: { name: 'Nezznar', typeId: c.typeId } });
      url = `${c.base}/things/${thing.slug}`;
      body = (i) => ({ updatedThing: { name: `Nezznar ${i}` } });
    } else if (kind === 'arc') {
      const arc = await created('POST', `${c.base}/arcs`, { newArc: { name: 'Wave Echo Cave' } });
      url = `${c.base}/arcs/${arc.slug}`;
      body = (i) => ({ updatedArc: { name: `Wave Echo Cave ${i}` } });
    } else if (kind === 'thing type') {
      url = `${c.base}/thing-types/${c.typeId}`;
      body = (i) => ({ updatedThingType: { name: `Spells ${i}` } });
    } else {
      url = c.base;
      body = (i) => ({ updatedCampaign: { name: `Renamed ${i}` } });
    }
    const current = await call('GET', url);
    const etag = current.headers.etag as string;
    // A campaign's ETag carries the caller's role, a thing type's its thingCount (here 0).
    const suffix = kind === 'campaign' ? '-owner' : kind === 'thing type' ? '-n0' : '';
    // An arc's carries a digest of its answer (its linked things, parent and children: arc-etags.test.ts).
    expect(etag).toMatch(kind === 'campaign' ? /^"\d+-\d+-owner"$/ : kind === 'thing type' ? /^"\d+-\d+-n0"$/ : kind === 'arc' ? /^"\d+-\d+-a[0-9a-f]{16}"$/ : /^"\d+-\d+"$/);
    const writers = 10;
    const responses = await all(Array.from({ length: writers }, (_, i) => ({ method: 'PUT' as const, url, payload: body(i), headers: { 'if-match': etag } })));
    const statuses = statusesOf(responses).sort();
    expect(statuses, responses.map((r) => r.body).join('\n')).toEqual([200, ...Array<number>(writers - 1).fill(412)]);
    for (const res of responses.filter((r) => r.statusCode === 412)) expect(json(res).code).toBe('precondition_failed');
    const winner = json(responses.find((r) => r.statusCode === 200)!);
    const after = await call('GET', url);
    expect(json(after).name).toBe(winner.name);
    // One change: the version moved by exactly one.
    const [id, version] = etag.slice(1, -1).split('-').map(Number);
    if (kind === 'arc') expect(after.headers.etag).toMatch(new RegExp(`^"${id}-${version! + 1}-a[0-9a-f]{16}"$`));
    else expect(after.headers.etag).toBe(`"${id}-${version! + 1}${suffix}"`);
  });

  it('leaves no thing without its type when a type is deleted while things of it are created', async () => {
    for (let round = 0; round < 4; round++) {
      const c = await newCampaign();
      const type = await created('POST', `${c.base}/thing-types`, { newThingType: { name: 'Vehicles' } });
      const creates = Array.from({ length: 16 }, (_, i) => ({
        method: 'POST' as const,
        url: `${c.base}/things`,
        payload: { newThing: { name: `Cart ${i}`, typeId: type.id } },
      }));
      const deletion = { method: 'DELETE' as const, url: `${c.base}/thing-types/${type.id}` };
      // The delete goes in at a different place each round.
      const requests = [...creates.slice(0, round * 4), deletion, ...creates.slice(round * 4)];
      const responses = await all(requests);
      expectNoServerErrors(responses);
      const deleted = responses[round * 4]!;
      expect(deleted.statusCode, deleted.body).toBe(204);
      for (const res of responses.filter((r) => r !== deleted)) {
        expect([201, 400], res.body).toContain(res.statusCode);
        if (res.statusCode === 400) expect(json(res)).toMatchObject({ code: 'invalid_reference', errors: [{ path: '/newThing/typeId' }] });
      }
      // Things created before the delete went with their type; none created after it exist.
      const left = await ctx.database.kysely.selectFrom('things').select('id').where('campaign_id', '=', c.id).where('type_id', '=', type.id).execute();
      expect(left).toEqual([]);
      for (const res of responses.filter((r) => r.statusCode === 201)) {
        expect((await call('GET', `${c.base}/things/${json(res).slug}`)).statusCode).toBe(404);
      }
    }
    await expectSoundDatabase();
  });

  it('deletes a campaign cleanly while writes into it are under way, and erases it cleanly from the trash', async () => {
    for (let round = 0; round < 4; round++) {
      const c = await newCampaign();
      const thing = await created('POST', `${c.base}/things`, { newThing: { name: 'Phandalin', typeId: c.typeId } });
      const arc = await created('POST', `${c.base}/arcs`, { newArc: { name: 'Phandalin Arc' } });
      const writes = [
        ...Array.from({ length: 4 }, (_, i) => ({ method: 'POST' as const, url: `${c.base}/things`, payload: { newThing: { name: `Townsfolk ${i}`, typeId: c.typeId } } })),
        ...Array.from({ length: 3 }, (_, i) => ({ method: 'POST' as const, url: `${c.base}/arcs`, payload: { newArc: { name: `Side quest ${i}`, parentArcId: arc.id } } })),
        ...Array.from({ length: 2 }, (_, i) => ({ method: 'POST' as const, url: `${c.base}/thing-types`, payload: { newThingType: { name: `Kind ${i}` } } })),
        { method: 'POST' as const, url: `${c.base}/things/${thing.slug}/arcs`, payload: { arcSlug: arc.slug } },
        { method: 'PUT' as const, url: `${c.base}/things/${thing.slug}`, payload: { updatedThing: { name: 'Phandalin Town' } } },
        { method: 'PUT' as const, url: `${c.base}/arcs/${arc.slug}`, payload: { updatedArc: { hook: [{ type: 'paragraph', children: [{ text: 'x' }] }] } } },
        { method: 'PUT' as const, url: c.base, payload: { updatedCampaign: { name: 'Renamed' } } },
        { method: 'DELETE' as const, url: `${c.base}/arcs/${arc.slug}` },
      ];
      const at = [0, 5, 10, writes.length][round]!;
      const requests = [...writes.slice(0, at), { method: 'DELETE' as const, url: c.base }, ...writes.slice(at)];
      const responses = await all(requests);
      expectNoServerErrors(responses);
      expect(responses[at]!.statusCode, responses[at]!.body).toBe(204);
      for (const res of responses) {
        // Each write either happened before the delete, or found the campaign (or its records) gone.
        expect([200, 201, 204, 400, 404], res.body).toContain(res.statusCode);
        if (res.statusCode === 400) expect(json(res).code).toBe('invalid_reference');
      }
      // In the owner's trash; erasing it takes every row.
      expect((await call('GET', c.base)).statusCode).toBe(404);
      expect((await call('DELETE', `/api/trash/campaigns/${c.id}`)).statusCode).toBe(204);
      for (const table of ['thing_types', 'things', 'arcs', 'arc_things'] as const) {
        const rows = await ctx.database.kysely.selectFrom(table).select('campaign_id').where('campaign_id', '=', c.id).execute();
        expect(rows, table).toEqual([]);
      }
      expect((await call('GET', c.base)).statusCode).toBe(404);
    }
    await expectSoundDatabase();
  });

  it('never leaves a cycle when many arcs are re-parented by two clients at once', async () => {
    const c = await newCampaign();
    const arcs: { id: number; slug: string }[] = [];
    for (let i = 0; i < 8; i++) arcs.push(await created('POST', `${c.base}/arcs`, { newArc: { name: `Chapter ${i}` } }));
    const pick = random(20_261_121);
    let moved = 0;
    let refused = 0;
    for (let round = 0; round < 8; round++) {
      const requests = Array.from({ length: 12 }, () => {
        const arc = arcs[pick(arcs.length)]!;
        const parent = pick(5) === 0 ? null : arcs[pick(arcs.length)]!.id;
        return { method: 'PUT' as const, url: `${c.base}/arcs/${arc.slug}`, payload: { updatedArc: { parentArcId: parent } } };
      });
      const responses = await all(requests);
      for (const res of responses) {
        expect([200, 400], res.body).toContain(res.statusCode);
        if (res.statusCode === 400) expect(json(res).code).toBe('arc_cycle');
      }
      moved += responses.filter((r) => r.statusCode === 200).length;
      refused += responses.filter((r) => r.statusCode === 400).length;
      await expectSoundDatabase();
    }
    // The race was real: both outcomes happened.
    expect(moved).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
    // And the API's view of the tree has no loop either: every parent chain ends.
    const listed = json<{ id: number; parentArcId: number | null }[]>(await call('GET', `${c.base}/arcs`));
    const parentOf = new Map(listed.map((a) => [a.id, a.parentArcId]));
    for (const arc of listed) {
      let steps = 0;
      for (let at: number | null | undefined = arc.id; at !== null && at !== undefined; at = parentOf.get(at)) {
        steps += 1;
        expect(steps).toBeLessThanOrEqual(listed.length);
      }
    }
  });

  it.each(['thing', 'arc', 'thing type', 'campaign'])('answers PUTs without If-Match that race a DELETE of the %s with 200 or 404, never 412', async (kind) => {
    for (let round = 0; round < 5; round++) {
      const c = await newCampaign();
      let url: string;
      let body: unknown;
      if (kind === 'thing') {
        const thing = await created('POST', `${c.base}/things`, { newThing: { name: 'Doomed', typeId: c.typeId } });
        url = `${c.base}/things/${thing.slug}`;
        body = { updatedThing: { name: 'Still here' } };
      } else if (kind === 'arc') {
        const arc = await created('POST', `${c.base}/arcs`, { newArc: { name: 'Doomed' } });
        url = `${c.base}/arcs/${arc.slug}`;
        body = { updatedArc: { name: 'Still here' } };
      } else if (kind === 'thing type') {
        const type = await created('POST', `${c.base}/thing-types`, { newThingType: { name: 'Doomed' } });
        url = `${c.base}/thing-types/${type.id}`;
        body = { updatedThingType: { name: 'Still here' } };
      } else {
        url = c.base;
        body = { updatedCampaign: { name: 'Still here' } };
      }
      const puts = Array.from({ length: 6 }, () => ({ method: 'PUT' as const, url, payload: body }));
      const responses = await all([...puts.slice(0, round), { method: 'DELETE' as const, url }, ...puts.slice(round)]);
      expect(responses[round]!.statusCode, responses[round]!.body).toBe(204);
      for (const res of responses.filter((_, i) => i !== round)) {
        // No If-Match was sent, so no precondition can have failed: the record was there, or it was gone.
        expect([200, 404], `${kind}: ${res.body}`).toContain(res.statusCode);
      }
    }
  });

  it('lets exactly one of simultaneous deletes of one thing succeed', async () => {
    const c = await newCampaign();
    const thing = await created('POST', `${c.base}/things`, { newThing: { name: 'Black Spider', typeId: c.typeId } });
    const responses = await all(Array.from({ length: 10 }, () => ({ method: 'DELETE' as const, url: `${c.base}/things/${thing.slug}` })));
    expect(statusesOf(responses).sort()).toEqual([204, ...Array<number>(9).fill(404)]);
  });
});
