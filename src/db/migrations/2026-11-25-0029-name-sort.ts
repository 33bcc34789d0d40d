import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

const BATCH = 500;

/** domain/name-sort.ts nameSortKey as this migration was written (a migration keeps its own copy). */
function nameSortKey(name: string): string {
  return name.normalize('NFKD').toUpperCase().toLowerCase().normalize('NFKD').replace(/\p{M}/gu, '');
}

// Things sorted by name (`sort=name`) were ordered by lower(name): SQLite's lower() folds only
// ASCII, so "Élise" and "élise" (and "Ärger", after "zed") came apart, and PostgreSQL's order
// depended on its locale. Each thing now stores the key the app computes (domain/name-sort.ts),
// compared byte for byte on both databases (PostgreSQL: collate "C"), with an index for the sort
// and its cursor. The key is written by every write of a thing's name (db/repositories/things.ts,
// trash.ts); here it is filled in for the things there are, with the triggers on things off: the
// key is no change to anything (no row of the changes feed, no new content_version).
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  // Kysely runs PostgreSQL's migrations in a transaction, not SQLite's: this one is all or nothing on both.
  if (dialect === 'sqlite') await db.transaction().execute((trx) => addNameSort(trx, dialect));
  else await addNameSort(db, dialect);
}

async function addNameSort(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('things')
    .addColumn('name_sort', 'text', (c) => (dialect === 'postgres' ? c.modifyFront(sql`collate "C"`) : c).notNull().defaultTo(''))
    .execute();
  await withoutThingTriggers(db, dialect, async () => {
    let after = 0;
    for (;;) {
      const { rows } = await sql<{ id: number; name: string }>`select id, name from things where id > ${after} order by id limit ${BATCH}`.execute(db);
      if (rows.length === 0) break;
      for (const row of rows) await sql`update things set name_sort = ${nameSortKey(row.name)} where id = ${row.id}`.execute(db);
      after = rows[rows.length - 1]!.id;
    }
  });
  await db.schema.createIndex('things_campaign_name_sort').on('things').columns(['campaign_id', 'name_sort', 'id']).execute();
}

// PostgreSQL turns the table's triggers off and on again (the migration's transaction holds the
// table meanwhile); SQLite has no such switch: its triggers on things are dropped and made again
// from their own text.
async function withoutThingTriggers(db: Kysely<unknown>, dialect: Dialect, fill: () => Promise<void>): Promise<void> {
  if (dialect === 'postgres') {
    await sql`alter table things disable trigger user`.execute(db);
    await fill();
    await sql`alter table things enable trigger user`.execute(db);
    return;
  }
  const { rows } = await sql<{ name: string; sql: string }>`select name, sql from sqlite_master where type = 'trigger' and tbl_name = 'things'`.execute(db);
  for (const trigger of rows) await sql`drop trigger ${sql.id(trigger.name)}`.execute(db);
  await fill();
  for (const trigger of rows) await sql.raw(trigger.sql).execute(db);
}
