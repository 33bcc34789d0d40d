// The thinning of unnamed revisions (CONTRACT "# Phase 3" › "History and trash"), run by every
// instance on the sweepers' timer (sweepers.ts). Each run goes on from where the last one stopped,
// a batch at a time, so its work is bounded however large the table; once through the table it
// starts again from the beginning. Instances sweeping at once only erase the same rows twice.
import type { Database } from '../db/database.js';
import { thinRevisions } from '../db/repositories/revisions.js';

/** Revisions looked at per statement pair. */
export const THINNING_BATCH = 500;
/** Batches per run: at most 2 × this many statements each run. */
export const THINNING_BATCHES_PER_RUN = 20;

export interface RevisionThinner {
  /** One run from where the last stopped; returns how many revisions it erased. */
  run(now: Date): Promise<number>;
}

export function revisionThinner(database: Database, options: { batch?: number; batchesPerRun?: number } = {}): RevisionThinner {
  const batch = options.batch ?? THINNING_BATCH;
  const batchesPerRun = options.batchesPerRun ?? THINNING_BATCHES_PER_RUN;
  let after = 0;
  return {
    async run(now) {
      let erased = 0;
      for (let i = 0; i < batchesPerRun; i++) {
        const pass = await thinRevisions(database, { now, after, batch });
        erased += pass.erased;
        after = pass.next;
        if (after === 0) break;
      }
      return erased;
    },
  };
}
