import { fullView } from '../../src/access/view.js';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest, migrator } from '../../src/db/migrate.js';
import { searchCampaign } from '../../src/db/repositories/search.js';
import { presentAsset } from '../../src/http/schemas/asset.js';
import { migrations } from '../../src/db/migrations/index.js';
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
