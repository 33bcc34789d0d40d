// Ids handed out before the rows that take them are inserted. An import knows every record before
// it writes any, and its texts name records by id (mentions, link properties, parents): with the
// ids reserved first, each row is inserted once with its final text, in multi-row statements,
// instead of inserted and then updated row by row once the ids are known.
import { sql, type Transaction } from 'kysely';
import { dialectOf } from '../database.js';
import type { DB } from '../schema.js';

export type TableWithIds = 'thing_types' | 'things' | 'arcs' | 'assets';

/**
 * `count` new ids of `table`, ascending, that no other row will take (call inside a write
 * transaction). PostgreSQL: values of the id column's identity sequence. SQLite (AUTOINCREMENT):
 * the table's counter in sqlite_sequence is moved past them, which is how SQLite itself keeps an
 * id from being handed out twice, so they stay reserved after this transaction commits.
 */
export async function reserveIds(trx: Transaction<DB>, table: TableWithIds, count: number): Promise<number[]> {
  if (count <= 0) return [];
  if (dialectOf(trx) === 'postgres') {
    const { rows } = await sql<{ id: number }>`select nextval(pg_get_serial_sequence(${table}, 'id'))::integer as id from generate_series(1, ${count})`.execute(trx);
    return rows.map((row) => Number(row.id)).sort((a, b) => a - b);
  }
  const { rows } = await sql<{ last: number }>`select max(
      coalesce((select seq from sqlite_sequence where name = ${table}), 0),
      coalesce((select max(id) from ${sql.table(table)}), 0)) as last`.execute(trx);
  const last = Number(rows[0]?.last ?? 0);
  const updated = await sql`update sqlite_sequence set seq = ${last + count} where name = ${table}`.execute(trx);
  if (Number(updated.numAffectedRows ?? 0) === 0) await sql`insert into sqlite_sequence (name, seq) values (${table}, ${last + count})`.execute(trx);
  return Array.from({ length: count }, (_, i) => last + 1 + i);
}
