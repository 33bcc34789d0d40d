import type { InsertObject } from 'kysely';
import { insertSlices } from '../chunks.js';
import type { Database, Db } from '../database.js';
import { classifyDatabaseError } from '../errors.js';
import { indexArcMentions, rewriteSlugLinks } from '../indexes/mentions.js';
import { queueReindex } from '../indexes/search-queue.js';
import { ARC_TEXT_FIELDS, type ArcRow, type ArcTextField, type ThingRow } from '../schema.js';
import { wouldCreateCycle } from '../../domain/arc-tree.js';
import { errors } from '../../domain/errors.js';
import { MAX_RECORD_ID } from '../../domain/ids.js';
import { isValidSlug, nextFreeSlug, slugifyName } from '../../domain/slugs.js';
import { nowIso } from '../../domain/time.js';
import type { ExpectedVersion } from '../../domain/versions.js';
import { changesArcSearchText } from '../../search/document.js';
import { fullView, type View } from '../../access/view.js';
import { campaignDefaultVisibility, campaignWrite, checkExpected, heldRecordUpdate, holdsRecordUpdates, takenSlugs } from './common.js';
import { keepPreviousSlug, releasePreviousSlug } from './previous-slugs.js';
import { loadHiddenRecords, visibleArcs } from './visible.js';
import { playersUpdatedAt } from './players-updated.js';
import { playersSeeChange } from '../../access/players-see.js';
import type { DB, Visibility } from '../schema.js';
import { arcSnapshot } from '../../history/snapshots.js';
import { keepRevision, revisionAuthor } from './revisions.js';
import type { UpdateOptions } from './things.js';
import { parseStoredProperties, structureColumns, type Property } from '../../domain/properties.js';
import { checkLinkTargets } from './record-structure.js';

export interface ArcRef {
  id: number;
  slug: string;
  name: string;
}

export interface ArcChildRef extends ArcRef {
  created_at: string;
  updated_at: string;
  players_updated_at: string | null;
}

/** The thing columns an arc carries (what the Thing presenter needs). */
export type LinkedThing = Pick<ThingRow, 'id' | 'slug' | 'type_id' | 'name' | 'description' | 'visibility' | 'campaign_id' | 'created_at' | 'updated_at' | 'players_updated_at' | 'properties' | 'tags' | 'aliases'>;

/** An arc's columns but its seven texts: what the tree (GET …/arcs?things=none) reads and sends. */
export type ArcTreeRow = Omit<ArcRow, ArcTextField>;

const ARC_TREE_COLUMNS = ['id', 'campaign_id', 'parent_arc_id', 'slug', 'name', 'visibility', 'version', 'created_at', 'updated_at', 'players_updated_at', 'properties', 'tags', 'tag_keys', 'aliases'] as const;

/** An arc with its neighbours in the tree and its linked things, in link order. */
export interface ArcDetail<A extends ArcTreeRow = ArcRow> {
  arc: A;
  parent: ArcRef | null;
  children: ArcChildRef[];
  things: LinkedThing[];
}

/** Rich-text fields as stored (serialized JSON). */
export type ArcTexts = Partial<Record<ArcTextField, string>>;

export interface ArcStructure {
  properties?: Property[] | undefined;
  tags?: string[] | undefined;
  aliases?: string[] | undefined;
}

export interface NewArcInput extends ArcTexts, ArcStructure {
  name: string;
  parentArcId: number | null;
  visibility?: Visibility | undefined;
}

export interface ArcChanges extends ArcTexts, ArcStructure {
  slug?: string;
  name?: string;
  parentArcId?: number | null;
  visibility?: Visibility;
}

const FALLBACK_SLUG = 'arc';

/** An arc's row as inserted: the API's create and an import's write both go through insertArc(s). */
export type NewArcRow = InsertObject<DB, 'arcs'>;

/** Inserts one arc (in the caller's transaction) and returns its row. */
export function insertArc(db: Db, row: NewArcRow): Promise<ArcRow> {
  return db.insertInto('arcs').values(row).returningAll().executeTakeFirstOrThrow();
}

/**
 * Inserts arcs (in the caller's transaction), a multi-row statement per slice of the databases'
 * limits. A parent must come before its children (or in the same slice): foreign keys are checked
 * at the end of each statement.
 */
export async function insertArcs(db: Db, rows: readonly NewArcRow[]): Promise<void> {
  for (const slice of insertSlices(rows)) await db.insertInto('arcs').values(slice).execute();
}

const LINKED_THING_COLUMNS = [
  'things.id',
  'things.slug',
  'things.type_id',
  'things.name',
  'things.description',
  'things.visibility',
  'things.campaign_id',
  'things.created_at',
  'things.updated_at',
  'things.players_updated_at',
  'things.properties',
  'things.tags',
  'things.aliases',
] as const;

// Links joined to the things the view sees, in link order: when linked, then thing id for links of one instant.
function linkedThingsQuery(db: Db, view: View) {
  const query = db
    .selectFrom('arc_things')
    .innerJoin('things', (join) =>
      join.onRef('things.campaign_id', '=', 'arc_things.campaign_id').onRef('things.id', '=', 'arc_things.thing_id'),
    )
    .select(['arc_things.arc_id', ...LINKED_THING_COLUMNS])
    .where('arc_things.campaign_id', '=', view.campaignId)
    .orderBy('arc_things.created_at', 'asc')
    .orderBy('things.id', 'asc');
  return view.players ? query.where('things.visibility', '=', 'all') : query;
}

function childRef(row: ArcChildRef): ArcChildRef {
  return { id: row.id, slug: row.slug, name: row.name, created_at: row.created_at, updated_at: row.updated_at, players_updated_at: row.players_updated_at };
}

function byCreatedAscending(a: ArcChildRef, b: ArcChildRef): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  return a.id - b.id;
}

/**
 * Every arc the view sees, newest first, each with parent, children and things (those the view
 * sees: an arc under a GM-only parent reads as top-level for a player). Two statements whatever the
 * number of arcs and links: the arcs, then every link of the campaign with its thing.
 */
export async function listArcsByCampaign(db: Db, view: View): Promise<ArcDetail[]> {
  const arcs = await visibleArcs(db, view).selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
  return arcTree(arcs, await linkedThingsQuery(db, view).execute());
}

/** The tree of arcs as listArcsByCampaign has it, without texts and things: one statement. */
export async function listArcTree(db: Db, view: View): Promise<ArcDetail<ArcTreeRow>[]> {
  return arcTree(await visibleArcs(db, view).select(ARC_TREE_COLUMNS).orderBy('created_at', 'desc').orderBy('id', 'desc').execute(), []);
}

function arcTree<A extends ArcTreeRow>(arcs: A[], links: (LinkedThing & { arc_id: number })[]): ArcDetail<A>[] {
  const byId = new Map<number, ArcDetail<A>>();
  for (const arc of arcs) byId.set(arc.id, { arc, parent: null, children: [], things: [] });
  // The arcs arrive newest first; walking them backwards lists each arc's children oldest first.
  for (let i = arcs.length - 1; i >= 0; i -= 1) {
    const arc = arcs[i]!;
    const parent = arc.parent_arc_id === null ? undefined : byId.get(arc.parent_arc_id);
    if (!parent) continue;
    byId.get(arc.id)!.parent = { id: parent.arc.id, slug: parent.arc.slug, name: parent.arc.name };
    parent.children.push(childRef(arc));
  }
  for (const { arc_id, ...thing } of links) byId.get(arc_id)?.things.push(thing);
  return [...byId.values()];
}

// Parent, children and things of one arc, as the view sees them: two statements.
async function loadArcDetail(db: Db, arc: ArcRow, view: View): Promise<ArcDetail> {
  const neighbours = await visibleArcs(db, view)
    .select(['id', 'slug', 'name', 'parent_arc_id', 'created_at', 'updated_at', 'players_updated_at'])
    .where((eb) =>
      arc.parent_arc_id === null
        ? eb('parent_arc_id', '=', arc.id)
        : eb.or([eb('parent_arc_id', '=', arc.id), eb('id', '=', arc.parent_arc_id)]),
    )
    .execute();
  const things = await linkedThingsQuery(db, view).where('arc_things.arc_id', '=', arc.id).execute();
  const parentRow = neighbours.find((row) => row.id === arc.parent_arc_id);
  return {
    arc,
    parent: parentRow ? { id: parentRow.id, slug: parentRow.slug, name: parentRow.name } : null,
    children: neighbours.filter((row) => row.parent_arc_id === arc.id).map(childRef).sort(byCreatedAscending),
    things: things.map(({ arc_id: _arcId, ...thing }) => thing),
  };
}

/** The arc with this slug, if the view sees it. */
export function findVisibleArc(db: Db, view: View, slug: string): Promise<ArcRow | undefined> {
  if (!isValidSlug(slug)) return Promise.resolve(undefined);
  return visibleArcs(db, view).selectAll().where('slug', '=', slug).executeTakeFirst();
}

/** The arc with this slug, whatever its visibility: for writes, which only game masters make. */
/**
 * Parents, children and things of several arcs, as the view sees them: two statements whatever
 * their number (the changes feed presents the arcs of a page with it).
 */
export async function loadArcDetails(db: Db, view: View, arcs: readonly ArcRow[]): Promise<ArcDetail[]> {
  if (arcs.length === 0) return [];
  const ids = arcs.map((arc) => arc.id);
  const parentIds = arcs.flatMap((arc) => (arc.parent_arc_id === null ? [] : [arc.parent_arc_id]));
  const neighbours = await visibleArcs(db, view)
    .select(['id', 'slug', 'name', 'parent_arc_id', 'created_at', 'updated_at', 'players_updated_at'])
    .where((eb) => eb.or([eb('parent_arc_id', 'in', ids), ...(parentIds.length > 0 ? [eb('id', 'in', parentIds)] : [])]))
    .execute();
  const links = await linkedThingsQuery(db, view).where('arc_things.arc_id', 'in', ids).execute();
  return arcs.map((arc) => {
    const parentRow = neighbours.find((row) => row.id === arc.parent_arc_id);
    return {
      arc,
      parent: parentRow ? { id: parentRow.id, slug: parentRow.slug, name: parentRow.name } : null,
      children: neighbours.filter((row) => row.parent_arc_id === arc.id).map(childRef).sort(byCreatedAscending),
      things: links.filter((link) => link.arc_id === arc.id).map(({ arc_id: _arcId, ...thing }) => thing),
    };
  });
}

export function findArcBySlug(db: Db, campaignId: number, slug: string): Promise<ArcRow | undefined> {
  // A string that is not a well-formed slug names no arc; no need to ask the database.
  if (!isValidSlug(slug)) return Promise.resolve(undefined);
  return db.selectFrom('arcs').selectAll().where('campaign_id', '=', campaignId).where('slug', '=', slug).executeTakeFirst();
}

/** One arc with parent, children and things, as the view sees them: three statements. */
export async function findArcDetail(db: Db, view: View, slug: string): Promise<ArcDetail> {
  const arc = await findVisibleArc(db, view, slug);
  if (!arc) throw errors.arcNotFound(slug);
  return loadArcDetail(db, arc, view);
}

async function arcRefById(db: Db, campaignId: number, id: number | null): Promise<ArcRef | null> {
  if (id === null) return null;
  return (await db.selectFrom('arcs').select(['id', 'slug', 'name']).where('campaign_id', '=', campaignId).where('id', '=', id).executeTakeFirst()) ?? null;
}

function isUniqueViolation(error: unknown): boolean {
  return classifyDatabaseError(error) === 'unique';
}

/** Creates an arc with a generated slug. */
export async function createArc(database: Database, campaignId: number, input: NewArcInput): Promise<ArcDetail> {
  return campaignWrite(database, campaignId, async (trx) => {
    let parent: ArcRef | undefined;
    if (input.parentArcId !== null) {
      if (input.parentArcId <= MAX_RECORD_ID) {
        parent = await trx
          .selectFrom('arcs')
          .select(['id', 'slug', 'name'])
          .where('campaign_id', '=', campaignId)
          .where('id', '=', input.parentArcId)
          .executeTakeFirst();
      }
      if (!parent) throw errors.unknownParentArc(input.parentArcId, 'parentArcId');
    }
    const base = slugifyName(input.name) || FALLBACK_SLUG;
    const slug = nextFreeSlug(base, await takenSlugs(trx, database.dialect, 'arcs', campaignId, base));
    const now = nowIso();
    const { name, parentArcId, visibility, properties, tags, aliases, ...texts } = input;
    await checkLinkTargets(trx, campaignId, properties ?? []);
    const arc = await insertArc(trx, { ...texts, ...structureColumns({ properties: properties ?? [], tags: tags ?? [], aliases: aliases ?? [] }), campaign_id: campaignId, parent_arc_id: parentArcId, slug, name, visibility: visibility ?? campaignDefaultVisibility(trx, campaignId), version: 1, created_at: now, updated_at: now });
    await queueReindex(trx, campaignId, 'arc', arc.id);
    await indexArcMentions(trx, arc, true);
    // A generated slug may be another arc's previous slug: the new arc takes it.
    await releasePreviousSlug(trx, campaignId, 'arc', slug);
    await keepRevision(trx, { campaignId, kind: 'arc', recordId: arc.id, snapshot: arcSnapshot(arc, parent ?? null), authorId: revisionAuthor() });
    // A new arc has no children and no links yet.
    return { arc, parent: parent ?? null, children: [], things: [] };
  });
}

/**
 * Applies a partial update: 412 when `expected` does not admit the arc, 409 on a taken slug, 400 on
 * a parent of another campaign or one that would close a loop. Keeps a revision of the arc in the
 * same transaction. A restore (options.keepCurrentWhenGone) keeps the current slug when another arc
 * has taken it, and the current parent when the old one is gone or would now close a loop.
 */
export async function updateArc(
  database: Database,
  campaignId: number,
  arcSlug: string,
  requested: ArcChanges,
  expected?: ExpectedVersion,
  options: UpdateOptions = {},
): Promise<ArcDetail> {
  // Each attempt starts again from what was asked (a deadlock re-runs the transaction: Database.write).
  let changes: ArcChanges = requested;
  try {
    // Only game masters write: they see every neighbour.
    const writerView = fullView({ id: campaignId, content_version: 0 });
    return await campaignWrite(database, campaignId, async (trx) => {
      changes = { ...requested };
      const lenient = options.keepCurrentWhenGone === true;
      const current = await findArcBySlug(trx, campaignId, arcSlug);
      if (!current) throw errors.arcNotFound(arcSlug);
      checkExpected(expected, 'arc', current);
      if (changes.slug !== undefined && changes.slug !== current.slug) {
        const taken = await trx
          .selectFrom('arcs')
          .select('id')
          .where('campaign_id', '=', campaignId)
          .where('slug', '=', changes.slug)
          .executeTakeFirst();
        if (taken && !lenient) throw errors.slugTaken('arc', changes.slug);
        if (taken) delete changes.slug;
      }
      const newParent = changes.parentArcId ?? null;
      if (newParent !== null && !(lenient && newParent === current.parent_arc_id)) {
        if (newParent === current.id) {
          throw errors.arcOwnParent('parentArcId');
        }
        const edges = await trx.selectFrom('arcs').select(['id', 'parent_arc_id']).where('campaign_id', '=', campaignId).execute();
        const pairs = edges.map((edge) => ({ id: edge.id, parentArcId: edge.parent_arc_id }));
        if (!edges.some((edge) => edge.id === newParent)) {
          if (!lenient) throw errors.unknownParentArc(newParent, 'parentArcId');
          delete changes.parentArcId;
        } else if (wouldCreateCycle(current.id, newParent, pairs)) {
          if (!lenient) throw errors.arcCycle('parentArcId');
          delete changes.parentArcId;
        }
      }
      if (changes.properties !== undefined && !lenient) await checkLinkTargets(trx, campaignId, changes.properties, parseStoredProperties(current.properties));
      const { parentArcId, properties, tags, aliases, ...texts } = changes;
      const fields = { ...texts, ...structureColumns({ properties, tags, aliases }) };
      const next = { ...current, ...fields, ...(parentArcId !== undefined ? { parent_arc_id: parentArcId } : {}) };
      // Links to GM-only records are not what players read: only written properties need the set.
      const hidden = properties !== undefined ? await loadHiddenRecords(trx, campaignId) : undefined;
      const playersSeeIt = playersSeeChange(current, next, ['slug', 'name', 'parent_arc_id', 'tags', 'aliases'], ARC_TEXT_FIELDS, hidden && { columns: ['properties'], hidden });
      const newSlug = changes.slug !== undefined && changes.slug !== current.slug;
      let updated: ArcRow | undefined;
      if (!newSlug && holdsRecordUpdates(trx)) {
        // PostgreSQL, a request's write that keeps the slug: the UPDATE goes with the write's last
        // statement (a round trip fewer), and the row it makes is built here. The campaign's write
        // lock, exclusive, keeps every other write out since the arc was read, so checkExpected saw
        // the version it updates; nothing later here reads the arc's own row (loadArcDetail reads
        // its parent and children).
        updated = heldRecordUpdate(trx, 'arcs', current, { ...fields, ...(parentArcId !== undefined ? { parent_arc_id: parentArcId } : {}) }, playersSeeIt, nowIso());
      } else {
        let update = trx
          .updateTable('arcs')
          .set((eb) => ({
            ...fields,
            ...(parentArcId !== undefined ? { parent_arc_id: parentArcId } : {}),
            version: eb('version', '+', 1),
            updated_at: nowIso(),
            players_updated_at: playersUpdatedAt(playersSeeIt),
          }))
          .where('campaign_id', '=', campaignId)
          .where('id', '=', current.id);
        // With an expected version, the version check in the UPDATE itself makes the comparison atomic
        // even if another writer commits between our read and write; without one the last write wins.
        if (expected) update = update.where('version', '=', current.version);
        updated = await update.returningAll().executeTakeFirst();
      }
      if (!updated) throw errors.preconditionFailed('arc');
      // Visibility decides which views the search index's documents are for.
      const structureChanged = properties !== undefined || tags !== undefined || aliases !== undefined;
      if (changesArcSearchText(changes) || changes.visibility !== undefined || structureChanged) await queueReindex(trx, campaignId, 'arc', updated.id);
      if (ARC_TEXT_FIELDS.some((field) => changes[field] !== undefined) || properties !== undefined) await indexArcMentions(trx, updated, false, current);
      let result = updated;
      if (updated.slug !== current.slug) {
        // The arc answers to its old slug from now on (and no other arc to the new one).
        await keepPreviousSlug(trx, campaignId, 'arc', updated.id, current.slug, updated.slug);
        // [[arc#old-slug]] links follow, except where players read when the arc is GM-only; the arc
        // itself may be one it rewrote.
        if ((await rewriteSlugLinks(trx, campaignId, 'arc', current.slug, updated.slug, updated.visibility === 'gm')) > 0) {
          result = (await findArcBySlug(trx, campaignId, updated.slug)) ?? updated;
        }
      }
      const detail = await loadArcDetail(trx, result, writerView);
      await keepRevision(trx, {
        campaignId,
        kind: 'arc',
        recordId: result.id,
        snapshot: arcSnapshot(result, detail.parent),
        authorId: revisionAuthor(),
        before: {
          // The parent before the change is the one just loaded unless the arc moved (then one more
          // statement, only for an arc without history yet).
          snapshot: async () => arcSnapshot(current, current.parent_arc_id === result.parent_arc_id ? detail.parent : await arcRefById(trx, campaignId, current.parent_arc_id)),
          updatedAt: current.updated_at,
        },
        merge: options.newRevision !== true,
      });
      return detail;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw errors.slugTaken('arc', changes.slug ?? '');
    throw error;
  }
}
