import type pg from 'pg';

// A PostgreSQL write transaction's BEGIN and COMMIT go out with its statements, not on round
// trips of their own (issue 28: "batch the statements of a write into as few round trips as the
// driver allows"). A save of a thing was seven round trips, BEGIN and COMMIT among them; each
// costs both processes CPU (a write to the socket, a wake-up, a read), about a tenth of a save's
// (docs/performance.md, "PostgreSQL writes: BEGIN and COMMIT sent with the statements").
//
// The pool's clients run in node-postgres's pipeline mode: a statement is written to the socket
// when it is asked for, not after the answer to the one before. Kysely still sends one statement
// at a time on a connection and waits for its answer, so nothing changes but what this does:
//  - BEGIN is held until the transaction's first statement and written with it, in one write.
//    A transaction that sends no statement sends nothing. BEGIN fails only with its connection
//    (PostgreSQL answers a BEGIN inside a transaction with a warning, not an error), so the first
//    statement never runs outside a transaction; if BEGIN ever failed alone, its error is what the
//    transaction throws.
//  - A statement whose text starts with COMMIT_FOLLOWS is written with the COMMIT after it: the
//    last statement of a request's campaign write (repositories/common.ts markCampaignWrite),
//    which raises an error rather than answer "do not commit" (the campaign went to the trash),
//    so that a COMMIT after it commits only what should be. When Kysely then asks for the
//    COMMIT, it gets that COMMIT's answer; PostgreSQL ends a transaction whose statement failed
//    with a ROLLBACK, and asking to commit it then throws, as asking to commit after a failed
//    statement always did. A statement asked for after it throws, and sends nothing: it would run
//    outside the transaction. Asking to roll back after a COMMIT that committed throws too: the
//    caller must learn that its write is on disk. A statement that fails before it is written (a
//    value node-postgres cannot encode: it then sends only a Sync) is not followed by the COMMIT.
//    What is left: a connection lost while the statement and its COMMIT are on their way leaves
//    the outcome unknown to the caller, as a COMMIT lost on its way always did.
//  - A statement given a SentWithNext is held and written with the transaction's next statement
//    (a request write's opening: its lock and the caller's check), and a read given to a
//    statement as a FollowedBy is written right after it: see those classes.
export const COMMIT_FOLLOWS = '/* commit follows */ ';

/** An answer that comes later, with another statement's: settled by `follow`, never left unhandled. */
class LaterAnswer {
  readonly result: Promise<{ rows: unknown[] }>;
  private settle!: { resolve: (value: { rows: unknown[] }) => void; reject: (error: unknown) => void };

  constructor() {
    this.result = new Promise((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    // Not unhandled when nobody needs it (the record was not found; an answer only checked by SQL).
    this.result.catch(() => {});
  }

  /** Settles `result` with the answer to `sent`. */
  follow(sent: Promise<unknown>): void {
    sent.then((answer) => this.settle.resolve(answer as { rows: unknown[] }), this.settle.reject);
  }
}

/**
 * A read written right after the statement it is given to, in the same write to the socket: the
 * last of that statement's values (Kysely passes values through as they are; this module takes it
 * out before the statement is sent). For a read whose parameters do not depend on the answer to the
 * statement before it: a save reads its record's latest revisions by the record's slug right after
 * the statement that locks the record (repositories/things.ts), a round trip fewer. PostgreSQL runs
 * the two one after the other, so the read's snapshot is taken once the lock is held (READ
 * COMMITTED: a snapshot a statement), and sees every write committed before it.
 *
 * `result` settles with the read's rows, or with the error that failed it (the statement before it
 * failed, and the transaction with it); nobody need wait for it. prepared.ts may name it.
 */
export class FollowedBy extends LaterAnswer {
  name: string | undefined;

  constructor(
    readonly text: string,
    readonly values: readonly unknown[],
  ) {
    super();
  }
}

/**
 * Given as the last of a statement's values (and taken out before it is sent), holds the statement
 * to be written with the transaction's next one, in the same write to the socket: the statement is
 * answered at once with no rows, and `result` settles with its real answer. For the first statement
 * of a request's campaign write (repositories/common.ts holdCampaignWriteOpening), which takes the
 * campaign's write lock and checks the caller: a round trip fewer for every write.
 *
 * Only for a statement whose answer nobody needs: it must itself fail, in PostgreSQL, when what
 * follows it must not run (the caller may not write: migration 0036), so that PostgreSQL aborts the
 * transaction before the next statement runs, and a COMMIT after it rolls back. From then on every
 * statement of the transaction, and its COMMIT, fails with the held statement's error, not with
 * "current transaction is aborted". If the held statement fails before it is written (a value
 * node-postgres cannot encode), the next statement is not sent. A transaction that ends before any
 * other statement rolls back without it, or commits after it was written alone and answered.
 */
export class SentWithNext extends LaterAnswer {
  /** Whether the statement was written (set by the pipeline): until then, nothing has checked what it checks. */
  written = false;
}

/** The FollowedBy or SentWithNext among a statement's values (the last one), if any: the statement's values without it, and it. */
export function takeMarker(values: unknown): { values: unknown[]; marker: FollowedBy | SentWithNext } | undefined {
  if (!Array.isArray(values) || values.length === 0) return undefined;
  const last: unknown = values[values.length - 1];
  return last instanceof FollowedBy || last instanceof SentWithNext ? { values: values.slice(0, -1), marker: last } : undefined;
}

type Send = (...args: unknown[]) => unknown;
type State = 'idle' | 'begun' | 'open' | 'committing';

interface Answer {
  command?: string;
}

const answered = (command: string) => Promise.resolve({ command, rowCount: null, rows: [], fields: [] });

function textOf(args: readonly unknown[]): string | undefined {
  const [first] = args;
  if (typeof first === 'string') return first;
  return typeof (first as { text?: unknown } | null)?.text === 'string' ? (first as { text: string }).text : undefined;
}

/** Whether `args` is Kysely's own BEGIN, COMMIT or ROLLBACK: the bare word, with no parameters. */
function control(args: readonly unknown[]): 'begin' | 'commit' | 'rollback' | undefined {
  const [text, values] = args;
  if (typeof text !== 'string' || (values !== undefined && !(Array.isArray(values) && values.length === 0))) return undefined;
  return text === 'begin' || text === 'commit' || text === 'rollback' ? text : undefined;
}

const noop = () => {};

/**
 * `sent` once `first` (the answer of a statement written before it, if any) has answered; `first`'s
 * error if it failed: the transaction is then aborted, and `sent` fails only for that reason.
 */
function after(first: Promise<unknown> | undefined, sent: Promise<unknown>): Promise<unknown> {
  if (first === undefined) return sent;
  return first.then(
    () => sent,
    (error: unknown) => {
      sent.catch(noop);
      markPassedOn(error);
      throw error;
    },
  );
}

// Errors of held statements, given to the statements after them: not those statements' own.
const passedOn = new WeakSet<object>();

function markPassedOn(error: unknown): void {
  if (typeof error === 'object' && error !== null) passedOn.add(error);
}

/**
 * Whether `error`, thrown by a statement, is the error of a statement held before it (SentWithNext)
 * and not its own: prepared.ts then forgets no name of that statement for it.
 */
export function isPassedOn(error: unknown): boolean {
  return typeof error === 'object' && error !== null && passedOn.has(error);
}

export class TransactionPipeline {
  private state: State = 'idle';
  private commit: Promise<Answer> | undefined;
  /** A statement held to go with the next one (SentWithNext), not yet written. */
  private held: { args: unknown[]; marker: SentWithNext } | undefined;
  /** Once the held statement is written: settles with its answer, or fails with its error. */
  private heldAnswer: Promise<unknown> | undefined;
  /**
   * The held statement's error once known: nothing more of the transaction is sent but its
   * ROLLBACK (a held statement that failed before it was written never ran, so PostgreSQL would
   * not stop what follows it).
   */
  private heldFailed: { error: Error } | undefined;

  constructor(
    private readonly send: Send,
    private readonly socket: () => { cork(): void; uncork(): void },
    /** Told the text of each read written after a statement (FollowedBy), which Kysely's log never sees. */
    private readonly onFollower?: (text: string) => void,
  ) {}

  /** Whether a transaction is open on the connection, its BEGIN sent or held. */
  get inTransaction(): boolean {
    return this.state !== 'idle';
  }

  query(...args: unknown[]): unknown {
    const marked = this.markedOf(args);
    if (marked?.marker instanceof SentWithNext) return this.hold(marked.args, marked.marker);
    if (marked?.marker instanceof FollowedBy) return this.queryFollowed(marked.args, marked.marker);
    const word = control(args);
    if (word === 'begin' && this.state === 'idle') {
      this.state = 'begun';
      return answered('BEGIN');
    }
    if (word === 'commit' || word === 'rollback') return this.end(word, args);
    if (this.heldFailed !== undefined) return Promise.reject(this.heldFailed.error);
    if (this.state === 'committing') {
      return Promise.reject(new Error('A statement was asked for after the statement its COMMIT follows (db/pipeline.ts)'));
    }
    const text = textOf(args);
    const commitFollows = text !== undefined && text.startsWith(COMMIT_FOLLOWS);
    if (this.state === 'idle') return this.send(...args);
    if (this.state === 'open' && !commitFollows && this.held === undefined) return this.afterHeld(this.send(...args) as Promise<unknown>);
    return this.inOneWrite(() => {
      if (!commitFollows) return this.send(...args) as Promise<unknown>;
      const sent = this.sendChecked(args);
      // Not when the statement failed before it was written (a value node-postgres cannot
      // encode): the transaction is still open, and a COMMIT would keep what came before it.
      if (sent.written) {
        this.commit = this.send('commit') as Promise<Answer>;
        // Answered when Kysely asks for the COMMIT (or rolls back); until then, not unhandled.
        this.commit.catch(noop);
        this.state = 'committing';
      }
      return sent.result;
    });
  }

  /** Holds a statement to be written with the next one (see SentWithNext); answers at once. */
  private hold(args: unknown[], marker: SentWithNext): unknown {
    let refused: string | undefined;
    if (this.state === 'idle') refused = 'outside a transaction';
    else if (this.state === 'committing') refused = 'after the statement its COMMIT follows';
    else if (this.held !== undefined || this.heldAnswer !== undefined) refused = 'after another one in the same transaction';
    if (refused !== undefined) {
      const error = new Error(`A statement cannot be held for the next one ${refused} (db/pipeline.ts)`);
      marker.follow(Promise.reject(error));
      return Promise.reject(error);
    }
    this.held = { args, marker };
    return answered('SELECT');
  }

  /** `sent`, after the held statement written before it (see after). */
  private afterHeld(sent: Promise<unknown>): Promise<unknown> {
    return after(this.heldAnswer, sent);
  }

  /**
   * Runs `write` (which sends one statement and what goes with it, and returns the statement's
   * answer) in one write to the socket, after the held BEGIN and the held statement if there are
   * any; answers that answer once theirs are in too.
   */
  private inOneWrite(write: () => Promise<unknown>): Promise<unknown> {
    const socket = this.socket();
    socket.cork();
    let begin: Promise<unknown> | undefined;
    let result: Promise<unknown>;
    try {
      if (this.state === 'begun') {
        begin = this.send('begin') as Promise<unknown>;
        this.state = 'open';
      }
      const held = this.held;
      this.held = undefined;
      if (held !== undefined) {
        const sent = this.sendChecked(held.args);
        held.marker.written = sent.written;
        held.marker.follow(sent.result);
        this.heldAnswer = sent.result;
        if (sent.error !== undefined) {
          markPassedOn(sent.error);
          this.heldFailed = { error: sent.error };
        }
        sent.result.catch((error: unknown) => {
          // Only while that transaction lasts: end() clears heldAnswer. (sendChecked rejects with Errors.)
          markPassedOn(error);
          if (this.heldAnswer === sent.result) this.heldFailed ??= { error: error as Error };
        });
      }
      // Nothing more is sent after a held statement that failed before it was written (heldFailed
      // is set at once then): it never ran, so PostgreSQL would not stop what follows it.
      result = held !== undefined && !held.marker.written ? this.heldAnswer! : this.afterHeld(write());
    } finally {
      socket.uncork();
    }
    if (begin === undefined) return result;
    return Promise.all([begin, result]).then(([, value]) => value);
  }

  /**
   * The statement `args` without its FollowedBy or SentWithNext, and it (Kysely's `(text, values)`,
   * or prepared.ts's `({name, text, values})`).
   */
  private markedOf(args: readonly unknown[]): { args: unknown[]; marker: FollowedBy | SentWithNext } | undefined {
    const [first, second] = args;
    if (typeof first === 'string') {
      const taken = takeMarker(second);
      return taken && { args: [first, taken.values], marker: taken.marker };
    }
    const config = first as { values?: unknown } | null;
    const taken = typeof config === 'object' && config !== null ? takeMarker(config.values) : undefined;
    return taken && { args: [{ ...config, values: taken.values }], marker: taken.marker };
  }

  /** Writes a statement and the read that follows it in one write (see FollowedBy); answers the statement's answer. */
  private queryFollowed(args: unknown[], follower: FollowedBy): unknown {
    let refused: Error | undefined;
    if (this.heldFailed !== undefined) refused = this.heldFailed.error;
    else if (this.state === 'committing') refused = new Error('A statement was asked for after the statement its COMMIT follows (db/pipeline.ts)');
    else if (textOf(args)?.startsWith(COMMIT_FOLLOWS)) refused = new Error('A statement its COMMIT follows takes no read after it (db/pipeline.ts)');
    if (refused !== undefined) {
      // Neither is sent.
      follower.follow(Promise.reject(refused));
      return Promise.reject(refused);
    }
    let readSent = false;
    const result = this.inOneWrite(() => {
      const sent = this.send(...args) as Promise<unknown>;
      this.onFollower?.(follower.text);
      const read = this.send(follower.name !== undefined ? { name: follower.name, text: follower.text, values: follower.values } : { text: follower.text, values: follower.values });
      follower.follow(this.afterHeld(read as Promise<unknown>));
      readSent = true;
      return sent;
    });
    // Neither was sent, after a held statement that failed before it was written: the read fails as its statement does.
    if (!readSent) follower.follow(result);
    return result;
  }

  /**
   * Sends a statement with a callback, which node-postgres calls at once, while sending, when the
   * statement fails before it is written (its values cannot be encoded: it then writes only a Sync).
   */
  private sendChecked(args: readonly unknown[]): { result: Promise<unknown>; written: boolean; error?: Error } {
    let sending = true;
    let failedAtOnce: Error | undefined;
    const result = new Promise<unknown>((resolve, reject) => {
      const callback = (error: unknown, value: unknown) => {
        if (error) {
          const failure = error instanceof Error ? error : new Error('the statement failed', { cause: error });
          if (sending) failedAtOnce = failure;
          reject(failure);
        } else {
          resolve(value);
        }
      };
      const [first, values] = args;
      if (typeof first === 'string') this.send(first, values, callback);
      else this.send(first, callback);
    });
    sending = false;
    return { result, written: failedAtOnce === undefined, error: failedAtOnce };
  }

  private end(word: 'commit' | 'rollback', args: readonly unknown[]): unknown {
    // Not committed: the caller rolls back (Kysely does after a failed COMMIT), and that is sent.
    if (word === 'commit' && this.heldFailed !== undefined) return Promise.reject(this.heldFailed.error);
    if (word === 'commit' && this.held !== undefined) {
      // A transaction whose held statement is its last: that statement is written (with BEGIN if
      // held too) and answered before the COMMIT is sent. If it failed, the COMMIT is not sent:
      // the caller rolls back.
      return this.inOneWrite(() => Promise.resolve()).then(() => this.end('commit', args));
    }
    const { state, held, heldAnswer } = this;
    this.state = 'idle';
    this.held = undefined;
    this.heldAnswer = undefined;
    this.heldFailed = undefined;
    held?.marker.follow(Promise.reject(new Error('The transaction rolled back before the statement held for the next one was sent (db/pipeline.ts)')));
    if (state === 'begun') return answered(word.toUpperCase());
    if (state !== 'committing') {
      const sent = this.send(...args) as Promise<unknown>;
      return word === 'commit' ? after(heldAnswer, sent) : sent;
    }
    const commit = this.commit!;
    this.commit = undefined;
    if (word === 'commit') {
      return after(
        heldAnswer,
        commit.then((answer) => {
          if (answer.command !== 'COMMIT') throw new Error('The transaction was rolled back: a statement before its COMMIT failed');
          return answer;
        }),
      );
    }
    return commit.then(
      (answer) => {
        if (answer.command === 'COMMIT') throw new Error('Asked to roll back a transaction whose COMMIT was already sent and committed');
        return answer;
      },
      () => answered('ROLLBACK'),
    );
  }
}

/**
 * Makes `client` (a pool client in pipeline mode) send BEGIN and COMMIT with the statements next
 * to them; returns the pipeline, whose inTransaction tells prepared.ts where a transaction is open.
 */
export function pipelineTransactions(client: pg.PoolClient, onFollower?: (text: string) => void): TransactionPipeline {
  const send = client.query.bind(client) as Send;
  const connection = (client as unknown as { connection: { stream: { cork(): void; uncork(): void } } }).connection;
  const pipeline = new TransactionPipeline(send, () => connection.stream, onFollower);
  client.query = ((...args: unknown[]) => pipeline.query(...args)) as unknown as pg.PoolClient['query'];
  return pipeline;
}
