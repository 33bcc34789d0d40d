// Revisions of things, arcs and campaigns (CONTRACT "# Phase 3" › "History and trash"). Every create
// and update of one of them calls keepRevision in its own transaction: a fixed number of statements
// whatever the campaign's size (one read of the record's latest revisions, at most one write, and
// a read and a write of the revision before when a new one starts).
import { sql, type ExpressionBuilder, type Kysely, type SelectQueryBuilder, type Transaction } from 'kysely';
import { dialectOf, type Database, type Db } from '../database.js';
import type { DB } from '../schema.js';
import { currentActor } from '../../access/acting.js';
import { errors } from '../../domain/errors.js';
import {
  changedDigests,
  decodeSnapshot,
  deflateStored,
  encodeSnapshotJson,
  fieldDigests,
  serializeWithDigests,
  SerializedSnapshot,
  REVISION_KIND_CODES,
  type FieldDigests,
  type RevisionKind,
  type Snapshot,
} from '../../history/snapshots.js';
import { campaignWrite } from './common.js';
import { queryTemplate } from '../query-template.js';
import { FollowedBy } from '../pipeline.js';

let mergeWindowMs = 300_000;

/**
 * REVISION_MERGE_SECONDS (config.ts): changes by one author within this many seconds of their latest
 * unnamed revision update it instead of adding one. A setting of the process, set once at start-up
 * (app.ts): the repositories that keep revisions take no configuration of their own.
 */
export function setRevisionMergeSeconds(seconds: number): void {
  mergeWindowMs = seconds * 1000;
}

/** The author of a change made now: the request's caller, or none (command line, import, sweepers). */
export function revisionAuthor(): string | null {
  return currentActor()?.userId ?? null;
}

export interface KeepRevisionInput {
  campaignId: number;
  kind: RevisionKind;
  recordId: number;
  /** The record as it is after the change (serialized already, or to be). */
  snapshot: Snapshot | SerializedSnapshot;
  authorId: string | null;
  /**
   * For an update: the record as it was before, with its updated_at. A record with no revision yet
   * (written before revisions existed, or imported) gets that state kept first, so the first
   * overwrite never loses it.
   */
  before?: { snapshot: Snapshot | (() => Snapshot | Promise<Snapshot>); updatedAt: string } | undefined;
  /** False for a change that must be a revision of its own (a restore of a revision). */
  merge?: boolean;
  /**
   * The record's latest two revisions, read already in this transaction after the record was
   * locked (latestThingRevisionsRead); read here otherwise.
   */
  latest?: readonly LatestRevisionRow[] | undefined;
}

function authorName(trx: Transaction<DB>, authorId: string | null) {
  return authorId === null ? null : trx.selectFrom('users').select('name').where('id', '=', authorId);
}

/** A revision's fields as digests: stored with it, or from its snapshot when it was kept before digests were. */
function digestsOf(row: { digests: string | null; legacy_snapshot: Uint8Array | null }): FieldDigests {
  if (row.digests !== null) return JSON.parse(row.digests) as FieldDigests;
  if (row.legacy_snapshot === null) throw new Error('a revision with neither digests nor a snapshot');
  return fieldDigests(decodeSnapshot(row.legacy_snapshot));
}

/**
 * A revision that is no longer its record's latest: its snapshot deflated if it was stored plain
 * (keepRevision). One read of it, and a write when deflating pays.
 */
async function closeRevision(trx: Transaction<DB>, campaignId: number, id: number): Promise<void> {
  const row = await trx.selectFrom('revisions').select('snapshot').where('campaign_id', '=', campaignId).where('id', '=', id).executeTakeFirst();
  const deflated = row && deflateStored(row.snapshot);
  if (deflated !== undefined) await trx.updateTable('revisions').set({ snapshot: deflated }).where('campaign_id', '=', campaignId).where('id', '=', id).execute();
}

/** The latest two revisions of one record (`recordId`: its id, or a subquery finding it), newest first, without their snapshots but a legacy one. */
function latestTwoQuery(db: Kysely<DB>, campaignId: number, kind: number, recordId: number | ((eb: ExpressionBuilder<DB, 'revisions'>) => SelectQueryBuilder<DB, 'things', { id: number }>)) {
  return db
    .selectFrom('revisions')
    .select(['id', 'author_id', 'name', 'created_at', 'fields', 'digests'])
    .select(sql<Uint8Array | null>`case when digests is null then snapshot end`.as('legacy_snapshot'))
    .where('campaign_id', '=', campaignId)
    .where('record_kind', '=', kind)
    .where('record_id', '=', recordId)
    .orderBy('id', 'desc')
    .limit(2);
}

// The read of nearly every save, built and compiled once (query-template.ts): the latest two revisions.
const latestTwo = queryTemplate(['campaignId', 'kind', 'recordId'], (db: Kysely<DB>, params) => latestTwoQuery(db, params.campaignId, params.kind, params.recordId));
type LatestRevisionRow = Awaited<ReturnType<typeof latestTwo.execute>>[number];

// The same of a thing named by its slug: the read written after the statement that locks the thing
// (things.ts updateThing), before its id is known.
const latestTwoOfThingBySlug = queryTemplate(['campaignId', 'slug'], (db: Kysely<DB>, params) =>
  latestTwoQuery(db, params.campaignId, REVISION_KIND_CODES.thing, (eb) =>
    eb.selectFrom('things').select('id').where('campaign_id', '=', params.campaignId).where('slug', '=', params.slug),
  ),
);

/**
 * PostgreSQL: the read of a thing's latest two revisions by its slug, to be written right after the
 * statement that locks the thing (db/pipeline.ts FollowedBy): run after that statement, once the
 * lock is held, it sees every revision committed before. `rows`, awaited as soon as that statement
 * answers (so that an error of the read, such as a stale plan, is the write's: database.ts runs it
 * again), is what keepRevision takes as `latest` for the thing that statement found.
 */
export function latestThingRevisionsRead(db: Db, campaignId: number, slug: string): { follower: FollowedBy; rows: Promise<readonly LatestRevisionRow[]> } {
  const { sql: text, parameters } = latestTwoOfThingBySlug.compiled(db, { campaignId, slug });
  const follower = new FollowedBy(text, parameters);
  const rows = follower.result.then((answer) => answer.rows as LatestRevisionRow[]);
  // Not unhandled when the statement before it failed, and the save with it.
  rows.catch(() => {});
  return { follower, rows };
}

/** The merge of a save into its record's latest revision (keepRevision). */
export interface RevisionMerge {
  snapshot: Uint8Array;
  digests: string;
  updatedAt: string;
  fields: string;
  campaignId: number;
  id: number;
}

// Transactions whose revision merge is held, to be sent with their last statement (holdRevisionMerge).
const heldMerges = new WeakMap<object, { merge: RevisionMerge | undefined }>();

/**
 * From now on, the merge of a save into its latest revision (the write of nearly every save in a
 * burst) is noted instead of sent; the caller sends it with the transaction's last statement
 * (takeHeldRevisionMerge and revisionMergeStatement: common.ts campaignWrite on PostgreSQL, where
 * each statement is a round trip). A later keepRevision in the same transaction sends the noted one
 * first, so every keepRevision reads revisions as the writes before it left them.
 */
export function holdRevisionMerge(trx: Db): void {
  heldMerges.set(trx, { merge: undefined });
}

/** The merge noted in `trx` since holdRevisionMerge, if any; keepRevision writes at once again after this. */
export function takeHeldRevisionMerge(trx: Db): RevisionMerge | undefined {
  const held = heldMerges.get(trx);
  heldMerges.delete(trx);
  return held?.merge;
}

/** The statement of a merge: run alone, or sent as a part of another (a data-modifying CTE on PostgreSQL). */
export function revisionMergeStatement(merge: RevisionMerge) {
  return sql`update revisions set snapshot = ${merge.snapshot}, digests = ${merge.digests}, updated_at = ${merge.updatedAt}, fields = ${merge.fields}
    where campaign_id = ${merge.campaignId} and id = ${merge.id}`;
}

/**
 * Keeps a revision of a record after a change, in the change's transaction: nothing when the record
 * is as its latest revision has it; the latest revision updated when it is this author's, unnamed,
 * and younger than the merge window; a new revision otherwise. Two statements (the baseline of a
 * record without history goes in the same INSERT as the new revision; a `before` given as a function
 * may add its own, then only), and two more when a new revision follows one stored plain.
 *
 * Revisions are compared by their fields' digests (history/snapshots.ts): the latest two are read
 * without their snapshots, but for one kept before digests were. A record's latest revision is
 * stored plain, since every save of a burst rewrites it (deflating it took about a ninth of a save's
 * CPU); the save that starts the next revision deflates it, so every revision but a record's latest
 * is stored deflated (when that makes it smaller).
 */
export async function keepRevision(trx: Transaction<DB>, input: KeepRevisionInput): Promise<void> {
  const held = heldMerges.get(trx);
  let readBefore = input.latest;
  if (held?.merge !== undefined) {
    await revisionMergeStatement(held.merge).execute(trx);
    held.merge = undefined;
    // Read before that merge: read again.
    readBefore = undefined;
  }
  const kind = REVISION_KIND_CODES[input.kind];
  // The latest two: a merge into the latest compares with the one before it.
  const [latest, beforeLatest] = readBefore ?? (await latestTwo.execute(trx, { campaignId: input.campaignId, kind, recordId: input.recordId }));
  const now = new Date().toISOString();
  const row = (serialized: { json: string; digests: FieldDigests }, fields: string[], authorId: string | null, at: string, compress = false) => ({
    campaign_id: input.campaignId,
    record_kind: kind,
    record_id: input.recordId,
    author_id: authorId,
    author_name: authorName(trx, authorId),
    created_at: at,
    updated_at: at,
    name: null,
    fields: JSON.stringify(fields),
    snapshot: encodeSnapshotJson(serialized.json, compress),
    digests: JSON.stringify(serialized.digests),
  });
  const next = input.snapshot instanceof SerializedSnapshot ? input.snapshot : serializeWithDigests(input.snapshot);
  if (latest === undefined) {
    const rows = [];
    let previous: FieldDigests | undefined;
    if (input.before !== undefined) {
      const before = input.before.snapshot;
      const serialized = serializeWithDigests(typeof before === 'function' ? await before() : before);
      previous = serialized.digests;
      rows.push(row(serialized, changedDigests(undefined, previous), null, input.before.updatedAt, true));
    }
    const fields = changedDigests(previous, next.digests);
    // An update that changed nothing still leaves the record's state kept once.
    if (previous === undefined || fields.length > 0) rows.push(row(next, fields, input.authorId, now));
    await trx.insertInto('revisions').values(rows).execute();
    return;
  }
  const fields = changedDigests(digestsOf(latest), next.digests);
  if (fields.length === 0) return;
  const merges =
    input.merge !== false &&
    latest.name === null && latest.author_id === input.authorId && Date.parse(now) - Date.parse(latest.created_at) < mergeWindowMs;
  if (merges) {
    // What changed from the revision before the burst; a burst that undid itself (the record is as
    // that revision has it again) keeps nothing: its revision goes.
    const sinceBefore = beforeLatest === undefined ? undefined : changedDigests(digestsOf(beforeLatest), next.digests);
    if (sinceBefore !== undefined && sinceBefore.length === 0) {
      await trx.deleteFrom('revisions').where('campaign_id', '=', input.campaignId).where('id', '=', latest.id).execute();
      return;
    }
    const merged = sinceBefore ?? [...new Set([...(JSON.parse(latest.fields) as string[]), ...fields])];
    const merge: RevisionMerge = {
      snapshot: encodeSnapshotJson(next.json, false),
      digests: JSON.stringify(next.digests),
      updatedAt: now,
      fields: JSON.stringify(merged),
      campaignId: input.campaignId,
      id: latest.id,
    };
    if (held !== undefined) held.merge = merge;
    else await revisionMergeStatement(merge).execute(trx);
    return;
  }
  await closeRevision(trx, input.campaignId, latest.id);
  await trx.insertInto('revisions').values(row(next, fields, input.authorId, now)).execute();
}

/** Erases every revision of these things or arcs (the trash, when it erases them). One statement. */
export async function eraseRevisionsOf(trx: Transaction<DB>, campaignId: number, kind: 'thing' | 'arc', ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await trx
    .deleteFrom('revisions')
    .where('campaign_id', '=', campaignId)
    .where('record_kind', '=', REVISION_KIND_CODES[kind])
    .where('record_id', 'in', ids)
    .execute();
}

export interface RevisionSummary {
  id: number;
  createdAt: string;
  author: { userId: string; name: string } | null;
  name: string | null;
  fields: string[];
}

export interface RevisionDetail<T extends Snapshot = Snapshot> extends RevisionSummary {
  record: T;
}

interface RevisionRecord {
  campaignId: number;
  kind: RevisionKind;
  recordId: number;
}

function summaryQuery(db: Db, of: RevisionRecord) {
  return db
    .selectFrom('revisions as r')
    .leftJoin('users as u', 'u.id', 'r.author_id')
    .select(['r.id', 'r.created_at', 'r.author_id', 'r.name', 'r.fields'])
    .select((eb) => eb.fn.coalesce('u.name', 'r.author_name').as('author_name'))
    .where('r.campaign_id', '=', of.campaignId)
    .where('r.record_kind', '=', REVISION_KIND_CODES[of.kind])
    .where('r.record_id', '=', of.recordId);
}

function toSummary(row: { id: number; created_at: string; author_id: string | null; author_name: string | null; name: string | null; fields: string }): RevisionSummary {
  return {
    id: row.id,
    createdAt: row.created_at,
    author: row.author_id === null ? null : { userId: row.author_id, name: row.author_name ?? '' },
    name: row.name,
    fields: JSON.parse(row.fields) as string[],
  };
}

/** The record's revisions, newest first: one statement. */
export async function listRevisions(db: Db, of: RevisionRecord): Promise<RevisionSummary[]> {
  const rows = await summaryQuery(db, of).orderBy('r.id', 'desc').execute();
  return rows.map(toSummary);
}

/** One revision of the record with its snapshot; undefined when the record has no such revision. */
export async function findRevision<T extends Snapshot>(db: Db, of: RevisionRecord, id: number): Promise<RevisionDetail<T> | undefined> {
  const row = await summaryQuery(db, of).select('r.snapshot').where('r.id', '=', id).executeTakeFirst();
  return row === undefined ? undefined : { ...toSummary(row), record: decodeSnapshot<T>(row.snapshot) };
}

/** Names a revision (kept for ever) or unnames it (`null`); 404 when the record has no such revision. */
export async function nameRevision(database: Database, of: RevisionRecord, id: number, name: string | null): Promise<RevisionSummary> {
  return campaignWrite(database, of.campaignId, async (trx) => {
    const updated = await trx
      .updateTable('revisions')
      .set({ name })
      .where('campaign_id', '=', of.campaignId)
      .where('record_kind', '=', REVISION_KIND_CODES[of.kind])
      .where('record_id', '=', of.recordId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (updated.numUpdatedRows === 0n) throw errors.revisionNotFound(id);
    return toSummary(await summaryQuery(trx, of).where('r.id', '=', id).executeTakeFirstOrThrow());
  });
}

const DAY_MS = 86_400_000;
/** Unnamed revisions younger than this are all kept. */
export const KEEP_ALL_DAYS = 30;
/** Then the newest of each UTC day until this age; older, the newest of each ISO week. */
export const KEEP_DAILY_DAYS = 90;

export interface ThinningPass {
  /** Revisions erased. */
  erased: number;
  /** Where the next pass starts (0: the table has been gone through; start again from the beginning). */
  next: number;
}

/**
 * One pass of the thinning (CONTRACT: unnamed revisions are all kept for 30 days, then one per day
 * to 90 days, then one per week; named ones for ever) over the `batch` revisions that follow id
 * `after`: two statements whatever the table's size. The sweeper goes through the table a batch at a
 * time, so each run's work is bounded. A revision goes when its record has a newer unnamed one in
 * the same UTC day (30 to 90 days old) or the same ISO week (older): the newest of each stays, and
 * so does every record's latest revision.
 */
export async function thinRevisions(database: Database, options: { now: Date; after: number; batch: number }): Promise<ThinningPass> {
  return database.write(async (trx) => {
    const last = await trx
      .selectFrom((eb) => eb.selectFrom('revisions').select('id').where('id', '>', options.after).orderBy('id').limit(options.batch).as('b'))
      .select((eb) => eb.fn.max('b.id').as('last'))
      .executeTakeFirst();
    const upTo = last?.last ?? null;
    if (upTo === null) return { erased: 0, next: 0 };
    const keepAll = new Date(options.now.getTime() - KEEP_ALL_DAYS * DAY_MS).toISOString();
    const daily = new Date(options.now.getTime() - KEEP_DAILY_DAYS * DAY_MS).toISOString();
    const postgres = dialectOf(trx) === 'postgres';
    const day = (column: string) => (postgres ? sql`date_trunc('day', ${sql.ref(column)} at time zone 'UTC')` : sql`substr(${sql.ref(column)}, 1, 10)`);
    const week = (column: string) =>
      postgres ? sql`date_trunc('week', ${sql.ref(column)} at time zone 'UTC')` : sql`date(${sql.ref(column)}, 'weekday 0', '-6 days')`;
    const result = await trx
      .deleteFrom('revisions')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('revisions as r')
          .select('r.id')
          .where('r.id', '>', options.after)
          .where('r.id', '<=', upTo)
          .where('r.name', 'is', null)
          .where('r.created_at', '<', keepAll)
          .where((w) =>
            w.exists(
              w
                .selectFrom('revisions as n')
                .select('n.id')
                .whereRef('n.campaign_id', '=', 'r.campaign_id')
                .whereRef('n.record_kind', '=', 'r.record_kind')
                .whereRef('n.record_id', '=', 'r.record_id')
                .where('n.name', 'is', null)
                .where((n) => n.or([n('n.created_at', '>', n.ref('r.created_at')), n.and([n('n.created_at', '=', n.ref('r.created_at')), n('n.id', '>', n.ref('r.id'))])]))
                .where(sql<boolean>`case when r.created_at < ${daily} then ${week('n.created_at')} = ${week('r.created_at')} else ${day('n.created_at')} = ${day('r.created_at')} end`),
            ),
          ),
      )
      .executeTakeFirst();
    return { erased: Number(result.numDeletedRows), next: upTo };
  });
}
