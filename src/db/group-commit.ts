import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from './schema.js';

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
//    before it, as it would have one transaction later.
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

export class GroupCommit {
  private queue: Job[] = [];
  private scheduled = false;

  constructor(private readonly kysely: Kysely<DB>) {}

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
    try {
      const outcomes = await this.commitGroup(group);
      group.forEach((job, i) => {
        const outcome = outcomes[i];
        if (outcome?.ok) job.resolve(outcome.value);
        else job.reject(outcome?.error);
      });
    } catch (error) {
      // The group's transaction failed as a whole (its COMMIT, or SQLite rolled it back): nothing
      // of it is stored. A caller that had failed on its own still gets its own error.
      for (const job of group) job.reject(error);
    } finally {
      this.scheduled = false;
      this.schedule();
    }
  }

  private commitGroup(group: Job[]): Promise<Outcome[]> {
    const only = group.length === 1 ? group[0] : undefined;
    if (only) {
      // Alone: a plain transaction, as without grouping.
      return this.kysely
        .transaction()
        .execute(async (trx) => ({ ok: true as const, value: await only.fn(trx) }))
        .then(
          (outcome) => [outcome],
          (error: unknown) => [{ ok: false as const, error }],
        );
    }
    return this.kysely.transaction().execute(async (trx) => {
      const outcomes: Outcome[] = [];
      for (const job of group) {
        await sql`savepoint lf_write`.execute(trx);
        try {
          const value = await job.fn(trx);
          await sql`release lf_write`.execute(trx);
          outcomes.push({ ok: true, value });
        } catch (error) {
          // If SQLite already rolled the whole transaction back (an I/O error, a full disk), this
          // throws too, and the group fails as a whole.
          await sql`rollback to lf_write`.execute(trx);
          await sql`release lf_write`.execute(trx);
          outcomes.push({ ok: false, error });
        }
      }
      return outcomes;
    });
  }
}
