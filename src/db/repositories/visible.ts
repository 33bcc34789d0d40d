// Where every read of a campaign's things and arcs begins (see access/view.ts): the campaign's rows
// that the view may see. A player's view adds `visibility = 'all'` to the query itself, so a GM-only
// record is absent from the rows, the counts and the cursors alike.
import { sql } from 'kysely';
import type { Db } from '../database.js';
import type { HiddenRecords, View } from '../../access/view.js';

export function visibleThings(db: Db, view: View) {
  const query = db.selectFrom('things').where('things.campaign_id', '=', view.campaignId);
  return view.players ? query.where('things.visibility', '=', 'all') : query;
}

export function visibleArcs(db: Db, view: View) {
  const query = db.selectFrom('arcs').where('arcs.campaign_id', '=', view.campaignId);
  return view.players ? query.where('arcs.visibility', '=', 'all') : query;
}

/** The campaign's GM-only things and arcs, by id. One statement, on two partial indexes. */
export async function loadHiddenRecords(db: Db, campaignId: number): Promise<HiddenRecords> {
  const rows = await db
    .selectFrom('things')
    .select(['id', sql<number>`1`.as('kind')])
    .where('campaign_id', '=', campaignId)
    .where('visibility', '=', 'gm')
    .unionAll(
      db
        .selectFrom('arcs')
        .select(['id', sql<number>`2`.as('kind')])
        .where('campaign_id', '=', campaignId)
        .where('visibility', '=', 'gm'),
    )
    .execute();
  const things = new Set<number>();
  const arcs = new Set<number>();
  for (const row of rows) (Number(row.kind) === 1 ? things : arcs).add(row.id);
  return { things, arcs };
}
