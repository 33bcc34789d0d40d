import { sql } from 'kysely';
import type { Database } from '../../src/db/database.js';

// A change journal for a test database: a row trigger on every table counts the rows each committed
// statement inserts, updates or deletes. Reading the journal is one small query however large the
// tables grow, so every fuzz case can check that a rejected request wrote nothing. It is stricter
// than comparing table contents: a write that happens to leave a row as it was still counts. A
// rolled-back transaction takes its counts with it, as it should.
//
// Not counted, because the service writes them on purpose for requests it then rejects: rate-limit
// counters (every attempt counts), an API token's last use and a session's sliding expiry (written
// whenever a credential is presented).

const JOURNAL = 'test_change_journal';
const VOLATILE_TABLES = new Set(['rate_limits', JOURNAL]);
const VOLATILE_COLUMNS: Record<string, string[]> = { api_tokens: ['last_used_at'], sessions: ['expires_at'] };

export type ChangeCounts = Record<string, number>;

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

async function tablesAndColumns(database: Database): Promise<Map<string, string[]>> {
  const columns = new Map<string, string[]>();
  if (database.dialect === 'postgres') {
    const { rows } = await sql<{ table_name: string; column_name: string }>`
      select c.table_name, c.column_name
      from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'
      order by c.table_name, c.ordinal_position`.execute(database.kysely);
    for (const { table_name, column_name } of rows) columns.set(table_name, [...(columns.get(table_name) ?? []), column_name]);
  } else {
    // Ordinary tables only: virtual tables take no triggers (their shadow tables are ordinary ones).
    const { rows: tables } = await sql<{ name: string }>`
      select name from sqlite_master
      where type = 'table' and name not like 'sqlite_%' and sql not like 'CREATE VIRTUAL TABLE%'`.execute(database.kysely);
    for (const { name } of tables) {
      const { rows } = await sql<{ name: string }>`select name from pragma_table_info(${name})`.execute(database.kysely);
      columns.set(
        name,
        rows.map((r) => r.name),
      );
    }
  }
  for (const table of VOLATILE_TABLES) columns.delete(table);
  return columns;
}

/** Installs the journal and its triggers on every table; returns the names of the tables watched. */
export async function installChangeJournal(database: Database): Promise<string[]> {
  const tables = await tablesAndColumns(database);
  const db = database.kysely;
  await sql.raw(`create table ${JOURNAL} (table_name text primary key, changes integer not null)`).execute(db);
  if (database.dialect === 'postgres') {
    await sql
      .raw(
        `create function test_change_journal_bump() returns trigger language plpgsql as $$
         begin
           update ${JOURNAL} set changes = changes + 1 where table_name = TG_TABLE_NAME;
           return null;
         end $$`,
      )
      .execute(db);
  }
  for (const [table, allColumns] of tables) {
    await sql.raw(`insert into ${JOURNAL} (table_name, changes) values (${literal(table)}, 0)`).execute(db);
    const skip = new Set(VOLATILE_COLUMNS[table] ?? []);
    const watched = allColumns.filter((c) => !skip.has(c)).map(quote).join(', ');
    const events: [string, string][] = [
      ['insert', 'insert'],
      ['delete', 'delete'],
    ];
    if (watched !== '') events.push(['update', `update of ${watched}`]);
    for (const [suffix, event] of events) {
      const name = quote(`test_cj_${table}_${suffix}`);
      if (database.dialect === 'postgres') {
        await sql.raw(`create trigger ${name} after ${event} on ${quote(table)} for each row execute function test_change_journal_bump()`).execute(db);
      } else {
        await sql
          .raw(
            `create trigger ${name} after ${event} on ${quote(table)} for each row
             begin update ${JOURNAL} set changes = changes + 1 where table_name = ${literal(table)}; end`,
          )
          .execute(db);
      }
    }
  }
  return [...tables.keys()];
}

/** The number of row changes committed to each watched table since the journal was installed. */
export async function changeCounts(database: Database): Promise<ChangeCounts> {
  const { rows } = await sql<{ table_name: string; changes: number | string }>`${sql.raw(`select table_name, changes from ${JOURNAL}`)}`.execute(database.kysely);
  return Object.fromEntries(rows.map((r) => [r.table_name, Number(r.changes)]));
}

/** The tables written between two readings of the journal. */
export function changedTables(before: ChangeCounts, after: ChangeCounts): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => before[name] !== after[name]).sort();
}
