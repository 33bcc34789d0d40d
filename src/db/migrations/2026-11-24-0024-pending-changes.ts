import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// PostgreSQL only: a write no longer bumps its campaign's content_version first (holding the
// campaign row's lock across the whole transaction) but last (db/repositories/common.ts). The
// changes feed's triggers (migrations 0010 and 0018) stamped each row with the campaign's
// content_version as they fired, which now would be the version before the write's. They stamp
// -1 instead ("pending": only ever seen by the transaction that wrote it), and the statement that
// bumps the version gives this transaction's pending rows the new one, under the campaign row's
// lock held until commit, so versions still follow commit order within a campaign. A deferred
// trigger is the safety net: a transaction about to commit with pending rows of a campaign (a path
// that wrote records without ending in that statement) bumps the campaign and stamps them itself.
// SQLite runs one writer at a time, bumps first as before, and keeps its triggers.
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  // Every trigger function of ours that stamps the version: replace that one expression.
  await sql
    .raw(
      `do $do$ declare f record; begin
  for f in select p.oid from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = current_schema() and p.prorettype = 'trigger'::regtype and p.prosrc like '%c.content_version, %'
  loop
    execute replace(pg_get_functiondef(f.oid), 'c.content_version, ', '-1, ');
  end loop;
end $do$`,
    )
    .execute(db);
  await sql
    .raw(
      `create function changes_pending_at_commit() returns trigger language plpgsql as $$ begin
  if exists (select 1 from changes where campaign_id = new.campaign_id and version = -1) then
    with bumped as (update campaigns set content_version = content_version + 1 where id = new.campaign_id returning id, content_version)
    update changes ch set version = b.content_version from bumped b where ch.campaign_id = b.id and ch.version = -1;
  end if;
  return null;
end $$`,
    )
    .execute(db);
  await sql
    .raw(
      `create constraint trigger changes_pending_at_commit after insert or update on changes deferrable initially deferred
  for each row when (new.version = -1) execute function changes_pending_at_commit()`,
    )
    .execute(db);
}
