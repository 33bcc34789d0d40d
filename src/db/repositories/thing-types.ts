import type { Database, Db } from '../database.js';
import { classifyDatabaseError } from '../errors.js';
import type { Insertable } from 'kysely';
import { insertSlices } from '../chunks.js';
import type { ThingTypeRow, ThingTypesTable } from '../schema.js';
import { errors } from '../../domain/errors.js';
import { MAX_RECORD_ID } from '../../domain/ids.js';
import { nowIso } from '../../domain/time.js';
import type { ExpectedVersion } from '../../domain/versions.js';
import { campaignWrite, checkExpected } from './common.js';
import type { View } from '../../access/view.js';
import { visibleThings } from './visible.js';
import type { TypeField } from '../../domain/properties.js';

/**
 * How many things of each type the view sees (a player's count leaves out GM-only things): one
 * statement, for every type of the campaign or just `typeId`. A type without things is absent.
 */
export async function countThingsByType(db: Db, view: View, typeId?: number): Promise<Map<number, number>> {
  let query = visibleThings(db, view).select(['type_id', (eb) => eb.fn.countAll<number | string | bigint>().as('count')]).groupBy('type_id');
  if (typeId !== undefined) query = query.where('type_id', '=', typeId);
  const rows = await query.execute();
  return new Map(rows.map((row) => [row.type_id, Number(row.count)]));
}

/** The key that makes type names unique within a campaign regardless of case. */
export function thingTypeNameKey(name: string): string {
  return name.toLowerCase();
}

export function listThingTypes(db: Db, campaignId: number): Promise<ThingTypeRow[]> {
  return db.selectFrom('thing_types').selectAll().where('campaign_id', '=', campaignId).orderBy('id', 'asc').execute();
}

export async function findThingType(db: Db, campaignId: number, id: number): Promise<ThingTypeRow | undefined> {
  if (id > MAX_RECORD_ID) return undefined;
  return db.selectFrom('thing_types').selectAll().where('campaign_id', '=', campaignId).where('id', '=', id).executeTakeFirst();
}

/** Whether `id` names a thing type of this campaign. */
export async function thingTypeExists(db: Db, campaignId: number, id: number): Promise<boolean> {
  if (!Number.isSafeInteger(id) || id < 1 || id > MAX_RECORD_ID) return false;
  const row = await db
    .selectFrom('thing_types')
    .select('id')
    .where('campaign_id', '=', campaignId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Inserts thing types (in the caller's transaction), a multi-row statement per slice of the
 * databases' parameter limit; returns the rows (in no promised order: match them by name_key).
 */
export async function insertThingTypes(db: Db, rows: readonly Insertable<ThingTypesTable>[]): Promise<ThingTypeRow[]> {
  const out: ThingTypeRow[] = [];
  for (const slice of insertSlices(rows)) out.push(...(await db.insertInto('thing_types').values(slice).returningAll().execute()));
  return out;
}

// The read before the write gives the clear message; the unique constraint settles a race between
// two writers that both passed the read.
export async function createThingType(database: Database, campaignId: number, name: string, fields: readonly TypeField[] = []): Promise<ThingTypeRow> {
  const nameKey = thingTypeNameKey(name);
  try {
    return await campaignWrite(database, campaignId, async (trx) => {
      const clash = await trx
        .selectFrom('thing_types')
        .select('id')
        .where('campaign_id', '=', campaignId)
        .where('name_key', '=', nameKey)
        .executeTakeFirst();
      if (clash) throw errors.thingTypeNameTaken(name);
      const now = nowIso();
      const [created] = await insertThingTypes(trx, [{ campaign_id: campaignId, name, name_key: nameKey, fields: JSON.stringify(fields), version: 1, created_at: now, updated_at: now }]);
      return created!;
    });
  } catch (error) {
    const kind = classifyDatabaseError(error);
    if (kind === 'unique') throw errors.thingTypeNameTaken(name);
    // The campaign was deleted under us.
    if (kind === 'foreign_key') throw errors.campaignNotFound();
    throw error;
  }
}

export interface ThingTypeChanges {
  name?: string;
  /** Replaces the declared fields; things keep their properties (values are checked when next written). */
  fields?: TypeField[];
}

/** Applies a partial update; 412 when `expected` does not admit the record, 409 on a taken name. */
export async function updateThingType(
  database: Database,
  campaignId: number,
  id: number,
  changes: ThingTypeChanges,
  expected?: ExpectedVersion,
): Promise<ThingTypeRow> {
  if (id > MAX_RECORD_ID) throw errors.thingTypeNotFound(id);
  try {
    return await campaignWrite(database, campaignId, async (trx) => {
      const current = await findThingType(trx, campaignId, id);
      if (!current) throw errors.thingTypeNotFound(id);
      checkExpected(expected, 'thing type', current);
      const set: { name?: string; name_key?: string; fields?: string } = {};
      if (changes.fields !== undefined) set.fields = JSON.stringify(changes.fields);
      if (changes.name !== undefined) {
        const nameKey = thingTypeNameKey(changes.name);
        // Renaming a type to another spelling of its own name (`Npcs` → `NPCs`) is no clash.
        const clash = await trx
          .selectFrom('thing_types')
          .select('id')
          .where('campaign_id', '=', campaignId)
          .where('name_key', '=', nameKey)
          .where('id', '<>', current.id)
          .executeTakeFirst();
        if (clash) throw errors.thingTypeNameTaken(changes.name);
        set.name = changes.name;
        set.name_key = nameKey;
      }
      let update = trx
        .updateTable('thing_types')
        .set((eb) => ({ ...set, version: eb('version', '+', 1), updated_at: nowIso() }))
        .where('campaign_id', '=', campaignId)
        .where('id', '=', current.id);
      if (expected) update = update.where('version', '=', current.version);
      const updated = await update.returningAll().executeTakeFirst();
      if (!updated) throw errors.preconditionFailed('thing type');
      return updated;
    });
  } catch (error) {
    if (classifyDatabaseError(error) === 'unique') throw errors.thingTypeNameTaken(changes.name ?? '');
    throw error;
  }
}
