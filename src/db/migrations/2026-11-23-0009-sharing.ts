import { sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// Sharing a campaign (CONTRACT "Members and roles").
//
//   campaign_members  who belongs to a campaign and as what: exactly one `owner` (campaigns.user_id
//                     names the same user), any number of `gm` and `player`. Every campaign route
//                     finds the caller's row here, in the query that authenticates the request.
//   invitations       links a GM hands out: the secret is stored only as a hash, with its role,
//                     expiry, and how often it may and has been used. Revoking deletes the row.
//   visibility        on things and arcs: 'all' (default) or 'gm' (players never see the record).
//   audience          on the search index: a bit set of the views a document is for (1 players,
//                     2 game masters). A record without secret blocks that players may see has one
//                     document for both (3); one with secret blocks has its text without them for
//                     players (1) and its whole text for GMs (2); a GM-only record has only the
//                     latter. The live code fills it: this migration requests a rebuild.
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const idColumn = (c: ColumnDefinitionBuilder) =>
    dialect === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement();

  await db.schema
    .createTable('campaign_members')
    .addColumn('campaign_id', 'integer', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('owner', 'gm', 'player')`))
    .addColumn('joined_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('campaign_members_pk', ['campaign_id', 'user_id'])
    .execute();
  await db.schema.createIndex('campaign_members_user').on('campaign_members').columns(['user_id', 'campaign_id']).execute();
  // Exactly one owner per campaign, held by the database.
  await db.schema
    .createIndex('campaign_members_one_owner')
    .on('campaign_members')
    .column('campaign_id')
    .unique()
    .where(sql.ref('role'), '=', 'owner')
    .execute();
  await sql`insert into campaign_members (campaign_id, user_id, role, joined_at) select id, user_id, 'owner', created_at from campaigns`.execute(db);

  await db.schema
    .createTable('invitations')
    .addColumn('id', 'integer', idColumn)
    .addColumn('campaign_id', 'integer', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('gm', 'player')`))
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_by', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('max_uses', 'integer', (c) => c.notNull())
    .addColumn('uses', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('invitations_campaign').on('invitations').columns(['campaign_id', 'id']).execute();

  for (const table of ['things', 'arcs'] as const) {
    await db.schema
      .alterTable(table)
      .addColumn('visibility', 'text', (c) => c.notNull().defaultTo('all').check(sql`visibility in ('all', 'gm')`))
      .execute();
    // What a player's request loads first: the campaign's GM-only records (few, usually).
    await db.schema.createIndex(`${table}_gm_only`).on(table).columns(['campaign_id', 'id']).where(sql.ref('visibility'), '=', 'gm').execute();
  }

  await db.schema.alterTable('search_documents').addColumn('audience', 'integer', (c) => c.notNull().defaultTo(3)).execute();
  await db.schema.alterTable('search_postings').addColumn('audience', 'integer', (c) => c.notNull().defaultTo(3)).execute();
  // A record may now have two documents, one per audience.
  for (const name of ['search_documents_thing', 'search_documents_arc', 'search_documents_campaign', 'search_postings_term']) {
    await db.schema.dropIndex(name).execute();
  }
  await db.schema.createIndex('search_documents_thing').on('search_documents').columns(['campaign_id', 'thing_id', 'audience']).unique().execute();
  await db.schema.createIndex('search_documents_arc').on('search_documents').columns(['campaign_id', 'arc_id', 'audience']).unique().execute();
  await db.schema
    .createIndex('search_documents_campaign')
    .on('search_documents')
    .columns(['campaign_id', 'audience'])
    .unique()
    .where(sql.ref('kind'), '=', 3)
    .execute();
  await db.schema
    .createIndex('search_postings_term')
    .on('search_postings')
    .columns(['campaign_id', 'term', 'doc_id', 'kind', 'record_id', 'name_tf', 'text_tf', 'name_len', 'text_len', 'audience'])
    .execute();
  // A rebuild of the search index may already be pending (a database migrated from the start).
  await sql`insert into index_rebuilds (name, requested_at) select 'search', ${new Date().toISOString()}
    where not exists (select 1 from index_rebuilds where name = 'search')`.execute(db);
}
