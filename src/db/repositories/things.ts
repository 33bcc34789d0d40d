import { sql, type InsertObject, type Kysely, type UpdateObject } from 'kysely';
import { insertSlices } from '../chunks.js';
import type { DB, ThingRow, Visibility } from '../schema.js';
import type { View } from '../../access/view.js';
import { loadHiddenRecords, visibleThings } from './visible.js';
import { dialectOf, type Database, type Db } from '../database.js';
import { classifyDatabaseError } from '../errors.js';
import { queryTemplate, type QueryTemplate } from '../query-template.js';
import { indexThingMentions, rewriteSlugLinks } from '../indexes/mentions.js';
import { queueReindex } from '../indexes/search-queue.js';
import { errors } from '../../domain/errors.js';
import type { ListPosition, NamePosition } from '../../domain/list-cursor.js';
import { parseStoredProperties, structureColumns, tagKeyPattern, withDeclaredKeys, type Property } from '../../domain/properties.js';
import { checkDeclaredKinds, checkLinkTargets, thingTypeFields } from './record-structure.js';
import { isValidSlug, nextFreeSlug, slugifyName } from '../../domain/slugs.js';
import { nameSortKey } from '../../domain/name-sort.js';
import { nowIso } from '../../domain/time.js';
import type { ExpectedVersion } from '../../domain/versions.js';
import { campaignDefaultVisibility, campaignWrite, checkExpected, heldRecordUpdate, holdsRecordUpdates, takenSlugs, type WriteMode } from './common.js';
import { keepPreviousSlug, releasePreviousSlug } from './previous-slugs.js';
import { playersUpdatedAt, THINGS_PLAYERS_UPDATED_AT } from './players-updated.js';
import { playersSeeChange } from '../../access/players-see.js';
import { serializeWrittenThing, thingSnapshot } from '../../history/snapshots.js';
import { keepRevision, latestThingRevisionsRead, revisionAuthor } from './revisions.js';
import type { FollowedBy } from '../pipeline.js';

/** The base of a generated slug when nothing of the name survives slugification. */
export const THING_SLUG_FALLBACK = 'thing';

export interface ThingListPage<Row = ThingRow> {
  rows: Row[];
  /** Whether rows remain after this page. */
  more: boolean;
}

export interface ThingListOptions {
  limit: number;
  typeId?: number | undefined;
  /** Tags every thing listed has, ignoring case. */
  tags?: readonly string[] | undefined;
  /** `updatedAt` (default: most recent first) or `name` (A to Z, then id). */
  sort?: 'updatedAt' | 'name' | undefined;
  after?: ListPosition | undefined;
  afterName?: NamePosition | undefined;
}

/** The columns of a thing's summary (`fields=summary`): no text, no structure. */
export type ThingSummaryRow = Pick<ThingRow, 'id' | 'slug' | 'name' | 'type_id' | 'visibility' | 'updated_at' | 'players_updated_at'>;
const SUMMARY_COLUMNS = ['id', 'slug', 'name', 'type_id', 'visibility', 'updated_at', 'players_updated_at'] as const;

// The things the view sees, filtered, ordered and limited to a page (plus one row, to know whether
// more remain); the caller chooses the columns.
function thingListQuery(db: Db, view: View, options: ThingListOptions) {
  let query = visibleThings(db, view);
  if (options.typeId !== undefined) query = query.where('type_id', '=', options.typeId);
  for (const tag of options.tags ?? []) query = query.where(sql<boolean>`tag_keys like ${tagKeyPattern(tag)} escape '\\'`);
  if (options.sort === 'name') {
    // The stored sort key (migration 0029), compared byte for byte on both databases; the cursor
    // holds the name as stored, and its key is computed the same way.
    const after = options.afterName;
    if (after) {
      const afterKey = nameSortKey(after.name);
      query = query.where((eb) => eb.or([eb('name_sort', '>', afterKey), eb.and([eb('name_sort', '=', afterKey), eb('id', '>', after.id)])]));
    }
    return query.orderBy('name_sort', 'asc').orderBy('id', 'asc').limit(options.limit + 1);
  }
  // Players' lists are ordered by when things last changed as players see them (access/players-see.ts).
  const updatedAt = view.players ? THINGS_PLAYERS_UPDATED_AT : sql.ref<string>('updated_at');
  const after = options.after;
  if (after) {
    query = query.where((eb) =>
      eb.or([eb(updatedAt, '<', after.updatedAt), eb.and([eb(updatedAt, '=', after.updatedAt), eb('id', '<', after.id)])]),
    );
  }
  return query.orderBy(updatedAt, 'desc').orderBy('id', 'desc').limit(options.limit + 1);
}

function page<Row>(rows: Row[], limit: number): ThingListPage<Row> {
  const more = rows.length > limit;
  if (more) rows.length = limit;
  return { rows, more };
}

/**
 * One page of the things the view sees, most recently updated first (or by name); one statement
 * whatever the size. A tag filter is a LIKE on each row's `tag_keys` (domain/properties.ts).
 */
export async function listThings(db: Db, view: View, options: ThingListOptions): Promise<ThingListPage> {
  return page(await thingListQuery(db, view, options).selectAll().execute(), options.limit);
}

/** The same page as listThings, reading only the summary's columns (never the description). */
export async function listThingSummaries(db: Db, view: View, options: ThingListOptions): Promise<ThingListPage<ThingSummaryRow>> {
  return page(await thingListQuery(db, view, options).select(SUMMARY_COLUMNS).execute(), options.limit);
}

/** The thing with this slug, if the view sees it. */
export function findVisibleThing(db: Db, view: View, slug: string): Promise<ThingRow | undefined> {
  if (!isValidSlug(slug)) return Promise.resolve(undefined);
  return visibleThings(db, view).selectAll().where('slug', '=', slug).executeTakeFirst();
}

/**
 * The thing with this slug, whatever its visibility: for writes, which only game masters make.
 * `forUpdate`: on PostgreSQL, locked until the transaction ends (a write that reads the row before
 * changing it, beside concurrent writes of it: its revision and players' change time must start
 * from the row as the last committed write left it). FOR NO KEY UPDATE, the lock its UPDATE takes
 * (it never changes the row's key): rows that reference the thing (search documents the indexer
 * writes, an arc's links, mentions) are inserted beside it, their foreign keys' share locks do
 * not queue behind it, nor it behind them.
 */
// Run by every read and write of one thing: built and compiled once per database (query-template.ts).
const thingBySlug = queryTemplate(['campaignId', 'slug'], (db: Kysely<DB>, params) =>
  db.selectFrom('things').selectAll().where('campaign_id', '=', params.campaignId).where('slug', '=', params.slug),
);
// The same, its row locked for the update that follows on PostgreSQL (SQLite has one writer at a time).
const thingBySlugForUpdate = queryTemplate(['campaignId', 'slug'], (db: Kysely<DB>, params) => {
  const query = db.selectFrom('things').selectAll().where('campaign_id', '=', params.campaignId).where('slug', '=', params.slug);
  return dialectOf(db) === 'postgres' ? query.forNoKeyUpdate() : query;
});

export function findThingBySlug(db: Db, campaignId: number, slug: string, options: { forUpdate?: boolean; followedBy?: FollowedBy } = {}): Promise<ThingRow | undefined> {
  if (!isValidSlug(slug)) return Promise.resolve(undefined);
  const template = options.forUpdate ? thingBySlugForUpdate : thingBySlug;
  // A read written right after this statement, in the same round trip (PostgreSQL's pool: db/pipeline.ts).
  if (options.followedBy !== undefined) return template.executeTakeFirstWith(db, { campaignId, slug }, options.followedBy);
  return template.executeTakeFirst(db, { campaignId, slug });
}

/** A thing's row as inserted: the API's create and an import's write both go through insertThing(s). */
export type NewThingRow = Omit<InsertObject<DB, 'things'>, 'name' | 'name_sort'> & { name: string };

/** Inserts one thing (in the caller's transaction) and returns its row. Its name's sort key is written here. */
export function insertThing(db: Db, row: NewThingRow): Promise<ThingRow> {
  return db.insertInto('things').values(withNameSort(row)).returningAll().executeTakeFirstOrThrow();
}

/** Inserts things (in the caller's transaction), a multi-row statement per slice of the databases' limits. */
export async function insertThings(db: Db, rows: readonly NewThingRow[]): Promise<void> {
  for (const slice of insertSlices(rows.map(withNameSort))) await db.insertInto('things').values(slice).execute();
}

/** `row` with the sort key of its name (domain/name-sort.ts), whatever key it came with. */
export function withNameSort<Row extends { name: string }>(row: Row): Row & { name_sort: string } {
  return { ...row, name_sort: nameSortKey(row.name) };
}

export interface NewThingInput {
  name: string;
  typeId: number;
  description: string | null;
  visibility?: Visibility | undefined;
  properties?: Property[] | undefined;
  tags?: string[] | undefined;
  aliases?: string[] | undefined;
}

/**
 * Creates a thing with a slug generated from its name (`-2`, `-3`… on a clash). Beside other
 * concurrent writes (common.ts WriteMode): two creates may generate the same slug, and the unique
 * index refuses the second, which then runs again alone (exclusive), when the slugs it sees are all.
 */
export async function createThing(database: Database, campaignId: number, input: NewThingInput): Promise<ThingRow> {
  try {
    return await createThingAs(database, campaignId, input, 'concurrent');
  } catch (error) {
    if (classifyDatabaseError(error) !== 'unique') throw error;
    return createThingAs(database, campaignId, input, 'exclusive');
  }
}

async function createThingAs(database: Database, campaignId: number, input: NewThingInput, mode: WriteMode): Promise<ThingRow> {
  try {
    return await campaignWrite(database, campaignId, async (trx) => {
      const fields = await thingTypeFields(trx, campaignId, input.typeId);
      if (!fields) throw errors.unknownThingType(input.typeId, 'typeId');
      // A new thing starts with the keys its type declares (value null).
      const properties = withDeclaredKeys(input.properties ?? [], fields);
      checkDeclaredKinds(properties, fields);
      await checkLinkTargets(trx, campaignId, properties);
      const base = slugifyName(input.name) || THING_SLUG_FALLBACK;
      const slug = nextFreeSlug(base, await takenSlugs(trx, database.dialect, 'things', campaignId, base));
      const now = nowIso();
      const thing = await insertThing(trx, {
          campaign_id: campaignId,
          type_id: input.typeId,
          slug,
          name: input.name,
          description: input.description,
          visibility: input.visibility ?? campaignDefaultVisibility(trx, campaignId),
          ...structureColumns({ properties, tags: input.tags ?? [], aliases: input.aliases ?? [] }),
          version: 1,
          created_at: now,
          updated_at: now,
        });
      await queueReindex(trx, campaignId, 'thing', thing.id);
      await indexThingMentions(trx, thing, true);
      // A generated slug may be another thing's previous slug: the new thing takes it.
      await releasePreviousSlug(trx, campaignId, 'thing', slug);
      await keepRevision(trx, { campaignId, kind: 'thing', recordId: thing.id, snapshot: thingSnapshot(thing), authorId: revisionAuthor() });
      return thing;
    }, mode);
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
  /** As serializeRichText writes it (its revision keeps this text as it is: serializeWrittenThing). */
  description?: string;
  visibility?: Visibility;
  properties?: Property[];
  tags?: string[];
  aliases?: string[];
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
 * Keeps a revision of the thing in the same transaction. Beside other concurrent writes (common.ts
 * WriteMode): the thing's row lock orders writes of it. A new slug rewrites links in other records
 * and moves previous slugs: that one runs alone (exclusive).
 */
// The UPDATE of a thing, compiled once per database for each set of columns it writes (a handful
// in practice: an autosave writes the description alone) and whether it checks the version.
const thingUpdates = new Map<string, QueryTemplate<DB, string, ThingRow>>();

function thingUpdate(set: Readonly<Record<string, string | number | undefined>>, playersSeeIt: boolean, checksVersion: boolean): QueryTemplate<DB, string, ThingRow> {
  const columns = Object.keys(set).filter((column) => set[column] !== undefined).sort();
  const key = `${columns.join(',')}|${playersSeeIt ? 1 : 0}|${checksVersion ? 1 : 0}`;
  let template = thingUpdates.get(key);
  if (template === undefined) {
    const names = [...columns, '$updatedAt', '$campaignId', '$id', ...(checksVersion ? ['$version'] : [])];
    template = queryTemplate(names, (db: Kysely<DB>, params) => {
      // The names are built here, so every one is there.
      const param = (name: string) => params[name] as never;
      const values = Object.fromEntries(columns.map((column) => [column, param(column)])) as UpdateObject<DB, 'things'>;
      const update = db
        .updateTable('things')
        .set((eb) => ({ ...values, version: eb('version', '+', 1), updated_at: param('$updatedAt'), players_updated_at: playersUpdatedAt(playersSeeIt) }))
        .where('campaign_id', '=', param('$campaignId'))
        .where('id', '=', param('$id'));
      // With an expected version, the version check in the UPDATE itself makes the comparison atomic
      // even if another writer commits between our read and write; without one the last write wins.
      return (checksVersion ? update.where('version', '=', param('$version')) : update).returningAll();
    });
    thingUpdates.set(key, template);
  }
  return template;
}

export async function updateThing(
  database: Database,
  campaignId: number,
  slug: string,
  requested: ThingChanges,
  expected?: ExpectedVersion,
  options: UpdateOptions = {},
): Promise<ThingRow> {
  // Each attempt starts again from what was asked (a deadlock re-runs the transaction: Database.write).
  let changes: ThingChanges = requested;
  if (!isValidSlug(slug)) throw errors.thingNotFound(slug);
  try {
    return await campaignWrite(database, campaignId, async (trx) => {
      changes = { ...requested };
      // PostgreSQL, in a request: the thing's latest revisions are read right after the statement
      // that locks it, in the same round trip (db/pipeline.ts FollowedBy), for a save that keeps
      // the slug (a new one rewrites links, which may keep revisions of this thing too).
      const revisionsRead = holdsRecordUpdates(trx) && (requested.slug === undefined || requested.slug === slug) ? latestThingRevisionsRead(trx, campaignId, slug) : undefined;
      const current = await findThingBySlug(trx, campaignId, slug, { forUpdate: true, followedBy: revisionsRead?.follower });
      // Its answer came right behind the thing's: taken now, so that its error is this write's.
      const latestRevisions = revisionsRead && (await revisionsRead.rows);
      if (!current) throw errors.thingNotFound(slug);
      checkExpected(expected, 'thing', current);
      if (changes.typeId !== undefined && changes.typeId !== current.type_id && !(await thingTypeFields(trx, campaignId, changes.typeId))) {
        if (!options.keepCurrentWhenGone) throw errors.unknownThingType(changes.typeId, 'typeId');
        delete changes.typeId;
      }
      if (changes.properties !== undefined) {
        // Values are checked against the type the thing will have, when properties are written.
        // A restore of a revision puts back what was, links to records erased since included.
        if (!options.keepCurrentWhenGone) {
          checkDeclaredKinds(changes.properties, (await thingTypeFields(trx, campaignId, changes.typeId ?? current.type_id)) ?? []);
          await checkLinkTargets(trx, campaignId, changes.properties, parseStoredProperties(current.properties));
        }
      }
      if (changes.slug !== undefined && changes.slug !== slug && (await findThingBySlug(trx, campaignId, changes.slug))) {
        if (!options.keepCurrentWhenGone) throw errors.slugTaken('thing', changes.slug);
        delete changes.slug;
      }
      const newSlug = changes.slug !== undefined && changes.slug !== slug ? changes.slug : undefined;
      const set: { slug?: string; name?: string; name_sort?: string; type_id?: number; description?: string; visibility?: Visibility } & ReturnType<typeof structureColumns> = structureColumns(changes);
      if (newSlug !== undefined) set.slug = newSlug;
      if (changes.name !== undefined) {
        set.name = changes.name;
        set.name_sort = nameSortKey(changes.name);
      }
      if (changes.typeId !== undefined) set.type_id = changes.typeId;
      if (changes.description !== undefined) set.description = changes.description;
      if (changes.visibility !== undefined) set.visibility = changes.visibility;
      // Links to GM-only records are not what players read: only written properties need the set.
      const hidden = set.properties !== undefined ? await loadHiddenRecords(trx, campaignId) : undefined;
      const playersSeeIt = playersSeeChange(current, { ...current, ...set }, ['slug', 'name', 'type_id', 'tags', 'aliases'], ['description'], hidden && { columns: ['properties'], hidden });
      let updated: ThingRow | undefined;
      if (newSlug === undefined && holdsRecordUpdates(trx)) {
        // PostgreSQL, a request's write that keeps the slug: the UPDATE goes with the write's last
        // statement (a round trip fewer), and the row it makes is built here. The row has been
        // locked since it was read (forUpdate), so it is the row the UPDATE changes, at the version
        // checkExpected saw; nothing later in this transaction reads it (the mentions and the
        // revision take `updated`).
        updated = heldRecordUpdate(trx, 'things', current, set, playersSeeIt, nowIso());
      } else {
        updated = await thingUpdate(set, playersSeeIt, expected !== undefined).executeTakeFirst(trx, {
          ...set,
          $updatedAt: nowIso(),
          $campaignId: campaignId,
          $id: current.id,
          ...(expected ? { $version: current.version } : {}),
        });
      }
      if (!updated) throw errors.preconditionFailed('thing');
      // Visibility decides which views the search index's documents are for.
      if (changes.name !== undefined || changes.description !== undefined || changes.visibility !== undefined || set.properties !== undefined || set.tags !== undefined || set.aliases !== undefined) {
        await queueReindex(trx, campaignId, 'thing', updated.id);
      }
      if (changes.description !== undefined || set.properties !== undefined) await indexThingMentions(trx, updated, false, current);
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
        // A description this write stored is taken as it was serialized, not parsed back.
        snapshot: result === updated && set.description !== undefined ? serializeWrittenThing({ ...result, description: set.description }) : thingSnapshot(result),
        authorId: revisionAuthor(),
        // Built only when the thing has no revision yet (one kept before revisions existed).
        before: { snapshot: () => thingSnapshot(current), updatedAt: current.updated_at },
        merge: options.newRevision !== true,
        latest: newSlug === undefined ? latestRevisions : undefined,
      });
      return result;
    }, changes.slug === undefined || changes.slug === slug ? 'concurrent' : 'exclusive');
  } catch (error) {
    const kind = classifyDatabaseError(error);
    if (kind === 'unique') throw errors.slugTaken('thing', changes.slug ?? slug);
    // The type was deleted between our check and the write.
    if (kind === 'foreign_key' && changes.typeId !== undefined) throw errors.unknownThingType(changes.typeId, 'typeId');
    throw error;
  }
}
