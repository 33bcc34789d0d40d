import { sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// The mentions index (CONTRACT "Rich content"): one row per field of a record and record it
// mentions, kept by db/indexes/mentions.ts in the transaction of every write that changes rich text.
//
//   source: source_kind 1 thing (thing_id), 2 arc (arc_id), 3 the campaign's description; `field`
//           names the rich-text field (description, hook, …)
//   target: target_kind 1 thing, 2 arc; target_id for a `mention` element (by id), target_slug for
//           a `[[thing#slug]]` text link (by slug, so it finds a record created later)
//   secret: every occurrence lies inside a secret block
//
// Rows cascade from their source record through composite foreign keys, like the search index; the
// target has no foreign key (a mention of a record not there yet, or deleted, is kept and simply
// matches nothing). The live code fills the table: this migration requests a rebuild.
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const idColumn = (c: ColumnDefinitionBuilder) =>
    dialect === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement();
  await db.schema
    .createTable('mentions')
    .addColumn('id', 'integer', idColumn)
    .addColumn('campaign_id', 'integer', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
    .addColumn('source_kind', 'integer', (c) => c.notNull())
    .addColumn('thing_id', 'integer')
    .addColumn('arc_id', 'integer')
    .addColumn('field', 'text', (c) => c.notNull())
    .addColumn('target_kind', 'integer', (c) => c.notNull())
    .addColumn('target_id', 'integer')
    .addColumn('target_slug', 'text')
    .addColumn('secret', 'integer', (c) => c.notNull())
    .addForeignKeyConstraint('mentions_thing_fk', ['campaign_id', 'thing_id'], 'things', ['campaign_id', 'id'], (fk) => fk.onDelete('cascade'))
    .addForeignKeyConstraint('mentions_arc_fk', ['campaign_id', 'arc_id'], 'arcs', ['campaign_id', 'id'], (fk) => fk.onDelete('cascade'))
    .addCheckConstraint(
      'mentions_source',
      sql`(source_kind = 1 and thing_id is not null and arc_id is null) or (source_kind = 2 and arc_id is not null and thing_id is null) or (source_kind = 3 and thing_id is null and arc_id is null)`,
    )
    .addCheckConstraint('mentions_target', sql`target_kind in (1, 2) and ((target_id is null) <> (target_slug is null)) and secret in (0, 1)`)
    .execute();
  await db.schema.createIndex('mentions_target_id').on('mentions').columns(['campaign_id', 'target_kind', 'target_id']).execute();
  await db.schema.createIndex('mentions_target_slug').on('mentions').columns(['campaign_id', 'target_kind', 'target_slug']).execute();
  await db.schema.createIndex('mentions_thing').on('mentions').columns(['campaign_id', 'thing_id']).execute();
  await db.schema.createIndex('mentions_arc').on('mentions').columns(['campaign_id', 'arc_id']).execute();
  await sql`insert into index_rebuilds (name, requested_at) values ('mentions', ${new Date().toISOString()})`.execute(db);
}
