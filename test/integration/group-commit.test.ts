import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SQLite } from '../../src/db/sqlite-driver.js';
import { sql, type Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/database.js';
import { MAX_GROUP } from '../../src/db/group-commit.js';
import type { DB } from '../../src/db/schema.js';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { dialect } from '../support/test-db.js';

// Writes go through Database.write. On SQLite, writes that wait together share one transaction
// (each in a savepoint) and one COMMIT (src/db/group-commit.ts); on PostgreSQL each write is its own
// transaction. Either way every write must behave exactly as if it had its own transaction.

let ctx: TestContext;
let owner: TestUser;
let campaignId: number;
let base: string;
let typeId: number;

beforeAll(async () => {
  ctx = await createTestContext();
  owner = await ctx.createUser();
  const campaign = json(await ctx.app.inject({ method: 'POST', url: '/api/campaigns', headers: owner.headers, payload: { newCampaign: { name: 'Grouped' } } }));
  campaignId = campaign.id;
  base = `/api/campaigns/${campaign.slug}`;
  typeId = json(await ctx.app.inject({ method: 'GET', url: `${base}/thing-types`, headers: owner.headers }))[0].id;
});
afterAll(async () => {
  await ctx.close();
});

function createThing(name: string, type = typeId) {
  return ctx.app.inject({ method: 'POST', url: `${base}/things`, headers: owner.headers, payload: { newThing: { name, typeId: type } } });
}

async function contentVersion(): Promise<number> {
  const row = await ctx.database.kysely.selectFrom('campaigns').select('content_version').where('id', '=', campaignId).executeTakeFirstOrThrow();
  return Number(row.content_version);
}

async function thingNames(): Promise<string[]> {
  const rows = await ctx.database.kysely.selectFrom('things').select('name').where('campaign_id', '=', campaignId).orderBy('name').execute();
  return rows.map((row) => row.name);
}

describe(`grouped writes on ${dialect}`, () => {
  it('concurrent creates all commit, each with its own slug, in fewer commits than writes on SQLite', async () => {
    const count = MAX_GROUP + 8;
    ctx.queries.length = 0;
    const responses = await Promise.all(Array.from({ length: count }, () => createThing('Crowded hall')));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(count).fill(201));
    const slugs = responses.map((r) => json(r).slug as string);
    expect(new Set(slugs).size).toBe(count);
    const commits = ctx.queries.filter((text) => text === 'commit').length;
    if (dialect === 'sqlite') {
      expect(commits).toBeGreaterThanOrEqual(2); // no more than MAX_GROUP writes per commit
      expect(commits).toBeLessThan(count);
    } else {
      expect(commits).toBe(count);
    }
    for (const r of responses) {
      const read = await ctx.app.inject({ method: 'GET', url: `${base}/things/${json(r).slug}`, headers: owner.headers });
      expect(read.statusCode).toBe(200);
    }
  });

  it('a write that fails beside others changes nothing, and the others are kept', async () => {
    const victim = json(await createThing('Victim'));
    const versionBefore = await contentVersion();
    const namesBefore = await thingNames();
    const responses = await Promise.all([
      createThing('Kept one'),
      createThing('Refused: unknown type', 987_654),
      ctx.app.inject({ method: 'PUT', url: `${base}/things/${victim.slug}`, headers: { ...owner.headers, 'if-match': '"1-999"' }, payload: { updatedThing: { name: 'Stale edit' } } }),
      createThing('Kept two'),
      ctx.app.inject({ method: 'PUT', url: `${base}/things/no-such-thing`, headers: owner.headers, payload: { updatedThing: { name: 'Nowhere' } } }),
      ctx.app.inject({ method: 'PUT', url: `${base}/things/${victim.slug}`, headers: owner.headers, payload: { updatedThing: { description: [{ type: 'paragraph', children: [{ text: 'kept edit' }] }] } } }),
    ]);
    expect(responses.map((r) => r.statusCode)).toEqual([201, 400, 412, 201, 404, 200]);
    expect(await thingNames()).toEqual([...namesBefore, 'Kept one', 'Kept two'].sort());
    // Each failed write rolled its version bump back with the rest of it.
    expect(await contentVersion()).toBe(versionBefore + 3);
    const read = json(await ctx.app.inject({ method: 'GET', url: `${base}/things/${victim.slug}`, headers: owner.headers }));
    expect(read.name).toBe('Victim');
    expect(read.description[0].children[0].text).toBe('kept edit');
  });

  it('when the commit fails, every write waiting on it fails and none is stored', async () => {
    const namesBefore = await thingNames();
    const insert = (name: string, type: number) =>
      ctx.database.write(async (trx) => {
        await trx
          .insertInto('things')
          .values({ campaign_id: campaignId, type_id: type, slug: name, name, description: null, version: 1, created_at: 'now', updated_at: 'now' })
          .execute();
        return name;
      });
    // A foreign-key violation deferred to COMMIT (SQLite: defer_foreign_keys; PostgreSQL: a
    // deferrable constraint set deferred) makes the commit itself fail.
    const poisoned = ctx.database.write(async (trx) => {
      if (dialect === 'sqlite') await sql`pragma defer_foreign_keys = on`.execute(trx);
      else await sql`set constraints all deferred`.execute(trx);
      await trx
        .insertInto('things')
        .values({ campaign_id: campaignId, type_id: 987_654, slug: 'poison', name: 'poison', description: null, version: 1, created_at: 'now', updated_at: 'now' })
        .execute();
    });
    const results = await Promise.allSettled([insert('neighbour-one', typeId), poisoned, insert('neighbour-two', typeId)]);
    if (dialect === 'sqlite') {
      // One group, one commit: it fails, so nobody was answered with success.
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
      expect(await thingNames()).toEqual(namesBefore);
    } else {
      // Separate transactions: the immediate foreign key refuses the poisoned insert itself.
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(await thingNames()).toEqual([...namesBefore, 'neighbour-one', 'neighbour-two'].sort());
    }
  });

  it('a write alone is its own transaction: no savepoints', async () => {
    ctx.queries.length = 0;
    expect((await createThing('Lonely')).statusCode).toBe(201);
    expect(ctx.queries.filter((text) => /savepoint|release/i.test(text))).toEqual([]);
    expect(ctx.queries.filter((text) => text === 'commit')).toHaveLength(1);
  });
});

describe.runIf(dialect === 'sqlite')('grouped writes when the group fails, on sqlite', () => {
  const insertThing = (name: string) => (trx: Transaction<DB>) =>
    trx
      .insertInto('things')
      .values({ campaign_id: campaignId, type_id: typeId, slug: name, name, description: null, version: 1, created_at: 'now', updated_at: 'now' })
      .execute()
      .then(() => name);

  beforeAll(async () => {
    // Stands in for SQLite rolling the whole transaction back under a statement (a full disk, an
    // I/O error): RAISE(ROLLBACK) ends the transaction, not just the statement.
    await sql`create temp trigger lf_test_rollback before insert on things when new.name = 'whole-rollback' begin select raise(rollback, 'simulated loss of the transaction'); end`.execute(
      ctx.database.kysely,
    );
  });

  it('gives a write that failed on its own its own error, the others the cause, and stores nothing', async () => {
    const namesBefore = await thingNames();
    const results = await Promise.allSettled([
      ctx.database.write(insertThing('first-kept?')),
      ctx.database.write(async (trx) => {
        await insertThing('own-failure')(trx);
        throw new Error('my own error');
      }),
      ctx.database.write(insertThing('whole-rollback')),
      ctx.database.write(insertThing('never-ran')),
    ]);
    const reasons = results.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : 'fulfilled'));
    expect(reasons).toEqual([
      'simulated loss of the transaction',
      'my own error',
      'simulated loss of the transaction',
      'simulated loss of the transaction',
    ]);
    expect(await thingNames()).toEqual(namesBefore);
    // The connection was released: the next write works.
    expect(await ctx.database.write(insertThing('after-the-loss'))).toBe('after-the-loss');
  });

  it('fails a write that swallowed the loss of the transaction and went on, and the whole group', async () => {
    const namesBefore = await thingNames();
    const results = await Promise.allSettled([
      ctx.database.write(insertThing('group-mate')),
      ctx.database.write(async (trx) => {
        await insertThing('whole-rollback')(trx).catch(() => undefined);
        return 'carried on';
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(Error);
    expect(((results[1] as PromiseRejectedResult).reason as Error).message).toMatch(/rolled the write transaction back/);
    expect(await thingNames()).toEqual(namesBefore);
  });
});

describe.runIf(dialect === 'sqlite')('grouped writes while another process holds the database, on sqlite', () => {
  it('fails the write that found it busy and lets the event loop turn before the others wait', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-busy-'));
    const database = createDatabase({ dataDir: dir });
    const other = new SQLite(path.join(dir, 'loreforge.sqlite'));
    try {
      await sql`create table notes (text text not null)`.execute(database.kysely);
      await sql`pragma busy_timeout = 50`.execute(database.kysely);
      const note = (text: string) => (trx: Transaction<DB>) => sql`insert into notes (text) values (${text})`.execute(trx).then(() => text);
      other.exec('begin immediate'); // the admin CLI, say, holds the write lock
      let timerRan = false;
      const writes = [database.write(note('one')), database.write(note('two')), database.write(note('three'))];
      // Queued after the group's own turn (setImmediate callbacks run in order, whatever the clock
      // says; a timer could fire before the group starts on a loaded machine): it runs only if the
      // group gives the event loop back after the busy write, before the others wait their turn.
      setImmediate(() => {
        timerRan = true;
        other.exec('commit');
      });
      const results = await Promise.allSettled(writes);
      expect(timerRan).toBe(true);
      expect(results[0]).toMatchObject({ status: 'rejected', reason: { code: expect.stringMatching(/^SQLITE_BUSY/) } });
      expect(results.slice(1)).toEqual([
        { status: 'fulfilled', value: 'two' },
        { status: 'fulfilled', value: 'three' },
      ]);
      const rows = await sql<{ text: string }>`select text from notes order by text`.execute(database.kysely);
      expect(rows.rows.map((row) => row.text)).toEqual(['three', 'two']);
    } finally {
      other.close();
      await database.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
