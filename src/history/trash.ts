// The trash (CONTRACT "# Phase 3" › "History and trash"): deleting a thing, an arc, a thing type or
// an asset moves it here for TRASH_RETENTION_DAYS; restoring puts back exactly what the delete took.
//
// A delete removes the rows as it always did, so a trashed record exists nowhere else (lists,
// counts, search, backlinks, mentions, cursors, the response cache: none of them needs to know of
// the trash), and keeps them in one trash row. A restore inserts them again under their own ids:
// mentions of them resolve again, their revisions are theirs again, and the changes feed's
// triggers record the upserts. Each is one campaign write transaction with a fixed number of
// statements for the record itself (a type's things and links go in batched inserts). Restoring is
// in trash-restore.ts.
import type { Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import { campaignWrite } from '../db/repositories/common.js';
import { findArcBySlug } from '../db/repositories/arcs.js';
import { findThingBySlug } from '../db/repositories/things.js';
import { findThingType } from '../db/repositories/thing-types.js';
import { queueImageRemovals } from '../db/repositories/assets.js';
import { eraseRevisionsOf } from '../db/repositories/revisions.js';
import { chunks } from '../db/chunks.js';
import {
  assetById,
  childArcIds,
  expiredTrashEntries,
  findTrashEntry,
  forgetWaitingLinks,
  insertTrashEntry,
  linksOf,
  previousSlugsOf,
  removeArcRow,
  removeAssetRow,
  removeThingRow,
  removeThingTypeRow,
  removeTrashEntries,
  stillExpiredEntries,
  thingsOfType,
  trashedThingsOfType,
} from '../db/repositories/trash.js';
import type { DB, ImageRemovalRow, TrashKind, TrashRow } from '../db/schema.js';
import { AppError, errors } from '../domain/errors.js';
import { MAX_RECORD_ID } from '../domain/ids.js';
import { nowIso } from '../domain/time.js';
import { decodePayload, encodePayload, type TrashPayload } from './trash-payload.js';

export const TRASH_KINDS = ['thing', 'arc', 'thing-type', 'asset'] as const satisfies readonly TrashKind[];

/** Who deletes: the signed-in caller, or nobody (the command line). */
export interface Deleter {
  userId: string;
  name: string;
}

export interface TakenAlong {
  things: number;
  arcs: number;
  links: number;
}

type Trx = Transaction<DB>;

function entryOf(
  campaignId: number,
  kind: TrashKind,
  record: { id: number; slug: string | null; name: string; containerId: number | null },
  by: Deleter | undefined,
  along: TakenAlong,
  payload: TrashPayload,
): Omit<TrashRow, 'id'> {
  return {
    campaign_id: campaignId,
    kind,
    record_id: record.id,
    container_id: record.containerId,
    slug: record.slug,
    name: record.name,
    deleted_at: nowIso(),
    deleted_by: by?.userId ?? null,
    deleted_by_name: by?.name ?? null,
    with_things: along.things,
    with_arcs: along.arcs,
    with_links: along.links,
    image_id: payload.kind === 'asset' ? payload.asset.image_id : null,
    payload: encodePayload(payload),
  };
}

// --- moving to the trash -----------------------------------------------------------------------

export function trashThing(database: Database, campaignId: number, slug: string, by?: Deleter): Promise<void> {
  return campaignWrite(database, campaignId, async (trx) => {
    const thing = await findThingBySlug(trx, campaignId, slug);
    if (!thing) throw errors.thingNotFound(slug);
    const links = await linksOf(trx, campaignId, { thingId: thing.id });
    const previousSlugs = await previousSlugsOf(trx, campaignId, { thingId: thing.id });
    const along = { things: 0, arcs: 0, links: links.length };
    await insertTrashEntry(
      trx,
      entryOf(campaignId, 'thing', { id: thing.id, slug: thing.slug, name: thing.name, containerId: thing.type_id }, by, along, { kind: 'thing', thing, links, previousSlugs }),
    );
    await removeThingRow(trx, campaignId, thing.id);
  });
}

/** Its children become top-level (they are not taken along); its links go with it. */
export function trashArc(database: Database, campaignId: number, slug: string, by?: Deleter): Promise<void> {
  return campaignWrite(database, campaignId, async (trx) => {
    const arc = await findArcBySlug(trx, campaignId, slug);
    if (!arc) throw errors.arcNotFound(slug);
    const links = await linksOf(trx, campaignId, { arcId: arc.id });
    const previousSlugs = await previousSlugsOf(trx, campaignId, { arcId: arc.id });
    const children = await childArcIds(trx, campaignId, arc.id);
    const along = { things: 0, arcs: 0, links: links.length };
    await insertTrashEntry(
      trx,
      entryOf(campaignId, 'arc', { id: arc.id, slug: arc.slug, name: arc.name, containerId: null }, by, along, { kind: 'arc', arc, children, links, previousSlugs }),
    );
    await removeArcRow(trx, arc);
  });
}

/** The spec's cascade: its things (and their links) go to the trash with it, in its one entry. */
export function trashThingType(database: Database, campaignId: number, id: number, by?: Deleter): Promise<void> {
  return campaignWrite(database, campaignId, async (trx) => {
    const type = await findThingType(trx, campaignId, id);
    if (!type) throw errors.thingTypeNotFound(id);
    const things = await thingsOfType(trx, campaignId, id);
    const links = await linksOf(trx, campaignId, { typeId: id });
    const previousSlugs = await previousSlugsOf(trx, campaignId, { typeId: id });
    const along = { things: things.length, arcs: 0, links: links.length };
    await insertTrashEntry(
      trx,
      entryOf(campaignId, 'thing-type', { id, slug: null, name: type.name, containerId: null }, by, along, { kind: 'thing-type', type, things, links, previousSlugs }),
    );
    await removeThingTypeRow(trx, campaignId, id);
  });
}

/** The stored image stays until the entry is erased. */
export function trashAsset(database: Database, campaignId: number, id: number, by?: Deleter): Promise<void> {
  return campaignWrite(database, campaignId, async (trx) => {
    const asset = id <= MAX_RECORD_ID ? await assetById(trx, campaignId, id) : undefined;
    if (!asset) throw errors.assetNotFound(id);
    await insertTrashEntry(trx, entryOf(campaignId, 'asset', { id, slug: null, name: asset.label, containerId: null }, by, { things: 0, arcs: 0, links: 0 }, { kind: 'asset', asset }));
    await removeAssetRow(trx, campaignId, id);
  });
}

// --- erasing -----------------------------------------------------------------------------------

/** The things and arcs an erasure ends for good. */
export interface ErasedRecords {
  things: number[];
  arcs: number[];
}

/** The records an entry holds: their revisions go when it is erased. */
function recordsOf(payload: TrashPayload): ErasedRecords {
  switch (payload.kind) {
    case 'thing':
      return { things: [payload.thing.id], arcs: [] };
    case 'arc':
      return { things: [], arcs: [payload.arc.id] };
    case 'thing-type':
      return { things: payload.things.map((thing) => thing.id), arcs: [] };
    case 'asset':
      return { things: [], arcs: [] };
  }
}

/**
 * Erases entries for good, inside a campaign write: a type's entry takes the entries of things of
 * that type deleted before it (they could never come back without it). Returns the image removals
 * to carry out after the commit.
 */
async function eraseEntries(trx: Trx, campaignId: number, entries: readonly TrashRow[]): Promise<ImageRemovalRow[]> {
  const all = [...entries];
  for (const entry of entries) {
    if (entry.kind !== 'thing-type') continue;
    for (const thing of await trashedThingsOfType(trx, campaignId, entry.record_id)) {
      if (!all.some((e) => e.id === thing.id)) all.push(thing);
    }
  }
  const images: { campaignId: number; imageId: string }[] = [];
  const erased: ErasedRecords = { things: [], arcs: [] };
  for (const entry of all) {
    const payload = decodePayload(entry.payload);
    if (payload.kind === 'asset') images.push({ campaignId, imageId: payload.asset.image_id });
    const records = recordsOf(payload);
    erased.things.push(...records.things);
    erased.arcs.push(...records.arcs);
  }
  await removeTrashEntries(
    trx,
    campaignId,
    all.map((entry) => entry.id),
  );
  await eraseRecordHistory(trx, campaignId, erased);
  await forgetWaitingLinks(trx, campaignId, erased.things, erased.arcs);
  return images.length === 0 ? [] : queueImageRemovals(trx, images, nowIso());
}

// Statements stay well under SQLite's 32,766 parameters however many things a type took along.
const IDS_PER_STATEMENT = 5_000;

/** Revisions of trashed records go with them (CONTRACT "History and trash"). */
async function eraseRecordHistory(trx: Trx, campaignId: number, records: ErasedRecords): Promise<void> {
  for (const ids of chunks(records.things, IDS_PER_STATEMENT)) await eraseRevisionsOf(trx, campaignId, 'thing', ids);
  for (const ids of chunks(records.arcs, IDS_PER_STATEMENT)) await eraseRevisionsOf(trx, campaignId, 'arc', ids);
}

/** Erases one entry now. Returns the image removals to carry out after the commit. */
export function eraseFromTrash(database: Database, campaignId: number, kind: TrashKind, id: number): Promise<ImageRemovalRow[]> {
  return campaignWrite(database, campaignId, async (trx) => {
    const entry = id <= MAX_RECORD_ID ? await findTrashEntry(trx, campaignId, kind, id) : undefined;
    if (!entry) throw errors.trashEntryNotFound(kind, id);
    return eraseEntries(trx, campaignId, [entry]);
  });
}


/**
 * Erases what has been in the trash longer than the retention: up to `limit` entries, each
 * campaign's in one transaction. Returns the image removals to carry out and how many were erased.
 */
export async function sweepExpiredTrash(database: Database, before: string, limit: number): Promise<{ erased: number; removals: ImageRemovalRow[] }> {
  const expired = await expiredTrashEntries(database.kysely, before, limit);
  const byCampaign = new Map<number, TrashRow[]>();
  for (const entry of expired) {
    const entries = byCampaign.get(entry.campaign_id) ?? [];
    entries.push(entry);
    byCampaign.set(entry.campaign_id, entries);
  }
  const removals: ImageRemovalRow[] = [];
  for (const [campaignId, entries] of byCampaign) {
    // The campaign itself may be gone meanwhile (its entries with it): nothing left to do there.
    // Read again under the campaign's lock: an entry restored since the list was read stays restored.
    const queued = await campaignWrite(database, campaignId, async (trx) =>
      eraseEntries(
        trx,
        campaignId,
        await stillExpiredEntries(
          trx,
          campaignId,
          entries.map((entry) => entry.id),
          before,
        ),
      ),
    ).catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'campaign_not_found') return [];
      throw error;
    });
    removals.push(...queued);
  }
  return { erased: expired.length, removals };
}
