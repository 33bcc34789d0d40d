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
export const COMMIT_FOLLOWS = '/* commit follows */ ';

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
export class FollowedBy {
  name: string | undefined;
  readonly result: Promise<{ rows: unknown[] }>;
  private settle!: { resolve: (value: { rows: unknown[] }) => void; reject: (error: unknown) => void };

  constructor(
    readonly text: string,
    readonly values: readonly unknown[],
  ) {
    this.result = new Promise((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    // Not unhandled when the caller never needs it (the record was not found).
    this.result.catch(() => {});
  }

  /** Settles `result` with the answer to `sent`. */
  follow(sent: Promise<unknown>): void {
    sent.then((answer) => this.settle.resolve(answer as { rows: unknown[] }), this.settle.reject);
  }
}

/** The FollowedBy among a statement's values (the last one), if any: the statement's values without it, and it. */
export function takeFollower(values: unknown): { values: unknown[]; follower: FollowedBy } | undefined {
  if (!Array.isArray(values) || values.length === 0) return undefined;
  const last: unknown = values[values.length - 1];
  return last instanceof FollowedBy ? { values: values.slice(0, -1), follower: last } : undefined;
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

export class TransactionPipeline {
  private state: State = 'idle';
  private commit: Promise<Answer> | undefined;

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
    const followed = this.followedOf(args);
    if (followed !== undefined) return this.queryFollowed(followed.args, followed.follower);
    const word = control(args);
    if (word === 'begin' && this.state === 'idle') {
      this.state = 'begun';
      return answered('BEGIN');
    }
    if (word === 'commit' || word === 'rollback') return this.end(word, args);
    if (this.state === 'committing') {
      return Promise.reject(new Error('A statement was asked for after the statement its COMMIT follows (db/pipeline.ts)'));
    }
    const text = textOf(args);
    const commitFollows = text !== undefined && text.startsWith(COMMIT_FOLLOWS);
    if (this.state === 'idle' || (this.state === 'open' && !commitFollows)) return this.send(...args);
    return this.inOneWrite(() => {
      if (!commitFollows) return this.send(...args) as Promise<unknown>;
      const sent = this.sendChecked(args);
      // Not when the statement failed before it was written (a value node-postgres cannot
      // encode): the transaction is still open, and a COMMIT would keep what came before it.
      if (sent.written) {
        this.commit = this.send('commit') as Promise<Answer>;
        // Answered when Kysely asks for the COMMIT (or rolls back); until then, not unhandled.
        this.commit.catch(() => {});
        this.state = 'committing';
      }
      return sent.result;
    });
  }

  /**
   * Runs `write` (which sends one statement and what goes with it, and returns the statement's
   * answer) in one write to the socket, after the held BEGIN if there is one; answers that answer
   * once BEGIN's is in too.
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
      result = write();
    } finally {
      socket.uncork();
    }
    if (begin === undefined) return result;
    return Promise.all([begin, result]).then(([, value]) => value);
  }

  /** The statement `args` without its FollowedBy, and it (Kysely's `(text, values)`, or prepared.ts's `({name, text, values})`). */
  private followedOf(args: readonly unknown[]): { args: unknown[]; follower: FollowedBy } | undefined {
    const [first, second] = args;
    if (typeof first === 'string') {
      const taken = takeFollower(second);
      return taken && { args: [first, taken.values], follower: taken.follower };
    }
    const config = first as { values?: unknown } | null;
    const taken = typeof config === 'object' && config !== null ? takeFollower(config.values) : undefined;
    return taken && { args: [{ ...config, values: taken.values }], follower: taken.follower };
  }

  /** Writes a statement and the read that follows it in one write (see FollowedBy); answers the statement's answer. */
  private queryFollowed(args: unknown[], follower: FollowedBy): unknown {
    let refused: Error | undefined;
    if (this.state === 'committing') refused = new Error('A statement was asked for after the statement its COMMIT follows (db/pipeline.ts)');
    else if (textOf(args)?.startsWith(COMMIT_FOLLOWS)) refused = new Error('A statement its COMMIT follows takes no read after it (db/pipeline.ts)');
    if (refused !== undefined) {
      // Neither is sent.
      follower.follow(Promise.reject(refused));
      return Promise.reject(refused);
    }
    return this.inOneWrite(() => {
      const result = this.send(...args) as Promise<unknown>;
      this.onFollower?.(follower.text);
      follower.follow(this.send(follower.name !== undefined ? { name: follower.name, text: follower.text, values: follower.values } : { text: follower.text, values: follower.values }) as Promise<unknown>);
      return result;
    });
  }

  /**
   * Sends a statement with a callback, which node-postgres calls at once, while sending, when the
   * statement fails before it is written (its values cannot be encoded: it then writes only a Sync).
   */
  private sendChecked(args: readonly unknown[]): { result: Promise<unknown>; written: boolean } {
    let sending = true;
    let failedAtOnce = false;
    const result = new Promise<unknown>((resolve, reject) => {
      const callback = (error: unknown, value: unknown) => {
        if (error) {
          if (sending) failedAtOnce = true;
          reject(error instanceof Error ? error : new Error('the statement failed', { cause: error }));
        } else {
          resolve(value);
        }
      };
      const [first, values] = args;
      if (typeof first === 'string') this.send(first, values, callback);
      else this.send(first, callback);
    });
    sending = false;
    return { result, written: !failedAtOnce };
  }

  private end(word: 'commit' | 'rollback', args: readonly unknown[]): unknown {
    const state = this.state;
    this.state = 'idle';
    if (state === 'begun') return answered(word.toUpperCase());
    if (state !== 'committing') return this.send(...args);
    const commit = this.commit!;
    this.commit = undefined;
    if (word === 'commit') {
      return commit.then((answer) => {
        if (answer.command !== 'COMMIT') throw new Error('The transaction was rolled back: a statement before its COMMIT failed');
        return answer;
      });
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
