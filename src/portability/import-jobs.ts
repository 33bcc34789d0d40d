// Import jobs (CONTRACT "Import from elsewhere" › "Dry run and jobs"). An import sent with
// `Prefer: respond-async` runs in the background on the instance that received it; its row in
// `import_jobs` tells any instance how far it is. While a job runs here, its row is touched: the
// progress at most every PROGRESS_WRITE_MS (never a statement per note), the heartbeat at least every
// few seconds. A job whose instance died stops being touched; once its heartbeat is older than
// IMPORT_JOB_STALE_MS it is failed (when asked about, at start-up and by the sweepers), and since an
// import writes its campaign in one transaction, nothing of it remains.
import { randomBytes } from 'node:crypto';
import type { Database } from '../db/database.js';
import { eraseImportJobs, failStaleImportJobs, finishImportJob, touchImportJob } from '../db/repositories/import-jobs.js';
import { errorCatalogue, errors } from '../domain/errors.js';
import { addMs, nowIso } from '../domain/time.js';
import type { ImportBudget } from './budget.js';

/** An Idempotency-Key answers the first import's result for this long (then it may be used again). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;
/** Finished jobs are erased this long after they were created. */
export const IMPORT_JOB_RETENTION_MS = 48 * 3_600_000;
/** The progress is written at most this often. */
export const PROGRESS_WRITE_MS = 500;

/** A new job id: 144 random bits, URL-safe (24 characters). */
export function newImportJobId(): string {
  return randomBytes(18).toString('base64url');
}

/** The problem document of a job whose instance stopped before it ended (RFC 9457, as the API answers it). */
export function interruptedProblem() {
  const error = errors.importInterrupted();
  const { status, title } = errorCatalogue[error.code];
  return { type: 'about:blank', title, status, detail: error.message, code: error.code };
}

/** Fails every stale job (its instance died) and erases finished ones past IMPORT_JOB_RETENTION_MS; the counts. */
export async function sweepImportJobs(database: Database, staleMs: number, now = new Date()): Promise<{ failed: number; erased: number }> {
  const at = now.toISOString();
  const failed = await failStaleImportJobs(database.kysely, addMs(at, -staleMs), JSON.stringify(interruptedProblem()), at);
  const erased = await eraseImportJobs(database.kysely, addMs(at, -IMPORT_JOB_RETENTION_MS));
  return { failed, erased };
}

/** How a job ended, as stored. */
export type JobResult = { status: 'done'; campaignId: number; report: unknown } | { status: 'failed'; error: unknown };

interface Logger {
  warn(object: unknown, message: string): void;
}

export class ImportJobRunner {
  /** This process, in the rows of the jobs it runs. */
  readonly instanceId = randomBytes(8).toString('hex');
  private readonly running = new Map<string, { stop: AbortController; finished: Promise<unknown> }>();

  constructor(
    private readonly database: Database,
    /** IMPORT_JOB_STALE_MS. */
    readonly staleMs: number,
    private readonly log: Logger,
  ) {}

  /** Whether job `id` runs in this process (then it is alive, whatever its heartbeat says). */
  runsHere(id: string): boolean {
    return this.running.has(id);
  }

  /** How often a running job's row is touched even when its progress did not move. */
  get heartbeatMs(): number {
    return Math.max(PROGRESS_WRITE_MS, Math.min(5_000, Math.floor(this.staleMs / 3)));
  }

  /**
   * Runs `work` as job `id`: touches its row while it runs (status running, progress, heartbeat),
   * then records how it ended (`done` with `describe(result)`, or `failed` with `failure(error)`).
   * Returns or throws what `work` does. `stop` aborts when this instance closes. `settled` is called
   * once `work` has ended, before the end is recorded: whoever reads `done` may import again at once.
   */
  async run<T>(
    id: string,
    budget: ImportBudget,
    stop: AbortController,
    work: () => Promise<T>,
    describe: (result: T) => JobResult & { status: 'done' },
    failure: (error: unknown) => unknown,
    settled: () => void = () => {},
  ): Promise<T> {
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    this.running.set(id, { stop, finished });
    let written = { done: -1, total: -1, at: 0 };
    let writing: Promise<void> | undefined;
    const touch = () => {
      if (writing) return;
      const { done, total } = budget.progress;
      const now = Date.now();
      if (done === written.done && total === written.total && now - written.at < this.heartbeatMs) return;
      written = { done, total, at: now };
      writing = touchImportJob(this.database.kysely, id, { status: 'running', done, total, now: new Date(now).toISOString() })
        .catch((error: unknown) => this.log.warn({ err: error, job: id }, 'an import job could not be touched'))
        .finally(() => (writing = undefined));
    };
    touch();
    const timer = setInterval(touch, PROGRESS_WRITE_MS);
    try {
      let result: T;
      try {
        result = await work();
      } finally {
        clearInterval(timer);
        settled();
      }
      const outcome = describe(result);
      await writing;
      await this.record(id, budget, outcome);
      return result;
    } catch (error) {
      await writing;
      await this.record(id, budget, { status: 'failed', error: failure(error) });
      throw error;
    } finally {
      clearInterval(timer);
      this.running.delete(id);
      finish();
    }
  }

  private async record(id: string, budget: ImportBudget, outcome: JobResult): Promise<void> {
    const { done, total } = budget.progress;
    try {
      await finishImportJob(this.database.kysely, id, {
        status: outcome.status,
        campaignId: outcome.status === 'done' ? outcome.campaignId : null,
        report: outcome.status === 'done' ? JSON.stringify(outcome.report) : null,
        error: outcome.status === 'failed' ? JSON.stringify(outcome.error) : null,
        // A job that ended well ends with its count complete.
        done: outcome.status === 'done' ? total : done,
        total,
        now: nowIso(),
      });
    } catch (error) {
      // Left unfinished, it is failed as stale once this instance stops touching it.
      this.log.warn({ err: error, job: id }, 'the end of an import job could not be recorded');
    }
  }

  /** Fails job `id` if it is unfinished and stale (its instance died); true when it did. */
  async failIfStale(id: string): Promise<boolean> {
    if (this.runsHere(id)) return false;
    const now = nowIso();
    return (await failStaleImportJobs(this.database.kysely, addMs(now, -this.staleMs), JSON.stringify(interruptedProblem()), now, id)) > 0;
  }

  /** Stops every job running here (the instance closes) and waits until each has recorded its end. */
  async close(): Promise<void> {
    const jobs = [...this.running.values()];
    for (const job of jobs) job.stop.abort();
    await Promise.all(jobs.map((job) => job.finished));
  }
}
