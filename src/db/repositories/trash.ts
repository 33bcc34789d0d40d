// The trash's statements (see migrations/2026-11-24-0016-trash.ts and src/history/trash.ts, which
// owns the transactions). A delete reads the rows it is about to remove, keeps them in one trash
// row and removes them; a restore inserts them again under their own ids. Every function takes the
// transaction of a campaign write and filters by campaign_id; each is one statement, or a batch of
// inserts for the rows a restore puts back.
import { sql, type Transaction } from 'kysely';
import type { Db } from '../database.js';
import type { ArcRow, AssetRow, DB, ThingRow, ThingTypeRow, TrashKind, TrashRow } from '../schema.js';
import { SLUG_KIND_CODES, type SlugKind } from './previous-slugs.js';
import { playersUpdatedAt } from './players-updated.js';
import { nowIso } from '../../domain/time.js';
import { chunks } from '../chunks.js';
import { withNameSort } from './things.js';

type Trx = Transaction<DB>;

export interface LinkRow {
  arc_id: number;
  thing_id: number;
  created_at: string;
}

export interface PreviousSlugRow {
  kind: number;
  slug: string;
  thing_id: number | null;
  arc_id: number | null;
}

/** A trash entry as listed, with its deleter's current name (the stored one if the account is gone). */
export type TrashSummary = Omit<TrashRow, 'payload' | 'image_id'> & { deleted_by_current_name: string | null };

// SQLite takes at most 32,766 parameters per statement; rows are inserted in batches well under it.
const ROWS_PER_INSERT = 500;
const IDS_PER_STATEMENT = 5_000;


export function listTrashEntries(db: Db, campaignId: number): Promise<TrashSummary[]> {
  return db
    .selectFrom('trash')
    .leftJoin('users', 'users.id', 'trash.deleted_by')
    .select([
      'trash.id',
      'trash.campaign_id',
      'trash.kind',
      'trash.record_id',
      'trash.container_id',
      'trash.slug',
      'trash.name',
      'trash.deleted_at',
      'trash.deleted_by',
      'trash.deleted_by_name',
      'trash.with_things',
      'trash.with_arcs',
      'trash.with_links',
      'users.name as deleted_by_current_name',
    ])
    .where('trash.campaign_id', '=', campaignId)
    .orderBy('trash.deleted_at', 'desc')
    .orderBy('trash.id', 'desc')
    .execute();
}

export function findTrashEntry(db: Db, campaignId: number, kind: TrashKind, recordId: number): Promise<TrashRow | undefined> {
  return db
    .selectFrom('trash')
    .selectAll()
    .where('campaign_id', '=', campaignId)
    .where('kind', '=', kind)
    .where('record_id', '=', recordId)
    .executeTakeFirst();
}

export async function insertTrashEntry(trx: Trx, entry: Omit<TrashRow, 'id'>): Promise<void> {
  await trx.insertInto('trash').values(entry).execute();
}

export async function removeTrashEntries(trx: Trx, campaignId: number, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await trx.deleteFrom('trash').where('campaign_id', '=', campaignId).where('id', 'in', ids).execute();
}

/**
 * The entries among `ids` still in the trash and deleted before `before`, read under the campaign's
 * lock: the sweeper erases these, never one restored since it listed them.
 */
export function stillExpiredEntries(trx: Trx, campaignId: number, ids: readonly number[], before: string): Promise<TrashRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return trx.selectFrom('trash').selectAll().where('campaign_id', '=', campaignId).where('id', 'in', ids).where('deleted_at', '<', before).execute();
}

/** The trash entries of things whose type is `typeId` (deleted before it: they cannot come back without it). */
export function trashedThingsOfType(trx: Trx, campaignId: number, typeId: number): Promise<TrashRow[]> {
  return trx
    .selectFrom('trash')
    .selectAll()
    .where('campaign_id', '=', campaignId)
    .where('container_id', '=', typeId)
    .where('kind', '=', 'thing')
    .execute();
}

/**
 * Entries deleted before `before`, oldest first: the sweeper erases them. Those of a campaign in
 * its owner's trash go with the campaign.
 */
export function expiredTrashEntries(db: Db, before: string, limit: number): Promise<TrashRow[]> {
  return db
    .selectFrom('trash')
    .innerJoin('campaigns', 'campaigns.id', 'trash.campaign_id')
    .selectAll('trash')
    .where('trash.deleted_at', '<', before)
    .where('campaigns.deleted_at', 'is', null)
    .orderBy('trash.deleted_at')
    .limit(limit)
    .execute();
}

// --- reading what a delete takes ---------------------------------------------------------------

export function thingsOfType(trx: Trx, campaignId: number, typeId: number): Promise<ThingRow[]> {
  return trx.selectFrom('things').selectAll().where('campaign_id', '=', campaignId).where('type_id', '=', typeId).orderBy('id').execute();
}

/** The links of one thing, one arc, or every thing of a type. */
export function linksOf(trx: Trx, campaignId: number, of: { thingId: number } | { arcId: number } | { typeId: number }): Promise<LinkRow[]> {
  let query = trx.selectFrom('arc_things').select(['arc_id', 'thing_id', 'created_at']).where('campaign_id', '=', campaignId);
  if ('thingId' in of) query = query.where('thing_id', '=', of.thingId);
  else if ('arcId' in of) query = query.where('arc_id', '=', of.arcId);
  else {
    const typeId = of.typeId;
    query = query.where('thing_id', 'in', (eb) => eb.selectFrom('things').select('id').where('campaign_id', '=', campaignId).where('type_id', '=', typeId));
  }
  return query.orderBy('arc_id').orderBy('thing_id').execute();
}

/** The previous slugs of one thing, one arc, or every thing of a type. */
export function previousSlugsOf(trx: Trx, campaignId: number, of: { thingId: number } | { arcId: number } | { typeId: number }): Promise<PreviousSlugRow[]> {
  let query = trx.selectFrom('previous_slugs').select(['kind', 'slug', 'thing_id', 'arc_id']).where('campaign_id', '=', campaignId);
  if ('thingId' in of) query = query.where('thing_id', '=', of.thingId);
  else if ('arcId' in of) query = query.where('arc_id', '=', of.arcId);
  else {
    const typeId = of.typeId;
    query = query.where('thing_id', 'in', (eb) => eb.selectFrom('things').select('id').where('campaign_id', '=', campaignId).where('type_id', '=', typeId));
  }
  return query.orderBy('id').execute();
}

export async function childArcIds(trx: Trx, campaignId: number, arcId: number): Promise<number[]> {
  const rows = await trx.selectFrom('arcs').select('id').where('campaign_id', '=', campaignId).where('parent_arc_id', '=', arcId).orderBy('id').execute();
  return rows.map((row) => row.id);
}

// --- removing --------------------------------------------------------------------------------

/** Removes a thing; its links, search documents, mentions and previous slugs cascade. */
export async function removeThingRow(trx: Trx, campaignId: number, id: number): Promise<void> {
  await trx.deleteFrom('things').where('campaign_id', '=', campaignId).where('id', '=', id).execute();
}

/**
 * Removes an arc. Its children become top-level first (the parent foreign key has no ON DELETE
 * action), which changes their own parent, so their version and updatedAt move too; players
 * already read a child of a GM-only arc as top-level. Its links and index rows cascade.
 */
export async function removeArcRow(trx: Trx, arc: ArcRow): Promise<void> {
  await trx
    .updateTable('arcs')
    .set((eb) => ({ parent_arc_id: null, version: eb('version', '+', 1), updated_at: nowIso(), players_updated_at: playersUpdatedAt(arc.visibility === 'all') }))
    .where('campaign_id', '=', arc.campaign_id)
    .where('parent_arc_id', '=', arc.id)
    .execute();
  await trx.deleteFrom('arcs').where('campaign_id', '=', arc.campaign_id).where('id', '=', arc.id).execute();
}

/** Removes a thing type; its things (and their links, index rows, previous slugs) cascade. */
export async function removeThingTypeRow(trx: Trx, campaignId: number, id: number): Promise<void> {
  await trx.deleteFrom('thing_types').where('campaign_id', '=', campaignId).where('id', '=', id).execute();
}

export async function removeAssetRow(trx: Trx, campaignId: number, id: number): Promise<void> {
  await trx.deleteFrom('assets').where('campaign_id', '=', campaignId).where('id', '=', id).execute();
}

// --- putting back ------------------------------------------------------------------------------

/** Which of `ids` name an existing record of the table in the campaign. */
export async function existingIds(trx: Trx, table: 'things' | 'arcs' | 'thing_types', campaignId: number, ids: readonly number[]): Promise<Set<number>> {
  const found = new Set<number>();
  for (const batch of chunks([...new Set(ids)], IDS_PER_STATEMENT)) {
    const rows = await trx.selectFrom(table).select('id').where('campaign_id', '=', campaignId).where('id', 'in', batch).execute();
    for (const row of rows) found.add(row.id);
  }
  return found;
}

/**
 * Takes (removes and returns) the links waiting for these things or arcs to come back from the
 * trash: a restore puts back those whose other end exists too.
 */
export async function takeWaitingLinks(trx: Trx, campaignId: number, of: { thingIds: readonly number[] } | { arcIds: readonly number[] }): Promise<LinkRow[]> {
  const ids = 'thingIds' in of ? of.thingIds : of.arcIds;
  const taken: LinkRow[] = [];
  for (const batch of chunks(ids, IDS_PER_STATEMENT)) {
    taken.push(
      ...(await trx
        .deleteFrom('trash_links')
        .where('campaign_id', '=', campaignId)
        .where('thingIds' in of ? 'thing_id' : 'arc_id', 'in', batch)
        .returning(['arc_id', 'thing_id', 'created_at'])
        .execute()),
    );
  }
  return taken;
}

/** Keeps links whose other end is in the trash, to come back with it. */
export async function keepWaitingLinks(trx: Trx, campaignId: number, rows: readonly LinkRow[]): Promise<void> {
  for (const batch of chunks(rows, ROWS_PER_INSERT)) {
    await trx
      .insertInto('trash_links')
      .values(batch.map((row) => ({ campaign_id: campaignId, ...row })))
      .onConflict((conflict) => conflict.doNothing())
      .execute();
  }
}

/** Forgets the waiting links of records erased for good. */
export async function forgetWaitingLinks(trx: Trx, campaignId: number, things: readonly number[], arcs: readonly number[]): Promise<void> {
  for (const batch of chunks(things, IDS_PER_STATEMENT)) await trx.deleteFrom('trash_links').where('campaign_id', '=', campaignId).where('thing_id', 'in', batch).execute();
  for (const batch of chunks(arcs, IDS_PER_STATEMENT)) await trx.deleteFrom('trash_links').where('campaign_id', '=', campaignId).where('arc_id', 'in', batch).execute();
}

/** Which of `slugs` a live thing or arc of the campaign holds. */
export async function slugsInUse(trx: Trx, table: 'things' | 'arcs', campaignId: number, slugs: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const batch of chunks([...new Set(slugs)], IDS_PER_STATEMENT)) {
    const rows = await trx.selectFrom(table).select('slug').where('campaign_id', '=', campaignId).where('slug', 'in', batch).execute();
    for (const row of rows) found.add(row.slug);
  }
  return found;
}

export function thingTypeByNameKey(trx: Trx, campaignId: number, nameKey: string): Promise<{ id: number } | undefined> {
  return trx.selectFrom('thing_types').select('id').where('campaign_id', '=', campaignId).where('name_key', '=', nameKey).executeTakeFirst();
}

export function insertThingTypeRow(trx: Trx, row: ThingTypeRow): Promise<ThingTypeRow> {
  return trx.insertInto('thing_types').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function insertThingRows(trx: Trx, rows: readonly ThingRow[]): Promise<ThingRow[]> {
  const inserted: ThingRow[] = [];
  // A row kept before migration 0029 has no sort key: it is written anew.
  for (const batch of chunks(rows.map(withNameSort), ROWS_PER_INSERT)) inserted.push(...(await trx.insertInto('things').values(batch).returningAll().execute()));
  return inserted;
}

export function insertArcRow(trx: Trx, row: ArcRow): Promise<ArcRow> {
  return trx.insertInto('arcs').values(row).returningAll().executeTakeFirstOrThrow();
}

/**
 * Puts an asset back. Its uploader's account may have gone meanwhile: then the campaign's owner
 * holds it, as the owner holds the live assets of a member whose account went (accounts.ts).
 */
export function insertAssetRow(trx: Trx, row: AssetRow): Promise<AssetRow> {
  const uploader = sql<string>`coalesce((select u.id from users u where u.id = ${row.user_id}), (select c.user_id from campaigns c where c.id = ${row.campaign_id}))`;
  return trx
    .insertInto('assets')
    .values({ ...row, user_id: uploader })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function insertLinkRows(trx: Trx, campaignId: number, rows: readonly LinkRow[]): Promise<void> {
  for (const batch of chunks(rows, ROWS_PER_INSERT)) {
    await trx
      .insertInto('arc_things')
      .values(batch.map((row) => ({ campaign_id: campaignId, ...row })))
      .onConflict((conflict) => conflict.doNothing())
      .execute();
  }
}

/**
 * Puts back previous slugs. A slug another record of the kind has taken as its own, or as a
 * previous slug, meanwhile stays theirs; and a restored record's current slug is no one's previous
 * slug any more (as when a record is created with it).
 */
export async function restorePreviousSlugs(trx: Trx, campaignId: number, kind: SlugKind, rows: readonly PreviousSlugRow[], currentSlugs: readonly string[]): Promise<void> {
  for (const batch of chunks(currentSlugs, IDS_PER_STATEMENT)) {
    await trx.deleteFrom('previous_slugs').where('campaign_id', '=', campaignId).where('kind', '=', SLUG_KIND_CODES[kind]).where('slug', 'in', batch).execute();
  }
  if (rows.length === 0) return;
  const live = await slugsInUse(trx, kind === 'thing' ? 'things' : 'arcs', campaignId, rows.map((row) => row.slug));
  const kept = rows.filter((row) => !live.has(row.slug));
  for (const batch of chunks(kept, ROWS_PER_INSERT)) {
    await trx
      .insertInto('previous_slugs')
      .values(batch.map((row) => ({ campaign_id: campaignId, ...row })))
      .onConflict((conflict) => conflict.doNothing())
      .execute();
  }
}

/**
 * Moves the arcs `ids` that are still top-level back under `parentId` (a restored arc's children,
 * unless they were moved since). Players see the move only when the parent is theirs to see.
 */
export async function reattachChildren(trx: Trx, campaignId: number, parentId: number, ids: readonly number[], playersSeeIt: boolean): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await trx
    .updateTable('arcs')
    .set((eb) => ({ parent_arc_id: parentId, version: eb('version', '+', 1), updated_at: nowIso(), players_updated_at: playersUpdatedAt(playersSeeIt) }))
    .where('campaign_id', '=', campaignId)
    .where('id', 'in', ids)
    .where('parent_arc_id', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The (id, parent) pairs of the campaign's arcs: the tree a restore must not close a loop in. */
export function arcEdges(trx: Trx, campaignId: number): Promise<{ id: number; parent_arc_id: number | null }[]> {
  return trx.selectFrom('arcs').select(['id', 'parent_arc_id']).where('campaign_id', '=', campaignId).execute();
}

export function arcRefById(trx: Trx, campaignId: number, id: number): Promise<{ id: number; slug: string; name: string } | undefined> {
  return trx.selectFrom('arcs').select(['id', 'slug', 'name']).where('campaign_id', '=', campaignId).where('id', '=', id).executeTakeFirst();
}

export function assetById(trx: Trx, campaignId: number, id: number): Promise<AssetRow | undefined> {
  return trx.selectFrom('assets').selectAll().where('campaign_id', '=', campaignId).where('id', '=', id).executeTakeFirst();
}
