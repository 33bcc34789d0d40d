import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// PostgreSQL only: a function that raises a serialization failure (SQLSTATE 40001), for the last
// statement of a request's campaign write when an UPDATE it carries for a save
// (repositories/common.ts heldRecordUpdate) finds its row at another version than the save read.
// The save answered with a row built from that read, so it must not commit: the statement fails,
// the COMMIT already written behind it (db/pipeline.ts) rolls the transaction back, and
// Database.write runs the write again from the start, as after any serialization failure. It
// cannot happen while every writer of things and arcs takes the locks the saves rely on (the row's,
// or the campaign's write lock); it stops a writer that does not from turning into a wrong answer.
// Volatile, so the planner never evaluates it ahead of the row that calls it.
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql
    .raw(
      `create function loreforge_row_changed() returns text language plpgsql volatile as $$
begin
  raise exception 'a record changed between its read and its update in one write' using errcode = 'serialization_failure';
end $$`,
    )
    .execute(db);
}
