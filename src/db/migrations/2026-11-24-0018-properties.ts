import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// Records with structure (CONTRACT "# Phase 3" › "Records: properties, tags, aliases";
// domain/properties.ts). A thing's and an arc's properties, tags and aliases are JSON text in the
// record's own row, so every read that carries the record carries them with no statement more, the
// trash keeps them with the row and the changes feed's triggers see them as any other column.
// `tag_keys` is the folded tags between unit separators: a tag filter is one LIKE on the row on both
// databases, with no table to keep in step. A thing type's `fields` are JSON text too.
// Every existing record starts with none of them.
//
// A thing type now answers its `thingCount`, so the changes feed (migrations/2026-11-23-0010-changes.ts)
// lists a type again whenever a thing joins or leaves it: a thing created, deleted, or moved to
// another type marks the types involved, those that still exist (a type deleted with its things
// keeps its tombstone).
const TYPE_KIND = 2;
const SQLITE_NOW = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;
const POSTGRES_NOW = `to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

function markType(now: string, row: 'new' | 'old'): string {
  return `insert into changes (campaign_id, kind, record_id, other_id, version, deleted, changed_at)
    select t.campaign_id, ${TYPE_KIND}, t.id, 0, c.content_version, 0, ${now} from thing_types t join campaigns c on c.id = t.campaign_id
    where t.campaign_id = ${row}.campaign_id and t.id = ${row}.type_id
    on conflict (campaign_id, kind, record_id, other_id) do update set version = excluded.version, deleted = excluded.deleted, changed_at = excluded.changed_at;`;
}

const TRIGGERS = [
  { name: 'things_type_count_insert', on: 'insert', when: undefined, body: (now: string) => [markType(now, 'new')] },
  { name: 'things_type_count_delete', on: 'delete', when: undefined, body: (now: string) => [markType(now, 'old')] },
  { name: 'things_type_count_update', on: 'update', when: 'new.type_id <> old.type_id', body: (now: string) => [markType(now, 'new'), markType(now, 'old')] },
] as const;

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  for (const table of ['things', 'arcs']) {
    await db.schema.alterTable(table).addColumn('properties', 'text', (c) => c.notNull().defaultTo('[]')).execute();
    await db.schema.alterTable(table).addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]')).execute();
    await db.schema.alterTable(table).addColumn('tag_keys', 'text', (c) => c.notNull().defaultTo('')).execute();
    await db.schema.alterTable(table).addColumn('aliases', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  }
  await db.schema.alterTable('thing_types').addColumn('fields', 'text', (c) => c.notNull().defaultTo('[]')).execute();

  for (const trigger of TRIGGERS) {
    const when = trigger.when;
    if (dialect === 'sqlite') {
      await sql.raw(`create trigger ${trigger.name} after ${trigger.on} on things for each row ${when ? `when ${when} ` : ''}begin\n${trigger.body(SQLITE_NOW).join('\n')}\nend`).execute(db);
    } else {
      const ret = trigger.on === 'delete' ? 'old' : 'new';
      await sql.raw(`create function ${trigger.name}() returns trigger language plpgsql as $$ begin\n${trigger.body(POSTGRES_NOW).join('\n')}\nreturn ${ret};\nend $$`).execute(db);
      await sql.raw(`create trigger ${trigger.name} after ${trigger.on} on things for each row ${when ? `when (${when}) ` : ''}execute function ${trigger.name}()`).execute(db);
    }
  }
}
