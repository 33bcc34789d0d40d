import { sql, type JoinBuilder, type Kysely, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryTemplate } from '../../src/db/query-template.js';
import { createSession, createToken, findSessionUser, findTokenUser } from '../../src/db/repositories/credentials.js';
import { createUser } from '../../src/db/repositories/users.js';
import type { DB } from '../../src/db/schema.js';
import { createTestDatabase, type TestDatabase } from '../support/test-db.js';

// The auth queries run from a template compiled once (src/db/query-template.ts). These tests hold
// them to the queries Kysely builds afresh (the code they replaced): same SQL, same rows, one
// statement each, on both dialects.

let database: TestDatabase;
const queries: string[] = [];
const NOW = '2030-06-01T12:00:00.000Z';
const PAST = '2030-06-01T11:59:59.999Z';
const FUTURE = '2030-06-01T12:00:00.001Z';
let ownerId: string;
let otherId: string;

const userColumns = [
  'users.id',
  'users.email',
  'users.email_normalized',
  'users.name',
  'users.password_hash',
  'users.premium_until',
  'users.created_at',
] as const;
const campaignColumns = [
  'campaigns.id as campaign_id',
  'campaigns.slug as campaign_slug',
  'campaigns.name as campaign_name',
  'campaigns.description as campaign_description',
  'campaigns.user_id as campaign_user_id',
  'campaigns.version as campaign_version',
  'campaigns.content_version as campaign_content_version',
  'campaigns.default_visibility as campaign_default_visibility',
  'campaigns.created_at as campaign_created_at',
  'campaigns.updated_at as campaign_updated_at',
  'campaigns.players_updated_at as campaign_players_updated_at',
  'campaign_members.role as campaign_role',
] as const;
function campaignBySlug<J extends JoinBuilder<DB, 'users' | 'campaigns'>>(join: J, slug: string | undefined) {
  return join.on('campaigns.slug', '=', slug ?? '');
}
function membership<J extends JoinBuilder<DB, 'users' | 'campaigns' | 'campaign_members'>>(join: J) {
  return join.onRef('campaign_members.campaign_id', '=', 'campaigns.id').onRef('campaign_members.user_id', '=', 'users.id');
}

// The queries as they were built on every request before the templates.
function referenceTokenQuery(db: Kysely<DB>, secretHash: string, now: string, slug: string | undefined) {
  return db
    .selectFrom('api_tokens')
    .innerJoin('users', 'users.id', 'api_tokens.user_id')
    .leftJoin('campaigns', (join) => campaignBySlug(join, slug))
    .leftJoin('campaign_members', (join) => membership(join))
    .select([...userColumns, ...campaignColumns, 'api_tokens.id as token_id', 'api_tokens.last_used_at as token_last_used_at', 'api_tokens.expires_at as token_expires_at'])
    .where('api_tokens.secret_hash', '=', secretHash)
    .where((eb) => eb.or([eb('api_tokens.expires_at', 'is', null), eb('api_tokens.expires_at', '>', now)]));
}
function referenceSessionQuery(db: Kysely<DB>, secretHash: string, now: string, slug: string | undefined) {
  return db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .leftJoin('campaigns', (join) => campaignBySlug(join, slug))
    .leftJoin('campaign_members', (join) => membership(join))
    .select([...userColumns, ...campaignColumns, 'sessions.id as session_id', 'sessions.expires_at as session_expires_at'])
    .where('sessions.secret_hash', '=', secretHash)
    .where('sessions.expires_at', '>', now);
}

beforeAll(async () => {
  database = await createTestDatabase({ onQuery: (text) => queries.push(text) });
  const db = database.kysely;
  const owner = await createUser(db, { email: 'owner@example.test', name: 'Owner', passwordHash: 'x', now: NOW });
  const other = await createUser(db, { email: 'other@example.test', name: 'Other', passwordHash: 'x', now: NOW });
  ownerId = owner.id;
  otherId = other.id;
  for (const [slug, userId] of [
    ['mine', ownerId],
    ['theirs', otherId],
  ] as const) {
    const campaign = await db
      .insertInto('campaigns')
      .values({ slug, name: slug, description: null, user_id: userId, version: 3, created_at: NOW, updated_at: NOW })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db.insertInto('campaign_members').values({ campaign_id: campaign.id, user_id: userId, role: 'owner', joined_at: NOW }).execute();
  }
  await createToken(db, { userId: ownerId, name: 'forever', secretHash: 'tok-forever', now: NOW, expiresAt: null });
  await createToken(db, { userId: ownerId, name: 'live', secretHash: 'tok-live', now: NOW, expiresAt: FUTURE });
  await createToken(db, { userId: ownerId, name: 'expired', secretHash: 'tok-expired', now: NOW, expiresAt: NOW });
  await createToken(db, { userId: otherId, name: 'other', secretHash: 'tok-other', now: NOW, expiresAt: null });
  await db.updateTable('api_tokens').set({ last_used_at: PAST }).where('secret_hash', '=', 'tok-live').execute();
  await createSession(db, { userId: ownerId, secretHash: 'ses-live', now: NOW, expiresAt: FUTURE });
  await createSession(db, { userId: ownerId, secretHash: 'ses-expired', now: NOW, expiresAt: NOW });
  await createSession(db, { userId: otherId, secretHash: 'ses-other', now: NOW, expiresAt: FUTURE });
});
afterAll(async () => {
  await database.close();
});

const slugs = [undefined, '', 'mine', 'theirs', 'nope', "it's"];

describe('findTokenUser from its template', () => {
  const hashes = ['tok-forever', 'tok-live', 'tok-expired', 'tok-other', 'tok-missing', ''];
  for (const hash of hashes) {
    for (const slug of slugs) {
      it(`${hash || '(empty)'} with campaign ${String(slug)} matches the query built afresh, in one statement`, async () => {
        const reference = await referenceTokenQuery(database.kysely, hash, NOW, slug).executeTakeFirst();
        queries.length = 0;
        const found = await findTokenUser(database.kysely, hash, NOW, slug);
        expect(queries).toEqual([referenceTokenQuery(database.kysely, hash, NOW, slug).compile().sql]);
        if (!reference) {
          expect(found).toBeUndefined();
          return;
        }
        const { token_id, token_last_used_at, ...rest } = reference;
        expect(found).toBeDefined();
        expect(found!.tokenId).toBe(token_id);
        expect(found!.lastUsedAt).toBe(token_last_used_at);
        expect(found!.user).toEqual({
          id: rest.id,
          email: rest.email,
          email_normalized: rest.email_normalized,
          name: rest.name,
          password_hash: rest.password_hash,
          premium_until: rest.premium_until,
          created_at: rest.created_at,
        });
        if (rest.campaign_id === null || rest.campaign_role === null) expect(found!.campaign).toBeUndefined();
        else {
          expect(found!.campaign).toEqual({
            id: rest.campaign_id,
            slug: rest.campaign_slug,
            name: rest.campaign_name,
            description: rest.campaign_description,
            user_id: rest.campaign_user_id,
            version: rest.campaign_version,
            content_version: rest.campaign_content_version,
            default_visibility: rest.campaign_default_visibility,
            created_at: rest.campaign_created_at,
            updated_at: rest.campaign_updated_at,
            players_updated_at: rest.campaign_players_updated_at,
            // Found by its slug, so not in the trash (a trashed campaign's slug is `~<id>`).
            deleted_at: null,
            deleted_by: null,
            trashed_slug: null,
          });
          expect(rest.campaign_user_id).toBe(rest.id);
        }
      });
    }
  }

  it('treats expiry as before: live strictly before expires_at, never-expiring always', async () => {
    expect(await findTokenUser(database.kysely, 'tok-live', PAST)).toBeDefined();
    expect(await findTokenUser(database.kysely, 'tok-live', FUTURE)).toBeUndefined();
    expect(await findTokenUser(database.kysely, 'tok-expired', NOW)).toBeUndefined();
    expect(await findTokenUser(database.kysely, 'tok-forever', '2999-01-01T00:00:00.000Z')).toBeDefined();
    const found = await findTokenUser(database.kysely, 'tok-live', NOW, 'mine');
    expect(found?.lastUsedAt).toBe(PAST);
    expect(found?.campaign).toMatchObject({ slug: 'mine', version: 3, content_version: expect.any(Number) as unknown });
    expect((await findTokenUser(database.kysely, 'tok-live', NOW, 'theirs'))?.campaign).toBeUndefined();
  });

  it('runs inside a transaction too', async () => {
    const found = await database.kysely.transaction().execute((trx) => findTokenUser(trx, 'tok-forever', NOW, 'mine'));
    expect(found?.campaign?.slug).toBe('mine');
  });
});

describe('findSessionUser from its template', () => {
  const hashes = ['ses-live', 'ses-expired', 'ses-other', 'ses-missing'];
  for (const hash of hashes) {
    for (const slug of slugs) {
      it(`${hash} with campaign ${String(slug)} matches the query built afresh, in one statement`, async () => {
        const reference = await referenceSessionQuery(database.kysely, hash, NOW, slug).executeTakeFirst();
        queries.length = 0;
        const found = await findSessionUser(database.kysely, hash, NOW, slug);
        expect(queries).toEqual([referenceSessionQuery(database.kysely, hash, NOW, slug).compile().sql]);
        if (!reference) {
          expect(found).toBeUndefined();
          return;
        }
        expect(found?.sessionId).toBe(reference.session_id);
        expect(found?.expiresAt).toBe(reference.session_expires_at);
        expect(found?.user.id).toBe(reference.id);
        // A campaign the user is no member of is not theirs: no campaign at all.
        const member = reference.campaign_role !== null;
        expect(found?.campaign?.id).toBe(member ? reference.campaign_id : undefined);
        expect(found?.campaign?.content_version).toBe(member ? reference.campaign_content_version : undefined);
        expect(found?.role).toBe(member ? reference.campaign_role : undefined);
      });
    }
  }
});

describe('queryTemplate', () => {
  it('keeps the constant parameters of the query and fills the named ones on every run', async () => {
    const template = queryTemplate(['name'], (db: Kysely<DB>, params) =>
      db
        .selectFrom('campaigns')
        .select(['slug'])
        .where('version', '=', 3)
        .where((eb) => eb.or([eb('slug', '=', params.name), eb('slug', '=', 'mine')]))
        .orderBy('slug'),
    );
    expect(await template.execute(database.kysely, { name: 'theirs' })).toEqual([{ slug: 'mine' }, { slug: 'theirs' }]);
    expect(await template.execute(database.kysely, { name: 'nope' })).toEqual([{ slug: 'mine' }]);
    expect(await template.executeTakeFirst(database.kysely, { name: 'theirs' })).toEqual({ slug: 'mine' });
  });

  it('fills a parameter used twice in both places', async () => {
    const template = queryTemplate(['slug'], (db: Kysely<DB>, params) =>
      db.selectFrom('campaigns').select(['slug']).where('slug', '=', params.slug).where('name', '=', params.slug),
    );
    expect(await template.execute(database.kysely, { slug: 'mine' })).toEqual([{ slug: 'mine' }]);
    expect(await template.execute(database.kysely, { slug: 'x' })).toEqual([]);
  });

  it('refuses a parameter that is not a value of the query, or is inlined into the SQL', async () => {
    const unused = queryTemplate(['slug', 'unused'], (db: Kysely<DB>, params) => db.selectFrom('campaigns').select(['slug']).where('slug', '=', params.slug));
    await expect(unused.execute(database.kysely, { slug: 'mine', unused: 'x' })).rejects.toThrow(/"unused" is not a value/);
    const inlined = queryTemplate(['slug'], (db: Kysely<DB>, params) =>
      db.selectFrom('campaigns').select(['slug']).where('slug', '=', params.slug).where(sql.lit(params.slug), 'is not', null),
    );
    await expect(inlined.execute(database.kysely, { slug: 'mine' })).rejects.toThrow(/"slug" was inlined/);
  });
});

describe('queryTemplate in transactions and with plugins', () => {
  it('is built once per database, its transactions included, and runs on the connection of the transaction it is given', async () => {
    let builds = 0;
    const template = queryTemplate(['slug'], (db: Kysely<DB>, params) => {
      builds += 1;
      return db.selectFrom('campaigns').select(['version']).where('slug', '=', params.slug);
    });
    expect(await template.executeTakeFirst(database.kysely, { slug: 'mine' })).toEqual({ version: 3 });
    for (const version of [7, 8]) {
      // Rolled back: only a statement on this transaction's connection sees the change.
      await expect(
        database.kysely.transaction().execute(async (trx) => {
          await trx.updateTable('campaigns').set({ version }).where('slug', '=', 'mine').execute();
          expect(await template.executeTakeFirst(trx, { slug: 'mine' })).toEqual({ version });
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
    }
    expect(await template.executeTakeFirst(database.kysely, { slug: 'mine' })).toEqual({ version: 3 });
    expect(builds).toBe(1);
  });

  it('binds numbers and null as given', async () => {
    const update = queryTemplate(['description', 'version', 'slug'], (db: Kysely<DB>, params) =>
      db.updateTable('campaigns').set({ description: params.description }).where('version', '=', params.version).where('slug', '=', params.slug).returning(['description']),
    );
    await database.kysely.transaction().execute(async (trx) => {
      expect(await update.execute(trx, { description: 'set', version: 3, slug: 'mine' })).toEqual([{ description: 'set' }]);
      expect(await update.execute(trx, { description: 'other', version: 4, slug: 'mine' })).toEqual([]);
      expect(await update.execute(trx, { description: null, version: 3, slug: 'mine' })).toEqual([{ description: null }]);
    });
  });

  it('builds the query afresh on an instance with plugins, so that they apply', async () => {
    let builds = 0;
    let transformed = 0;
    const plugin: KyselyPlugin = {
      transformQuery: (args) => {
        transformed += 1;
        return args.node;
      },
      transformResult: (args) => Promise.resolve({ ...args.result, rows: args.result.rows.map((row) => ({ ...row, seen: true })) }),
    };
    const template = queryTemplate(['slug'], (db: Kysely<DB>, params) => {
      builds += 1;
      return db.selectFrom('campaigns').select(['slug']).where('slug', '=', params.slug);
    });
    const withPlugin = database.kysely.withPlugin(plugin);
    expect(await template.execute(withPlugin, { slug: 'mine' })).toEqual([{ slug: 'mine', seen: true }]);
    expect(await template.execute(withPlugin, { slug: 'theirs' })).toEqual([{ slug: 'theirs', seen: true }]);
    expect(transformed).toBeGreaterThanOrEqual(2);
    expect(builds).toBe(2);
    expect(await template.execute(database.kysely, { slug: 'mine' })).toEqual([{ slug: 'mine' }]);
    expect(builds).toBe(3);
  });
});
