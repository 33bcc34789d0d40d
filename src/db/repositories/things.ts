import { sql } from 'kysely';
import type { ThingRow, Visibility } from '../schema.js';
import type { View } from '../../access/view.js';
import { visibleThings } from './visible.js';
import type { Database, Db } from '../database.js';
import { classifyDatabaseError } from '../errors.js';
import { indexThingMentions, rewriteSlugLinks } from '../indexes/mentions.js';
import { indexThing } from '../indexes/search.js';
import { errors } from '../../domain/errors.js';
import type { ListPosition } from '../../domain/list-cursor.js';
import { isValidSlug, nextFreeSlug, slugifyName } from '../../domain/slugs.js';
import { nowIso } from '../../domain/time.js';
import type { ExpectedVersion } from '../../domain/versions.js';
import { campaignDefaultVisibility, campaignWrite, checkExpected, takenSlugs } from './common.js';
import { keepPreviousSlug, releasePreviousSlug } from './previous-slugs.js';
import { thingTypeExists } from './thing-types.js';
import { playersUpdatedAt, THINGS_PLAYERS_UPDATED_AT } from './players-updated.js';
import { playersSeeChange } from '../../access/players-see.js';
import { thingSnapshot } from '../../history/snapshots.js';
import { keepRevision, revisionAuthor } from './revisions.js';

/** The base of a generated slug when nothing of the name survives slugification. */
export const THING_SLUG_FALLBACK = 'thing';

export interface ThingListPage {
  rows: ThingRow[];
  /** Whether rows remain after this page. */
  more: boolean;
}

/** One page of the things the view sees, most recently updated first; one statement whatever the size. */
export async function listThings(
  db: Db,
  view: View,
  options: { limit: number; typeId?: number | undefined; after?: ListPosition | undefined },
): Promise<ThingListPage> {
  let query = visibleThings(db, view).selectAll();
  if (options.typeId !== undefined) query = query.where('type_id', '=', options.typeId);
  // Players' lists are ordered by when things last changed as players see them (access/players-see.ts).
  const updatedAt = view.players ? THINGS_PLAYERS_UPDATED_AT : sql.ref<string>('updated_at');
  const after = options.after;
  if (after) {
    query = query.where((eb) =>
      eb.or([eb(updatedAt, '<', after.updatedAt), eb.and([eb(updatedAt, '=', after.updatedAt), eb('id', '<', after.id)])]),
    );
  }
  const rows = await query
    .orderBy(updatedAt, 'desc')
    .orderBy('id', 'desc')
    .limit(options.limit + 1)
    .execute();
  const more = rows.length > options.limit;
  if (more) rows.length = options.limit;
  return { rows, more };
}

/** The thing with this slug, if the view sees it. */
export function findVisibleThing(db: Db, view: View, slug: string): Promise<ThingRow | undefined> {
  if (!isValidSlug(slug)) return Promise.resolve(undefined);
  return visibleThings(db, view).selectAll().where('slug', '=', slug).executeTakeFirst();
}

/** The thing with this slug, whatever its visibility: for writes, which only game masters make. */
export function findThingBySlug(db: Db, campaignId: number, slug: string): Promise<ThingRow | undefined> {
  if (!isValidSlug(slug)) return Promise.resolve(undefined);
  return db.selectFrom('things').selectAll().where('campaign_id', '=', campaignId).where('slug', '=', slug).executeTakeFirst();
}

export interface NewThingInput {
  name: string;
  typeId: number;
  description: string | null;
  visibility?: Visibility | undefined;
}

/** Creates a thing with a slug generated from its name (`-2`, `-3`… on a clash). */
export async function createThing(database: Database, campaignId: number, input: NewThingInput): Promise<ThingRow> {
  try {
    return await campaignWrite(database, campaignId, async (trx) => {
      if (!(await thingTypeExists(trx, campaignId, input.typeId))) throw errors.unknownThingType(input.typeId, 'typeId');
      const base = slugifyName(input.name) || THING_SLUG_FALLBACK;
      const slug = nextFreeSlug(base, await takenSlugs(trx, database.dialect, 'things', campaignId, base));
      const now = nowIso();
      const thing = await trx
        .insertInto('things')
        .values({
          campaign_id: campaignId,
          type_id: input.typeId,
          slug,
          name: input.name,
          description: input.description,
          visibility: input.visibility ?? campaignDefaultVisibility(trx, campaignId),
          version: 1,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await indexThing(trx, thing, true);
      await indexThingMentions(trx, thing, true);
      // A generated slug may be another thing's previous slug: the new thing takes it.
      await releasePreviousSlug(trx, campaignId, 'thing', slug);
      await keepRevision(trx, { campaignId, kind: 'thing', recordId: thing.id, snapshot: thingSnapshot(thing), authorId: revisionAuthor() });
      return thing;
    });
  } catch (error) {
    // The type was deleted between our check and the insert.
    if (classifyDatabaseError(error) === 'foreign_key') throw errors.unknownThingType(input.typeId, 'typeId');
    throw error;
  }
}

export interface ThingChanges {
  slug?: string;
  name?: string;
  typeId?: number;
  description?: string;
  visibility?: Visibility;
}

export interface UpdateOptions {
  /**
   * A restore of a revision (history/revisions.ts): a slug another thing has taken since, or a type
   * that no longer exists, keeps the thing's current one instead of failing.
   */
  keepCurrentWhenGone?: boolean;
  /**
   * A restore of a revision is a revision of its own, never merged into the author's latest: that
   * one holds what the restore replaced.
   */
  newRevision?: boolean;
}

/**
 * Applies a partial update to the thing `slug`. A new name keeps the slug (slugs are stable
 * identifiers); only an explicit `slug` changes it. 412 when `expected` does not admit the record.
 * Keeps a revision of the thing in the same transaction.
 */
export async function updateThing(
  database: Database,
  campaignId: number,
  slug: string,
  changes: ThingChanges,
  expected?: ExpectedVersion,
  options: UpdateOptions = {},
): Promise<ThingRow> {
  if (!isValidSlug(slug)) throw errors.thingNotFound(slug);
  try {
    return await campaignWrite(database, campaignId, async (trx) => {
      changes = { ...changes };
      const current = await findThingBySlug(trx, campaignId, slug);
      if (!current) throw errors.thingNotFound(slug);
      checkExpected(expected, 'thing', current);
      if (changes.typeId !== undefined && changes.typeId !== current.type_id && !(await thingTypeExists(trx, campaignId, changes.typeId))) {
        if (!options.keepCurrentWhenGone) throw errors.unknownThingType(changes.typeId, 'typeId');
        delete changes.typeId;
      }
      if (changes.slug !== undefined && changes.slug !== slug && (await findThingBySlug(trx, campaignId, changes.slug))) {
        if (!options.keepCurrentWhenGone) throw errors.slugTaken('thing', changes.slug);
        delete changes.slug;
      }
      const newSlug = changes.slug !== undefined && changes.slug !== slug ? changes.slug : undefined;
      const set: { slug?: string; name?: string; type_id?: number; description?: string; visibility?: Visibility } = {};
      if (newSlug !== undefined) set.slug = newSlug;
      if (changes.name !== undefined) set.name = changes.name;
      if (changes.typeId !== undefined) set.type_id = changes.typeId;
      if (changes.description !== undefined) set.description = changes.description;
      if (changes.visibility !== undefined) set.visibility = changes.visibility;
      const playersSeeIt = playersSeeChange(current, { ...current, ...set }, ['slug', 'name', 'type_id'], ['description']);
      let update = trx
        .updateTable('things')
        .set((eb) => ({ ...set, version: eb('version', '+', 1), updated_at: nowIso(), players_updated_at: playersUpdatedAt(playersSeeIt) }))
        .where('campaign_id', '=', campaignId)
        .where('id', '=', current.id);
      // With an expected version, the version check in the UPDATE itself makes the comparison atomic
      // even if another writer commits between our read and write; without one the last write wins.
      if (expected) update = update.where('version', '=', current.version);
      const updated = await update.returningAll().executeTakeFirst();
      if (!updated) throw errors.preconditionFailed('thing');
      // Visibility decides which views the search index's documents are for.
      if (changes.name !== undefined || changes.description !== undefined || changes.visibility !== undefined) await indexThing(trx, updated);
      if (changes.description !== undefined) await indexThingMentions(trx, updated);
      let result = updated;
      if (newSlug !== undefined) {
        // The thing answers to its old slug from now on (and no other thing to the new one).
        await keepPreviousSlug(trx, campaignId, 'thing', updated.id, slug, newSlug);
        // [[thing#old-slug]] links follow, except where players read when the thing is GM-only; the
        // thing itself may be one it rewrote.
        if ((await rewriteSlugLinks(trx, campaignId, 'thing', slug, newSlug, updated.visibility === 'gm')) > 0) {
          result = (await findThingBySlug(trx, campaignId, newSlug)) ?? updated;
        }
      }
      await keepRevision(trx, {
        campaignId,
        kind: 'thing',
        recordId: result.id,
        snapshot: thingSnapshot(result),
        authorId: revisionAuthor(),
        before: { snapshot: thingSnapshot(current), updatedAt: current.updated_at },
        merge: options.newRevision !== true,
      });
      return result;
    });
  } catch (error) {
    const kind = classifyDatabaseError(error);
    if (kind === 'unique') throw errors.slugTaken('thing', changes.slug ?? slug);
    // The type was deleted between our check and the write.
    if (kind === 'foreign_key' && changes.typeId !== undefined) throw errors.unknownThingType(changes.typeId, 'typeId');
    throw error;
  }
}
