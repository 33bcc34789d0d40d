import type { Db } from '../database.js';
import type { CampaignRow, ImportJobRow, ImportJobsTable, Role } from '../schema.js';

// Import jobs (migrations/2026-11-24-0020-import-jobs.ts). Single statements, each its own
// transaction: a job's row is written by its runner alone, and a stale one is failed by a
// conditional update that loses nothing if the runner touched it meanwhile.

export type ImportJobStatus = ImportJobsTable['status'];

const UNFINISHED: ImportJobStatus[] = ['queued', 'running'];

export interface NewImportJob {
  id: string;
  userId: string;
  status: 'queued' | 'running';
  idempotencyKey: string | null;
  instanceId: string;
  now: string;
}

/** Inserts the job; a key the user already has fails the unique index (classifyDatabaseError: 'unique'). */
export async function insertImportJob(db: Db, job: NewImportJob): Promise<void> {
  await db
    .insertInto('import_jobs')
    .values({
      id: job.id,
      user_id: job.userId,
      status: job.status,
      progress_done: 0,
      progress_total: 0,
      campaign_id: null,
      report: null,
      error: null,
      idempotency_key: job.idempotencyKey,
      instance_id: job.instanceId,
      heartbeat_at: job.now,
      created_at: job.now,
      updated_at: job.now,
    })
    .execute();
}

/** The user's job by its id (another user's is undefined, as one that does not exist). */
export function findImportJob(db: Db, userId: string, id: string): Promise<ImportJobRow | undefined> {
  return db.selectFrom('import_jobs').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
}

/** The user's job of this Idempotency-Key, if any. */
export function findImportJobByKey(db: Db, userId: string, key: string): Promise<ImportJobRow | undefined> {
  return db.selectFrom('import_jobs').selectAll().where('user_id', '=', userId).where('idempotency_key', '=', key).executeTakeFirst();
}

/** The id of an unfinished job of the user touched at `heartbeatFrom` or later (alive), but those in `except`; undefined if none. */
export async function findLiveImportJob(db: Db, userId: string, heartbeatFrom: string, except: readonly string[]): Promise<string | undefined> {
  let query = db.selectFrom('import_jobs').select('id').where('user_id', '=', userId).where('status', 'in', UNFINISHED).where('heartbeat_at', '>=', heartbeatFrom);
  if (except.length > 0) query = query.where('id', 'not in', except);
  return (await query.limit(1).executeTakeFirst())?.id;
}

/** Removes the user's job of this key when a new import may take the key: it failed, or was created before `before`. */
export async function releaseImportKey(db: Db, userId: string, key: string, before: string): Promise<void> {
  await db
    .deleteFrom('import_jobs')
    .where('user_id', '=', userId)
    .where('idempotency_key', '=', key)
    .where((eb) => eb.or([eb('status', '=', 'failed'), eb('created_at', '<', before)]))
    .execute();
}

export async function deleteImportJob(db: Db, id: string): Promise<void> {
  await db.deleteFrom('import_jobs').where('id', '=', id).execute();
}

/** The running job's heartbeat, status and progress; nothing when it has ended (or was failed as stale). */
export async function touchImportJob(db: Db, id: string, change: { status?: 'running'; done: number; total: number; now: string }): Promise<void> {
  await db
    .updateTable('import_jobs')
    .set({ ...(change.status ? { status: change.status } : {}), progress_done: change.done, progress_total: change.total, heartbeat_at: change.now, updated_at: change.now })
    .where('id', '=', id)
    .where('status', 'in', UNFINISHED)
    .execute();
}

export interface JobOutcome {
  status: 'done' | 'failed';
  campaignId: number | null;
  /** JSON text. */
  report: string | null;
  /** JSON text. */
  error: string | null;
  done: number;
  total: number;
  now: string;
}

/**
 * Records how the job ended, only while it is unfinished; false when it was not (it was failed
 * meanwhile, its instance taken for dead): then nothing is written.
 */
export async function finishImportJob(db: Db, id: string, outcome: JobOutcome): Promise<boolean> {
  const result = await db
    .updateTable('import_jobs')
    .set({
      status: outcome.status,
      campaign_id: outcome.campaignId,
      report: outcome.report,
      error: outcome.error,
      progress_done: outcome.done,
      progress_total: outcome.total,
      heartbeat_at: outcome.now,
      updated_at: outcome.now,
    })
    .where('id', '=', id)
    .where('status', 'in', UNFINISHED)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Fails every unfinished job (or only job `which.id`; never those in `which.except`) whose heartbeat
 * is older than `staleBefore`: its instance died. Returns how many. Conditional, so a job whose
 * runner is alive keeps its state.
 */
export async function failStaleImportJobs(db: Db, staleBefore: string, error: string, now: string, which: { id?: string; except?: readonly string[] } = {}): Promise<number> {
  let query = db
    .updateTable('import_jobs')
    .set({ status: 'failed', error, updated_at: now })
    .where('status', 'in', UNFINISHED)
    .where('heartbeat_at', '<', staleBefore);
  if (which.id !== undefined) query = query.where('id', '=', which.id);
  if (which.except !== undefined && which.except.length > 0) query = query.where('id', 'not in', which.except);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Erases jobs created before `before`; returns how many. */
export async function eraseImportJobs(db: Db, before: string): Promise<number> {
  const result = await db.deleteFrom('import_jobs').where('created_at', '<', before).where('status', 'not in', UNFINISHED).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The campaign a job created, with the user's role in it, while it exists outside the trash and the user is a member. */
export async function findJobCampaign(db: Db, campaignId: number, userId: string): Promise<(CampaignRow & { role: Role }) | undefined> {
  return db
    .selectFrom('campaign_members as m')
    .innerJoin('campaigns', 'campaigns.id', 'm.campaign_id')
    .selectAll('campaigns')
    .select('m.role')
    .where('m.campaign_id', '=', campaignId)
    .where('m.user_id', '=', userId)
    .where('campaigns.deleted_at', 'is', null)
    .executeTakeFirst();
}
