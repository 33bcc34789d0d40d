import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// The trash (CONTRACT "# Phase 3" › "History and trash"). Deleting a thing, an arc, a thing type or
// an asset removes its rows as before (so a trashed record exists nowhere: no query elsewhere needs
// to know about the trash) and keeps them in one `trash` row: the record and everything the delete
// took with it (a type's things, their links, previous slugs), as compressed JSON in `payload`.
// Restoring inserts the rows again under their own ids, so mentions of them resolve again and the
// changes feed's triggers record the upserts.
//
//   trash         kind 'thing' | 'arc' | 'thing-type' | 'asset'; record_id the record's id;
//                 container_id the thing type of a trashed thing (its restore needs the type);
//                 slug and name as they were; with_* what the delete took along; deleted_by the
//                 user (no foreign key: the trash outlives an account), deleted_by_name its name then;
//                 image_id the stored image of a trashed asset (erasing the campaign removes it too).
//
// A deleted campaign stays in `campaigns`, marked: deleted_at and deleted_by are set, and its slug
// is replaced by `~<id>` (which no request can name: slugs are [a-z0-9-]) so it is free at once;
// trashed_slug keeps it for the restore.
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const ts = dialect === 'postgres' ? ('timestamptz' as const) : ('text' as const);
  const idColumn = (c: ColumnDefinitionBuilder) =>
    dialect === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement();
  await db.schema
    .createTable('trash')
    .addColumn('id', 'integer', idColumn)
    .addColumn('campaign_id', 'integer', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('record_id', 'integer', (c) => c.notNull())
    .addColumn('container_id', 'integer')
    .addColumn('slug', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('deleted_at', ts, (c) => c.notNull())
    .addColumn('deleted_by', 'text')
    .addColumn('deleted_by_name', 'text')
    .addColumn('with_things', 'integer', (c) => c.notNull())
    .addColumn('with_arcs', 'integer', (c) => c.notNull())
    .addColumn('with_links', 'integer', (c) => c.notNull())
    .addColumn('image_id', 'text')
    .addColumn('payload', dialect === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
    .addUniqueConstraint('trash_record', ['campaign_id', 'kind', 'record_id'])
    .execute();
  await db.schema.createIndex('trash_campaign_deleted').on('trash').columns(['campaign_id', 'deleted_at', 'id']).execute();
  await db.schema.createIndex('trash_deleted').on('trash').columns(['deleted_at']).execute();
  await db.schema.createIndex('trash_container').on('trash').columns(['campaign_id', 'container_id']).execute();

  // A link whose other end was in the trash when its record came back: it waits here until that end
  // comes back too (then it is a link again) or is erased (then it goes).
  await db.schema
    .createTable('trash_links')
    .addColumn('campaign_id', 'integer', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
    .addColumn('arc_id', 'integer', (c) => c.notNull())
    .addColumn('thing_id', 'integer', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('trash_links_pk', ['campaign_id', 'arc_id', 'thing_id'])
    .execute();
  await db.schema.createIndex('trash_links_thing').on('trash_links').columns(['campaign_id', 'thing_id']).execute();

  await db.schema.alterTable('campaigns').addColumn('deleted_at', ts).execute();
  await db.schema.alterTable('campaigns').addColumn('deleted_by', 'text').execute();
  await db.schema.alterTable('campaigns').addColumn('trashed_slug', 'text').execute();
  await db.schema.createIndex('campaigns_deleted').on('campaigns').columns(['deleted_at']).execute();
}
