import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// PostgreSQL only: a function that raises "this caller may not make this write" (SQLSTATE LF403),
// with the caller's role in the campaign as the error's detail (empty: not a member). The first
// statement of a request's campaign write (repositories/common.ts holdCampaignWriteOpening) is written to
// the socket together with the write's next statement (db/pipeline.ts SentWithNext), so the check
// of the caller's role must stop the transaction in PostgreSQL itself, before that statement runs:
// the statement calls this when the role is not among those allowed to write, the transaction is
// aborted, and the instance turns the error into the answer access/policy.ts gives for that role.
// Volatile, so the planner never evaluates it ahead of the row that calls it.
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql
    .raw(
      `create function loreforge_write_refused(role text) returns text language plpgsql volatile as $$
begin
  raise exception 'write_refused' using errcode = 'LF403', detail = coalesce(role, '');
end $$`,
    )
    .execute(db);
}
