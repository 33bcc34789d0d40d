// Search indexing after the commit (db/indexes/search-queue.ts): a write queues what it changed and
// touches no index table; a search first indexes what its campaign has queued, so it never answers
// from before a write committed ahead of it (a record turned GM-only included); each instance
// indexes what is queued SEARCH_INDEX_DELAY_MS after its writes; a restart indexes what a stop left
// queued; on PostgreSQL an instance's search sees another instance's writes, and instances
// indexing the same campaign at once leave the index a rebuild gives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../src/db/database.js';
import { indexAllPending } from '../../src/db/indexes/search-queue.js';
import { rebuildCampaignIndex } from '../../src/db/indexes/search.js';
import { campaignHousekeeping } from '../../src/db/repositories/common.js';
import { loadConfig } from '../../src/config.js';
import type { AppInstance } from '../../src/http/app-types.js';
import { buildCheckedApp, json, type TestContext, type TestUser } from '../support/app.js';
import { contextWithUsers, createThing, newCampaign, sendAs, type TestCampaign } from '../support/fixtures.js';
import { integrityProblems } from '../support/integrity.js';
import { joinCampaign } from '../support/sharing.js';
import { dialect } from '../support/test-db.js';

let ctx: TestContext;
let owner: TestUser;
let player: TestUser;
beforeAll(async () => {
  ({ ctx, owner, stranger: player } = await contextWithUsers({ RESPONSE_CACHE_MB: '0' }));
});
afterAll(() => ctx.close());

const text = (words: string) => [{ type: 'paragraph', children: [{ text: words }] }];
const queued = (c: TestCampaign) => ctx.database.kysely.selectFrom('search_pending').select(['kind', 'record_id']).where('campaign_id', '=', c.id).execute();
const find = async (app: AppInstance, user: TestUser, c: TestCampaign, q: string) =>
  json<{ results: { name: string }[] }>(await sendAs(app, user, 'GET', `${c.base}/search?q=${encodeURIComponent(q)}`)).results.map((r) => r.name);
const documentsOf = async (database: Database, c: TestCampaign) =>
  Number((await database.kysely.selectFrom('search_documents').select((eb) => eb.fn.countAll<number>().as('n')).where('campaign_id', '=', c.id).executeTakeFirstOrThrow()).n);

/** Polls `check` every 10 ms until it holds or `ms` pass; returns the time it took. */
async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - start;
}

describe(`search indexing after the commit on ${dialect}`, () => {
  it('a write queues the record and touches no index table; the next search indexes it first', async () => {
    const c = await newCampaign(ctx.app, owner);
    await joinCampaign(ctx.app, owner, c.slug, player, 'player');
    await indexAllPending(ctx.database);
    ctx.queries.length = 0;
    const thing = await createThing(ctx.app, owner, c, 'Zephyr Lantern', { description: text('a lantern that hums at dusk') });
    expect(ctx.queries.filter((q) => /search_(documents|postings|terms)/.test(q))).toEqual([]);
    expect(await queued(c)).toEqual([{ kind: 1, record_id: thing.id }]);
    expect(await find(ctx.app, owner, c, 'hums')).toEqual(['Zephyr Lantern']);
    expect(await queued(c)).toEqual([]);
    expect(await find(ctx.app, player, c, 'zephyr')).toEqual(['Zephyr Lantern']);

    // Turned GM-only: the player's very next search no longer finds it, by name or text.
    const res = await sendAs(ctx.app, owner, 'PUT', `${c.base}/things/${thing.slug}`, { updatedThing: { visibility: 'gm', description: text('a lantern that sings at dusk') } });
    expect(res.statusCode, res.body).toBe(200);
    expect(await queued(c)).toHaveLength(1);
    expect(await find(ctx.app, player, c, 'zephyr')).toEqual([]);
    expect(await find(ctx.app, player, c, 'sings')).toEqual([]);
    expect(await find(ctx.app, owner, c, 'sings')).toEqual(['Zephyr Lantern']);
    expect(await find(ctx.app, owner, c, 'hums')).toEqual([]);
  });

  it('a record deleted while queued leaves nothing behind', async () => {
    const c = await newCampaign(ctx.app, owner);
    const thing = await createThing(ctx.app, owner, c, 'Fleeting Moth');
    expect((await sendAs(ctx.app, owner, 'DELETE', `${c.base}/things/${thing.slug}`)).statusCode).toBe(204);
    expect(await find(ctx.app, owner, c, 'moth')).toEqual([]);
    expect(await queued(c)).toEqual([]);
    expect(await integrityProblems(ctx.database.kysely, ctx.database.dialect)).toEqual([]);
  });

  it('a rebuild of the campaign indexes what it had queued and empties its queue', async () => {
    const c = await newCampaign(ctx.app, owner);
    await createThing(ctx.app, owner, c, 'Rebuilt Harbour', { description: text('gulls over the harbour') });
    expect((await queued(c)).length).toBeGreaterThan(0);
    await campaignHousekeeping(ctx.database, c.id, (trx) => rebuildCampaignIndex(trx, c.id));
    expect(await queued(c)).toEqual([]);
    expect(await integrityProblems(ctx.database.kysely, ctx.database.dialect)).toEqual([]);
    expect(await find(ctx.app, owner, c, 'gulls')).toEqual(['Rebuilt Harbour']);
  });

  it('each instance indexes what its writes queued within SEARCH_INDEX_DELAY_MS, with no search', async () => {
    const app = await buildCheckedApp(loadConfig({ ...envOf(ctx), SEARCH_INDEX_DELAY_MS: '100' }), { database: ctx.database, logger: false });
    await app.ready();
    try {
      const c = await newCampaign(app, owner);
      await indexAllPending(ctx.database);
      const before = await documentsOf(ctx.database, c);
      for (const name of ['Amber Hall', 'Basalt Gate', 'Cinder Well']) await createThing(app, owner, c, name, { description: text(`${name} stands by the road`) });
      const waited = await within(2_000, async () => (await queued(c)).length === 0);
      console.log(`search indexer: the queue of 3 writes was empty ${waited} ms after the last write (SEARCH_INDEX_DELAY_MS=100)`);
      expect(await documentsOf(ctx.database, c)).toBe(before + 3);
    } finally {
      await app.close();
    }
  });

  it('a restart indexes what was left queued, before its first request', async () => {
    const c = await newCampaign(ctx.app, owner);
    const thing = await createThing(ctx.app, owner, c, 'Sleeping Ember', { description: text('an ember under the ash') });
    // The thing, and the campaign's description.
    expect(await queued(c)).toEqual(expect.arrayContaining([{ kind: 1, record_id: thing.id }, { kind: 3, record_id: c.id }]));
    // Another instance starting on the same database (as after a crash of this one).
    const app = await buildCheckedApp(loadConfig(envOf(ctx)), { database: ctx.database, logger: false });
    await app.ready();
    try {
      expect(await queued(c)).toEqual([]);
      expect(await documentsOf(ctx.database, c)).toBeGreaterThan(0);
      expect(await integrityProblems(ctx.database.kysely, ctx.database.dialect)).toEqual([]);
    } finally {
      await app.close();
    }
  });
});

function envOf(context: TestContext): Record<string, string> {
  return { LOG_LEVEL: 'silent', DATA_DIR: context.config.dataDir, SEARCH_INDEX_DELAY_MS: '0' };
}

describe.runIf(dialect === 'postgres')('search indexing across instances on postgres', () => {
  let second: AppInstance;
  let secondDatabase: Database;
  beforeAll(async () => {
    secondDatabase = createDatabase({ url: ctx.database.url });
    second = await buildCheckedApp(loadConfig({ ...envOf(ctx), SEARCH_INDEX_DELAY_MS: '20' }), { database: secondDatabase, logger: false });
    await second.ready();
  });
  afterAll(async () => {
    await second.close();
    await secondDatabase.close();
  });

  it('a search on one instance sees what another wrote a moment before', async () => {
    const c = await newCampaign(ctx.app, owner);
    for (const word of ['amber', 'basalt', 'cobalt', 'dusk', 'quill', 'flint', 'garnet', 'hollow', 'iris', 'jasper']) {
      const thing = await createThing(second, owner, c, `Relay ${word}`);
      expect(await find(ctx.app, owner, c, word)).toEqual([thing.name]);
    }
  });

  const WORDS = ['marigold', 'obsidian', 'tundra', 'velvet', 'saffron', 'juniper'];
  it('instances writing and indexing one campaign at once leave the index the records give', async () => {
    const c = await newCampaign(ctx.app, owner);
    const things = await Promise.all(Array.from({ length: 6 }, (_, i) => createThing(ctx.app, owner, c, `Contended ${i}`)));
    const writes: Promise<unknown>[] = [];
    for (let round = 0; round < 8; round += 1) {
      for (const [i, thing] of things.entries()) {
        const app = (i + round) % 2 === 0 ? ctx.app : second;
        writes.push(
          sendAs(app, owner, 'PUT', `${c.base}/things/${thing.slug}`, { updatedThing: { description: text(`round ${round} ${WORDS[(i + round) % WORDS.length]} of the tale`) } }).then((res) =>
            expect(res.statusCode, res.body).toBe(200),
          ),
        );
      }
      // Searches on both instances index as they go, beside the second one's background passes.
      writes.push(find(ctx.app, owner, c, WORDS[round]!), find(second, owner, c, 'tale'));
      await Promise.all(writes.splice(0));
    }
    // The last round wrote WORDS[(i + 7) % 6] into thing i: "saffron" (4) into thing 3.
    expect(await find(ctx.app, owner, c, 'saffron')).toEqual(['Contended 3']);
    expect(await find(second, owner, c, 'saffron')).toEqual(['Contended 3']);
    expect(await queued(c)).toEqual([]);
    expect(await integrityProblems(ctx.database.kysely, ctx.database.dialect)).toEqual([]);
  });
});
