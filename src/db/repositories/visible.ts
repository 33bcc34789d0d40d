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

/**
 * The campaign's GM-only things and arcs, by id, those that are gone (trash, erased) included: a
 * mention or a link naming one is never a player's to read. One statement.
 */
export async function loadHiddenRecords(db: Db, campaignId: number): Promise<HiddenRecords> {
  return (await loadHiddenRecordsOf(db, [campaignId])).get(campaignId)!;
}

/** The GM-only things and arcs of each of these campaigns, by id (gone ones included). One statement whatever their number. */
export async function loadHiddenRecordsOf(db: Db, campaignIds: readonly number[]): Promise<Map<number, HiddenRecords>> {
  const out = new Map<number, { things: Set<number>; arcs: Set<number> }>(campaignIds.map((id) => [id, { things: new Set(), arcs: new Set() }]));
  if (campaignIds.length === 0) return out;
  const rows = await db
    .selectFrom('things')
    .select(['campaign_id', 'id', sql<number>`1`.as('kind')])
    .where('campaign_id', 'in', campaignIds)
    .where('visibility', '=', 'gm')
    .unionAll(
      db
        .selectFrom('arcs')
        .select(['campaign_id', 'id', sql<number>`2`.as('kind')])
        .where('campaign_id', 'in', campaignIds)
        .where('visibility', '=', 'gm'),
    )
    .unionAll(db.selectFrom('gone_gm_only').select(['campaign_id', 'record_id as id', 'kind']).where('campaign_id', 'in', campaignIds))
    .execute();
  for (const row of rows) {
    const hidden = out.get(row.campaign_id);
    if (hidden) (Number(row.kind) === 1 ? hidden.things : hidden.arcs).add(row.id);
  }
  return out;
}
