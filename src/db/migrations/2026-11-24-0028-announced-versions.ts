import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// PostgreSQL only: a write inside a campaign no longer sends a notice from its own transaction.
// PostgreSQL lets only one transaction that has NOTIFYed commit at a time (a lock on the notice
// queue, held until its commit is on disk), so migration 0026's `v:` notice on every
// content_version bump made every write of every campaign commit one after another; measured in
// docs/performance.md ("PostgreSQL writes: the causes, measured").
//
// - A transaction that says it will announce its campaign's content_version itself (transaction
//   setting `loreforge.announce` = the campaign's id, set by db/repositories/common.ts
//   campaignWrite) sends no `v:` notice for that campaign: the instance announces
//   `v:<campaign id>:<version>` after the commit, from its listening connection, many writes in
//   one notice (db/announcements.ts). Every other bump (housekeeping, the trash, the feed's own
//   bump below) still notifies from its transaction.
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
      -- What changes_version reads: the version this transaction moved the campaign to.
      IF TG_OP = 'UPDATE' AND NEW.content_version <> OLD.content_version THEN
        PERFORM set_config('loreforge.bumped_' || NEW.id, NEW.content_version::text, true);
      END IF;
      IF TG_OP = 'UPDATE' AND (to_jsonb(NEW) - 'content_version') = (to_jsonb(OLD) - 'content_version') THEN
        IF NEW.content_version <> OLD.content_version AND current_setting('loreforge.announce', true) IS DISTINCT FROM NEW.id::text THEN
          PERFORM loreforge_notify('v:' || NEW.id || ':' || NEW.content_version);
        END IF;
        RETURN NULL;
      END IF;
      PERFORM loreforge_notify('c:' || OLD.id);
      RETURN NULL;
    END $$`.execute(db);
  await changesAtCommit(db);
}

// The changes feed's rows (migrations 0010 and 0024) are written at commit, by deferred triggers,
// each stamped with the campaign's content_version as this transaction commits it: a transaction
// that has not bumped it yet (no endCampaignWrite) bumps it first (changes_version). Before, the
// rows were written pending (-1) as the records changed and stamped again by the final bump: twice
// the writes, and a write's row lock on its arcs' rows (a thing's change marks its arcs) held from
// its first statement to its commit, so writes to things of one arc waited for each other (about
// 100 ms a PUT at 8 connections). Now every row lock on the feed is taken after the campaign row's,
// which the writer holds until commit anyway.
async function changesAtCommit(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `create function changes_version(cid integer) returns integer language plpgsql as $$
declare v integer;
begin
  -- Bumped by this transaction already (set by the campaigns trigger on every bump): that version.
  v := nullif(current_setting('loreforge.bumped_' || cid, true), '')::integer;
  if v is not null then return v; end if;
  update campaigns set content_version = content_version + 1 where id = cid returning content_version into v;
  if v is null then raise exception 'campaign % no longer exists: its changes cannot be recorded', cid using errcode = 'P0002'; end if;
  return v;
end $$`,
    )
    .execute(db);
  await sql
    .raw(
      `do $do$ declare f record; drops text[]; creates text[]; statement text; begin
  for f in select p.oid from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = current_schema() and p.prorettype = 'trigger'::regtype and p.prosrc like '%insert into changes%' and p.proname <> 'changes_pending_at_commit'
  loop
    execute replace(pg_get_functiondef(f.oid), ', -1, ', ', changes_version(c.id), ');
  end loop;
  select array_agg(format('drop trigger %I on %s', tg.tgname, tg.tgrelid::regclass)),
      array_agg(replace(replace(pg_get_triggerdef(tg.oid), 'CREATE TRIGGER', 'CREATE CONSTRAINT TRIGGER'), 'FOR EACH ROW', 'DEFERRABLE INITIALLY DEFERRED FOR EACH ROW'))
    into drops, creates
    from pg_trigger tg join pg_proc p on p.oid = tg.tgfoid join pg_namespace n on n.oid = p.pronamespace
    where not tg.tgisinternal and n.nspname = current_schema() and p.prosrc like '%insert into changes%' and p.proname <> 'changes_pending_at_commit';
  foreach statement in array drops loop execute statement; end loop;
  foreach statement in array creates loop execute statement; end loop;
end $do$`,
    )
    .execute(db);
  await sql.raw('drop trigger changes_pending_at_commit on changes').execute(db);
  await sql.raw('drop function changes_pending_at_commit()').execute(db);
}
