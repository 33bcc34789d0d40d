// Restoring from the trash (CONTRACT "History and trash"): a trash entry's rows go back under their
// own ids, with everything the delete took, in one campaign write transaction (see trash.ts).
import type { Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import { campaignWrite, takenSlugs } from '../db/repositories/common.js';
import { findThingType, thingTypeNameKey } from '../db/repositories/thing-types.js';
import { keepRevision, revisionAuthor } from '../db/repositories/revisions.js';
import { arcSnapshot, thingSnapshot } from './snapshots.js';
import {
  arcEdges,
  arcRefById,
  existingIds,
  findTrashEntry,
  insertArcRow,
  insertAssetRow,
  insertLinkRows,
  insertThingRows,
  insertThingTypeRow,
  keepWaitingLinks,
  reattachChildren,
  removeTrashEntries,
  restorePreviousSlugs,
  slugsInUse,
  takeWaitingLinks,
  thingTypeByNameKey,
  type LinkRow,
} from '../db/repositories/trash.js';
import { indexRestoredMentions } from '../db/indexes/mentions.js';
import { indexRestoredRecords } from '../db/indexes/search.js';
import type { ArcRow, AssetRow, DB, ThingRow, ThingTypeRow, TrashKind } from '../db/schema.js';
import { wouldCreateCycle } from '../domain/arc-tree.js';
import { errors } from '../domain/errors.js';
import { MAX_RECORD_ID } from '../domain/ids.js';
import { nextFreeSlug } from '../domain/slugs.js';
import { nowIso } from '../domain/time.js';
import { decodePayload, type TrashPayload } from './trash-payload.js';
import type { TakenAlong } from './trash.js';

type Trx = Transaction<DB>;

export type RestoredRecord =
  | { kind: 'thing'; row: ThingRow }
  | { kind: 'arc'; row: ArcRow }
  | { kind: 'thing-type'; row: ThingTypeRow }
  | { kind: 'asset'; row: AssetRow };

export interface RestoreOutcome {
  record: RestoredRecord;
  /** The slug it came back with (things and arcs), and the one it had when that was taken meanwhile. */
  slug: string | null;
  previousSlug: string | null;
  restored: TakenAlong;
}


/** A restored thing or arc keeps its slug unless a live one holds it meanwhile: then the next free `-2`, `-3`… */
async function freeSlug(trx: Trx, database: Database, table: 'things' | 'arcs', campaignId: number, slug: string): Promise<string> {
  const inUse = await slugsInUse(trx, table, campaignId, [slug]);
  if (!inUse.has(slug)) return slug;
  return nextFreeSlug(slug, await takenSlugs(trx, database.dialect, table, campaignId, slug));
}

/**
 * Puts back the links of restored things (`side` 'arc_id': their other end is an arc) or of a
 * restored arc ('thing_id'): those the delete took and those that waited for these records while
 * they were in the trash. A link whose other end is in the trash now waits for it in turn (an arc
 * and a thing deleted one after the other come back linked, in either order). Returns how many
 * links came back.
 */
async function restoreLinks(
  trx: Trx,
  campaignId: number,
  taken: readonly LinkRow[],
  restored: { thingIds: readonly number[] } | { arcIds: readonly number[] },
  side: 'arc_id' | 'thing_id',
): Promise<number> {
  const waiting = await takeWaitingLinks(trx, campaignId, restored);
  const all = new Map<string, LinkRow>();
  for (const link of [...taken, ...waiting]) all.set(`${link.arc_id}:${link.thing_id}`, link);
  if (all.size === 0) return 0;
  const links = [...all.values()];
  const live = await existingIds(trx, side === 'arc_id' ? 'arcs' : 'things', campaignId, links.map((link) => link[side]));
  const now = links.filter((link) => live.has(link[side]));
  await insertLinkRows(trx, campaignId, now);
  await keepWaitingLinks(
    trx,
    campaignId,
    links.filter((link) => !live.has(link[side])),
  );
  return now.length;
}

/** A record comes back as a change: a new version, updated now, and players see it appear. */
function comingBack<R extends { version: number; updated_at: string; players_updated_at: string | null }>(row: R, now: string): R {
  return { ...row, version: row.version + 1, updated_at: now, players_updated_at: null };
}

async function restoreThing(trx: Trx, database: Database, campaignId: number, payload: Extract<TrashPayload, { kind: 'thing' }>): Promise<RestoreOutcome> {
  const { thing } = payload;
  if (!(await findThingType(trx, campaignId, thing.type_id))) throw errors.restoreContainerFirst((await findTrashEntry(trx, campaignId, 'thing-type', thing.type_id))?.name);
  const slug = await freeSlug(trx, database, 'things', campaignId, thing.slug);
  const [row] = await insertThingRows(trx, [{ ...comingBack(thing, nowIso()), slug }]);
  const links = await restoreLinks(trx, campaignId, payload.links, { thingIds: [thing.id] }, 'arc_id');
  await restorePreviousSlugs(trx, campaignId, 'thing', payload.previousSlugs, [slug]);
  await indexRestoredRecords(trx, campaignId, [row!], []);
  await indexRestoredMentions(trx, [row!], []);
  // A change like any other: kept in its history (nothing new unless its slug had to change).
  await keepRevision(trx, { campaignId, kind: 'thing', recordId: row!.id, snapshot: thingSnapshot(row!), authorId: revisionAuthor() });
  return { record: { kind: 'thing', row: row! }, slug, previousSlug: slug === thing.slug ? null : thing.slug, restored: { things: 0, arcs: 0, links } };
}

async function restoreArc(trx: Trx, database: Database, campaignId: number, payload: Extract<TrashPayload, { kind: 'arc' }>): Promise<RestoreOutcome> {
  const { arc } = payload;
  const edges = (await arcEdges(trx, campaignId)).map((edge) => ({ id: edge.id, parentArcId: edge.parent_arc_id }));
  // Its parent may have gone meanwhile: then it comes back top-level.
  const parent = arc.parent_arc_id !== null && edges.some((edge) => edge.id === arc.parent_arc_id) ? arc.parent_arc_id : null;
  const slug = await freeSlug(trx, database, 'arcs', campaignId, arc.slug);
  const row = await insertArcRow(trx, { ...comingBack(arc, nowIso()), slug, parent_arc_id: parent });
  // Its children come back under it unless they were moved since (they are no longer top-level),
  // and never where that would close a loop (one of them became an ancestor of its parent).
  const tree = [...edges, { id: row.id, parentArcId: parent }];
  const children = payload.children.filter((child) => !wouldCreateCycle(child, row.id, tree));
  const arcs = await reattachChildren(trx, campaignId, row.id, children, row.visibility === 'all');
  const links = await restoreLinks(trx, campaignId, payload.links, { arcIds: [arc.id] }, 'thing_id');
  await restorePreviousSlugs(trx, campaignId, 'arc', payload.previousSlugs, [slug]);
  await indexRestoredRecords(trx, campaignId, [], [row]);
  await indexRestoredMentions(trx, [], [row]);
  const parentRef = parent === null ? null : ((await arcRefById(trx, campaignId, parent)) ?? null);
  await keepRevision(trx, { campaignId, kind: 'arc', recordId: row.id, snapshot: arcSnapshot(row, parentRef), authorId: revisionAuthor() });
  return { record: { kind: 'arc', row }, slug, previousSlug: slug === arc.slug ? null : arc.slug, restored: { things: 0, arcs, links } };
}

// A type's name is unique in its campaign: one created meanwhile keeps it, and the restored type
// is named "<name> (restored)", then "(restored 2)"…
async function freeTypeName(trx: Trx, campaignId: number, name: string): Promise<string> {
  for (let n = 1; ; n += 1) {
    const candidate = n === 1 ? name : n === 2 ? `${name} (restored)` : `${name} (restored ${n - 1})`;
    if (!(await thingTypeByNameKey(trx, campaignId, thingTypeNameKey(candidate)))) return candidate;
  }
}

async function restoreThingType(trx: Trx, database: Database, campaignId: number, payload: Extract<TrashPayload, { kind: 'thing-type' }>): Promise<RestoreOutcome> {
  const now = nowIso();
  const name = await freeTypeName(trx, campaignId, payload.type.name);
  const type = await insertThingTypeRow(trx, { ...payload.type, name, name_key: thingTypeNameKey(name), version: payload.type.version + 1, updated_at: now });
  // Slugs taken meanwhile, each by the next free one (rare: looked up one by one), never one
  // another thing of this restore holds or was just given.
  const taken = await slugsInUse(trx, 'things', campaignId, payload.things.map((thing) => thing.slug));
  const assigned = new Set(payload.things.map((thing) => thing.slug).filter((slug) => !taken.has(slug)));
  const things: ThingRow[] = [];
  for (const thing of payload.things) {
    let slug = thing.slug;
    if (taken.has(slug)) {
      slug = nextFreeSlug(slug, [...(await takenSlugs(trx, database.dialect, 'things', campaignId, slug)), ...assigned]);
      assigned.add(slug);
    }
    things.push({ ...comingBack(thing, now), slug });
  }
  const rows = await insertThingRows(trx, things);
  const links = await restoreLinks(
    trx,
    campaignId,
    payload.links,
    { thingIds: payload.things.map((thing) => thing.id) },
    'arc_id',
  );
  await restorePreviousSlugs(trx, campaignId, 'thing', payload.previousSlugs, things.map((thing) => thing.slug));
  await indexRestoredRecords(trx, campaignId, rows, []);
  await indexRestoredMentions(trx, rows, []);
  return { record: { kind: 'thing-type', row: type }, slug: null, previousSlug: null, restored: { things: rows.length, arcs: 0, links } };
}

/**
 * Puts a trash entry back, with everything its delete took, in one transaction. 404 when the
 * campaign's trash holds no such entry; 409 restore_container_first for a thing of a trashed type.
 */
export function restoreFromTrash(database: Database, campaignId: number, kind: TrashKind, id: number): Promise<RestoreOutcome> {
  return campaignWrite(database, campaignId, async (trx) => {
    const entry = id <= MAX_RECORD_ID ? await findTrashEntry(trx, campaignId, kind, id) : undefined;
    if (!entry) throw errors.trashEntryNotFound(kind, id);
    const payload = decodePayload(entry.payload);
    let outcome: RestoreOutcome;
    switch (payload.kind) {
      case 'thing':
        outcome = await restoreThing(trx, database, campaignId, payload);
        break;
      case 'arc':
        outcome = await restoreArc(trx, database, campaignId, payload);
        break;
      case 'thing-type':
        outcome = await restoreThingType(trx, database, campaignId, payload);
        break;
      case 'asset':
        outcome = { record: { kind: 'asset', row: await insertAssetRow(trx, payload.asset) }, slug: null, previousSlug: null, restored: { things: 0, arcs: 0, links: 0 } };
        break;
    }
    await removeTrashEntries(trx, campaignId, [entry.id]);
    return outcome;
  });
}

