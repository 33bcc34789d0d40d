import type { InjectOptions } from 'fastify';
import { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { dialect } from '../support/test-db.js';
import { indexAllPending } from '../../src/db/indexes/search-queue.js';

// Query plans SQLite must choose whatever the size of a campaign. SQLite plans without statistics
// here (no ANALYZE ever runs), so these must hold by the shape of keys and predicates. Each test
// takes the statement the route really ran and asks SQLite for its plan. PostgreSQL plans from its
// own statistics, so these are SQLite's guarantees only.

let ctx: TestContext;
let owner: TestUser;
let base: string;

beforeAll(async () => {
  ctx = await createTestContext();
  owner = await ctx.createUser();
  const campaign = json(await ctx.app.inject({ method: 'POST', url: '/api/campaigns', headers: owner.headers, payload: { newCampaign: { name: 'Plans' } } }));
  base = `/api/campaigns/${campaign.slug}`;
});
afterAll(async () => {
  await ctx.close();
});

/** The SQL text of the one statement matching `pattern` that the request ran. */
async function statementOf(request: InjectOptions, pattern: RegExp): Promise<string> {
  ctx.queries.length = 0;
  const response = await ctx.app.inject(request);
  expect(response.statusCode).toBeLessThan(300);
  const matching = ctx.queries.filter((text) => pattern.test(text));
  expect(matching).toHaveLength(1);
  return matching[0]!;
}

async function plan(statement: string, parameters: unknown[]): Promise<string> {
  const result = await ctx.database.kysely.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${statement}`, parameters));
  return result.rows.map((row) => row.detail).join(' | ');
}

describe.runIf(dialect === 'sqlite')('query plans on sqlite', () => {
  it('a new thing reads only the slugs its name could collide with: a range of the slug index', async () => {
    const create = (name: string): InjectOptions => ({ method: 'POST', url: `${base}/things`, headers: owner.headers, payload: { newThing: { name, typeId: 1 } } });
    await ctx.app.inject(create('Lantern'));
    const statement = await statementOf(create('Lantern'), /^select "slug" from "things"/);
    const steps = await plan(statement, [1, 'lantern', 'lantern.']);
    expect(steps).toMatch(/USING COVERING INDEX \S+ \(campaign_id=\? AND slug>\? AND slug<\?\)/);
  });

  it('re-indexing a thing reaches its postings through the key, not a scan of the campaign', async () => {
    const created = json(await ctx.app.inject({ method: 'POST', url: `${base}/things`, headers: owner.headers, payload: { newThing: { name: 'Lamp', typeId: 1 } } }));
    const rename: InjectOptions = { method: 'PUT', url: `${base}/things/${created.slug}`, headers: owner.headers, payload: { updatedThing: { name: 'Brass' } } };
    // Indexed after the commit, by difference (db/indexes/search-queue.ts, search-diff.ts): one read
    // of what the index holds of the record, then the postings of the words gone ("lamp") deleted.
    await indexAllPending(ctx.database);
    expect((await ctx.app.inject(rename)).statusCode).toBe(200);
    ctx.queries.length = 0;
    await indexAllPending(ctx.database);
    const postings = (from: string[]) => from.filter((text) => /search_postings/.test(text));
    const read = postings(ctx.queries).filter((text) => /^\s*select/i.test(text));
    expect(read).toHaveLength(1);
    const removal = postings(ctx.queries).filter((text) => /^delete from search_postings/.test(text));
    expect(removal).toHaveLength(1);
    // The queue itself: its rows of one campaign by its key.
    const queue = ctx.queries.filter((text) => /from "search_pending" where "campaign_id" = \?/.test(text));
    expect(queue.length).toBeGreaterThan(0);
    for (const statement of queue) {
      const parameters = Array.from({ length: (statement.match(/\?/g) ?? []).length }, () => 1);
      expect(await plan(statement, parameters)).toMatch(/^SEARCH search_pending USING (PRIMARY KEY|INDEX sqlite_autoindex_search_pending_1) \(campaign_id=\?/);
    }
    for (const statement of [...read, ...removal]) {
      const parameters = Array.from({ length: (statement.match(/\?/g) ?? []).length }, () => 1);
      const steps = (await plan(statement, parameters)).split(' | ').filter((step) => step.includes('search_postings') || / p USING| AS p /.test(step));
      expect(steps.length).toBeGreaterThan(0);
      // By the key (campaign, document) or the word's index down to the document: never a scan.
      for (const step of steps) expect(step).toMatch(/^SEARCH .*USING (PRIMARY KEY|COVERING INDEX \S+) \(campaign_id=\? AND (term=\? AND )?doc_id=\?/);
    }
  });

  it('a player’s list of things walks the index of when players last saw them change, with no sort', async () => {
    const statement = await statementOf(
      { method: 'GET', url: `${base}/things?count=5`, headers: { ...owner.headers, 'loreforge-view': 'player' } },
      /^select \* from "things"/,
    );
    const steps = await plan(statement, [1, 'all', 6]);
    expect(steps).toMatch(/^SEARCH things USING INDEX things_campaign_players_updated \(campaign_id=\?\)$/);
  });

  it('a list by name walks the index of name sort keys, with no sort, on its first page and the next', async () => {
    for (const name of ['Élise', 'apple']) await ctx.app.inject({ method: 'POST', url: `${base}/things`, headers: owner.headers, payload: { newThing: { name, typeId: 1 } } });
    const statements = [await statementOf({ method: 'GET', url: `${base}/things?sort=name&count=1`, headers: owner.headers }, /^select \* from "things"/)];
    const first = await ctx.app.inject({ method: 'GET', url: `${base}/things?sort=name&count=1`, headers: owner.headers });
    const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))![1]!;
    statements.push(await statementOf({ method: 'GET', url: next, headers: owner.headers }, /^select \* from "things"/));
    for (const statement of statements) {
      const parameters = Array.from({ length: (statement.match(/\?/g) ?? []).length }, () => 1);
      expect(await plan(statement, parameters), statement).toMatch(/^SEARCH things USING INDEX things_campaign_name_sort \(campaign_id=\?( AND name_sort>\?)?\)( \| SEARCH things USING INDEX things_campaign_name_sort \(campaign_id=\? AND name_sort=\? AND rowid>\?\))?$/);
    }
  });

  it('a search reads the postings of its words from the covering index', async () => {
    const steps = await plan('select doc_id, name_tf, text_tf from search_postings where campaign_id = ? and term in (?, ?)', [1, 'lantern', 'lamp']);
    expect(steps).toMatch(/^SEARCH search_postings USING COVERING INDEX search_postings_(term|impact) \(campaign_id=\? AND term=\?\)$/);
  });

  it('a common word’s candidates are the first entries of its range of the impact index, with no sort', async () => {
    const statement = `select doc_id from search_postings p where p.campaign_id = ? and p.term = ? and (p.audience & ?) <> 0 and p.kind + 0 = ?
      order by p.name_tf desc, p.text_tf desc, p.kind asc, p.record_id asc limit ?`;
    const steps = await plan(statement, [1, 'lantern', 2, 1, 250]);
    expect(steps).toMatch(/^SEARCH p USING COVERING INDEX search_postings_impact \(campaign_id=\? AND term=\?\)$/);
  });
});
