import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// PostgreSQL only: a function that raises "the campaign is gone" (SQLSTATE LF404), for a statement
// whose COMMIT is already on its way behind it (db/pipeline.ts). The last statement of a request's
// campaign write (repositories/common.ts markCampaignWrite) answered "not live" when the campaign
// went to the trash or was erased meanwhile, and the instance then rolled back; now that COMMIT is
// written with that statement, the statement itself fails, so PostgreSQL rolls the transaction back
// at that COMMIT. Volatile, so the planner never evaluates it ahead of the row that calls it.
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql
    .raw(
      `create function loreforge_campaign_gone() returns text language plpgsql volatile as $$
begin
  raise exception 'campaign_not_found' using errcode = 'LF404';
end $$`,
    )
    .execute(db);
}
