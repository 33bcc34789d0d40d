import { sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// Previous slugs (CONTRACT "Secrets that hold"): a thing or an arc answers to the slugs it had
// before an explicit slug change, so `[[thing#old]]` links and bookmarked URLs keep resolving.
//
//   kind 1 thing (thing_id), 2 arc (arc_id); at most one record of a kind per slug of a campaign
//   (another record taking the slug releases it: the row is deleted in that transaction).
//
// Rows cascade from their record through composite foreign keys, like the mentions index.
//
// Also what players see of when a record last changed (CONTRACT "Secrets that hold": a player's
// answers do not move when only hidden content changes): `players_updated_at` on things, arcs and
// campaigns is NULL while players see `updated_at`, and holds the `updated_at` players last saw
// while the writes since changed only what players cannot see (GM-only records, secret elements).
// Players' lists of things are ordered by coalesce(players_updated_at, updated_at): an index holds it.
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const ts = dialect === 'postgres' ? 'timestamptz' : 'text';
  for (const table of ['things', 'arcs', 'campaigns']) {
    await db.schema.alterTable(table).addColumn('players_updated_at', ts).execute();
  }
  await sql`create index things_campaign_players_updated on things (campaign_id, coalesce(players_updated_at, updated_at), id)`.execute(db);

  const idColumn = (c: ColumnDefinitionBuilder) =>
    dialect === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement();
  await db.schema
    .createTable('previous_slugs')
    .addColumn('id', 'integer', idColumn)
    .addColumn('campaign_id', 'integer', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
    .addColumn('kind', 'integer', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('thing_id', 'integer')
    .addColumn('arc_id', 'integer')
    .addForeignKeyConstraint('previous_slugs_thing_fk', ['campaign_id', 'thing_id'], 'things', ['campaign_id', 'id'], (fk) => fk.onDelete('cascade'))
    .addForeignKeyConstraint('previous_slugs_arc_fk', ['campaign_id', 'arc_id'], 'arcs', ['campaign_id', 'id'], (fk) => fk.onDelete('cascade'))
    .addCheckConstraint('previous_slugs_record', sql`(kind = 1 and thing_id is not null and arc_id is null) or (kind = 2 and arc_id is not null and thing_id is null)`)
    .addUniqueConstraint('previous_slugs_unique', ['campaign_id', 'kind', 'slug'])
    .execute();
  await db.schema.createIndex('previous_slugs_thing').on('previous_slugs').columns(['campaign_id', 'thing_id']).execute();
  await db.schema.createIndex('previous_slugs_arc').on('previous_slugs').columns(['campaign_id', 'arc_id']).execute();
}
