import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import { rebuildCampaignIndex } from '../../src/db/indexes/search.js';
import { indexAllPending } from '../../src/db/indexes/search-queue.js';
import { buildCheckedApp, createTestUser, json, type TestContext, type TestUser } from '../support/app.js';
import { contextWithUsers, createThing as createThingAs, databaseForCli, newCampaign as newCampaignAs, type TestCampaign } from '../support/fixtures.js';
import { dialect } from '../support/test-db.js';

const text = (...paragraphs: string[]) => paragraphs.map((p) => ({ type: 'paragraph', children: [{ text: p }] }));
const RESULT_FIELDS = ['excerpt', 'highlights', 'id', 'name', 'score', 'slug', 'type'];
const INDEX_TABLES = ['search_documents', 'search_postings', 'search_terms', 'search_pending'] as const;

let ctx: TestContext;
let owner: TestUser;
let stranger: TestUser;
beforeAll(async () => ({ ctx, owner, stranger } = await contextWithUsers()));
afterAll(() => ctx.close());


type Campaign = TestCampaign;
const newCampaign = (name: string, description?: string) => newCampaignAs(ctx.app, owner, name, description ? { description: text(description) } : {});
const createThing = (c: Campaign, name: string, description?: string, typeId = c.typeId) =>
  createThingAs(ctx.app, owner, c, name, { typeId, ...(description ? { description: text(description) } : {}) });

async function call(method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, headers: Record<string, string> = {}) {
  return ctx.app.inject({ method, url, headers: { ...owner.headers, ...headers }, ...(payload === undefined ? {} : { payload }) });
}


async function search(c: Campaign, q: string, extra = '') {
  const res = await ctx.app.inject({ method: 'GET', url: `${c.base}/search?q=${encodeURIComponent(q)}${extra}`, headers: owner.headers });
  expect(res.statusCode, res.body).toBe(200);
  return json<{ results: { type: string; id: number; slug: string; name: string; excerpt: string; highlights: string[]; score: number }[] }>(res).results;
}

const names = async (c: Campaign, q: string, extra = '') => (await search(c, q, extra)).map((r) => r.name);

async function indexRowCount(campaignId: number): Promise<number> {
  let total = 0;
  for (const table of INDEX_TABLES) {
    const row = await ctx.database.kysely
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('campaign_id', '=', campaignId)
      .executeTakeFirstOrThrow();
    total += Number(row.n);
  }
  return total;
}

// What the index holds of a campaign, independent of document ids.
async function postingsOf(campaignId: number): Promise<string[]> {
  const rows = await ctx.database.kysely
    .selectFrom('search_postings')
    .select(['term', 'kind', 'record_id', 'name_tf', 'text_tf', 'name_len', 'text_len'])
    .where('campaign_id', '=', campaignId)
    .execute();
  return rows.map((r) => `${r.kind}:${r.record_id}:${r.term}:${r.name_tf}:${r.text_tf}:${r.name_len}:${r.text_len}`).sort();
}

describe(`search route on ${dialect}`, () => {
  it('answers with exactly the documented fields, best first', async () => {
    const c = await newCampaign('Fields');
    const thing = await createThing(c, 'Nezznar the Black Spider', 'A drow wizard.');
    const results = await search(c, 'nezz');
    expect(results).toHaveLength(1);
    expect(Object.keys(results[0]!).sort()).toEqual(RESULT_FIELDS);
    expect(results[0]).toMatchObject({ type: 'thing', id: thing.id, slug: thing.slug, name: 'Nezznar the Black Spider', excerpt: 'A drow wizard.', highlights: ['Nezznar'] });
    const viaAlias = await ctx.app.inject({ method: 'GET', url: `${c.base}/search?query=nezz`, headers: owner.headers });
    expect(json(viaAlias).results).toEqual(results);
  });

  it('honours limit and type', async () => {
    const c = await newCampaign('Limits', 'Goblins everywhere.');
    for (let i = 0; i < 5; i++) await createThing(c, `Goblin ${i}`);
    await call('POST', `${c.base}/arcs`, { newArc: { name: 'Goblin Raid' } });
    expect(await search(c, 'goblin', '&limit=3')).toHaveLength(3);
    expect((await search(c, 'goblin')).map((r) => r.type).sort()).toEqual(['arc', 'campaign', 'thing', 'thing', 'thing', 'thing', 'thing']);
    expect((await search(c, 'goblin', '&type=thing')).every((r) => r.type === 'thing')).toBe(true);
    expect((await search(c, 'goblin', '&type=arc')).map((r) => r.name)).toEqual(['Goblin Raid']);
    expect((await search(c, 'goblin', '&type=any&limit=100')).length).toBe(7);
  });

  it('cuts a long text into an excerpt around the best match', async () => {
    const c = await newCampaign('Excerpts');
    const filler = 'The road winds on through fields and hills. '.repeat(20);
    await createThing(c, 'Long Road', `${filler}Here the party meets Venomfang, a green dragon. ${filler}`);
    const [result] = await search(c, 'venomfang dragon');
    expect(result!.excerpt).toMatch(/^….*Venomfang, a green dragon.*…$/);
    expect(result!.excerpt.length).toBeLessThan(200);
    expect(result!.highlights).toEqual(['Venomfang', 'dragon']);
  });

  it('is for the campaign owner only', async () => {
    const c = await newCampaign('Private', 'Secret lair.');
    await createThing(c, 'Hidden Goblin');
    const other = await ctx.app.inject({ method: 'GET', url: `${c.base}/search?q=goblin`, headers: stranger.headers });
    expect(other.statusCode).toBe(404);
    expect(json(other).code).toBe('campaign_not_found');
    expect((await ctx.app.inject({ method: 'GET', url: `${c.base}/search?q=goblin` })).statusCode).toBe(401);
    expect((await ctx.app.inject({ method: 'GET', url: '/api/campaigns/no-such-campaign/search?q=goblin', headers: owner.headers })).statusCode).toBe(404);
    // Another campaign of the same owner never leaks in.
    const mine = await newCampaign('Mine');
    expect(await names(mine, 'goblin')).toEqual([]);
    expect(await names(mine, 'secret')).toEqual([]);
  });
});

describe(`search query string on ${dialect}`, () => {
  let c: Campaign;
  beforeAll(async () => {
    c = await newCampaign('Query Strings');
  });

  it.each([
    ['', '/q'],
    ['?q=', '/q'],
    ['?q=%20%20%09', '/q'],
    ['?query=', '/query'],
    ['?q=a&query=b', '/query'],
    ['?q=a&q=b', '/q'],
    ['?q=a&type=things', '/type'],
    ['?q=a&type=', '/type'],
    ['?q=a&limit=0', '/limit'],
    ['?q=a&limit=101', '/limit'],
    ['?q=a&limit=1.5', '/limit'],
    ['?q=a&limit=-1', '/limit'],
    ['?q=a&limit=ten', '/limit'],
    ['?q=a&limit=1&limit=2', '/limit'],
  ])('refuses %j with a pointer to %s', async (query, pointer) => {
    const res = await ctx.app.inject({ method: 'GET', url: `${c.base}/search${query}`, headers: owner.headers });
    expect(res.statusCode).toBe(400);
    const body = json(res);
    expect(body.code).toBe('invalid_query');
    expect(body.errors.map((e: { path: string }) => e.path)).toContain(pointer);
  });

  it('reports every bad parameter at once', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: `${c.base}/search?type=x&limit=0`, headers: owner.headers });
    expect(json(res).errors.map((e: { path: string }) => e.path).sort()).toEqual(['/limit', '/q', '/type']);
  });
});

describe(`hostile queries on ${dialect}`, () => {
  let c: Campaign;
  const words = Array.from({ length: 2000 }, (_, i) => `w${i.toString(36)}x`).join(' ');

  beforeAll(async () => {
    c = await newCampaign('Hostile', 'The "Black" Spider: NEAR the cave * AND - beyond.');
    await createThing(c, 'Goblin Cave', 'Goblins AND kobolds; NEAR(cave) "quoted" -minus title:colon 100% under_score');
    await createThing(c, '🐉 Dragon', 'Fire! 🔥');
  });

  const hostile: [string, string][] = [
    ['10,000 characters of words', words.slice(0, 10_000)],
    ['10,000 characters of one word', 'a'.repeat(10_000)],
    ['10,000 characters of punctuation', '!?.,;:"\'()[]{}<>*-+=/\\|&^%$#@~`'.repeat(320).slice(0, 10_000)],
    ['only punctuation', '?!..,;:--'],
    ['a double quote', '"'],
    ['unbalanced quotes', '"goblin cave'],
    ['a star', 'gob*'],
    ['NEAR', 'NEAR(goblin cave, 2)'],
    ['AND / OR / NOT', 'goblin AND cave OR NOT kobold'],
    ['a minus', '-goblin'],
    ['a column filter', 'title:goblin'],
    ['a caret and braces', '^goblin {cave}'],
    ['SQL', "'; drop table things; --"],
    ['LIKE wildcards', '%_%'],
    ['regular expression syntax', '.*+?^${}()|[]\\'],
    ['a NUL byte', 'gob\u0000lin'],
    ['only NUL bytes', '\u0000\u0000'],
    ['emoji', '🐉🔥'],
    ['a zero-width joiner sequence', '👩‍👩‍👧'],
    ['right-to-left text', 'مرحبا بالعالم'],
    ['combining marks only', '\u0301\u0302\u0303'],
    ['control characters', '\u0001\u0002\u001b[31m'],
    ['a private-use character', '\uE000goblin'],
  ];

  it.each(hostile)('answers %s with a 200 and a result list', async (_, q) => {
    const res = await ctx.app.inject({ method: 'GET', url: `${c.base}/search?q=${encodeURIComponent(q)}`, headers: owner.headers });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(Array.isArray(json(res).results)).toBe(true);
  });

  it.each([
    ['a lone high surrogate', '%ED%A0%80goblin'],
    ['a lone low surrogate', 'goblin%ED%B0%80'],
    ['invalid UTF-8', '%FF%FEgoblin'],
    ['a broken percent escape', 'gob%2'],
    ['an overlong encoding', '%C0%AFgoblin'],
  ])('answers %s in the raw query string without a server error', async (_, raw) => {
    const res = await ctx.app.inject({ method: 'GET', url: `${c.base}/search?q=${raw}`, headers: owner.headers });
    expect(res.statusCode).toBeLessThan(500);
  });

  it('still finds what the operators surround, as text', async () => {
    expect((await names(c, '"goblin cave'))[0]).toBe('Goblin Cave');
    expect((await names(c, 'NEAR(goblin)'))[0]).toBe('Goblin Cave');
    expect((await names(c, '-kobolds'))[0]).toBe('Goblin Cave');
    expect((await names(c, 'title:colon'))[0]).toBe('Goblin Cave');
    expect(await names(c, '🔥')).toEqual(['🐉 Dragon']);
    expect(await names(c, '?!..')).toEqual([]);
  });
});

describe(`index consistency on ${dialect}`, () => {
  it('finds a new thing at once, by name and by text', async () => {
    const c = await newCampaign('Fresh');
    await createThing(c, 'Sildar Hallwinter', 'Captured on the Triboar Trail.');
    expect(await names(c, 'sildar')).toEqual(['Sildar Hallwinter']);
    expect(await names(c, 'triboar')).toEqual(['Sildar Hallwinter']);
  });

  it('forgets the old name and text of an updated thing, and shows its new slug', async () => {
    const c = await newCampaign('Updates');
    const thing = await createThing(c, 'Iarno Albrek', 'A wizard of the Lords Alliance.');
    const res = await call('PUT', `${c.base}/things/${thing.slug}`, {
      updatedThing: { name: 'Glasstaff', slug: 'glasstaff', description: text('Leader of the Redbrands.') },
    });
    expect(res.statusCode).toBe(200);
    expect(await names(c, 'iarno')).toEqual([]);
    expect(await names(c, 'alliance')).toEqual([]);
    expect(await search(c, 'glasstaff')).toMatchObject([{ id: thing.id, slug: 'glasstaff', name: 'Glasstaff' }]);
    expect(await names(c, 'redbrands')).toEqual(['Glasstaff']);
    // A change that leaves the text alone leaves the index as it was.
    const before = await postingsOf(c.id);
    const types = json<{ id: number }[]>(await ctx.app.inject({ method: 'GET', url: `${c.base}/thing-types`, headers: owner.headers }));
    expect((await call('PUT', `${c.base}/things/glasstaff`, { updatedThing: { typeId: types[1]!.id, slug: 'iarno' } })).statusCode).toBe(200);
    expect(await postingsOf(c.id)).toEqual(before);
    expect((await search(c, 'glasstaff'))[0]!.slug).toBe('iarno');
  });

  it('leaves the index untouched by a write that fails', async () => {
    const c = await newCampaign('Failures');
    const thing = await createThing(c, 'Halia Thornton', 'Agent of the Zhentarim.');
    const stale = await call('PUT', `${c.base}/things/${thing.slug}`, { updatedThing: { name: 'Renamed Halia' } }, { 'if-match': '"1-999"' });
    expect(stale.statusCode).toBe(412);
    expect(await names(c, 'renamed')).toEqual([]);
    expect(await names(c, 'halia')).toEqual(['Halia Thornton']);
    const badType = await call('POST', `${c.base}/things`, { newThing: { name: 'Orphan Goblin', typeId: 999_999 } });
    expect(badType.statusCode).toBe(400);
    expect(await names(c, 'orphan')).toEqual([]);
  });

  it('drops a deleted thing and all its index rows', async () => {
    const c = await newCampaign('Deletes');
    const keep = await createThing(c, 'Klarg', 'A bugbear in a cave.');
    const gone = await createThing(c, 'Yeemik', 'A goblin in a cave.');
    expect((await call('DELETE', `${c.base}/things/${gone.slug}`)).statusCode).toBe(204);
    expect(await names(c, 'yeemik')).toEqual([]);
    expect(await names(c, 'cave')).toEqual(['Klarg']);
    const left = await ctx.database.kysely.selectFrom('search_postings').select('record_id').where('campaign_id', '=', c.id).where('kind', '=', 1).execute();
    expect(new Set(left.map((r) => r.record_id))).toEqual(new Set([keep.id]));
  });

  it('drops the things of a deleted thing type', async () => {
    const c = await newCampaign('Type Cascade');
    const factions = json(await call('POST', `${c.base}/thing-types`, { newThingType: { name: 'Factions' } }));
    await createThing(c, 'Zhentarim', 'The Black Network.', factions.id);
    await createThing(c, 'Lords Alliance', 'Allies of the Black Network’s enemies.', factions.id);
    await createThing(c, 'Black Spider', 'A drow.');
    expect((await names(c, 'black')).sort()).toEqual(['Black Spider', 'Lords Alliance', 'Zhentarim']);
    expect((await call('DELETE', `${c.base}/thing-types/${factions.id}`)).statusCode).toBe(204);
    expect(await names(c, 'black')).toEqual(['Black Spider']);
    expect(await names(c, 'zhentarim')).toEqual([]);
    const documents = await ctx.database.kysely.selectFrom('search_documents').select('thing_id').where('campaign_id', '=', c.id).execute();
    expect(documents).toHaveLength(1);
  });

  it('indexes arcs: every text field, renames, deletes', async () => {
    const c = await newCampaign('Arcs');
    const created = json(await call('POST', `${c.base}/arcs`, { newArc: { name: 'Goblin Arrows', hook: text('An ambush on the trail.'), notes: text('Klarg waits.') } }));
    expect(await names(c, 'ambush')).toEqual(['Goblin Arrows']);
    expect(await names(c, 'klarg')).toEqual(['Goblin Arrows']);
    const fields = ['hook', 'protagonist', 'antagonist', 'problem', 'key', 'outcome', 'notes'];
    const updated = Object.fromEntries(fields.map((field) => [field, text(`${field}word`)]));
    expect((await call('PUT', `${c.base}/arcs/${created.slug}`, { updatedArc: { name: 'Cragmaw Raid', ...updated } })).statusCode).toBe(200);
    for (const field of fields) expect(await names(c, `${field}word`), field).toEqual(['Cragmaw Raid']);
    expect(await names(c, 'ambush')).toEqual([]);
    expect(await names(c, 'arrows')).toEqual([]);
    expect((await search(c, 'cragmaw'))[0]).toMatchObject({ type: 'arc', id: created.id, slug: created.slug });
    // A parent change alone touches no text.
    const parent = json(await call('POST', `${c.base}/arcs`, { newArc: { name: 'Parent Arc' } }));
    const before = await postingsOf(c.id);
    expect((await call('PUT', `${c.base}/arcs/${created.slug}`, { updatedArc: { parentArcId: parent.id } })).statusCode).toBe(200);
    expect(await postingsOf(c.id)).toEqual(before);
    expect((await call('DELETE', `${c.base}/arcs/${parent.slug}`)).statusCode).toBe(204);
    expect(await names(c, 'parent')).toEqual([]);
    expect((await call('DELETE', `${c.base}/arcs/${created.slug}`)).statusCode).toBe(204);
    expect(await names(c, 'cragmaw')).toEqual([]);
  });

  it('follows the campaign description', async () => {
    const c = await newCampaign('Described', 'Along the Sword Coast.');
    expect(await search(c, 'sword')).toMatchObject([{ type: 'campaign', id: c.id, slug: c.slug, name: 'Described' }]);
    expect((await call('PUT', c.base, { updatedCampaign: { description: text('In the Underdark.') } })).statusCode).toBe(200);
    expect(await names(c, 'sword')).toEqual([]);
    expect(await names(c, 'underdark')).toEqual(['Described']);
    expect((await call('PUT', c.base, { updatedCampaign: { name: 'Renamed' } })).statusCode).toBe(200);
    expect(await names(c, 'underdark')).toEqual(['Renamed']);
    // The campaign's own name is not searched within it.
    expect(await names(c, 'renamed')).toEqual([]);
  });

  it('removes every index row of a campaign erased from the trash', async () => {
    const c = await newCampaign('Doomed', 'Everything ends.');
    await createThing(c, 'Doomed Goblin', 'Soon gone.');
    await call('POST', `${c.base}/arcs`, { newArc: { name: 'Last Arc', hook: text('The end.') } });
    await indexAllPending(ctx.database);
    expect(await indexRowCount(c.id)).toBeGreaterThan(0);
    // And a record queued for indexing, not indexed yet.
    await call('PUT', c.base, { updatedCampaign: { description: text('Everything ends, truly.') } });
    expect((await call('DELETE', c.base)).statusCode).toBe(204);
    expect((await call('DELETE', `/api/trash/campaigns/${c.id}`)).statusCode).toBe(204);
    expect(await indexRowCount(c.id)).toBe(0);
  });

  it('holds after any sequence of writes exactly what a rebuild from the records holds', async () => {
    const c = await newCampaign('Rebuild', 'First words.');
    const a = await createThing(c, 'Alpha Thing', 'one two three');
    const b = await createThing(c, 'Beta Thing', 'two three four');
    await call('PUT', `${c.base}/things/${a.slug}`, { updatedThing: { description: text('five six, six!') } });
    await call('DELETE', `${c.base}/things/${b.slug}`);
    const arc = json(await call('POST', `${c.base}/arcs`, { newArc: { name: 'Gamma Arc', problem: text('seven') } }));
    await call('PUT', `${c.base}/arcs/${arc.slug}`, { updatedArc: { outcome: text('eight nine') } });
    await call('PUT', c.base, { updatedCampaign: { description: text('Second words.') } });
    await indexAllPending(ctx.database);
    const incremental = await postingsOf(c.id);
    const vocabulary = await ctx.database.kysely.selectFrom('search_terms').select('term').where('campaign_id', '=', c.id).execute();
    await ctx.database.kysely.transaction().execute((trx) => rebuildCampaignIndex(trx, c.id));
    expect(await postingsOf(c.id)).toEqual(incremental);
    // The vocabulary may keep words of deleted text until a rebuild; never lacks a word in use.
    const rebuilt = await ctx.database.kysely.selectFrom('search_terms').select('term').where('campaign_id', '=', c.id).execute();
    expect(vocabulary.map((r) => r.term)).toEqual(expect.arrayContaining(rebuilt.map((r) => r.term)));
    expect(rebuilt.map((r) => r.term)).not.toContain('four');
  });
});

describe(`statements per search on ${dialect}`, () => {
  it('are few, and the same for a small and a large campaign', async () => {
    const small = await newCampaign('Small Counted');
    // The same words as the large campaign, so each query takes the same path through the search.
    await createThing(small, 'Goblin Boss', 'A goblin of the Cragmaw tribe, cruel and greedy, with a hat.');
    const large = await newCampaign('Large Counted');
    // Large enough to matter, seeded straight into the tables and indexed by a rebuild.
    const now = new Date().toISOString();
    const description = JSON.stringify(text('A goblin of the Cragmaw tribe, cruel and greedy.'));
    for (let start = 0; start < 600; start += 200) {
      await ctx.database.kysely
        .insertInto('things')
        .values(
          Array.from({ length: 200 }, (_, k) => ({
            campaign_id: large.id,
            type_id: large.typeId,
            slug: `goblin-${start + k}`,
            name: `Goblin ${start + k}`,
            description,
            version: 1,
            created_at: now,
            updated_at: now,
          })),
        )
        .execute();
    }
    await ctx.database.kysely.transaction().execute((trx) => rebuildCampaignIndex(trx, large.id));
    for (const q of ['goblin', 'gob', 'golbin cragmaw hat', 'Goblin Boss', '"quoted" AND nothing', 'zzzz']) {
      await search(small, q); // warms the caller's token (its last-used time is written at most once a minute)
      ctx.queries.length = 0;
      await search(small, q);
      const smallCount = ctx.queries.length;
      await search(large, q);
      ctx.queries.length = 0;
      await search(large, q);
      expect(ctx.queries.length, q).toBe(smallCount);
      // With the look for records queued for indexing (db/indexes/search-queue.ts): none here.
      expect(smallCount, q).toBeLessThanOrEqual(5);
    }
    const many = Array.from({ length: 500 }, (_, i) => `word${i}`).join(' ');
    ctx.queries.length = 0;
    await search(large, many);
    expect(ctx.queries.length).toBeLessThanOrEqual(5);
  });
});

describe(`npm run cli -- search reindex on ${dialect}`, () => {
  let cli: Awaited<ReturnType<typeof databaseForCli>>;
  let database: Database;
  let env: Record<string, string>;

  beforeAll(async () => {
    cli = await databaseForCli();
    ({ database, env } = cli);
  });
  afterAll(() => cli.close());

  it('rebuilds the index of every campaign from its records', async () => {
    const app = await buildCheckedApp(loadConfig(env), { database, logger: false });
    try {
      const user = await createTestUser(database);
      const campaign = json(await app.inject({ method: 'POST', url: '/api/campaigns', headers: user.headers, payload: { newCampaign: { name: 'Reindexed', description: text('Old tales.') } } }));
      const types = json(await app.inject({ method: 'GET', url: `/api/campaigns/${campaign.slug}/thing-types`, headers: user.headers }));
      await app.inject({ method: 'POST', url: `/api/campaigns/${campaign.slug}/things`, headers: user.headers, payload: { newThing: { name: 'Gundren Rockseeker', typeId: types[0].id } } });
      await indexAllPending(database);
      // Lose the index, as if it had been damaged or created before the records.
      for (const table of ['search_postings', 'search_documents', 'search_terms'] as const) await database.kysely.deleteFrom(table).execute();
      const find = async (q: string) =>
        json(await app.inject({ method: 'GET', url: `/api/campaigns/${campaign.slug}/search?q=${q}`, headers: user.headers })).results.map((r: { name: string }) => r.name);
      expect(await find('gundren')).toEqual([]);

      const out: string[] = [];
      const err: string[] = [];
      const status = await runCli(['search', 'reindex'], env, { out: (line) => out.push(line), err: (line) => err.push(line) });
      expect({ status, err }).toEqual({ status: 0, err: [] });
      expect(out.join('\n')).toMatch(/Rebuilt the search index: 1 campaign, 2 documents in \d+\.\d s\./);
      // On PostgreSQL the command's change reaches this instance as a notice, a moment after the
      // command (README "How the instances stay consistent"): applied, as a request a moment later would be.
      await app.callerCache?.notifications.sync();
      expect(await find('gundren')).toEqual(['Gundren Rockseeker']);
      expect(await find('tales')).toEqual(['Reindexed']);
      expect(await find('golbin')).toEqual([]);
      expect(await find('rokseeker')).toEqual(['Gundren Rockseeker']);
    } finally {
      await app.close();
    }
  });

  it('refuses extra arguments', async () => {
    const err: string[] = [];
    expect(await runCli(['search', 'reindex', 'now'], env, { out: () => {}, err: (line) => err.push(line) })).toBe(2);
    expect(err[0]).toMatch(/search reindex takes no arguments/);
  });
});
