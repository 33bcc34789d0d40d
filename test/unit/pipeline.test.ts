import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMMIT_FOLLOWS, FollowedBy, SentWithNext, TransactionPipeline } from '../../src/db/pipeline.js';

// BEGIN and COMMIT written with the statements next to them (src/db/pipeline.ts), against a model
// of a PostgreSQL connection: what it runs inside a transaction, what it keeps, and how many writes
// reach its socket. The driver below asks for statements as Kysely does: begin, one statement at
// a time awaited, then commit, or rollback when anything threw.

interface Answer {
  command: string;
}

class ModelConnection {
  private corked = 0;
  private pending: string[] = [];
  /** The socket's writes: the texts each carried. */
  readonly writes: string[][] = [];
  private status: 'idle' | 'open' | 'failed' = 'idle';
  private uncommitted: string[] = [];
  /** Statements committed, in order. */
  readonly kept: string[] = [];
  /** Statements run outside any transaction. */
  readonly outside: string[] = [];
  failBegin = false;

  cork(): void {
    this.corked += 1;
  }

  uncork(): void {
    this.corked -= 1;
    if (this.corked === 0 && this.pending.length > 0) {
      this.writes.push(this.pending);
      this.pending = [];
    }
  }

  /** As node-postgres's query: (text, values?) for a promise, or with a callback last. */
  readonly send = (...args: unknown[]): Promise<Answer> | undefined => {
    const callback = typeof args[args.length - 1] === 'function' ? (args[args.length - 1] as (error: unknown, value?: Answer) => void) : undefined;
    // (text, values) as Kysely sends, or a config object ({ name, text, values }) as prepared.ts and pipeline.ts do.
    const config = typeof args[0] === 'string' ? { text: args[0], values: args[1] } : (args[0] as { text: string; values?: unknown });
    const text = config.text;
    const values = config.values;
    if (Array.isArray(values) && values.some((value) => value instanceof FollowedBy || value instanceof SentWithNext)) {
      throw new Error('a FollowedBy or SentWithNext reached the connection as a value');
    }
    // A value it cannot encode: node-postgres writes only a Sync, and calls back at once.
    if (callback && Array.isArray(values) && values.includes('unencodable')) {
      this.write('(sync)');
      callback(new Error('could not encode'));
      return undefined;
    }
    this.write(text);
    // Answers come back in order, after the writes: as a socket would.
    const answer = Promise.resolve().then(() => this.run(text));
    if (!callback) return answer;
    answer.then(
      (value) => callback(undefined, value),
      (error: unknown) => callback(error),
    );
    return undefined;
  };

  private write(text: string): void {
    if (this.corked > 0) this.pending.push(text);
    else this.writes.push([text]);
  }

  private run(text: string): Answer {
    if (text === 'begin') {
      if (this.failBegin) throw new Error('connection lost');
      if (this.status === 'idle') this.status = 'open';
      return { command: 'BEGIN' };
    }
    if (text === 'commit' || text === 'rollback') {
      const committed = text === 'commit' && this.status === 'open';
      if (committed) this.kept.push(...this.uncommitted);
      this.uncommitted = [];
      this.status = 'idle';
      return { command: committed ? 'COMMIT' : 'ROLLBACK' };
    }
    if (this.status === 'failed') throw new Error('current transaction is aborted');
    if (text.includes('fails')) {
      if (this.status === 'open') this.status = 'failed';
      throw Object.assign(new Error('statement failed'), { code: 'LF404' });
    }
    // As a campaign write's opening whose caller may no longer write (migration 0036).
    if (text.includes('refused')) {
      if (this.status === 'open') this.status = 'failed';
      throw Object.assign(new Error('write refused'), { code: 'LF403' });
    }
    if (this.status === 'idle') this.outside.push(text);
    else this.uncommitted.push(text);
    return { command: 'SELECT' };
  }
}

/** A statement, the read written after it if any (FollowedBy), or a statement held for the next one (SentWithNext). */
type Statement = string | { text: string; followedBy: string } | { held: string };

/** Runs one transaction as Kysely does; whether it committed as far as its caller knows. */
async function transaction(pipeline: TransactionPipeline, statements: readonly Statement[]): Promise<boolean> {
  await pipeline.query('begin', []);
  try {
    for (const statement of statements) {
      if (typeof statement === 'string') await pipeline.query(statement, [1]);
      else if ('held' in statement) await pipeline.query(statement.held, [1, new SentWithNext()]);
      else await pipeline.query(statement.text, [1, new FollowedBy(statement.followedBy, [2])]);
    }
    await pipeline.query('commit', []);
    return true;
  } catch {
    await Promise.resolve(pipeline.query('rollback', [])).catch(() => undefined);
    return false;
  }
}

const setup = () => {
  const connection = new ModelConnection();
  return { connection, pipeline: new TransactionPipeline(connection.send, () => connection) };
};

describe('BEGIN and COMMIT written with the statements next to them', () => {
  it('writes BEGIN with the first statement, and COMMIT with a statement that says it follows', async () => {
    const { connection, pipeline } = setup();
    expect(await transaction(pipeline, ['select a', 'update b', `${COMMIT_FOLLOWS}insert c`])).toBe(true);
    expect(connection.writes).toEqual([['begin', 'select a'], ['update b'], [`${COMMIT_FOLLOWS}insert c`, 'commit']]);
    expect(connection.kept).toEqual(['select a', 'update b', `${COMMIT_FOLLOWS}insert c`]);
    expect(pipeline.inTransaction).toBe(false);
  });

  it('sends nothing for a transaction without statements', async () => {
    const { connection, pipeline } = setup();
    expect(await transaction(pipeline, [])).toBe(true);
    expect(connection.writes).toEqual([]);
  });

  it('tells a transaction is open from its BEGIN on, sent or held', async () => {
    const { pipeline } = setup();
    expect(pipeline.inTransaction).toBe(false);
    await pipeline.query('begin', []);
    expect(pipeline.inTransaction).toBe(true);
    await pipeline.query('select a', [1]);
    expect(pipeline.inTransaction).toBe(true);
    await pipeline.query('commit', []);
    expect(pipeline.inTransaction).toBe(false);
    // A statement outside a transaction goes as it is.
    await pipeline.query('select b', [1]);
    expect(pipeline.inTransaction).toBe(false);
  });

  it("throws BEGIN's error from the first statement", async () => {
    const { connection, pipeline } = setup();
    connection.failBegin = true;
    await pipeline.query('begin', []);
    await expect(pipeline.query('select a', [1])).rejects.toThrow('connection lost');
  });

  it('rolls back, at the COMMIT already sent, a transaction whose last statement failed', async () => {
    const { connection, pipeline } = setup();
    expect(await transaction(pipeline, ['update a', `${COMMIT_FOLLOWS}mark fails`])).toBe(false);
    expect(connection.kept).toEqual([]);
    // The rollback asked for after it is answered here: nothing more is written.
    expect(connection.writes).toEqual([['begin', 'update a'], [`${COMMIT_FOLLOWS}mark fails`, 'commit']]);
  });

  it('refuses to report a commit when the COMMIT sent rolled back, and a rollback when it committed', async () => {
    const { pipeline } = setup();
    await pipeline.query('begin', []);
    await expect(pipeline.query(`${COMMIT_FOLLOWS}mark fails`, [1])).rejects.toThrow('statement failed');
    await expect(pipeline.query('commit', [])).rejects.toThrow('rolled back');

    await pipeline.query('begin', []);
    await pipeline.query(`${COMMIT_FOLLOWS}mark`, [1]);
    await expect(pipeline.query('rollback', [])).rejects.toThrow('already sent and committed');
  });

  it('sends no COMMIT after a statement that failed before it was written, and rolls back', async () => {
    const { connection, pipeline } = setup();
    await pipeline.query('begin', []);
    await pipeline.query('update a', [1]);
    await expect(pipeline.query(`${COMMIT_FOLLOWS}mark`, ['unencodable'])).rejects.toThrow('could not encode');
    expect(pipeline.inTransaction).toBe(true);
    await pipeline.query('rollback', []);
    expect(connection.writes).toEqual([['begin', 'update a'], ['(sync)'], ['rollback']]);
    expect(connection.kept).toEqual([]);
    expect(pipeline.inTransaction).toBe(false);
  });

  it('refuses a statement after the one its COMMIT follows, and sends nothing of it', async () => {
    const { connection, pipeline } = setup();
    await pipeline.query('begin', []);
    await pipeline.query(`${COMMIT_FOLLOWS}mark`, [1]);
    await expect(pipeline.query('update late', [1])).rejects.toThrow('after the statement its COMMIT follows');
    expect(connection.writes.flat()).not.toContain('update late');
    await pipeline.query('commit', []);
    expect(connection.kept).toEqual([`${COMMIT_FOLLOWS}mark`]);
  });

  it('writes a read given to a statement right after it, in the same write, and answers each its own', async () => {
    const { connection, pipeline } = setup();
    await pipeline.query('begin', []);
    const follower = new FollowedBy('select revisions', [2]);
    expect(await pipeline.query('select thing', [1, follower])).toEqual({ command: 'SELECT' });
    expect(await follower.result).toEqual({ command: 'SELECT' });
    // Written after BEGIN was: its own write with the statement.
    const later = new FollowedBy('select more', [3]);
    await pipeline.query({ name: 'lf1', text: 'select other', values: [1, later] });
    await later.result;
    await pipeline.query('commit', []);
    expect(connection.writes).toEqual([['begin', 'select thing', 'select revisions'], ['select other', 'select more'], ['commit']]);
    expect(connection.kept).toEqual(['select thing', 'select revisions', 'select other', 'select more']);
  });

  it('fails the read with the statement before it, and never leaves it unhandled', async () => {
    const { connection, pipeline } = setup();
    await pipeline.query('begin', []);
    const follower = new FollowedBy('select revisions', [2]);
    await expect(pipeline.query('select fails', [1, follower])).rejects.toThrow('statement failed');
    await expect(follower.result).rejects.toThrow('current transaction is aborted');
    // Nobody awaiting it: settled as rejected with no unhandled rejection (vitest fails a run that has one).
    const unread = new FollowedBy('select unread', [2]);
    await expect(pipeline.query('select also fails', [1, unread])).rejects.toThrow();
    await pipeline.query('rollback', []);
    expect(connection.kept).toEqual([]);
  });

  it('refuses a read after the statement its COMMIT follows', async () => {
    const { pipeline } = setup();
    await pipeline.query('begin', []);
    const late = new FollowedBy('select late', [2]);
    await expect(pipeline.query(`${COMMIT_FOLLOWS}mark`, [1, late])).rejects.toThrow('takes no read after it');
    await expect(late.result).rejects.toThrow('takes no read after it');
  });

  it('writes a statement held for the next one with it, after BEGIN, and answers it at once with no rows', async () => {
    const { connection, pipeline } = setup();
    await pipeline.query('begin', []);
    const held = new SentWithNext();
    expect(await pipeline.query('select lock', [1, held])).toMatchObject({ rows: [] });
    expect(connection.writes).toEqual([]);
    const follower = new FollowedBy('select revisions', [2]);
    await pipeline.query({ name: 'lf1', text: 'select thing', values: [1, follower] });
    expect(await held.result).toEqual({ command: 'SELECT' });
    await pipeline.query(`${COMMIT_FOLLOWS}mark`, [1]);
    await pipeline.query('commit', []);
    expect(connection.writes).toEqual([['begin', 'select lock', 'select thing', 'select revisions'], [`${COMMIT_FOLLOWS}mark`, 'commit']]);
    expect(connection.kept).toEqual(['select lock', 'select thing', 'select revisions', `${COMMIT_FOLLOWS}mark`]);
  });

  it("fails every later statement, read and COMMIT with the held statement's own error, and keeps nothing", async () => {
    const { connection, pipeline } = setup();
    await pipeline.query('begin', []);
    const held = new SentWithNext();
    await pipeline.query('select lock refused', [1, held]);
    const follower = new FollowedBy('select revisions', [2]);
    await expect(pipeline.query('select thing', [1, follower])).rejects.toMatchObject({ code: 'LF403' });
    await expect(follower.result).rejects.toMatchObject({ code: 'LF403' });
    await expect(held.result).rejects.toMatchObject({ code: 'LF403' });
    // A caller that went on regardless: still that error, and nothing more is sent but the rollback.
    await expect(pipeline.query('update a', [1])).rejects.toMatchObject({ code: 'LF403' });
    const late = new FollowedBy('select late', [2]);
    await expect(pipeline.query('select b', [1, late])).rejects.toMatchObject({ code: 'LF403' });
    await expect(late.result).rejects.toMatchObject({ code: 'LF403' });
    await expect(pipeline.query('commit', [])).rejects.toMatchObject({ code: 'LF403' });
    await pipeline.query('rollback', []);
    expect(connection.writes).toEqual([['begin', 'select lock refused', 'select thing', 'select revisions'], ['rollback']]);
    expect(connection.kept).toEqual([]);
    expect(pipeline.inTransaction).toBe(false);
  });

  it('rolls back at its COMMIT a write whose held statement failed with the last statement', async () => {
    const { connection, pipeline } = setup();
    expect(await transaction(pipeline, [{ held: 'select lock refused' }, `${COMMIT_FOLLOWS}mark`])).toBe(false);
    expect(connection.writes).toEqual([['begin', 'select lock refused', `${COMMIT_FOLLOWS}mark`, 'commit']]);
    expect(connection.kept).toEqual([]);
    expect(pipeline.inTransaction).toBe(false);
  });

  it('sends nothing but the rollback after a held statement that failed before it was written', async () => {
    const { connection, pipeline } = setup();
    await pipeline.query('begin', []);
    await pipeline.query('select lock', ['unencodable', new SentWithNext()]);
    await expect(pipeline.query(`${COMMIT_FOLLOWS}mark`, [1])).rejects.toThrow('could not encode');
    await pipeline.query('rollback', []);
    expect(connection.writes).toEqual([['begin', '(sync)'], ['rollback']]);
    expect(connection.kept).toEqual([]);

    // A caller that swallows the error and goes on: nothing it sends runs, nothing commits.
    await pipeline.query('begin', []);
    await pipeline.query('select lock', ['unencodable', new SentWithNext()]);
    const read = new FollowedBy('select revisions', [2]);
    await expect(pipeline.query('select thing', [1, read])).rejects.toThrow('could not encode');
    await expect(read.result).rejects.toThrow('could not encode');
    await expect(pipeline.query('update a', [1])).rejects.toThrow('could not encode');
    await expect(pipeline.query(`${COMMIT_FOLLOWS}mark`, [1])).rejects.toThrow('could not encode');
    await expect(pipeline.query('commit', [])).rejects.toThrow('could not encode');
    await pipeline.query('rollback', []);
    expect(connection.writes.slice(2)).toEqual([['begin', '(sync)'], ['rollback']]);
    expect(connection.kept).toEqual([]);
    expect(connection.outside).toEqual([]);
  });

  it('drops a held statement the transaction rolls back before, and writes one it commits after alone, answered first', async () => {
    const { connection, pipeline } = setup();
    await pipeline.query('begin', []);
    const dropped = new SentWithNext();
    await pipeline.query('select lock', [1, dropped]);
    await pipeline.query('rollback', []);
    await expect(dropped.result).rejects.toThrow('rolled back before');
    expect(connection.writes).toEqual([]);

    expect(await transaction(pipeline, [{ held: 'select lock' }])).toBe(true);
    expect(connection.writes).toEqual([['begin', 'select lock'], ['commit']]);
    expect(connection.kept).toEqual(['select lock']);

    expect(await transaction(pipeline, [{ held: 'select lock refused' }])).toBe(false);
    expect(connection.writes.slice(2)).toEqual([['begin', 'select lock refused'], ['rollback']]);
    expect(connection.kept).toEqual(['select lock']);
  });

  it('refuses to hold a statement outside a transaction, beside another held one, or after the COMMIT statement', async () => {
    const { connection, pipeline } = setup();
    await expect(pipeline.query('select lock', [1, new SentWithNext()])).rejects.toThrow('outside a transaction');
    await pipeline.query('begin', []);
    await pipeline.query('select lock', [1, new SentWithNext()]);
    const second = new SentWithNext();
    await expect(pipeline.query('select again', [1, second])).rejects.toThrow('after another one');
    await expect(second.result).rejects.toThrow('after another one');
    await pipeline.query(`${COMMIT_FOLLOWS}mark`, [1]);
    await expect(pipeline.query('select late', [1, new SentWithNext()])).rejects.toThrow('after the statement its COMMIT follows');
    await pipeline.query('commit', []);
    expect(connection.writes.flat()).not.toContain('select again');
    expect(connection.writes.flat()).not.toContain('select late');
  });

  it('keeps exactly the transactions that report a commit, each in as many writes as statements', async () => {
    const statement = fc.oneof(
      fc.constantFrom<Statement>('select a', 'update b', 'insert c', 'update fails', { text: 'select thing', followedBy: 'select revisions' }, { text: 'select fails', followedBy: 'select revisions' }),
      fc.constant(`${COMMIT_FOLLOWS}mark`),
      fc.constant(`${COMMIT_FOLLOWS}mark fails`),
    );
    const textOf = (s: Statement) => (typeof s === 'string' ? s : 'held' in s ? s.held : s.text);
    // A COMMIT_FOLLOWS statement is always a transaction's last, and a held one its first (common.ts campaignWrite).
    const transactions = fc.array(
      fc
        .tuple(
          fc.option(fc.constantFrom<Statement>({ held: 'select lock' }, { held: 'select lock refused' }), { nil: undefined }),
          fc.array(statement, { maxLength: 6 }).map((list) => {
            const last = list.findIndex((s) => textOf(s).startsWith(COMMIT_FOLLOWS));
            return last === -1 ? list : list.slice(0, last + 1);
          }),
        )
        .map(([held, list]) => ({ held, list })),
      { maxLength: 8 },
    );
    await fc.assert(
      fc.asyncProperty(transactions, async (transactionList) => {
        const { connection, pipeline } = setup();
        const expected: string[] = [];
        for (const { held, list: statements } of transactionList) {
          const writesBefore = connection.writes.length;
          const committed = await transaction(pipeline, held === undefined ? statements : [held, ...statements]);
          const heldFails = held !== undefined && textOf(held).includes('refused');
          const fails = heldFails ? 0 : statements.findIndex((s) => textOf(s).includes('fails'));
          expect(committed).toBe(!heldFails && fails === -1);
          // A read given to a statement runs right after it, in the transaction.
          if (committed) {
            if (held !== undefined) expected.push(textOf(held));
            expected.push(...statements.flatMap((s) => (typeof s === 'string' ? [s] : 'held' in s ? [s.held] : [s.text, s.followedBy])));
          }
          expect(pipeline.inTransaction).toBe(false);
          // Writes: one a statement run (BEGIN and a held statement with the first, a read with the
          // statement before it), and one for COMMIT or ROLLBACK unless it went with the statement
          // before it or nothing was sent; a held statement with nothing after it is written alone.
          const ran = fails === -1 ? statements.length : Math.min(fails + 1, statements.length);
          const endedWithLast = ran > 0 && textOf(statements[ran - 1]!).startsWith(COMMIT_FOLLOWS);
          const expectedWrites = held !== undefined && statements.length === 0 ? 2 : ran + (ran === 0 || endedWithLast ? 0 : 1);
          expect(connection.writes.length - writesBefore).toBe(expectedWrites);
        }
        expect(connection.kept).toEqual(expected);
        expect(connection.outside).toEqual([]);
      }),
    );
  });
});
