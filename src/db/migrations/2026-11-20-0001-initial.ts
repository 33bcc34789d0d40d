import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// The two dialects differ only in how an auto-incrementing id and a timestamp are spelled.
function types(dialect: Dialect) {
  // AUTOINCREMENT on SQLite so an id is never reused after a delete, as on PostgreSQL.
  const idColumn = (c: ColumnDefinitionBuilder) =>
    dialect === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement();
  return { ts: dialect === 'postgres' ? ('timestamptz' as const) : ('text' as const), idColumn };
}

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const { ts, idColumn } = types(dialect);

  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_normalized', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('premium_until', ts)
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'integer', idColumn)
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('expires_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_user_id').on('sessions').column('user_id').execute();

  await db.schema
    .createTable('api_tokens')
    .addColumn('id', 'integer', idColumn)
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('expires_at', ts)
    .addColumn('last_used_at', ts)
    .execute();
  await db.schema.createIndex('api_tokens_user_id').on('api_tokens').column('user_id').execute();

  await db.schema
    .createTable('rate_limits')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('window_start', ts, (c) => c.notNull())
    .addColumn('hits', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('campaigns')
    .addColumn('id', 'integer', idColumn)
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('campaigns_user_updated').on('campaigns').columns(['user_id', 'updated_at', 'id']).execute();

  await db.schema
    .createTable('thing_types')
    .addColumn('id', 'integer', idColumn)
    .addColumn('campaign_id', 'integer', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .addUniqueConstraint('thing_types_campaign_name_key', ['campaign_id', 'name_key'])
    .addUniqueConstraint('thing_types_campaign_id_id', ['campaign_id', 'id'])
    .execute();

  // Composite foreign keys carry campaign_id so a thing can only ever point at a type, and a link
  // at an arc and a thing, of its own campaign: the database itself forbids cross-campaign rows.
  await db.schema
    .createTable('things')
    .addColumn('id', 'integer', idColumn)
    .addColumn('campaign_id', 'integer', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
    .addColumn('type_id', 'integer', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .addUniqueConstraint('things_campaign_slug', ['campaign_id', 'slug'])
    .addUniqueConstraint('things_campaign_id_id', ['campaign_id', 'id'])
    .addForeignKeyConstraint('things_type_fk', ['campaign_id', 'type_id'], 'thing_types', ['campaign_id', 'id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .execute();
  await db.schema.createIndex('things_campaign_updated').on('things').columns(['campaign_id', 'updated_at', 'id']).execute();
  await db.schema
    .createIndex('things_campaign_type_updated')
    .on('things')
    .columns(['campaign_id', 'type_id', 'updated_at', 'id'])
    .execute();

  await db.schema
    .createTable('arcs')
    .addColumn('id', 'integer', idColumn)
    .addColumn('campaign_id', 'integer', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
    .addColumn('parent_arc_id', 'integer')
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('hook', 'text')
    .addColumn('protagonist', 'text')
    .addColumn('antagonist', 'text')
    .addColumn('problem', 'text')
    .addColumn('key', 'text')
    .addColumn('outcome', 'text')
    .addColumn('notes', 'text')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .addUniqueConstraint('arcs_campaign_slug', ['campaign_id', 'slug'])
    .addUniqueConstraint('arcs_campaign_id_id', ['campaign_id', 'id'])
    .addForeignKeyConstraint('arcs_parent_fk', ['campaign_id', 'parent_arc_id'], 'arcs', ['campaign_id', 'id'])
    .execute();
  await db.schema.createIndex('arcs_campaign_created').on('arcs').columns(['campaign_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('arcs_campaign_parent').on('arcs').columns(['campaign_id', 'parent_arc_id']).execute();

  await db.schema
    .createTable('arc_things')
    .addColumn('campaign_id', 'integer', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
    .addColumn('arc_id', 'integer', (c) => c.notNull())
    .addColumn('thing_id', 'integer', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('arc_things_pk', ['campaign_id', 'arc_id', 'thing_id'])
    .addForeignKeyConstraint('arc_things_arc_fk', ['campaign_id', 'arc_id'], 'arcs', ['campaign_id', 'id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .addForeignKeyConstraint('arc_things_thing_fk', ['campaign_id', 'thing_id'], 'things', ['campaign_id', 'id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .execute();
  await db.schema.createIndex('arc_things_campaign_thing').on('arc_things').columns(['campaign_id', 'thing_id']).execute();
}
