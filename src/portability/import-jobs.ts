// Import jobs (CONTRACT "Import from elsewhere" › "Dry run and jobs"). An import sent with
// `Prefer: respond-async` runs in the background on the instance that received it; its row in
// `import_jobs` tells any instance how far it is. From the row's insertion (while the upload is still
// received) until its end is recorded, the job is held by its instance: its row is touched, the
// progress at most every PROGRESS_WRITE_MS (never a statement per note), the heartbeat at least every
// few seconds, and that instance never takes it for dead. A job whose instance died stops being
// touched; once its heartbeat is older than IMPORT_JOB_STALE_MS it is failed (when asked about, at
// start-up and by the sweepers), and since an import writes its campaign invisibly until its last
// transaction, nothing of it remains. Its end is recorded only while it is unfinished: a job failed
// meanwhile stays failed, and the campaign it did create is erased.
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/database.js';
import { queueCampaignImageRemovals } from '../db/repositories/assets.js';
import { deleteCampaignChanges } from '../db/repositories/changes.js';
import { eraseImportJobs, failStaleImportJobs, findLiveImportJob, finishImportJob, touchImportJob } from '../db/repositories/import-jobs.js';
import { deleteCampaignRecord } from '../db/repositories/users.js';
import { errorCatalogue, errors } from '../domain/errors.js';
import type { ImageHost } from '../images/image-host.js';
import { removeQueuedImages } from '../images/uploads.js';
import { addMs, nowIso } from '../domain/time.js';
import type { ImportBudget } from './budget.js';

/** An Idempotency-Key answers the first import's result for this long (then it may be used again). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;
/** Finished jobs are erased this long after they were created. */
export const IMPORT_JOB_RETENTION_MS = 48 * 3_600_000;
/** The progress is written at most this often. */
export const PROGRESS_WRITE_MS = 500;

/** A new job id: 144 random bits, URL-safe (24 characters). */
/** What a job id looks like (newImportJobId: 18 random bytes, base64url): anything else names no job. */
export const IMPORT_JOB_ID = /^[A-Za-z0-9_-]{24}$/;

export function newImportJobId(): string {
  return randomBytes(18).toString('base64url');
}

/** The problem document of a job whose instance stopped before it ended (RFC 9457, as the API answers it). */
export function interruptedProblem() {
  const error = errors.importInterrupted();
  const { status, title } = errorCatalogue[error.code];
  return { type: 'about:blank', title, status, detail: error.message, code: error.code };
}

/**
 * Fails every stale job (its instance died) but those in `alive` (they run on the calling instance,
 * whatever their heartbeat says) and erases finished ones past IMPORT_JOB_RETENTION_MS; the counts.
 */
export async function sweepImportJobs(database: Database, staleMs: number, now = new Date(), alive: readonly string[] = []): Promise<{ failed: number; erased: number }> {
  const at = now.toISOString();
  const failed = await failStaleImportJobs(database.kysely, addMs(at, -staleMs), JSON.stringify(interruptedProblem()), at, { except: alive });
  const erased = await eraseImportJobs(database.kysely, addMs(at, -IMPORT_JOB_RETENTION_MS));
  return { failed, erased };
}

/** How a job ended, as stored. */
export type JobResult = { status: 'done'; campaignId: number; report: unknown } | { status: 'failed'; error: unknown };

/** A job of this instance, from its row's insertion until its end is recorded. */
interface HeldJob {
  stop: AbortController;
  finished: Promise<void>;
  finish: () => void;
  timer: NodeJS.Timeout;
  /** Set once the import runs: its progress is written, and the status `running`. */
  budget?: ImportBudget;
  writing?: Promise<void> | undefined;
  written: { done: number; total: number; at: number };
}

export class ImportJobRunner {
  /** This process, in the rows of the jobs it runs. */
  readonly instanceId = randomBytes(8).toString('hex');
  private readonly jobs = new Map<string, HeldJob>();

  constructor(
    private readonly database: Database,
    private readonly imageHost: ImageHost,
    /** IMPORT_JOB_STALE_MS. */
    readonly staleMs: number,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Whether job `id` runs in this process (then it is alive, whatever its heartbeat says). */
  runsHere(id: string): boolean {
    return this.jobs.has(id);
  }

  /**
   * How often a held job's row is touched even when its progress did not move: checked every
   * tickMs, so two heartbeats are at most twice this apart, half of IMPORT_JOB_STALE_MS.
   */
  get heartbeatMs(): number {
    return Math.min(5_000, Math.floor(this.staleMs / 4));
  }

  private get tickMs(): number {
    return Math.min(PROGRESS_WRITE_MS, this.heartbeatMs);
  }

  /**
   * Job `id`, whose row was just inserted, belongs to this process from now on: runsHere says so and
   * its heartbeat is renewed (while its upload is received too) until `run` has recorded its end or
   * `drop` lets it go. `stop` aborts when this instance closes.
   */
  hold(id: string, stop: AbortController): void {
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    // Inserted just now: the first heartbeat is due in heartbeatMs.
    const job: HeldJob = { stop, finished, finish, timer: setInterval(() => this.touch(id, job), this.tickMs), written: { done: 0, total: 0, at: Date.now() } };
    this.jobs.set(id, job);
  }

  /** Lets go of a held job that never ran (its upload failed; the caller deletes its row). */
  async drop(id: string): Promise<void> {
    const job = this.jobs.get(id);
    if (!job) return;
    clearInterval(job.timer);
    await job.writing;
    this.jobs.delete(id);
    job.finish();
  }

  private touch(id: string, job: HeldJob): void {
    if (job.writing) return;
    const { done, total } = job.budget?.progress ?? { done: 0, total: 0 };
    const now = Date.now();
    if (done === job.written.done && total === job.written.total && now - job.written.at < this.heartbeatMs) return;
    job.written = { done, total, at: now };
    job.writing = touchImportJob(this.database.kysely, id, { ...(job.budget ? { status: 'running' as const } : {}), done, total, now: new Date(now).toISOString() })
      .catch((error: unknown) => this.log.warn({ err: error, job: id }, 'an import job could not be touched'))
      .finally(() => (job.writing = undefined));
  }

  /**
   * Runs `work` as job `id` (held since its row was inserted; held now if not): touches its row
   * while it runs (status running, progress, heartbeat), then records how it ended (`done` with
   * `describe(result)`, or `failed` with `failure(error)`). Returns or throws what `work` does.
   * `settled` is called once `work` has ended, before the end is recorded: whoever reads `done` may
   * import again at once. A job found already failed when its end is recorded (another instance
   * took this one for dead) keeps its `failed`: the campaign the import created is erased and
   * this throws 503 service_unavailable, so `failed` always means that nothing was created.
   */
  async run<T>(
    id: string,
    budget: ImportBudget,
    work: () => Promise<T>,
    describe: (result: T) => JobResult & { status: 'done' },
    failure: (error: unknown) => unknown,
    settled: () => void = () => {},
  ): Promise<T> {
    if (!this.jobs.has(id)) this.hold(id, new AbortController());
    const job = this.jobs.get(id)!;
    job.budget = budget;
    // Running from now on: the next tick writes it so.
    job.written = { done: -1, total: -1, at: 0 };
    this.touch(id, job);
    try {
      let result: T;
      let outcome: JobResult & { status: 'done' };
      try {
        try {
          result = await work();
        } finally {
          clearInterval(job.timer);
          settled();
        }
        outcome = describe(result);
      } catch (error) {
        await job.writing;
        await this.record(id, budget, { status: 'failed', error: failure(error) });
        throw error;
      }
      await job.writing;
      if ((await this.record(id, budget, outcome)) === 'taken') {
        await this.erase(id, outcome.campaignId);
        throw errors.importInterrupted();
      }
      return result;
    } finally {
      clearInterval(job.timer);
      this.jobs.delete(id);
      job.finish();
    }
  }

  /** Records the end; 'taken' when the job had been failed meanwhile (nothing recorded). */
  private async record(id: string, budget: ImportBudget, outcome: JobResult): Promise<'recorded' | 'taken' | 'unknown'> {
    const { done, total } = budget.progress;
    try {
      const recorded = await finishImportJob(this.database.kysely, id, {
        status: outcome.status,
        campaignId: outcome.status === 'done' ? outcome.campaignId : null,
        report: outcome.status === 'done' ? JSON.stringify(outcome.report) : null,
        error: outcome.status === 'failed' ? JSON.stringify(outcome.error) : null,
        // A job that ended well ends with its count complete.
        done: outcome.status === 'done' ? total : done,
        total,
        now: nowIso(),
      });
      return recorded ? 'recorded' : 'taken';
    } catch (error) {
      // Left unfinished, it is failed as stale once this instance stops touching it.
      this.log.warn({ err: error, job: id }, 'the end of an import job could not be recorded');
      return 'unknown';
    }
  }

  /** Erases the campaign of a job that was failed while it ran (trash-free: it was never the user's to keep), and its images. */
  private async erase(id: string, campaignId: number): Promise<void> {
    try {
      const removals = await this.database.write(async (trx) => {
        const queued = await queueCampaignImageRemovals(trx, campaignId, nowIso());
        await deleteCampaignRecord(trx, campaignId);
        await deleteCampaignChanges(trx, campaignId);
        return queued;
      });
      await removeQueuedImages(this.database, this.imageHost, removals, this.log);
    } catch (error) {
      this.log.error({ err: error, job: id, campaign: campaignId }, 'the campaign of an import job failed meanwhile could not be erased');
    }
  }

  /** Fails job `id` if it is unfinished and stale (its instance died); true when it did. Never a job of this process. */
  async failIfStale(id: string): Promise<boolean> {
    if (this.runsHere(id)) return false;
    const now = nowIso();
    return (await failStaleImportJobs(this.database.kysely, addMs(now, -this.staleMs), JSON.stringify(interruptedProblem()), now, { id })) > 0;
  }

  /** Whether the user has a job alive on another instance (unfinished, its heartbeat within IMPORT_JOB_STALE_MS). */
  async busyElsewhere(userId: string): Promise<boolean> {
    return (await findLiveImportJob(this.database.kysely, userId, addMs(nowIso(), -this.staleMs), [...this.jobs.keys()])) !== undefined;
  }

  /** The sweep (sweepImportJobs) as this instance makes it: never failing a job of its own. */
  sweep(now = new Date()): Promise<{ failed: number; erased: number }> {
    return sweepImportJobs(this.database, this.staleMs, now, [...this.jobs.keys()]);
  }

  /**
   * Stops every job of this process (the instance closes) and waits until each running one has
   * recorded its end; a held upload stops being touched (failed as stale later if it is never run).
   */
  async close(): Promise<void> {
    const jobs = [...this.jobs.values()];
    for (const job of jobs) {
      job.stop.abort();
      if (job.budget === undefined) clearInterval(job.timer);
    }
    await Promise.all(jobs.filter((job) => job.budget !== undefined).map((job) => job.finished));
  }
}
