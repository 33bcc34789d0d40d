import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrator } from '../../src/db/migrate.js';
import { nameSortKey } from '../../src/domain/name-sort.js';
import { json, type TestContext, type TestUser } from '../support/app.js';
import { contextWithUsers, createThing, newCampaign, type TestCampaign } from '../support/fixtures.js';
import { createTestDatabase, dialect } from '../support/test-db.js';

// `sort=name` orders by a key the app stores beside each name (domain/name-sort.ts, migration
// 0029), compared byte for byte on both databases: case folded for all of Unicode and accents
// removed, not SQLite's ASCII-only lower() nor PostgreSQL's locale. Both databases give one order.

let ctx: TestContext;
let owner: TestUser;

beforeAll(async () => {
  ({ ctx, owner } = await contextWithUsers());
});
afterAll(() => ctx.close());

type Row = { id: number; name: string };

/** Every page of `url` (in `campaign`), following its Link headers. */
async function allPages(campaign: TestCampaign, url: string): Promise<Row[]> {
  const out: Row[] = [];
  let next: string | undefined = `${campaign.base}${url}`;
  while (next !== undefined) {
    const res: LightMyRequestResponse = await ctx.app.inject({ method: 'GET', url: next, headers: owner.headers });
    expect(res.statusCode, res.body).toBe(200);
    out.push(...json<Row[]>(res));
    const link: unknown = res.headers.link;
    next = typeof link === 'string' ? /<([^>]+)>; rel="next"/.exec(link)![1] : undefined;
  }
  return out;
}

/** The order the contract promises: keys compared code point by code point (UTF-8 bytes), then ids. */
function byKeyThenId(a: Row, b: Row): number {
  return Buffer.compare(Buffer.from(nameSortKey(a.name)), Buffer.from(nameSortKey(b.name))) || a.id - b.id;
}

describe(`things sorted by name, on ${dialect}`, () => {
  it('folds case and accents for all of Unicode: apple, Ärger, élise, Élise, zed, Zoë, on every page size', async () => {
    const campaign = await newCampaign(ctx.app, owner, 'Accents');
    for (const name of ['zed', 'élise', 'Zoë', 'Élise', 'apple', 'Ärger']) await createThing(ctx.app, owner, campaign, name);
    const expected = ['apple', 'Ärger', 'élise', 'Élise', 'zed', 'Zoë'];
    for (const count of [1, 2, 5, 1000]) expect((await allPages(campaign, `/things?sort=name&count=${count}`)).map((row) => row.name), `count=${count}`).toEqual(expected);
    expect((await allPages(campaign, '/things?sort=name&fields=summary&count=4')).map((row) => row.name)).toEqual(expected);
  });

  it('keeps the key with the name: a renamed thing moves, "ß" sorts as "ss"', async () => {
    const campaign = await newCampaign(ctx.app, owner, 'Renamed');
    const apple = await createThing(ctx.app, owner, campaign, 'apple');
    for (const name of ['Stadt', 'strasse', 'Stube']) await createThing(ctx.app, owner, campaign, name);
    const renamed = await ctx.app.inject({ method: 'PUT', url: `${campaign.base}/things/${apple.slug}`, headers: owner.headers, payload: { updatedThing: { name: 'Straße' } } });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect((await allPages(campaign, '/things?sort=name&count=2')).map((row) => row.name)).toEqual(['Stadt', 'Straße', 'strasse', 'Stube']);
  });

  it('a thing restored from the trash has its key written anew (a row kept before migration 0029 has none)', async () => {
    const campaign = await newCampaign(ctx.app, owner, 'Restored');
    for (const name of ['Ärger', 'zed']) await createThing(ctx.app, owner, campaign, name);
    const elise = await createThing(ctx.app, owner, campaign, 'Élise');
    await ctx.database.kysely.updateTable('things').set({ name_sort: '' }).where('id', '=', elise.id).execute();
    expect((await ctx.app.inject({ method: 'DELETE', url: `${campaign.base}/things/${elise.slug}`, headers: owner.headers })).statusCode).toBe(204);
    const restored = await ctx.app.inject({ method: 'POST', url: `${campaign.base}/trash/thing/${elise.id}/restore`, headers: owner.headers });
    expect(restored.statusCode, restored.body).toBe(200);
    expect((await allPages(campaign, '/things?sort=name')).map((row) => row.name)).toEqual(['Ärger', 'Élise', 'zed']);
  });

  it('pages in the order of the keys, ties by id, whatever the names (property)', async () => {
    const letter = fc.constantFrom('a', 'A', 'é', 'É', 'e\u0301', 'ä', 'Ä', 'z', 'Z', 'ë', 'ß', 'SS', 'ﬁ', 'Ω', 'ω', 'ς', 'σ', 'İ', 'ı', '𝔄', '🐉', 'Ｚ', '東', ' ', '-', '1', '\u2028');
    const name = fc.array(letter, { minLength: 1, maxLength: 5 }).map((letters) => letters.join('')).filter((text) => text.trim().length > 0);
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(name, { minLength: 1, maxLength: 10 }), fc.integer({ min: 1, max: 4 }), async (names, count) => {
        runs += 1;
        const campaign = await newCampaign(ctx.app, owner, `Random ${runs}`);
        const created: Row[] = [];
        for (const text of names) created.push(await createThing(ctx.app, owner, campaign, text));
        const listed = await allPages(campaign, `/things?sort=name&count=${count}`);
        expect(listed.map((row) => row.id)).toEqual([...created].sort(byKeyThenId).map((row) => row.id));
      }),
      { numRuns: 12 },
    );
  });
});

describe(`migration 0029 (name sort keys), on ${dialect}`, () => {
  it('fills in the key of every thing there is, without marking anything changed', async () => {
    const database = await createTestDatabase({ migrate: false });
    try {
      expect((await migrator(database).migrateTo('2026-11-24-0028-announced-versions')).error).toBeUndefined();
      const db = database.kysely;
      const now = new Date().toISOString();
      await db.insertInto('users').values({ id: 'u1', email: 'a@example.com', email_normalized: 'a@example.com', name: 'A', password_hash: 'x', created_at: now }).execute();
      const campaign = await db.insertInto('campaigns').values({ slug: 'old', name: 'Old', user_id: 'u1', version: 1, created_at: now, updated_at: now }).returningAll().executeTakeFirstOrThrow();
      const type = await db.insertInto('thing_types').values({ campaign_id: campaign.id, name: 'NPCs', name_key: 'npcs', version: 1, created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow();
      const names = ['Zoë', 'élise', 'Ärger', 'apple', 'Élise', 'zed'];
      for (const [i, name] of names.entries()) {
        await db.insertInto('things').values({ campaign_id: campaign.id, type_id: type.id, slug: `t${i}`, name, version: 1, created_at: now, updated_at: now }).execute();
      }
      const before = await db.selectFrom('campaigns').select('content_version').where('id', '=', campaign.id).executeTakeFirstOrThrow();
      const changesBefore = await db.selectFrom('changes').selectAll().orderBy('record_id').orderBy('kind').execute();
      expect((await migrator(database).migrateTo('2026-11-25-0029-name-sort')).error).toBeUndefined();
      const rows = await db.selectFrom('things').select(['name', 'name_sort']).orderBy('name_sort').orderBy('id').execute();
      expect(rows.map((row) => row.name)).toEqual(['apple', 'Ärger', 'élise', 'Élise', 'zed', 'Zoë']);
      for (const row of rows) expect(row.name_sort).toBe(nameSortKey(row.name));
      expect(await db.selectFrom('campaigns').select('content_version').where('id', '=', campaign.id).executeTakeFirstOrThrow()).toEqual(before);
      expect(await db.selectFrom('changes').selectAll().orderBy('record_id').orderBy('kind').execute()).toEqual(changesBefore);
      // The triggers on things are back: a rename is a change again.
      await db.updateTable('things').set({ name: 'Zed' }).where('slug', '=', 't5').execute();
      expect(await db.selectFrom('changes').selectAll().orderBy('record_id').orderBy('kind').execute()).not.toEqual(changesBefore);
    } finally {
      await database.close();
    }
  });
});
