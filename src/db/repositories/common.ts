import { CompiledQuery, sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import { dialectOf, type Database, type Db, type Dialect } from '../database.js';
import type { DB, Role } from '../schema.js';
import { currentActor } from '../../access/acting.js';
import { authorizeWriteAtCommit, isRole, rolesAllowedAtCommit, type Actor } from '../../access/policy.js';
import { errors, type RecordKind } from '../../domain/errors.js';
import type { ExpectedVersion } from '../../domain/versions.js';
import { currentWriteScope } from '../write-scope.js';
import { COMMIT_FOLLOWS, SentWithNext } from '../pipeline.js';
import { databaseErrorCode } from '../errors.js';
import { queryTemplate } from '../query-template.js';
import { holdQueueWrites, queueUpsert, takeHeldQueueWrites, type QueuedRecord } from '../indexes/search-queue.js';
import { holdRevisionMerge, revisionMergeStatement, takeHeldRevisionMerge, type RevisionMerge } from './revisions.js';
import { playersUpdatedAt } from './players-updated.js';


/**
 * How a campaign write runs beside the campaign's other writes, on PostgreSQL (SQLite runs one
 * writer at a time). Every write of a campaign first takes a transaction-scoped advisory lock keyed
 * by the campaign (namespace CAMPAIGN_WRITES): `exclusive` (the default) waits for every other write
 * of the campaign and keeps them out until it commits, as the campaign row's lock did when every
 * write took it first; `concurrent` (shared) runs beside the other concurrent ones, and is only for
 * writes proven safe together: they touch records by their row locks, and rely on no consistent
 * view of the campaign's set of rows (a generated slug relies on the unique index instead: see
 * things.ts createThing). The campaign row itself is locked last, by the bump of its
 * content_version: inside the COMMIT for a request's write (campaignWrite, migration 0031), by the
 * last statement otherwise, so writers queue on it for the commit alone, or one statement and the
 * commit. The order is always: the advisory lock, membership rows, records, the campaign row.
 */
export type WriteMode = 'exclusive' | 'concurrent';

/** The advisory lock namespace (first key) of campaign writes: 'LF'. The second key is the campaign's id. */
const CAMPAIGN_WRITES = 0x4c46;

function advisoryLock(campaignId: number, mode: WriteMode) {
  return mode === 'concurrent'
    ? sql`pg_advisory_xact_lock_shared(${sql.lit(CAMPAIGN_WRITES)}, ${campaignId}::integer)`
    : sql`pg_advisory_xact_lock(${sql.lit(CAMPAIGN_WRITES)}, ${campaignId}::integer)`;
}

/** Takes the campaign's write lock, exclusive (see WriteMode), on PostgreSQL; nothing on SQLite. */
export async function lockCampaignWrites(trx: Transaction<DB>, campaignId: number): Promise<void> {
  currentWriteScope()?.unannounced();
  if (dialectOf(trx) === 'postgres') await sql`select ${advisoryLock(campaignId, 'exclusive')}`.execute(trx);
}

/**
 * Takes the campaign's write lock shared, on PostgreSQL (nothing on SQLite): for work that runs
 * beside the campaign's concurrent writes but not beside an exclusive one, such as a rebuild of its
 * search index (the search indexer's batches: db/indexes/search-queue.ts). Sends no notice, bumps nothing.
 */
export async function shareCampaignWrites(trx: Transaction<DB>, campaignId: number): Promise<void> {
  if (dialectOf(trx) === 'postgres') await sql`select ${advisoryLock(campaignId, 'concurrent')}`.execute(trx);
}

const bump = (trx: Transaction<DB>, campaignId: number) =>
  trx.updateTable('campaigns').set((eb) => ({ content_version: eb('content_version', '+', 1) })).where('id', '=', campaignId);

// The bump of a live campaign: the first statement of every campaign write on SQLite, built and
// compiled once (query-template.ts).
const bumpLive = queryTemplate(['campaignId'], (db: Kysely<DB>, params) =>
  db
    .updateTable('campaigns')
    .set((eb) => ({ content_version: eb('content_version', '+', 1) }))
    .where('id', '=', params.campaignId)
    .where('deleted_at', 'is', null)
    .returning('id'),
);

/**
 * The actor's role in the campaign `c` of the statement it goes in, its membership row share-locked
 * until the commit (so no change to it commits before this transaction does); null without an actor.
 */
function roleInCampaign(actor: Actor | undefined): RawBuilder<Role | null> {
  return actor ? sql<Role | null>`(select m.role from campaign_members m where m.campaign_id = c.id and m.user_id = ${actor.userId} for share)` : sql<null>`null`;
}

/**
 * Opens a write transaction inside a campaign; false when the campaign no longer exists or is in
 * the trash. Every write's content_version bump keys the response cache of every instance
 * (http/response-cache.ts) and orders the changes feed (migrations/…-0010-changes.ts).
 *
 * On PostgreSQL one statement takes the campaign's advisory lock (WriteMode), checks the campaign is
 * live without locking its row, and reads the caller's membership with a share lock (so no change
 * to it commits before this transaction does); the bump is endCampaignWrite's, the last statement.
 * A request's write (campaignWrite in a write scope) sends the same statement without waiting for
 * it, and its COMMIT bumps (holdCampaignWriteOpening, markCampaignWrite).
 * On SQLite the bump comes first, as the one writer at a time loses nothing by it.
 *
 * Then, for a write a request makes (access/acting.ts), it refuses the write when the caller is no
 * longer allowed to make it (CONTRACT "Authorization holds for the whole request"): every campaign
 * write goes through here, or, for a request's write on PostgreSQL, through the same statement held
 * for the write's next one (holdCampaignWriteOpening), so none can commit for a member removed or
 * demoted while in flight.
 */
export async function openCampaignWrite(trx: Transaction<DB>, campaignId: number, mode: WriteMode = 'exclusive'): Promise<boolean> {
  const actor = currentActor();
  if (dialectOf(trx) === 'sqlite') {
    const row = await bumpLive.executeTakeFirst(trx, { campaignId });
    if (row === undefined) return false;
    await checkActorAtCommit(trx, campaignId);
    return true;
  }
  const role = roleInCampaign(actor);
  // The lock is in FROM and the membership in the select list: the lock is taken first.
  currentWriteScope()?.unannounced();
  const { rows } = await sql<{ role: Role | null }>`select ${role} as role from (select ${advisoryLock(campaignId, mode)}) l, campaigns c
    where c.id = ${campaignId} and c.deleted_at is null`.execute(trx);
  if (rows[0] === undefined) return false;
  if (actor) authorizeWriteAtCommit(actor, campaignId, rows[0].role ?? undefined);
  return true;
}

/**
 * openCampaignWrite's statement for a request's campaign write on PostgreSQL (campaignWrite, in a
 * write scope), held to be written with the write's next statement (db/pipeline.ts SentWithNext):
 * nothing waits for its answer, so it fails in PostgreSQL itself when the write must not go on, and
 * PostgreSQL aborts the transaction before that next statement runs. It takes the campaign's
 * advisory lock (WriteMode), finds the campaign live (else loreforge_campaign_gone(), migration
 * 0034), reads the caller's role with a share lock, as openCampaignWrite does, and calls
 * loreforge_write_refused(role) (migration 0036) unless the role is one of rolesAllowedAtCommit;
 * refusedOpening turns those errors into the answers of openCampaignWrite's callers. It announces
 * the write (the content_version bump sends no notice of its own, migration 0028).
 */
async function holdCampaignWriteOpening(trx: Transaction<DB>, campaignId: number, mode: WriteMode): Promise<SentWithNext> {
  const actor = currentActor();
  const allowed = actor ? rolesAllowedAtCommit(actor, campaignId) : undefined;
  const role = roleInCampaign(actor);
  const refused = allowed ? sql` when not coalesce(role = any(${[...allowed]}::text[]), false) then loreforge_write_refused(role)` : sql``;
  // OFFSET 0 keeps the inner query whole, so its role is read once; the lock is in its FROM and the
  // role in its select list: the lock is taken first.
  const { sql: text, parameters } = sql`select case when id is null then loreforge_campaign_gone()${refused} end as refused,
    set_config('loreforge.announce', ${String(campaignId)}, true) as announce
    from (select c.id, ${role} as role from (select ${advisoryLock(campaignId, mode)}) l left join campaigns c on c.id = ${campaignId} and c.deleted_at is null offset 0) opening`.compile(trx);
  // Answered at once, with no rows: its real answer only ever fails the statements after it.
  const opening = new SentWithNext();
  await trx.executeQuery(CompiledQuery.raw(text, [...parameters, opening]));
  return opening;
}

/** The refusal of the caller by the held opening, not yet sent: sent now, with a statement that needs nothing. */
async function refusalOfOpening(trx: Transaction<DB>, campaignId: number): Promise<unknown> {
  try {
    await sql`select 1`.execute(trx);
    return undefined;
  } catch (error) {
    return refusedOpening(error, campaignId);
  }
}

/** The answer for a write whose held opening (holdCampaignWriteOpening) failed with `error`, if it did. */
function refusedOpening(error: unknown, campaignId: number): unknown {
  const code = databaseErrorCode(error);
  if (code === CAMPAIGN_GONE) return errors.campaignNotFound();
  if (code !== WRITE_REFUSED) return undefined;
  const actor = currentActor();
  const role = (error as { detail?: unknown }).detail;
  try {
    if (actor) authorizeWriteAtCommit(actor, campaignId, typeof role === 'string' && isRole(role) ? role : undefined);
  } catch (refusal) {
    return refusal;
  }
  // The database refused a role the policy allows: never answer as if the write could go on.
  return new Error(`The database refused a write with the role "${String(role)}", which the policy allows`, { cause: error });
}

/**
 * The last statement of a campaign write on PostgreSQL: bumps content_version (an UPDATE of the
 * campaign row, whose lock it holds until commit); the changes rows of the transaction are written
 * at commit with that version (migration 0028), so versions follow commit order. False when the campaign went to the
 * trash or was erased meanwhile. Nothing on SQLite.
 */
export async function endCampaignWrite(trx: Transaction<DB>, campaignId: number): Promise<boolean> {
  if (dialectOf(trx) === 'sqlite') return true;
  return (await bumpLive.executeTakeFirst(trx, { campaignId })) !== undefined;
}

/**
 * For a write that does not go through campaignWrite (it updates the campaign row itself, or
 * several campaigns): takes the campaign's write lock exclusively, then its row lock at once (the
 * bump), then checks the caller as openCampaignWrite does. Nothing else of the campaign's runs
 * meanwhile, so the early row lock queues nobody more than the advisory lock does; the changes
 * rows get this version at commit (migration 0028).
 * False when the campaign no longer exists or is in the trash.
 */
export async function beginCampaignWrite(trx: Transaction<DB>, campaignId: number): Promise<boolean> {
  await lockCampaignWrites(trx, campaignId);
  const row = await bumpLive.executeTakeFirst(trx, { campaignId });
  if (row === undefined) return false;
  await checkActorAtCommit(trx, campaignId);
  return true;
}

/**
 * The check of openCampaignWrite, for a write that locks the campaign its own way (updating the
 * campaign itself, after lockCampaignWrites): on PostgreSQL the membership row is share-locked.
 */
export async function checkActorAtCommit(trx: Transaction<DB>, campaignId: number): Promise<void> {
  currentWriteScope()?.unannounced();
  const actor = currentActor();
  if (actor) authorizeWriteAtCommit(actor, campaignId, await roleAtCommit(trx, campaignId, actor.userId));
}

const memberRole = queryTemplate(['campaignId', 'userId'], (db: Kysely<DB>, params) => {
  const query = db.selectFrom('campaign_members').select('role').where('campaign_id', '=', params.campaignId).where('user_id', '=', params.userId);
  return dialectOf(db) === 'postgres' ? query.forShare() : query;
});

/** The role of `userId` in the campaign as this transaction will commit it (see openCampaignWrite). */
export async function roleAtCommit(trx: Transaction<DB>, campaignId: number, userId: string): Promise<Role | undefined> {
  return (await memberRole.executeTakeFirst(trx, { campaignId, userId }))?.role;
}

/**
 * Runs `fn` in a write transaction (Database.write: grouped commits on SQLite; re-run on a deadlock
 * on PostgreSQL, so `fn` must touch only the database) between openCampaignWrite and
 * endCampaignWrite; 404 when the campaign is gone, or went to the trash before the end.
 *
 * On PostgreSQL, in a request (db/write-scope.ts), the opening is held and sent with the write's
 * first statement (holdCampaignWriteOpening), the content_version is bumped by the COMMIT itself
 * (markCampaignWrite, migration 0031) and announced by the instance once committed, not by a
 * notice from the transaction (migration 0028).
 */
export async function campaignWrite<T>(
  database: Database,
  campaignId: number,
  fn: (trx: Transaction<DB>) => Promise<T>,
  mode: WriteMode = 'exclusive',
): Promise<T> {
  const scope = database.dialect === 'postgres' ? currentWriteScope() : undefined;
  if (!scope) {
    return database.write(async (trx) => {
      if (!(await openCampaignWrite(trx, campaignId, mode))) throw errors.campaignNotFound();
      const result = await fn(trx);
      if (!(await endCampaignWrite(trx, campaignId))) throw errors.campaignNotFound();
      return result;
    });
  }
  let notified: boolean | undefined;
  const result = await database.write(async (trx) => {
    // The lock and the caller's check go with the write's next statement (a round trip fewer), and
    // fail there when the write must not go on: refusedOpening gives the answer.
    const opening = await holdCampaignWriteOpening(trx, campaignId, mode);
    // The search queue's writes, a save's revision merge and its record's UPDATE go with the mark
    // (a round trip fewer each).
    holdQueueWrites(trx);
    holdRevisionMerge(trx);
    heldUpdates.set(trx, []);
    try {
      const value = await fn(trx);
      const updates = heldUpdates.get(trx) ?? [];
      heldUpdates.delete(trx);
      notified = await markCampaignWrite(trx, campaignId, takeHeldQueueWrites(trx), takeHeldRevisionMerge(trx), updates);
      if (notified === undefined) throw errors.campaignNotFound();
      return value;
    } catch (error) {
      // An error of `fn` before any statement was sent: the caller's refusal, if any, still comes first.
      throw refusedOpening(error, campaignId) ?? (opening.written ? undefined : await refusalOfOpening(trx, campaignId)) ?? error;
    }
  }, { announced: true });
  // The version its COMMIT moved the campaign to, or a later one, is read and announced after the
  // commit, in one statement shared by the writes committed meanwhile (db/announcements.ts).
  scope.committed(campaignId, notified!);
  return result;
}

// Transactions whose record updates are held, to be sent with their mark (heldRecordUpdate).
const heldUpdates = new WeakMap<object, RawBuilder<unknown>[]>();

/**
 * Whether `trx` sends record updates with its last statement (a request's campaign write on
 * PostgreSQL: campaignWrite), where each statement is a round trip. A repository may then update a
 * record through heldRecordUpdate instead of sending its UPDATE, when nothing can change the row
 * between its read and the commit (its lock, or the campaign's exclusive write lock), the UPDATE
 * cannot fail (no new slug: the unique index), and nothing later in the transaction reads the row.
 */
export function holdsRecordUpdates(trx: Db): boolean {
  return heldUpdates.has(trx);
}

interface UpdatableRow {
  id: number;
  campaign_id: number;
  version: number;
  updated_at: string;
  players_updated_at: string | null;
}

/**
 * The UPDATE of a record `current` (as read in this transaction), held for the mark (see
 * holdsRecordUpdates), and the row it makes: what the UPDATE's RETURNING would answer. It updates
 * the row only at the version read; otherwise the mark fails and the write runs again (migration
 * 0035), which the locks make impossible for every writer that takes them. Like every
 * save's UPDATE it moves the version on, sets updated_at, and keeps what players saw as their
 * updatedAt unless they see the change (players-updated.ts).
 */
export function heldRecordUpdate<Row extends UpdatableRow>(
  trx: Db,
  table: 'things' | 'arcs',
  current: Row,
  set: Readonly<Record<string, string | number | null | undefined>>,
  playersSeeIt: boolean,
  updatedAt: string,
): Row {
  const updates = heldUpdates.get(trx);
  if (updates === undefined) throw new Error('heldRecordUpdate: this transaction sends its updates at once (holdsRecordUpdates)');
  const columns = Object.keys(set).filter((column) => set[column] !== undefined).sort();
  updates.push(sql`update ${sql.table(table)} set ${sql.join([
    ...columns.map((column) => sql`${sql.ref(column)} = ${set[column]}`),
    sql`version = version + 1`,
    sql`updated_at = ${updatedAt}`,
    sql`players_updated_at = ${playersUpdatedAt(playersSeeIt) ?? sql`null`}`,
  ])} where campaign_id = ${current.campaign_id} and id = ${current.id} and version = ${current.version} returning 1`);
  return {
    ...current,
    ...Object.fromEntries(columns.map((column) => [column, set[column]])),
    version: current.version + 1,
    updated_at: updatedAt,
    players_updated_at: playersSeeIt ? null : (current.players_updated_at ?? current.updated_at),
  };
}

/** The SQLSTATE of loreforge_campaign_gone() (migration 0034). */
const CAMPAIGN_GONE = 'LF404';

/** The SQLSTATE of loreforge_write_refused() (migration 0036). */
const WRITE_REFUSED = 'LF403';

/**
 * The last statement of an announced campaign write on PostgreSQL, in place of the bump: checks the
 * campaign is still live (this transaction holds its write lock, so it stays so until the commit)
 * and marks the write, so that its COMMIT bumps content_version (migration 0031) with no lock
 * taken before; and queues for search indexing the records `queued` (held by holdQueueWrites).
 * Whether the transaction sent a notice so far (a trigger of migration 0026 fired:
 * `loreforge.notified`); undefined when the campaign went to the trash or was erased meanwhile.
 */
async function markCampaignWrite(
  trx: Transaction<DB>,
  campaignId: number,
  queued: readonly QueuedRecord[],
  merge: RevisionMerge | undefined,
  updates: readonly RawBuilder<unknown>[],
): Promise<boolean | undefined> {
  const queue = queued.length === 0 ? sql`` : sql`, queued as (${queueUpsert(queued)})`;
  const merged = merge === undefined ? sql`` : sql`, merged as (${revisionMergeStatement(merge)})`;
  // Data-modifying CTEs all run, referenced or not, on one snapshot: these touch rows of their own.
  const updated = updates.length === 0 ? sql`` : sql.join(updates.map((update, i) => sql`, ${sql.raw(`updated_${i}`)} as (${update})`), sql``);
  // A held UPDATE that found its row at another version than its save read fails the statement
  // (migration 0035): the write runs again, rather than answer with the row built from that read.
  const missed =
    updates.length === 0 ? sql`` : sql` when not (${sql.join(updates.map((_, i) => sql`exists (select from ${sql.raw(`updated_${i}`)})`), sql` and `)}) then loreforge_row_changed()`;
  // Its COMMIT is written with it (db/pipeline.ts): a campaign gone makes it fail (migration 0034),
  // so that COMMIT rolls the transaction back.
  try {
    const { rows } = await sql<{ notified: string | null }>`${sql.raw(COMMIT_FOLLOWS)}with live as (
      select id, current_setting('loreforge.notified', true) as notified from campaigns where id = ${campaignId} and deleted_at is null
    ), mark as (
      insert into campaign_write_marks (campaign_id, backend) select id, pg_backend_pid() from live on conflict do nothing
    )${queue}${merged}${updated}
    select case when live.id is null then loreforge_campaign_gone()${missed} else live.notified end as notified from (select 1) one left join live on true`.execute(trx);
    return rows[0]!.notified === '1';
  } catch (error) {
    if (databaseErrorCode(error) === CAMPAIGN_GONE) return undefined;
    throw error;
  }
}

/**
 * Runs housekeeping of one campaign (index rebuilds) in a write transaction holding its write lock
 * exclusively, whether or not the campaign is in its owner's trash (a restored campaign must find
 * its indexes rebuilt too); there is no caller to check. Throws campaign_not_found when it no
 * longer exists.
 */
export function campaignHousekeeping<T>(database: Database, campaignId: number, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  return database.write(async (trx) => {
    await lockCampaignWrites(trx, campaignId);
    const row = await bump(trx, campaignId).returning('id').executeTakeFirst();
    if (row === undefined) throw errors.campaignNotFound();
    return fn(trx);
  });
}

/**
 * The visibility a new thing or arc takes when created without one: the campaign's
 * `default_visibility`, as a subquery of the INSERT (the value at commit, no extra round trip).
 */
export function campaignDefaultVisibility(trx: Transaction<DB>, campaignId: number) {
  return trx.selectFrom('campaigns').select('default_visibility').where('id', '=', campaignId);
}

// A suffixed slug keeps at least this much of its base: withSuffix cuts the base to make room for
// `-<counter>`, and a counter of up to 14 digits leaves 85 characters (less at most one hyphen).
const SUFFIXED_BASE_KEEPS = 85;

/**
 * Every slug of the campaign's things or arcs that a slug generated from `base` could collide
 * with, in one query. Call in an exclusive campaign write (WriteMode), or rely on the unique index.
 *
 * On SQLite this is one range of the (campaign_id, slug) index: slugs hold only [a-z0-9-], so
 * under SQLite's byte order `base` and `base-…` are exactly the slugs from `base` up to `base.`
 * ('.' follows '-'), and a truncated prefix's are those up to `prefix~`. LIKE would read every
 * slug of the campaign there (SQLite's LIKE is case-insensitive, so it cannot use the index).
 * PostgreSQL keeps LIKE: its collation need not be byte order.
 */
export async function takenSlugs(
  trx: Transaction<DB>,
  dialect: Dialect,
  table: 'things' | 'arcs',
  campaignId: number,
  base: string,
): Promise<string[]> {
  const truncated = base.length > SUFFIXED_BASE_KEEPS;
  const prefix = truncated ? base.slice(0, SUFFIXED_BASE_KEEPS) : `${base}-`;
  let query = trx.selectFrom(table).select('slug').where('campaign_id', '=', campaignId);
  query =
    dialect === 'sqlite'
      ? query.where('slug', '>=', truncated ? prefix : base).where('slug', '<', truncated ? `${prefix}~` : `${base}.`)
      : query.where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', `${prefix}%`)]));
  const rows = await query.execute();
  return rows.map((r) => r.slug).filter((slug) => slug === base || slug.startsWith(prefix));
}

/** Throws precondition_failed when the client expects another version of the record than `current`. */
export function checkExpected(expected: ExpectedVersion | undefined, kind: RecordKind, current: { id: number; version: number }): void {
  if (expected && !expected.admits(current.id, current.version)) throw errors.preconditionFailed(kind);
}
