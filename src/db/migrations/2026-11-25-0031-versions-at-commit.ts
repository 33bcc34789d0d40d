import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// PostgreSQL only: a campaign write's content_version bump moves into its COMMIT (issue 28).
//
// Before, the last statement of a write (db/repositories/common.ts endCampaignWrite) updated the
// campaign row, and held that row's lock while its answer went back to the instance and the
// instance sent COMMIT: every write of a campaign waited for the one before it to make that round
// trip, through an event loop busy with the other requests (measured in docs/performance.md).
//
// Now the write's last statement inserts a mark here instead, which takes no lock anyone else
// waits for: the key holds the writing connection's backend pid, and a connection runs one
// transaction at a time. The mark's trigger is deferred, so it fires at COMMIT, with the changes
// feed's (migration 0028): it bumps the campaign's content_version (changes_version, once per
// transaction, whichever trigger comes first) and removes the mark. The campaign row is locked
// from then until the commit is on disk, inside the server, with no round trip in between, and
// versions still follow commit order. Unlogged: a mark lives only inside its transaction, so a
// crash loses nothing.
//
// With it, the mark a thing's change leaves on its arcs (migration 0010, run at commit since 0028)
// reads the thing's links first. It started from the campaign's arcs, testing each against the
// links: a plan PostgreSQL took on statistics from before a campaign's arcs were imported, 900
// buffers a save on a campaign of 100 arcs, all of it while holding the campaign row's lock.
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  const now = `to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  const upsert = 'on conflict (campaign_id, kind, record_id, other_id) do update set version = excluded.version, deleted = excluded.deleted, changed_at = excluded.changed_at';
  await sql
    .raw(
      `create or replace function things_changes_update() returns trigger language plpgsql as $$ begin
insert into changes (campaign_id, kind, record_id, other_id, version, deleted, changed_at)
    select new.campaign_id, 3, new.id, 0, changes_version(c.id), 0, ${now} from campaigns c where c.id = new.campaign_id
    ${upsert};
insert into changes (campaign_id, kind, record_id, other_id, version, deleted, changed_at)
    select l.campaign_id, 4, l.arc_id, 0, changes_version(c.id), 0, ${now} from arc_things l join campaigns c on c.id = l.campaign_id
    where l.campaign_id = new.campaign_id and l.thing_id = new.id
    ${upsert};
return new;
end $$`,
    )
    .execute(db);
  await sql`create unlogged table campaign_write_marks (
    campaign_id integer not null,
    backend integer not null,
    primary key (campaign_id, backend)
  )`.execute(db);
  await sql`create function campaign_write_marked() returns trigger language plpgsql as $$
begin
  perform changes_version(new.campaign_id);
  delete from campaign_write_marks where campaign_id = new.campaign_id and backend = new.backend;
  return null;
end $$`.execute(db);
  await sql`create constraint trigger campaign_write_marked after insert on campaign_write_marks
    deferrable initially deferred for each row execute function campaign_write_marked()`.execute(db);
}
