import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type TestContext, type TestUser } from '../support/app.js';
import { contextWithUsers, errorPathsOf, newCampaign as newCampaignAs, problemOf } from '../support/fixtures.js';



interface ThingTypeBody {
  id: number;
  name: string;
  campaignId: number;
}

let ctx: TestContext;
let owner: TestUser;
let stranger: TestUser;
beforeAll(async () => ({ ctx, owner, stranger } = await contextWithUsers()));
afterAll(() => ctx.close());

const newCampaign = (name: string, user = owner) => newCampaignAs(ctx.app, user, name);


function typesUrl(campaignSlug: string, id?: number | string) {
  return `/api/campaigns/${campaignSlug}/thing-types${id === undefined ? '' : `/${id}`}`;
}

async function listTypes(campaignSlug: string): Promise<ThingTypeBody[]> {
  const res = await ctx.app.inject({ method: 'GET', url: typesUrl(campaignSlug), headers: owner.headers });
  expect(res.statusCode).toBe(200);
  return json(res);
}

function postType(campaignSlug: string, payload: unknown, user = owner) {
  return ctx.app.inject({ method: 'POST', url: typesUrl(campaignSlug), headers: user.headers, payload: payload as object });
}

function putType(campaignSlug: string, id: number | string, payload: unknown, headers: Record<string, string> = {}) {
  return ctx.app.inject({ method: 'PUT', url: typesUrl(campaignSlug, id), headers: { ...owner.headers, ...headers }, payload: payload as object });
}

async function typeCount(campaignId: number): Promise<number> {
  return (await ctx.database.kysely.selectFrom('thing_types').select('id').where('campaign_id', '=', campaignId).execute()).length;
}

describe('thing types', () => {
  it('lists the three default types of a new campaign, ids ascending, with exactly id, name, campaignId, fields, thingCount', async () => {
    const campaign = await newCampaign('Defaults');
    const types = await listTypes(campaign.slug);
    expect(types.map((t) => t.name)).toEqual(['NPCs', 'Locations', 'Items']);
    const ids = types.map((t) => t.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    for (const t of types) {
      expect(Object.keys(t).sort()).toEqual(['campaignId', 'fields', 'id', 'name', 'thingCount']);
      expect(t).toMatchObject({ fields: [], thingCount: 0 });
      expect(t.campaignId).toBe(campaign.id);
    }
  });

  it('creates a type: 201, trimmed name, Location and ETag, listed last', async () => {
    const campaign = await newCampaign('Create Types');
    const res = await postType(campaign.slug, { newThingType: { name: '  Organizations  ' } });
    expect(res.statusCode).toBe(201);
    const body = json<ThingTypeBody>(res);
    expect(Object.keys(body).sort()).toEqual(['campaignId', 'fields', 'id', 'name', 'thingCount']);
    expect(body).toMatchObject({ name: 'Organizations', campaignId: campaign.id });
    expect(res.headers.location).toBe(`/api/campaigns/${campaign.slug}/thing-types/${body.id}`);
    expect(res.headers.etag).toMatch(/^"\d+-\d+-n\d+"$/);
    const types = await listTypes(campaign.slug);
    expect(types.map((t) => t.name)).toEqual(['NPCs', 'Locations', 'Items', 'Organizations']);
    const got = await ctx.app.inject({ method: 'GET', url: res.headers.location as string, headers: owner.headers });
    expect(got.statusCode).toBe(200);
    expect(json(got)).toEqual(body);
    expect(got.headers.etag).toBe(res.headers.etag);
  });

  it('ignores unknown body fields', async () => {
    const campaign = await newCampaign('Extra Type Fields');
    const other = await newCampaign('Extra Type Fields Other');
    const res = await postType(campaign.slug, { newThingType: { name: 'Spells', id: 1, campaignId: other.id, color: 'red' }, extra: true });
    expect(res.statusCode).toBe(201);
    expect(json(res)).toMatchObject({ name: 'Spells', campaignId: campaign.id });
    expect(json<ThingTypeBody>(res).id).not.toBe(1);
    expect(await typeCount(other.id)).toBe(3);
  });

  it('refuses a name already used in the campaign, ignoring case (409 name_taken), storing nothing', async () => {
    const campaign = await newCampaign('Type Name Clash');
    for (const name of ['NPCs', 'npcs', ' ITEMS ', 'locations']) {
      const res = await postType(campaign.slug, { newThingType: { name } });
      expect(res.statusCode, name).toBe(409);
      expect(json(res)).toMatchObject({ status: 409, code: 'name_taken', title: 'Conflict' });
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    expect(await typeCount(campaign.id)).toBe(3);
    // The same name in another campaign is fine.
    const other = await newCampaign('Type Name Clash Two');
    expect((await postType(other.slug, { newThingType: { name: 'Deities' } })).statusCode).toBe(201);
    expect((await postType(campaign.slug, { newThingType: { name: 'deities' } })).statusCode).toBe(201);
  });

  it('answers simultaneous creations of one name with exactly one 201 and 409 for the rest', async () => {
    const campaign = await newCampaign('Type Race');
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => postType(campaign.slug, { newThingType: { name: i % 2 === 0 ? 'Vehicles' : 'VEHICLES' } })),
    );
    const statuses = responses.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([201, ...Array<number>(9).fill(409)]);
    for (const r of responses.filter((x) => x.statusCode === 409)) expect(problemOf(r).code).toBe('name_taken');
    expect(await typeCount(campaign.id)).toBe(4);
  });

  it('rejects bad bodies with 400 and pointers, storing nothing; 255 characters are fine', async () => {
    const campaign = await newCampaign('Type Validation');
    const cases: [unknown, string][] = [
      [{}, '/newThingType'],
      [{ newThingType: {} }, '/newThingType/name'],
      [{ newThingType: { name: '' } }, '/newThingType/name'],
      [{ newThingType: { name: '   ' } }, '/newThingType/name'],
      [{ newThingType: { name: 'x'.repeat(256) } }, '/newThingType/name'],
      [{ newThingType: { name: 42 } }, '/newThingType/name'],
      [{ newThingType: { name: null } }, '/newThingType/name'],
      [{ newThingType: 'Spells' }, '/newThingType'],
    ];
    for (const [payload, path] of cases) {
      const res = await postType(campaign.slug, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      const body = problemOf(res);
      expect(body).toMatchObject({ status: 400, code: 'validation_failed' });
      expect(errorPathsOf(res), JSON.stringify(payload)).toContain(path);
    }
    expect(await typeCount(campaign.id)).toBe(3);
    const long = await postType(campaign.slug, { newThingType: { name: 'y'.repeat(255) } });
    expect(long.statusCode).toBe(201);
    expect(json<ThingTypeBody>(long).name).toHaveLength(255);
    const padded = await postType(campaign.slug, { newThingType: { name: `  ${'z'.repeat(255)}  ` } });
    expect(padded.statusCode).toBe(201);
  });

  it('answers malformed ids with 400 invalid_id and unknown ones with 404 thing_type_not_found', async () => {
    const campaign = await newCampaign('Type Ids');
    const foreign = await newCampaign('Type Ids Foreign');
    const foreignType = (await listTypes(foreign.slug))[0]!;
    for (const id of ['abc', '0', '-1', '01', '1.5', '1e3', '12345678901234567']) {
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        const res = await ctx.app.inject({
          method,
          url: typesUrl(campaign.slug, id),
          headers: owner.headers,
          ...(method === 'PUT' ? { payload: { updatedThingType: { name: 'x' } } } : {}),
        });
        expect(res.statusCode, `${method} ${id}`).toBe(400);
        expect(problemOf(res).code).toBe('invalid_id');
      }
    }
    for (const id of ['999999', '2147483648', '9999999999999999', String(foreignType.id)]) {
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        const res = await ctx.app.inject({
          method,
          url: typesUrl(campaign.slug, id),
          headers: owner.headers,
          ...(method === 'PUT' ? { payload: { updatedThingType: { name: 'x' } } } : {}),
        });
        expect(res.statusCode, `${method} ${id}`).toBe(404);
        expect(problemOf(res).code).toBe('thing_type_not_found');
      }
    }
    expect((await listTypes(foreign.slug)).map((t) => t.name)).toEqual(['NPCs', 'Locations', 'Items']);
  });

  it('renames with PUT, keeps the type on an empty change, and allows a case-only rename of itself', async () => {
    const campaign = await newCampaign('Rename Types');
    const [npcs, locations] = await listTypes(campaign.slug);
    const res = await putType(campaign.slug, npcs!.id, { updatedThingType: { name: ' Characters ', extra: 1 } });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual({ id: npcs!.id, name: 'Characters', campaignId: campaign.id, fields: [], thingCount: 0 });
    expect(res.headers.etag).toMatch(/^"\d+-\d+-n\d+"$/);

    const same = await putType(campaign.slug, npcs!.id, { updatedThingType: { id: npcs!.id, name: 'CHARACTERS' } });
    expect(same.statusCode).toBe(200);
    expect(json<ThingTypeBody>(same).name).toBe('CHARACTERS');

    const empty = await putType(campaign.slug, locations!.id, { updatedThingType: {} });
    expect(empty.statusCode).toBe(200);
    expect(json(empty)).toEqual(locations);

    const clash = await putType(campaign.slug, locations!.id, { updatedThingType: { name: 'characters' } });
    expect(clash.statusCode).toBe(409);
    expect(problemOf(clash).code).toBe('name_taken');
    expect((await listTypes(campaign.slug)).map((t) => t.name)).toEqual(['CHARACTERS', 'Locations', 'Items']);
  });

  it('answers an id in the body that differs from the path with 400 id_mismatch, changing nothing', async () => {
    const campaign = await newCampaign('Id Mismatch');
    const [npcs, locations] = await listTypes(campaign.slug);
    const res = await putType(campaign.slug, npcs!.id, { updatedThingType: { id: locations!.id, name: 'Renamed' } });
    expect(res.statusCode).toBe(400);
    expect(json(res)).toMatchObject({ code: 'id_mismatch', errors: [{ path: '/updatedThingType/id' }] });
    const wrongType = await putType(campaign.slug, npcs!.id, { updatedThingType: { id: String(npcs!.id), name: 'Renamed' } });
    expect(wrongType.statusCode).toBe(400);
    expect(errorPathsOf(wrongType)[0]).toBe('/updatedThingType/id');
    expect((await listTypes(campaign.slug)).map((t) => t.name)).toEqual(['NPCs', 'Locations', 'Items']);
  });

  it('rejects bad PUT bodies with 400 and pointers', async () => {
    const campaign = await newCampaign('Type Put Validation');
    const [npcs] = await listTypes(campaign.slug);
    const cases: [unknown, string][] = [
      [{}, '/updatedThingType'],
      [{ updatedThingType: { name: '  ' } }, '/updatedThingType/name'],
      [{ updatedThingType: { name: 'x'.repeat(256) } }, '/updatedThingType/name'],
      [{ updatedThingType: { name: 7 } }, '/updatedThingType/name'],
    ];
    for (const [payload, path] of cases) {
      const res = await putType(campaign.slug, npcs!.id, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(errorPathsOf(res)).toContain(path);
    }
    expect((await listTypes(campaign.slug))[0]!.name).toBe('NPCs');
    expect((await putType(campaign.slug, npcs!.id, { updatedThingType: { name: 'n'.repeat(255) } })).statusCode).toBe(200);
  });

  it('honours If-Match: a current ETag succeeds, a stale one gets 412 and changes nothing', async () => {
    const campaign = await newCampaign('Type ETags');
    const [npcs] = await listTypes(campaign.slug);
    const got = await ctx.app.inject({ method: 'GET', url: typesUrl(campaign.slug, npcs!.id), headers: owner.headers });
    const etag = got.headers.etag as string;
    expect(etag).toMatch(/^"\d+-\d+-n\d+"$/);
    const ok = await putType(campaign.slug, npcs!.id, { updatedThingType: { name: 'People' } }, { 'if-match': etag });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers.etag).not.toBe(etag);
    const stale = await putType(campaign.slug, npcs!.id, { updatedThingType: { name: 'Folk' } }, { 'if-match': etag });
    expect(stale.statusCode).toBe(412);
    expect(problemOf(stale).code).toBe('precondition_failed');
    const now = await ctx.app.inject({ method: 'GET', url: typesUrl(campaign.slug, npcs!.id), headers: owner.headers });
    expect(json<ThingTypeBody>(now).name).toBe('People');
    expect(now.headers.etag).toBe(ok.headers.etag);
    const star = await putType(campaign.slug, npcs!.id, { updatedThingType: { name: 'Folk' } }, { 'if-match': '*' });
    expect(star.statusCode).toBe(200);
  });

  it('deletes a type with its things and their arc links, leaving other types and the arc alone', async () => {
    const campaign = await newCampaign('Type Cascade');
    const [npcs, locations] = await listTypes(campaign.slug);
    const db = ctx.database.kysely;
    const now = new Date().toISOString();
    const things = await db
      .insertInto('things')
      .values(
        [
          { slug: 'gundren', type_id: npcs!.id },
          { slug: 'sildar', type_id: npcs!.id },
          { slug: 'phandalin', type_id: locations!.id },
        ].map((t) => ({ ...t, campaign_id: campaign.id, name: t.slug, description: null, version: 1, created_at: now, updated_at: now })),
      )
      .returning(['id', 'slug'])
      .execute();
    const arc = await db
      .insertInto('arcs')
      .values({ campaign_id: campaign.id, parent_arc_id: null, slug: 'goblin-arrows', name: 'Goblin Arrows', version: 1, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('arc_things')
      .values(things.map((t) => ({ campaign_id: campaign.id, arc_id: arc.id, thing_id: t.id, created_at: now })))
      .execute();

    const del = await ctx.app.inject({ method: 'DELETE', url: typesUrl(campaign.slug, npcs!.id), headers: owner.headers });
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect((await ctx.app.inject({ method: 'GET', url: typesUrl(campaign.slug, npcs!.id), headers: owner.headers })).statusCode).toBe(404);
    expect((await ctx.app.inject({ method: 'DELETE', url: typesUrl(campaign.slug, npcs!.id), headers: owner.headers })).statusCode).toBe(404);

    const left = await db.selectFrom('things').select('slug').where('campaign_id', '=', campaign.id).execute();
    expect(left.map((t) => t.slug)).toEqual(['phandalin']);
    const links = await db.selectFrom('arc_things').select('thing_id').where('campaign_id', '=', campaign.id).execute();
    expect(links.map((l) => l.thing_id)).toEqual([things.find((t) => t.slug === 'phandalin')!.id]);
    expect(await db.selectFrom('arcs').select('id').where('id', '=', arc.id).executeTakeFirst()).toBeDefined();
    expect((await listTypes(campaign.slug)).map((t) => t.name)).toEqual(['Locations', 'Items']);
  });

  it('hides another user’s campaign behind 404 on every route, changing nothing', async () => {
    const campaign = await newCampaign('Private Types');
    const [npcs] = await listTypes(campaign.slug);
    const requests = [
      { method: 'GET' as const, url: typesUrl(campaign.slug) },
      { method: 'POST' as const, url: typesUrl(campaign.slug), payload: { newThingType: { name: 'Mine' } } },
      { method: 'GET' as const, url: typesUrl(campaign.slug, npcs!.id) },
      { method: 'PUT' as const, url: typesUrl(campaign.slug, npcs!.id), payload: { updatedThingType: { name: 'Mine' } } },
      { method: 'DELETE' as const, url: typesUrl(campaign.slug, npcs!.id) },
    ];
    for (const request of requests) {
      const res = await ctx.app.inject({ ...request, headers: stranger.headers });
      expect(res.statusCode, `${request.method} ${request.url}`).toBe(404);
      expect(problemOf(res).code).toBe('campaign_not_found');
      const anonymous = await ctx.app.inject(request);
      expect(anonymous.statusCode).toBe(401);
    }
    expect((await listTypes(campaign.slug)).map((t) => t.name)).toEqual(['NPCs', 'Locations', 'Items']);
  });
});
