import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// PostgreSQL only: a write's bump of its campaign's content_version no longer turns the campaign's
// whole row into JSON, twice (issue 28: writes cost what changed).
//
// Migration 0026's trigger on campaigns ran on every UPDATE of the row and told a bump from any
// other change by comparing `to_jsonb(NEW) - 'content_version'` with the same of OLD: every write
// of every record of a campaign serialized the campaign's row twice at its COMMIT (migration 0031),
// its description included, while holding the campaign row's lock. A campaign with a long
// description made every save of every thing in it slower.
//
// Now two triggers, each fired only by the UPDATEs whose SET list names its columns:
// - loreforge_campaign_bumped, on content_version (when it changed): what migration 0028's trigger
//   did on a bump. It records the version this transaction moved the campaign to (what
//   changes_version reads) and sends the `v:` notice unless the transaction announces it itself.
// - loreforge_notify_campaigns, on every other column and on DELETE: the `c:` notice that drops the
//   instances' kept copies of the campaign, unless the row is in fact unchanged but for its version.
//   Its column list is every column but content_version: a migration that adds a column to
//   campaigns must create the trigger again with it (campaignColumnsTrigger), and
//   test/integration/migrations.test.ts fails until it does. One that drops a column or changes its
//   type must drop the trigger first (PostgreSQL refuses to alter a column a trigger names, and
//   DROP COLUMN … CASCADE would drop the trigger, DELETE included), then create it again. UPDATE OF
//   does not see columns a BEFORE trigger changes: campaigns has none.
//
// An UPDATE that changes both (a campaign's own edit bumps its version too) now sends `v:` and then
// `c:` (triggers fire in name order); before, only `c:`. An instance applies the version, then drops
// the campaign's entries: the same outcome.
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`
    CREATE FUNCTION loreforge_campaign_bumped() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- What changes_version reads: the version this transaction moved the campaign to.
      PERFORM set_config('loreforge.bumped_' || NEW.id, NEW.content_version::text, true);
      IF current_setting('loreforge.announce', true) IS DISTINCT FROM NEW.id::text THEN
        PERFORM loreforge_notify('v:' || NEW.id || ':' || NEW.content_version);
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER loreforge_campaign_bumped AFTER UPDATE OF content_version ON campaigns FOR EACH ROW
    WHEN (NEW.content_version IS DISTINCT FROM OLD.content_version) EXECUTE FUNCTION loreforge_campaign_bumped()`.execute(db);
  await sql`
    CREATE OR REPLACE FUNCTION loreforge_notify_campaigns() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE' AND (to_jsonb(NEW) - 'content_version') = (to_jsonb(OLD) - 'content_version') THEN
        RETURN NULL;
      END IF;
      PERFORM loreforge_notify('c:' || OLD.id);
      RETURN NULL;
    END $$`.execute(db);
  await campaignColumnsTrigger(db);
}

/**
 * (Re)creates the trigger that sends `c:` notices on a change of the campaign row, for every
 * column campaigns has now but content_version. Call it again from any migration that adds a column
 * to campaigns (PostgreSQL only).
 */
export async function campaignColumnsTrigger(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `do $do$ declare cols text; begin
  select string_agg(quote_ident(attname), ', ' order by attnum) into cols from pg_attribute
    where attrelid = 'campaigns'::regclass and attnum > 0 and not attisdropped and attname <> 'content_version';
  drop trigger if exists loreforge_notify_campaigns on campaigns;
  execute format('create trigger loreforge_notify_campaigns after update of %s or delete on campaigns for each row execute function loreforge_notify_campaigns()', cols);
end $do$`,
    )
    .execute(db);
}
