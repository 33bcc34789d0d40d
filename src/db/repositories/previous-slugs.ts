// Previous slugs (CONTRACT "Secrets that hold"): a thing or an arc answers to the slugs it had
// before an explicit slug change, until another record of the same kind takes one of them.
import type { Db } from '../database.js';
import type { View } from '../../access/view.js';
import { isValidSlug } from '../../domain/slugs.js';
import { visibleArcs, visibleThings } from './visible.js';

export type SlugKind = 'thing' | 'arc';
export const SLUG_KIND_CODES = { thing: 1, arc: 2 } as const;

/**
 * After the record `recordId` changed its slug from `from` to `to`: `from` now names it as a previous
 * slug, and `to` is no one's previous slug any more (taken). Call in the transaction of the change.
 */
export async function keepPreviousSlug(db: Db, campaignId: number, kind: SlugKind, recordId: number, from: string, to: string): Promise<void> {
  await db
    .deleteFrom('previous_slugs')
    .where('campaign_id', '=', campaignId)
    .where('kind', '=', SLUG_KIND_CODES[kind])
    .where('slug', 'in', [from, to])
    .execute();
  await db
    .insertInto('previous_slugs')
    .values({ campaign_id: campaignId, kind: SLUG_KIND_CODES[kind], slug: from, thing_id: kind === 'thing' ? recordId : null, arc_id: kind === 'arc' ? recordId : null })
    .execute();
}

/** A record of this kind took `slug` (created with it): it is no other record's previous slug any more. */
export async function releasePreviousSlug(db: Db, campaignId: number, kind: SlugKind, slug: string): Promise<void> {
  await db.deleteFrom('previous_slugs').where('campaign_id', '=', campaignId).where('kind', '=', SLUG_KIND_CODES[kind]).where('slug', '=', slug).execute();
}

/** The current slug of the record of this kind that once had `slug`, if the view sees it. One statement. */
export async function currentSlugOf(db: Db, view: View, kind: SlugKind, slug: string): Promise<string | undefined> {
  if (!isValidSlug(slug)) return undefined;
  const previous = db
    .selectFrom('previous_slugs')
    .where('previous_slugs.campaign_id', '=', view.campaignId)
    .where('previous_slugs.kind', '=', SLUG_KIND_CODES[kind])
    .where('previous_slugs.slug', '=', slug);
  const row =
    kind === 'thing'
      ? await visibleThings(db, view).select('things.slug').where('things.id', 'in', previous.select('previous_slugs.thing_id')).executeTakeFirst()
      : await visibleArcs(db, view).select('arcs.slug').where('arcs.id', 'in', previous.select('previous_slugs.arc_id')).executeTakeFirst();
  return row?.slug;
}
