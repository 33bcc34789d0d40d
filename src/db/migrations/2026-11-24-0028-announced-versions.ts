import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// PostgreSQL only: a write inside a campaign no longer sends a notice from its own transaction.
// PostgreSQL lets only one transaction that has NOTIFYed commit at a time (a lock on the notice
// queue, held until its commit is on disk), so migration 0026's `v:` notice on every
// content_version bump made every write of every campaign commit one after another; measured in
// docs/performance.md ("PostgreSQL writes: the causes, measured").
//
// - A transaction that says it will announce its content_version itself (transaction setting
//   `loreforge.announce` = 'app', set by db/repositories/common.ts campaignWrite) sends no `v:`
//   notice: the instance announces `v:<campaign id>:<version>` after the commit, from its listening
//   connection, many writes in one notice (db/caller-cache.ts). Every other bump (housekeeping, the
//   trash, the pending rows' safety net of migration 0024) still notifies from its transaction.
// - Every notice a trigger sends also marks its transaction (`loreforge.notified` = '1'), so that
//   the write can tell whether its answer must wait for its instance to apply a notice (the barrier)
//   or only for its own announcement.
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`
    CREATE FUNCTION loreforge_notify(payload text) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM set_config('loreforge.notified', '1', true);
      PERFORM pg_notify('loreforge_callers', payload);
    END $$`.execute(db);
  // Every trigger function of migration 0026: its notices go through loreforge_notify.
  await sql
    .raw(
      `do $do$ declare f record; begin
  for f in select p.oid from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = current_schema() and p.prorettype = 'trigger'::regtype and p.prosrc like '%pg_notify(''loreforge_callers'', %'
  loop
    execute replace(pg_get_functiondef(f.oid), 'pg_notify(''loreforge_callers'', ', 'loreforge_notify(');
  end loop;
end $do$`,
    )
    .execute(db);
  await sql`
    CREATE OR REPLACE FUNCTION loreforge_notify_campaigns() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE' AND (to_jsonb(NEW) - 'content_version') = (to_jsonb(OLD) - 'content_version') THEN
        IF NEW.content_version <> OLD.content_version AND current_setting('loreforge.announce', true) IS DISTINCT FROM 'app' THEN
          PERFORM loreforge_notify('v:' || NEW.id || ':' || NEW.content_version);
        END IF;
        RETURN NULL;
      END IF;
      PERFORM loreforge_notify('c:' || OLD.id);
      RETURN NULL;
    END $$`.execute(db);
  // The safety net of migration 0024 bumps the version for a transaction that did not end with
  // endCampaignWrite: nothing will announce that bump but its own notice.
  await sql
    .raw(
      `create or replace function changes_pending_at_commit() returns trigger language plpgsql as $$ begin
  if exists (select 1 from changes where campaign_id = new.campaign_id and version = -1) then
    perform set_config('loreforge.announce', '', true);
    with bumped as (update campaigns set content_version = content_version + 1 where id = new.campaign_id returning id, content_version)
    update changes ch set version = b.content_version from bumped b where ch.campaign_id = b.id and ch.version = -1;
  end if;
  return null;
end $$`,
    )
    .execute(db);
}
