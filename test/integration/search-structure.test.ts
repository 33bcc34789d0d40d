// Search over a record's structure (issue 25): aliases are names, tags and property values are text,
// GM-only properties only in the game masters' documents, and `tag` filters results.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rebuildCampaignIndex } from '../../src/db/indexes/search.js';
import { indexAllPending } from '../../src/db/indexes/search-queue.js';
import { json, type TestContext, type TestUser } from '../support/app.js';
import { contextWithUsers, createThing, errorPathsOf, newCampaign, sendAs, type TestCampaign } from '../support/fixtures.js';
import { joinCampaign } from '../support/sharing.js';
import { dialect } from '../support/test-db.js';

let ctx: TestContext;
let owner: TestUser;
let player: TestUser;
beforeAll(async () => ({ ctx, owner, stranger: player } = await contextWithUsers()));
afterAll(() => ctx.close());

const text = (...paragraphs: string[]) => paragraphs.map((p) => ({ type: 'paragraph', children: [{ text: p }] }));

interface Result {
  type: string;
  id: number;
  name: string;
  alias?: string;
  excerpt: string;
  highlights: string[];
  score: number;
}

async function search(c: TestCampaign, q: string, extra = '', user: TestUser = owner): Promise<Result[]> {
  const res = await ctx.app.inject({ method: 'GET', url: `${c.base}/search?q=${encodeURIComponent(q)}${extra}`, headers: user.headers });
  expect(res.statusCode, res.body).toBe(200);
  return json<{ results: Result[] }>(res).results;
}
const names = async (c: TestCampaign, q: string, extra = '', user: TestUser = owner) => (await search(c, q, extra, user)).map((r) => r.name);

async function withPlayer(): Promise<TestCampaign> {
  const c = await newCampaign(ctx.app, owner);
  await joinCampaign(ctx.app, owner, c.slug, player, 'player');
  return c;
}

async function postingsOf(campaignId: number): Promise<string[]> {
  const rows = await ctx.database.kysely
    .selectFrom('search_postings')
    .select(['term', 'kind', 'record_id', 'name_tf', 'text_tf', 'name_len', 'text_len', 'audience'])
    .where('campaign_id', '=', campaignId)
    .execute();
  return rows.map((r) => `${r.kind}:${r.record_id}:${r.term}:${r.name_tf}:${r.text_tf}:${r.name_len}:${r.text_len}:${r.audience}`).sort();
}

describe(`search by aliases on ${dialect}`, () => {
  it('finds a thing by an alias, ranked like a name match, and says which alias matched', async () => {
    const c = await newCampaign(ctx.app, owner);
    await createThing(ctx.app, owner, c, 'Yusdrayl', { aliases: ['The Kobold Queen', 'Yus'] });
    await createThing(ctx.app, owner, c, 'Meepo', { description: text('Meepo serves the kobold queen.') });
    const results = await search(c, 'kobold queen');
    expect(results.map((r) => r.name)).toEqual(['Yusdrayl', 'Meepo']);
    const [queen, meepo] = results as [Result, Result];
    expect(queen.alias).toBe('The Kobold Queen');
    expect(Math.floor(queen.score)).toBe(2);
    expect(queen.highlights).toEqual(['Kobold', 'Queen']);
    expect(meepo.alias).toBeUndefined();
    expect(Math.floor(meepo.score)).toBe(1);
    // A prefix and a typo of an alias find it too, as the picker types it.
    expect((await search(c, 'kob'))[0]?.name).toBe('Yusdrayl');
    expect((await search(c, 'kobld queen'))[0]).toMatchObject({ name: 'Yusdrayl', alias: 'The Kobold Queen' });
    // A match in the name itself names no alias.
    expect((await search(c, 'yusdrayl'))[0]).not.toHaveProperty('alias');
  });

  it('finds an arc by an alias, and follows aliases as they change', async () => {
    const c = await newCampaign(ctx.app, owner);
    const created = await sendAs(ctx.app, owner, 'POST', `${c.base}/arcs`, { newArc: { name: 'Lost Mine', aliases: ['Wave Echo Cave'] } });
    expect(created.statusCode, created.body).toBe(201);
    const arc = json<{ slug: string }>(created);
    expect(await search(c, 'wave echo')).toMatchObject([{ type: 'arc', name: 'Lost Mine', alias: 'Wave Echo Cave' }]);
    const thing = await createThing(ctx.app, owner, c, 'Glasstaff', { aliases: ['Iarno'] });
    expect(await names(c, 'iarno')).toEqual(['Glasstaff']);

    expect((await sendAs(ctx.app, owner, 'PUT', `${c.base}/arcs/${arc.slug}`, { updatedArc: { aliases: ['Phandelver'] } })).statusCode).toBe(200);
    expect((await sendAs(ctx.app, owner, 'PUT', `${c.base}/things/${thing.slug}`, { updatedThing: { aliases: [] } })).statusCode).toBe(200);
    expect(await names(c, 'wave echo')).toEqual([]);
    expect(await names(c, 'phandelver')).toEqual(['Lost Mine']);
    expect(await names(c, 'iarno')).toEqual([]);
  });

  it('comes back with its aliases, tags and properties when restored from the trash', async () => {
    const c = await newCampaign(ctx.app, owner);
    const thing = await createThing(ctx.app, owner, c, 'Sildar', { aliases: ['Hallwinter'], tags: ['lordsalliance'], properties: [{ key: 'rank', value: 'knight' }] });
    expect((await sendAs(ctx.app, owner, 'DELETE', `${c.base}/things/${thing.slug}`)).statusCode).toBe(204);
    expect(await names(c, 'hallwinter')).toEqual([]);
    const trash = json<{ kind: string; id: number }[]>(await sendAs(ctx.app, owner, 'GET', `${c.base}/trash`));
    const entry = trash.find((e) => e.kind === 'thing')!;
    expect((await sendAs(ctx.app, owner, 'POST', `${c.base}/trash/${entry.kind}/${entry.id}/restore`)).statusCode).toBe(200);
    expect(await names(c, 'hallwinter')).toEqual(['Sildar']);
    expect(await names(c, 'lordsalliance')).toEqual(['Sildar']);
    expect(await names(c, 'knight')).toEqual(['Sildar']);
  });
});

describe(`search by tags and property text on ${dialect}`, () => {
  it('finds records by a tag word and by property values of every kind, not by keys nor link targets', async () => {
    const c = await newCampaign(ctx.app, owner);
    const target = await createThing(ctx.app, owner, c, 'Zanzibar');
    const thing = await createThing(ctx.app, owner, c, 'Klarg', {
      tags: ['Cragmaw Villain'],
      properties: [
        { key: 'species', value: 'Bugbear' },
        { key: 'level', value: 1337 },
        { key: 'wanted', value: true },
        { key: 'seen', value: '1491-05-17' },
        { key: 'pets', value: ['Ripper', { targetType: 'thing', targetId: target.id }] },
        { key: 'lair', value: { targetType: 'thing', targetId: target.id } },
      ],
    });
    const arc = await sendAs(ctx.app, owner, 'POST', `${c.base}/arcs`, { newArc: { name: 'Ambush', tags: ['villain'], properties: [{ key: 'session', value: 'Thundertree' }] } });
    expect(arc.statusCode, arc.body).toBe(201);

    expect(await names(c, 'cragmaw')).toEqual(['Klarg']);
    expect((await names(c, 'villain')).sort()).toEqual(['Ambush', 'Klarg']);
    expect(await names(c, 'bugbear')).toEqual(['Klarg']);
    expect(await names(c, '1337')).toEqual(['Klarg']);
    expect(await names(c, 'true')).toEqual(['Klarg']);
    expect(await names(c, '1491')).toEqual(['Klarg']);
    expect(await names(c, 'ripper')).toEqual(['Klarg']);
    expect(await names(c, 'thundertree')).toEqual(['Ambush']);
    // Keys name the field, not the record; a link is its target's to match, by the target's name.
    expect(await names(c, 'species')).toEqual([]);
    expect(await names(c, 'zanzibar')).toEqual(['Zanzibar']);

    // The excerpt shows the property that matched, with its key; highlights the words as written.
    const [bugbear] = await search(c, 'bugbear');
    expect(bugbear!.excerpt).toBe('species: Bugbear');
    expect(bugbear!.highlights).toEqual(['Bugbear']);
    expect((await search(c, 'cragmaw'))[0]!.excerpt).toBe('#Cragmaw Villain');

    // Changed properties are searched as they are now.
    const put = await sendAs(ctx.app, owner, 'PUT', `${c.base}/things/${thing.slug}`, { updatedThing: { properties: [{ key: 'species', value: 'Goblin' }], tags: [] } });
    expect(put.statusCode, put.body).toBe(200);
    expect(await names(c, 'bugbear')).toEqual([]);
    expect(await names(c, 'cragmaw')).toEqual([]);
    expect(await names(c, 'goblin')).toEqual(['Klarg']);
  });

  it('never lets a player find or read a record by a GM-only property, while game masters do', async () => {
    const c = await withPlayer();
    await createThing(ctx.app, owner, c, 'Sister Garaele', {
      description: text('A priestess of Tymora.'),
      properties: [
        { key: 'true form', value: 'Doppelganger', gmOnly: true },
        { key: 'faction', value: 'Harpers' },
      ],
    });
    expect(await names(c, 'doppelganger')).toEqual(['Sister Garaele']);
    expect(await names(c, 'doppelganger', '', player)).toEqual([]);
    expect(await names(c, 'doppel', '', player)).toEqual([]);
    expect(await names(c, 'harpers', '', player)).toEqual(['Sister Garaele']);
    // A player's excerpt and highlights never carry the GM-only value, even when the record matches.
    const [seen] = await search(c, 'sister doppelganger', '', player);
    expect(seen!.name).toBe('Sister Garaele');
    expect(JSON.stringify(seen)).not.toMatch(/doppel|true form/i);
    const [gms] = await search(c, 'sister doppelganger');
    expect(gms!.excerpt).toBe('true form: Doppelganger');
    expect(gms!.highlights).toEqual(['Sister', 'Doppelganger']);
  });

  it('holds after structure writes exactly what a rebuild from the records holds', async () => {
    const c = await newCampaign(ctx.app, owner);
    const a = await createThing(ctx.app, owner, c, 'Alpha', { aliases: ['First One'], tags: ['one'], properties: [{ key: 'k', value: 'secretword', gmOnly: true }] });
    await createThing(ctx.app, owner, c, 'Beta', { visibility: 'gm', tags: ['two'], properties: [{ key: 'k', value: 2 }] });
    await sendAs(ctx.app, owner, 'PUT', `${c.base}/things/${a.slug}`, { updatedThing: { aliases: ['Second One'], properties: [{ key: 'k', value: 'openword' }] } });
    await sendAs(ctx.app, owner, 'POST', `${c.base}/arcs`, { newArc: { name: 'Gamma', aliases: ['Third'], properties: [{ key: 'k', value: 'arcword', gmOnly: true }] } });
    await indexAllPending(ctx.database);
    const incremental = await postingsOf(c.id);
    await ctx.database.kysely.transaction().execute((trx) => rebuildCampaignIndex(trx, c.id));
    expect(await postingsOf(c.id)).toEqual(incremental);
    expect(incremental.some((p) => p.includes(':second:'))).toBe(true);
    expect(incremental.some((p) => p.includes(':first:'))).toBe(false);
  });
});

describe(`the search tag filter on ${dialect}`, () => {
  it('keeps records with every given tag, ignoring case', async () => {
    const c = await newCampaign(ctx.app, owner, undefined, { description: text('Goblins everywhere.') });
    await createThing(ctx.app, owner, c, 'Goblin Boss', { tags: ['Villain', 'Cragmaw'] });
    await createThing(ctx.app, owner, c, 'Goblin Scout', { tags: ['cragmaw'] });
    await createThing(ctx.app, owner, c, 'Goblin Cook');
    const arc = await sendAs(ctx.app, owner, 'POST', `${c.base}/arcs`, { newArc: { name: 'Goblin Ambush', tags: ['CRAGMAW', 'villain'] } });
    expect(arc.statusCode, arc.body).toBe(201);

    expect((await names(c, 'goblin')).sort()).toEqual(['Goblin Ambush', 'Goblin Boss', 'Goblin Cook', 'Goblin Scout', c.name].sort());
    expect((await names(c, 'goblin', '&tag=cragmaw')).sort()).toEqual(['Goblin Ambush', 'Goblin Boss', 'Goblin Scout']);
    expect((await names(c, 'goblin', '&tag=VILLAIN&tag=%20Cragmaw%20')).sort()).toEqual(['Goblin Ambush', 'Goblin Boss']);
    expect(await names(c, 'goblin', '&tag=villain&type=thing')).toEqual(['Goblin Boss']);
    expect(await names(c, 'goblin', '&tag=villai')).toEqual([]);
    // LIKE's wildcards are plain characters in a tag.
    expect(await names(c, 'goblin', '&tag=%25')).toEqual([]);
    expect(await names(c, 'goblin', '&tag=villai_')).toEqual([]);
  });

  it('refuses a blank or overlong tag with a pointer', async () => {
    const c = await newCampaign(ctx.app, owner);
    const blank = await sendAs(ctx.app, owner, 'GET', `${c.base}/search?q=x&tag=%20`);
    expect(blank.statusCode).toBe(400);
    expect(errorPathsOf(blank)).toEqual(['/tag']);
    const long = await sendAs(ctx.app, owner, 'GET', `${c.base}/search?q=x&tag=ok&tag=${'a'.repeat(51)}`);
    expect(long.statusCode).toBe(400);
    expect(errorPathsOf(long)).toEqual(['/tag/1']);
  });
});
