import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// PostgreSQL only: every change to a row the per-request lookup of caller, campaign and membership
// reads (db/repositories/credentials.ts) tells every instance, by NOTIFY on the channel
// `loreforge_callers` at commit, which cached lookups it invalidates (db/caller-cache.ts):
//   u:<user id>                  the user changed or was deleted
//   s:<user id>                  one of the user's sessions changed (extended) or ended
//   t:<user id>                  one of the user's API tokens changed or was revoked (not a touch of last_used_at)
//   c:<campaign id>              the campaign changed (renamed, trashed, restored, deleted…)
//   v:<campaign id>:<version>    only the campaign's content_version changed (a write inside it)
//   m:<campaign id>:<user id>    a membership was added, changed or removed
// A lookup that found nothing is never cached, so inserts of users, sessions, tokens and campaigns
// need no notice. SQLite has no such mechanism and does not cache the lookup.
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`
    CREATE FUNCTION loreforge_notify_users() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('loreforge_callers', 'u:' || OLD.id);
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER loreforge_notify_users AFTER UPDATE OR DELETE ON users FOR EACH ROW EXECUTE FUNCTION loreforge_notify_users()`.execute(db);

  await sql`
    CREATE FUNCTION loreforge_notify_sessions() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('loreforge_callers', 's:' || OLD.user_id);
      IF TG_OP = 'UPDATE' AND NEW.user_id <> OLD.user_id THEN PERFORM pg_notify('loreforge_callers', 's:' || NEW.user_id); END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER loreforge_notify_sessions AFTER UPDATE OR DELETE ON sessions FOR EACH ROW EXECUTE FUNCTION loreforge_notify_sessions()`.execute(db);

  // A token's last use is written once a minute while it is used: that alone invalidates nothing.
  await sql`
    CREATE FUNCTION loreforge_notify_api_tokens() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE' AND (to_jsonb(NEW) - 'last_used_at') = (to_jsonb(OLD) - 'last_used_at') THEN RETURN NULL; END IF;
      PERFORM pg_notify('loreforge_callers', 't:' || OLD.user_id);
      IF TG_OP = 'UPDATE' AND NEW.user_id <> OLD.user_id THEN PERFORM pg_notify('loreforge_callers', 't:' || NEW.user_id); END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER loreforge_notify_api_tokens AFTER UPDATE OR DELETE ON api_tokens FOR EACH ROW EXECUTE FUNCTION loreforge_notify_api_tokens()`.execute(db);

  // A write inside the campaign changes only its content_version: the instances update their
  // cached copies in place. Any other change drops them.
  await sql`
    CREATE FUNCTION loreforge_notify_campaigns() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE' AND (to_jsonb(NEW) - 'content_version') = (to_jsonb(OLD) - 'content_version') THEN
        IF NEW.content_version <> OLD.content_version THEN
          PERFORM pg_notify('loreforge_callers', 'v:' || NEW.id || ':' || NEW.content_version);
        END IF;
        RETURN NULL;
      END IF;
      PERFORM pg_notify('loreforge_callers', 'c:' || OLD.id);
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER loreforge_notify_campaigns AFTER UPDATE OR DELETE ON campaigns FOR EACH ROW EXECUTE FUNCTION loreforge_notify_campaigns()`.execute(db);

  await sql`
    CREATE FUNCTION loreforge_notify_campaign_members() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'INSERT' THEN PERFORM pg_notify('loreforge_callers', 'm:' || OLD.campaign_id || ':' || OLD.user_id); END IF;
      IF TG_OP <> 'DELETE' THEN PERFORM pg_notify('loreforge_callers', 'm:' || NEW.campaign_id || ':' || NEW.user_id); END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER loreforge_notify_campaign_members AFTER INSERT OR UPDATE OR DELETE ON campaign_members FOR EACH ROW EXECUTE FUNCTION loreforge_notify_campaign_members()`.execute(db);
}
