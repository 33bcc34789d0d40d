import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from './schema.js';
import { databaseErrorCode } from './errors.js';

// Group commit for SQLite. Every commit of a write transaction costs a WAL append and an fsync
// (synchronous=FULL) that block the event loop, and an index change of one thing dirties dozens of
// pages: committed one request at a time, the commit was half of a write's cost. Here the write
// transactions that are waiting together run one after another inside ONE database transaction,
// each in its own savepoint, and are committed together: one fsync, and pages several of them touch
// (the campaign row, the search vocabulary) are written once.
//
// What each caller sees is exactly what its own transaction would give:
//  - its writes are rolled back alone when it throws (ROLLBACK TO its savepoint), and the others'
//    are kept;
//  - it is answered only after the COMMIT that makes its writes durable; if that COMMIT fails,
//    every caller of the group gets the error and nothing of the group is stored;
//  - the group runs serially on SQLite's single connection, so each sees the writes of those
//    before it, as it would have one transaction later;
//  - if the whole group fails, a write that had failed on its own still gets its own error, the
//    others the error that failed the group (not a later one it caused);
//  - if another process holds the database (SQLITE_BUSY after busy_timeout), that write fails and
//    the ones after it go back to the queue, so the event loop turns before they wait in turn.
//
// Grouping costs no waiting when there is nothing to group: a write queued alone starts at the
// next turn of the event loop (setImmediate), after the I/O callbacks of that turn, so the writes
// that arrived in the same turn go together. Under load that is many; alone, it is one.

/** At most this many writes per commit: a group blocks the event loop while it runs. */
export const MAX_GROUP = 32;

interface Job {
  fn: (trx: Transaction<DB>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Another process holds SQLite's write lock (after busy_timeout): stop the group, retry the rest later. */
function isBusy(error: unknown): boolean {
  return databaseErrorCode(error)?.startsWith('SQLITE_BUSY') === true;
}

class TransactionLost extends Error {
  constructor() {
    super('SQLite rolled the write transaction back under a write that went on (a database error was swallowed)');
  }
}

export class GroupCommit {
  private queue: Job[] = [];
  private scheduled = false;

  /** `inTransaction` tells whether the connection is still inside the group's transaction. */
  constructor(
    private readonly kysely: Kysely<DB>,
    private readonly inTransaction: () => boolean,
  ) {}

  /** Runs `fn` in a write transaction of its own, committed with whatever writes wait beside it. */
  run<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    const group = this.queue.splice(0, MAX_GROUP);
    // Filled as the jobs run: on a failure of the whole group, a job that had failed on its own
    // still gets its own error (its 404, 409 or 412), the others the group's.
    const outcomes: Outcome[] = [];
    try {
      await this.commitGroup(group, outcomes);
      const notRun: Job[] = [];
      group.forEach((job, i) => {
        const outcome = outcomes[i];
        if (outcome === undefined) notRun.push(job);
        else if (outcome.ok) job.resolve(outcome.value);
        else job.reject(outcome.error);
      });
      this.queue.unshift(...notRun);
    } catch (error) {
      // The group's transaction failed as a whole (its COMMIT, or SQLite rolled it back): nothing
      // of it is stored.
      group.forEach((job, i) => {
        const outcome = outcomes[i];
        job.reject(outcome && !outcome.ok ? outcome.error : error);
      });
    } finally {
      this.scheduled = false;
      this.schedule();
    }
  }

  /**
   * Runs the jobs of `group` in one transaction and commits it, recording each job's outcome.
   * Jobs after one that found the database busy get no outcome: they go back to the queue.
   * Throws the error that failed the group as a whole, never a later one it caused.
   */
  private async commitGroup(group: Job[], outcomes: Outcome[]): Promise<void> {
    const trx = await this.kysely.startTransaction().execute();
    try {
      const alone = group.length === 1;
      for (const job of group) {
        // Alone: a plain transaction, as without grouping; no savepoint needed.
        if (!alone) await sql`savepoint lf_write`.execute(trx);
        let outcome: Outcome;
        try {
          outcome = { ok: true, value: await job.fn(trx) };
        } catch (error) {
          outcome = { ok: false, error };
        }
        // SQLite can roll the whole transaction back under a statement (a full disk, an I/O
        // error); a job that caught that error and went on wrote outside any transaction.
        if (!this.inTransaction()) {
          outcomes.push(outcome.ok ? { ok: false, error: new TransactionLost() } : outcome);
          throw outcome.ok ? new TransactionLost() : outcome.error;
        }
        outcomes.push(outcome);
        if (alone) {
          if (!outcome.ok) {
            await trx.rollback().execute();
            return;
          }
        } else {
          if (!outcome.ok) await sql`rollback to lf_write`.execute(trx);
          await sql`release lf_write`.execute(trx);
          if (!outcome.ok && isBusy(outcome.error)) break;
        }
      }
      await trx.commit().execute();
    } catch (error) {
      // Always: Kysely releases the connection on rollback, even when SQLite has no transaction
      // left to roll back (a failed COMMIT does not release it). The error that failed the group
      // is the one to report, not what the rollback may say.
      await trx.rollback().execute().catch(() => undefined);
      throw error;
    }
  }
}
