// The reads of an export (src/portability/export.ts and its writers): a campaign's tables in pages
// by id, so an export holds one page at a time whatever the campaign's size, and the records of a
// page of files by their ids. Every statement filters by campaign_id; none runs per record.
import type { Db } from '../database.js';
import type { ArcRow, AssetRow, CampaignRow, ThingRow } from '../schema.js';
import type { MemberListing } from './members.js';

/** Rows per page of an export's reads. */
export const EXPORT_PAGE = 500;

/** A table of the campaign read in pages by id: bounded memory whatever its size. */
async function* pages<R extends { id: number }>(read: (after: number) => Promise<R[]>): AsyncGenerator<R[]> {
  for (let after = 0; ; ) {
    const rows = await read(after);
    if (rows.length > 0) yield rows;
    if (rows.length < EXPORT_PAGE) return;
    after = rows.at(-1)!.id;
  }
}

/** The campaign with this slug (the command line's export), unless an import is still writing it (half written: not there yet). */
export function findCampaignBySlug(db: Db, slug: string): Promise<CampaignRow | undefined> {
  return db
    .selectFrom('campaigns')
    .selectAll()
    .where('slug', '=', slug)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('campaign_imports').select('campaign_imports.campaign_id').whereRef('campaign_imports.campaign_id', '=', 'campaigns.id'))))
    .executeTakeFirst();
}

export function thingPages(db: Db, campaignId: number): AsyncGenerator<ThingRow[]> {
  return pages((after) => db.selectFrom('things').selectAll().where('campaign_id', '=', campaignId).where('id', '>', after).orderBy('id').limit(EXPORT_PAGE).execute());
}

export function arcPages(db: Db, campaignId: number): AsyncGenerator<ArcRow[]> {
  return pages((after) => db.selectFrom('arcs').selectAll().where('campaign_id', '=', campaignId).where('id', '>', after).orderBy('id').limit(EXPORT_PAGE).execute());
}

export function assetPages(db: Db, campaignId: number): AsyncGenerator<AssetRow[]> {
  return pages((after) => db.selectFrom('assets').selectAll().where('campaign_id', '=', campaignId).where('id', '>', after).orderBy('id').limit(EXPORT_PAGE).execute());
}

/** The names of the things (what links between a vault's files need), in pages. */
export function thingNamePages(db: Db, campaignId: number): AsyncGenerator<Pick<ThingRow, 'id' | 'slug' | 'name' | 'type_id'>[]> {
  return pages((after) =>
    db.selectFrom('things').select(['id', 'slug', 'name', 'type_id']).where('campaign_id', '=', campaignId).where('id', '>', after).orderBy('id').limit(EXPORT_PAGE).execute(),
  );
}

/** The names of the arcs, in pages. */
export function arcNamePages(db: Db, campaignId: number): AsyncGenerator<Pick<ArcRow, 'id' | 'slug' | 'name'>[]> {
  return pages((after) => db.selectFrom('arcs').select(['id', 'slug', 'name']).where('campaign_id', '=', campaignId).where('id', '>', after).orderBy('id').limit(EXPORT_PAGE).execute());
}

/** The thing–arc links, in pages by (arc, thing). */
export async function* arcThingPages(db: Db, campaignId: number): AsyncGenerator<{ thing_id: number; arc_id: number; created_at: string }[]> {
  for (let after = { arc: 0, thing: 0 }; ; ) {
    const cursor = after;
    const rows = await db
      .selectFrom('arc_things')
      .select(['thing_id', 'arc_id', 'created_at'])
      .where('campaign_id', '=', campaignId)
      .where((eb) => eb.or([eb('arc_id', '>', cursor.arc), eb.and([eb('arc_id', '=', cursor.arc), eb('thing_id', '>', cursor.thing)])]))
      .orderBy('arc_id')
      .orderBy('thing_id')
      .limit(EXPORT_PAGE)
      .execute();
    if (rows.length > 0) yield rows;
    if (rows.length < EXPORT_PAGE) return;
    const last = rows.at(-1)!;
    after = { arc: last.arc_id, thing: last.thing_id };
  }
}

/** The campaign's members in the order they joined (unlike listMembers, which puts the owner first). */
export function listMembersByJoining(db: Db, campaignId: number): Promise<MemberListing[]> {
  return db
    .selectFrom('campaign_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.user_id', 'u.name', 'u.email', 'm.role', 'm.joined_at'])
    .where('m.campaign_id', '=', campaignId)
    .orderBy('m.joined_at')
    .orderBy('m.user_id')
    .execute();
}

export function thingsByIds(db: Db, campaignId: number, ids: readonly number[]): Promise<ThingRow[]> {
  return db.selectFrom('things').selectAll().where('campaign_id', '=', campaignId).where('id', 'in', ids).execute();
}

export function arcsByIds(db: Db, campaignId: number, ids: readonly number[]): Promise<ArcRow[]> {
  return db.selectFrom('arcs').selectAll().where('campaign_id', '=', campaignId).where('id', 'in', ids).execute();
}

/** The arcs each of the things is linked to, in the order they were linked. */
export function arcLinksOfThings(db: Db, campaignId: number, thingIds: readonly number[]): Promise<{ thing_id: number; arc_id: number }[]> {
  return db.selectFrom('arc_things').select(['thing_id', 'arc_id']).where('campaign_id', '=', campaignId).where('thing_id', 'in', thingIds).orderBy('created_at').orderBy('arc_id').execute();
}

/** The things each of the arcs is linked to, in the order they were linked. */
export function thingLinksOfArcs(db: Db, campaignId: number, arcIds: readonly number[]): Promise<{ thing_id: number; arc_id: number }[]> {
  return db.selectFrom('arc_things').select(['thing_id', 'arc_id']).where('campaign_id', '=', campaignId).where('arc_id', 'in', arcIds).orderBy('created_at').orderBy('thing_id').execute();
}
