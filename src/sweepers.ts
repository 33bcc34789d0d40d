import type { Database } from './db/database.js';
import { pruneTombstones } from './db/repositories/changes.js';
import { sweepExpired } from './db/repositories/housekeeping.js';
import type { AppInstance } from './http/app-types.js';
import type { ImageHost } from './images/image-host.js';
import { sweepUploads } from './images/uploads.js';
import { revisionThinner } from './history/thinning.js';
import { sweepImportSpools } from './portability/import.js';
import { sweepTrash } from './history/trash-sweeper.js';
import { sweepUnfinishedImports } from './portability/write-plan.js';
import { SearchIndexer } from './db/indexes/search-queue.js';

// Background work every instance does on a timer, started when the app is ready and stopped when it
// closes: nothing here holds state another instance would need.

const SWEEP_INTERVAL_MS = 10 * 60_000;
const UPLOAD_SWEEP_INTERVAL_MS = 5 * 60_000;
/** Staged images and spooled imports older than this are a crash's leftovers: nothing will use them. */
export const STAGED_MAX_AGE_MS = 24 * 3_600_000;

export function registerSweepers(app: AppInstance, database: Database, imageHost: ImageHost): void {
  const { config } = app;
  // Records queued for search indexing by the writes (db/indexes/search-queue.ts): indexed shortly
  // after each commit, and at start-up, before the first request, what a crash or a stop left.
  const indexer = new SearchIndexer(database, config.searchIndexDelayMs, (error) => app.log.warn({ err: error }, 'search indexing failed'));
  const wake = () => indexer.wake();
  app.addHook('onReady', async () => {
    database.onCommit = wake;
    await indexer.start();
  });
  // Before the database closes (onClose): no pass starts after this, the running one finishes.
  app.addHook('preClose', async () => {
    if (database.onCommit === wake) database.onCommit = undefined;
    await indexer.close();
  });
  // Expired sessions and finished rate-limit windows would otherwise pile up forever.
  const longestWindowMs = Math.max(3_600_000, config.loginWindowMinutes * 60_000);
  let sweeper: NodeJS.Timeout | undefined;
  // Unnamed revisions past 30 days thin to one a day, past 90 to one a week; a bounded batch per run.
  const thinner = revisionThinner(database);
  let thinning = false;
  // Import jobs whose instance died (a crash, a kill) are failed, at start-up and then with every
  // sweep (never one this instance holds, whatever its heartbeat); finished jobs are erased after
  // IMPORT_JOB_RETENTION_MS (48 hours).
  const importJobs = () => app.importJobs.sweep().catch((error: unknown) => app.log.warn({ err: error }, 'import job sweep failed'));
  app.addHook('onReady', () => {
    void importJobs();
    sweeper = setInterval(() => {
      if (!thinning) {
        thinning = true;
        thinner
          .run(new Date())
          .catch((error: unknown) => app.log.warn({ err: error }, 'revision thinning failed'))
          .finally(() => (thinning = false));
      }
      void importJobs();
      sweepExpired(database.kysely, new Date(), longestWindowMs).catch((error: unknown) => app.log.warn({ err: error }, 'sweep failed'));
      // Deletions older than the feed keeps: a cursor from before them is then 410 cursor_expired.
      const cutoff = new Date(Date.now() - config.changesRetentionDays * 86_400_000).toISOString();
      database
        .write((trx) => pruneTombstones(trx, database.dialect, cutoff))
        .catch((error: unknown) => app.log.warn({ err: error }, 'changes feed sweep failed'));
    }, SWEEP_INTERVAL_MS);
    sweeper.unref();
  });
  app.addHook('onClose', () => clearInterval(sweeper));

  // Upload grants never confirmed expire and their bytes go; image removals that failed are retried;
  // a crash's leftovers of uploads and imports (staged bytes, spooled files) go after a day.
  let uploadSweeper: NodeJS.Timeout | undefined;
  let uploadSweepRunning = false;
  app.addHook('onReady', async () => {
    // At start-up too (before the app is ready, so it never overlaps a request): an instance that
    // died mid-import left a campaign nobody can see.
    await sweepUnfinishedImports(database, imageHost).catch((error: unknown) => app.log.warn({ err: error }, 'unfinished import sweep failed'));
    uploadSweeper = setInterval(() => {
      if (uploadSweepRunning) return;
      uploadSweepRunning = true;
      const now = new Date();
      const staleBefore = new Date(now.getTime() - STAGED_MAX_AGE_MS);
      sweepUploads(database, imageHost, now, app.log)
        .catch((error: unknown) => app.log.warn({ err: error }, 'upload sweep failed'))
        .then(() => imageHost.sweepStaged(staleBefore))
        .catch((error: unknown) => app.log.warn({ err: error }, 'staged image sweep failed'))
        .then(() => sweepImportSpools(staleBefore))
        .catch((error: unknown) => app.log.warn({ err: error }, 'import spool sweep failed'))
        // Campaigns an import was writing when its process died, and their images.
        .then(() => sweepUnfinishedImports(database, imageHost, now))
        .catch((error: unknown) => app.log.warn({ err: error }, 'unfinished import sweep failed'))
        // What has been in the trash longer than TRASH_RETENTION_DAYS is erased, stored images included.
        .then(() => sweepTrash(database, imageHost, new Date(now.getTime() - config.trashRetentionDays * 86_400_000), app.log))
        .catch((error: unknown) => app.log.warn({ err: error }, 'trash sweep failed'))
        .finally(() => (uploadSweepRunning = false));
    }, UPLOAD_SWEEP_INTERVAL_MS);
    uploadSweeper.unref();
  });
  app.addHook('onClose', () => clearInterval(uploadSweeper));
}
