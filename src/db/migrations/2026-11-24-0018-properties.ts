import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// Records with structure (CONTRACT "# Phase 3" › "Records: properties, tags, aliases";
// domain/properties.ts). A thing's and an arc's properties, tags and aliases are JSON text in the
// record's own row, so every read that carries the record carries them with no statement more, the
// trash keeps them with the row and the changes feed's triggers see them as any other column.
// `tag_keys` is the folded tags between unit separators: a tag filter is one LIKE on the row on both
// databases, with no table to keep in step. A thing type's `fields` are JSON text too.
// Every existing record starts with none of them.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  for (const table of ['things', 'arcs']) {
    await db.schema.alterTable(table).addColumn('properties', 'text', (c) => c.notNull().defaultTo('[]')).execute();
    await db.schema.alterTable(table).addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]')).execute();
    await db.schema.alterTable(table).addColumn('tag_keys', 'text', (c) => c.notNull().defaultTo('')).execute();
    await db.schema.alterTable(table).addColumn('aliases', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  }
  await db.schema.alterTable('thing_types').addColumn('fields', 'text', (c) => c.notNull().defaultTo('[]')).execute();
}
