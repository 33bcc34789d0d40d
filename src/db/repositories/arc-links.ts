import type { Insertable } from 'kysely';
import { insertSlices } from '../chunks.js';
import type { Database, Db } from '../database.js';
import { classifyDatabaseError } from '../errors.js';
import type { ArcRow, ArcThingsTable } from '../schema.js';
import { errors } from '../../domain/errors.js';
import { isValidSlug } from '../../domain/slugs.js';
import { nowIso } from '../../domain/time.js';
import type { View } from '../../access/view.js';
import { campaignWrite } from './common.js';
import { visibleThings } from './visible.js';

// Links between things and arcs. A link is not an edit of either record: linking and unlinking
// leave both records' version and updatedAt as they were.

export type LinkedArc = Omit<ArcRow, 'parent_arc_id' | 'notes' | 'version' | 'visibility' | 'tag_keys'>;

interface NamedRecord {
  id: number;
  name: string;
}

// A string that is not a well-formed slug names no record; no need to ask the database.
function findThingRef(db: Db, campaignId: number, slug: string): Promise<NamedRecord | undefined> {
  if (!isValidSlug(slug)) return Promise.resolve(undefined);
  return db.selectFrom('things').select(['id', 'name']).where('campaign_id', '=', campaignId).where('slug', '=', slug).executeTakeFirst();
}

function findArcRef(db: Db, campaignId: number, slug: string): Promise<NamedRecord | undefined> {
  if (!isValidSlug(slug)) return Promise.resolve(undefined);
  return db.selectFrom('arcs').select(['id', 'name']).where('campaign_id', '=', campaignId).where('slug', '=', slug).executeTakeFirst();
}

async function requireThing(db: Db, campaignId: number, slug: string): Promise<NamedRecord> {
  const thing = await findThingRef(db, campaignId, slug);
  if (!thing) throw errors.thingNotFound(slug);
  return thing;
}

async function requireArc(db: Db, campaignId: number, slug: string): Promise<NamedRecord> {
  const arc = await findArcRef(db, campaignId, slug);
  if (!arc) throw errors.arcNotFound(slug);
  return arc;
}

/** The arcs the view sees that a thing the view sees is linked to, in link order (when linked, then arc id). */
export async function listArcsOfThing(db: Db, view: View, thingSlug: string): Promise<LinkedArc[]> {
  const thing = isValidSlug(thingSlug) ? await visibleThings(db, view).select('id').where('slug', '=', thingSlug).executeTakeFirst() : undefined;
  if (!thing) throw errors.thingNotFound(thingSlug);
  const query = db
    .selectFrom('arc_things')
    .innerJoin('arcs', (join) => join.onRef('arcs.campaign_id', '=', 'arc_things.campaign_id').onRef('arcs.id', '=', 'arc_things.arc_id'))
    .select([
      'arcs.id',
      'arcs.campaign_id',
      'arcs.slug',
      'arcs.name',
      'arcs.hook',
      'arcs.protagonist',
      'arcs.antagonist',
      'arcs.problem',
      'arcs.key',
      'arcs.outcome',
      'arcs.created_at',
      'arcs.updated_at',
      'arcs.players_updated_at',
      'arcs.properties',
      'arcs.tags',
      'arcs.aliases',
    ])
    .where('arc_things.campaign_id', '=', view.campaignId)
    .where('arc_things.thing_id', '=', thing.id)
    .orderBy('arc_things.created_at', 'asc')
    .orderBy('arcs.id', 'asc');
  return (view.players ? query.where('arcs.visibility', '=', 'all') : query).execute();
}

/** Inserts links (in the caller's transaction); a pair already linked stays as it was. */
export async function insertArcLinks(db: Db, rows: readonly Insertable<ArcThingsTable>[]): Promise<void> {
  for (const slice of insertSlices(rows)) {
    await db
      .insertInto('arc_things')
      .values(slice)
      .onConflict((conflict) => conflict.columns(['campaign_id', 'arc_id', 'thing_id']).doNothing())
      .execute();
  }
}

/**
 * Links a thing to an arc; a pair already linked stays as it was (same link time). Link and unlink
 * run beside other concurrent writes (common.ts WriteMode): the link row's key orders them, and a
 * deletion of the thing or arc is exclusive.
 */
export async function linkThingToArc(
  database: Database,
  campaignId: number,
  thingSlug: string,
  arcSlug: string,
): Promise<{ thingName: string; arcName: string }> {
  try {
    return await campaignWrite(database, campaignId, async (trx) => {
      const thing = await requireThing(trx, campaignId, thingSlug);
      const arc = await requireArc(trx, campaignId, arcSlug);
      await insertArcLinks(trx, [{ campaign_id: campaignId, arc_id: arc.id, thing_id: thing.id, created_at: nowIso() }]);
      return { thingName: thing.name, arcName: arc.name };
    }, 'concurrent');
  } catch (error) {
    // The thing or the arc was deleted between our read and the insert.
    if (classifyDatabaseError(error) === 'foreign_key') {
      throw errors.linkedRecordGone();
    }
    throw error;
  }
}

/** Removes the link between a thing and an arc; 404 when either is unknown or they are not linked. */
export async function unlinkThingFromArc(database: Database, campaignId: number, thingSlug: string, arcSlug: string): Promise<void> {
  await campaignWrite(database, campaignId, async (trx) => {
    const thing = await requireThing(trx, campaignId, thingSlug);
    const arc = await requireArc(trx, campaignId, arcSlug);
    const result = await trx
      .deleteFrom('arc_things')
      .where('campaign_id', '=', campaignId)
      .where('arc_id', '=', arc.id)
      .where('thing_id', '=', thing.id)
      .executeTakeFirst();
    if (result.numDeletedRows === 0n) {
      throw errors.linkNotFound(thingSlug, arcSlug);
    }
  }, 'concurrent');
}
