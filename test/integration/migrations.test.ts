import { fullView } from '../../src/access/view.js';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest, migrator } from '../../src/db/migrate.js';
import { searchCampaign } from '../../src/db/repositories/search.js';
import { presentAsset } from '../../src/http/schemas/asset.js';
import { migrations } from '../../src/db/migrations/index.js';
import type { DB } from '../../src/db/schema.js';
import { createTestDatabase, dialect, type TestDatabase } from '../support/test-db.js';

const foreignKeyViolation = dialect === 'postgres' ? '23503' : 'SQLITE_CONSTRAINT_FOREIGNKEY';
const now = new Date().toISOString();

describe(`migrations on ${dialect}`, () => {
  it('apply on a fresh database, and a second run applies nothing', async () => {
    const database = await createTestDatabase({ migrate: false });
    try {
      expect(await migrateToLatest(database)).toEqual(Object.keys(migrations));
      expect(await migrateToLatest(database)).toEqual([]);
    } finally {
      await database.close();
    }
  });

  it('gives a database from before search its index, through the rebuild a migration requests', async () => {
    const database = await createTestDatabase({ migrate: false });
    try {
      const { error } = await migrator(database).migrateTo('2026-11-21-0002-assets');
      expect(error).toBeUndefined();
      const db = database.kysely;
      await db
        .insertInto('users')
        .values({ id: 'u1', email: 'a@example.com', email_normalized: 'a@example.com', name: 'A', password_hash: 'x', created_at: now })
        .execute();
      const campaign = await db
        .insertInto('campaigns')
        .values({ slug: 'old', name: 'Old', user_id: 'u1', version: 1, created_at: now, updated_at: now })
        .returningAll()
        .executeTakeFirstOrThrow();
      const type = await db
        .insertInto('thing_types')
        .values({ campaign_id: campaign.id, name: 'NPCs', name_key: 'npcs', version: 1, created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      await db
        .insertInto('things')
        .values({ campaign_id: campaign.id, type_id: type.id, slug: 'nezznar', name: 'Nezznar the Black Spider', version: 1, created_at: now, updated_at: now })
        .execute();

      await migrateToLatest(database);
      expect(await db.selectFrom('index_rebuilds').selectAll().execute()).toEqual([]);
      const found = await searchCampaign(database, { ...campaign, content_version: 0 }, fullView({ ...campaign, content_version: 0 }), { text: 'spider', type: 'any', limit: 20 });
      expect(found.hits.map((hit) => hit.slug)).toEqual(['nezznar']);
    } finally {
      await database.close();
    }
  });

  it('keeps an asset’s storage key and answers its imageId as imageHostId after migration 0007', async () => {
    const database = await createTestDatabase({ migrate: false });
    try {
      expect((await migrator(database).migrateTo('2026-11-22-0006-index-rebuilds')).error).toBeUndefined();
      const db = database.kysely as unknown as Kysely<any>;
      await db
        .insertInto('users')
        .values({ id: 'u1', email: 'a@example.com', email_normalized: 'a@example.com', name: 'A', password_hash: 'x', created_at: now })
        .execute();
      const { id: campaignId } = await db
        .insertInto('campaigns')
        .values({ slug: 'old', name: 'Old', user_id: 'u1', version: 1, created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const imageId = 'ab'.repeat(16);
      await db
        .insertInto('assets')
        .values({
          campaign_id: campaignId,
          user_id: 'u1',
          image_id: imageId,
          label: 'Map',
          host_id: `${campaignId}/${imageId}.png`,
          url: `http://127.0.0.1:3000/images/${campaignId}/${imageId}.png`,
          content_type: 'image/png',
          byte_size: 10,
          created_at: now,
        })
        .execute();

      await migrateToLatest(database);
      const row = await database.kysely.selectFrom('assets').selectAll().executeTakeFirstOrThrow();
      expect(row.storage_key).toBe(`${campaignId}/${imageId}.png`);
      expect(presentAsset(row)).toMatchObject({ imageHostId: imageId, label: 'Map', url: `http://127.0.0.1:3000/images/${campaignId}/${imageId}.png` });
      // Migration 0022 reads no files: an asset stored before it has no known dimensions.
      expect(presentAsset(row)).toMatchObject({ width: null, height: null });
    } finally {
      await database.close();
    }
  });

  describe('on the migrated schema', () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase();
    });
    afterAll(async () => {
      await database?.close();
    });

    it('has every table', async () => {
      const tables = (await database.kysely.introspection.getTables()).map((table) => table.name);
      expect(tables).toEqual(
        expect.arrayContaining([
          'users',
          'sessions',
          'api_tokens',
          'rate_limits',
          'campaigns',
          'thing_types',
          'things',
          'arcs',
          'arc_things',
        ]),
      );
    });

    it('refuses rows that point into another campaign', async () => {
      const db = database.kysely;
      await db
        .insertInto('users')
        .values({ id: 'u1', email: 'a@example.com', email_normalized: 'a@example.com', name: 'A', password_hash: 'x', created_at: now })
        .execute();
      const campaign = async (slug: string) => {
        const row = await db
          .insertInto('campaigns')
          .values({ slug, name: slug, user_id: 'u1', version: 1, created_at: now, updated_at: now })
          .returning('id')
          .executeTakeFirstOrThrow();
        return row.id;
      };
      const campaignA = await campaign('campaign-a');
      const campaignB = await campaign('campaign-b');
      const { id: typeA } = await db
        .insertInto('thing_types')
        .values({ campaign_id: campaignA, name: 'NPC', name_key: 'npc', version: 1, created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const thing = (campaignId: number, slug: string) =>
        db
          .insertInto('things')
          .values({ campaign_id: campaignId, type_id: typeA, slug, name: slug, version: 1, created_at: now, updated_at: now })
          .returning('id')
          .executeTakeFirstOrThrow();

      // The same type id is accepted in its own campaign, so the refusal below is the foreign key's.
      const { id: thingA } = await thing(campaignA, 'in-a');
      await expect(thing(campaignB, 'in-b')).rejects.toMatchObject({ code: foreignKeyViolation });

      const { id: arcB } = await db
        .insertInto('arcs')
        .values({ campaign_id: campaignB, slug: 'arc-b', name: 'Arc B', version: 1, created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      await expect(
        db.insertInto('arc_things').values({ campaign_id: campaignB, arc_id: arcB, thing_id: thingA, created_at: now }).execute(),
      ).rejects.toMatchObject({ code: foreignKeyViolation });
    });
  });
});

// Migration 0033: the bump of content_version and the other changes of a campaign row have a
// trigger each, fired by the columns an UPDATE sets; neither serializes the row for a bump.
describe.runIf(dialect === 'postgres')('the notices of a campaign row, on postgres', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });

  it('fires the change notice on every column but content_version (a migration adding a column must create it again)', async () => {
    const { rows } = await sql<{ trigger: string[]; columns: string[] }>`select
        array(select a.attname::text from pg_trigger t cross join unnest(t.tgattr) k join pg_attribute a on a.attrelid = t.tgrelid and a.attnum = k
          where t.tgname = 'loreforge_notify_campaigns' and t.tgrelid = 'campaigns'::regclass order by 1) as trigger,
        array(select attname::text from pg_attribute where attrelid = 'campaigns'::regclass and attnum > 0 and not attisdropped
          and attname <> 'content_version' order by 1) as columns`.execute(database.kysely);
    expect(rows[0]!.columns).toContain('description');
    expect(rows[0]!.trigger).toEqual(rows[0]!.columns);
  });

  it('sends v: for a bump, c: for any other change, both for both, and nothing for a bump the write announces or an unchanged row', async () => {
    const db = database.kysely;
    await db
      .insertInto('users')
      .values({ id: 'n1', email: 'n@example.com', email_normalized: 'n@example.com', name: 'N', password_hash: 'x', created_at: now })
      .execute();
    const { id } = await db
      .insertInto('campaigns')
      .values({ slug: 'noticed', name: 'Noticed', user_id: 'n1', version: 1, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    const listener = database.connectClient!();
    const notices: string[] = [];
    listener.on('notification', (message) => notices.push(message.payload ?? ''));
    await listener.connect();
    try {
      await listener.query('listen loreforge_callers');
      // Each step in its own transaction; returns what it noticed, and what changes_version reads.
      const step = async (statement: (trx: Kysely<DB>) => Promise<unknown>) => {
        notices.length = 0;
        const bumped = await db.transaction().execute(async (trx) => {
          await statement(trx);
          const { rows } = await sql<{ bumped: string | null }>`select current_setting(${`loreforge.bumped_${id}`}, true) as bumped`.execute(trx);
          return rows[0]!.bumped || null;
        });
        await listener.query('select 1');
        return { bumped, notices: [...notices] };
      };
      const bump = (trx: Kysely<DB>) =>
        trx.updateTable('campaigns').set((eb) => ({ content_version: eb('content_version', '+', 1) })).where('id', '=', id).execute();

      const { content_version: v0 } = await db.selectFrom('campaigns').select('content_version').where('id', '=', id).executeTakeFirstOrThrow();
      expect(await step(bump)).toEqual({ bumped: `${v0 + 1}`, notices: [`v:${id}:${v0 + 1}`] });
      expect(await step((trx) => trx.updateTable('campaigns').set({ name: 'Renamed' }).where('id', '=', id).execute())).toEqual({
        bumped: null,
        notices: [`c:${id}`],
      });
      expect(
        await step((trx) =>
          trx.updateTable('campaigns').set((eb) => ({ name: 'Again', content_version: eb('content_version', '+', 1) })).where('id', '=', id).execute(),
        ),
      ).toEqual({ bumped: `${v0 + 2}`, notices: [`v:${id}:${v0 + 2}`, `c:${id}`] });
      expect(
        await step(async (trx) => {
          await sql`select set_config('loreforge.announce', ${String(id)}, true)`.execute(trx);
          await bump(trx);
        }),
      ).toEqual({ bumped: `${v0 + 3}`, notices: [] });
      expect(await step((trx) => trx.updateTable('campaigns').set({ name: 'Again' }).where('id', '=', id).execute())).toEqual({ bumped: null, notices: [] });
      expect(await step((trx) => trx.updateTable('campaigns').set({ content_version: v0 + 3 }).where('id', '=', id).execute())).toEqual({ bumped: null, notices: [] });
      expect(await step((trx) => trx.deleteFrom('campaigns').where('id', '=', id).execute())).toEqual({ bumped: null, notices: [`c:${id}`] });
    } finally {
      await listener.end();
    }
  });
});

// A migration that alters a table waits for every transaction using it, and every statement on
// that table after it waits behind it: during a rolling upgrade, the instances still serving would
// stop answering. The migrations' wait for a lock is bounded, and they are tried again (migrate.ts).
describe.runIf(dialect === 'postgres')('migrations waiting for a lock, on postgres', () => {
  const probe = { '2099-01-01-0001-lock-probe': { up: (db: Kysely<unknown>) => sql`alter table campaigns add column lock_probe text`.execute(db).then(() => undefined) } };
  const locks = { lockTimeoutMs: 300, attempts: 3, pauseMs: 100 };
  const hasProbe = async (database: TestDatabase) =>
    Number((await sql<{ n: number }>`select count(*) as n from information_schema.columns where table_name = 'campaigns' and column_name = 'lock_probe'`.execute(database.kysely)).rows[0]!.n) === 1;

  /** A transaction of another connection that has read campaigns, open until `release` is called. */
  async function reader(database: TestDatabase) {
    const client = database.connectClient!();
    await client.connect();
    await client.query('begin');
    await client.query('select count(*) from campaigns');
    return {
      release: async () => {
        await client.query('commit');
        await client.end();
      },
    };
  }

  it('gives up, applying nothing, when a transaction holds the table through every attempt', async () => {
    const database = await createTestDatabase({ migrate: false });
    try {
      await migrateToLatest(database);
      const held = await reader(database);
      try {
        await expect(migrateToLatest(database, { list: { ...migrations, ...probe }, locks })).rejects.toThrow(
          '2099-01-01-0001-lock-probe waited more than 300 ms for a lock, 3 times',
        );
      } finally {
        await held.release();
      }
      expect(await hasProbe(database)).toBe(false);
      expect(await migrateToLatest(database, { list: { ...migrations, ...probe }, locks })).toEqual(['2099-01-01-0001-lock-probe']);
      expect(await hasProbe(database)).toBe(true);
    } finally {
      await database.close();
    }
  });

  it('lets the statements queued behind it through while it waits, and applies once the table is free', async () => {
    const database = await createTestDatabase({ migrate: false });
    try {
      await migrateToLatest(database);
      const held = await reader(database);
      const events: string[] = [];
      const migrating = migrateToLatest(database, { list: { ...migrations, ...probe }, locks: { ...locks, attempts: 20 } }).then((applied) => {
        events.push('migrated');
        return applied;
      });
      // Queued behind the migration's lock request, this read is answered when that request gives
      // up, before the transaction holding the table ends.
      await new Promise((resolve) => setTimeout(resolve, 100));
      await sql`select count(*) from campaigns`.execute(database.kysely);
      events.push('read');
      await new Promise((resolve) => setTimeout(resolve, 700));
      events.push('released');
      await held.release();
      expect(await migrating).toEqual(['2099-01-01-0001-lock-probe']);
      expect(events).toEqual(['read', 'released', 'migrated']);
      expect(await hasProbe(database)).toBe(true);
    } finally {
      await database.close();
    }
  });
});
