import { describe, expect, it } from 'vitest';
import type pg from 'pg';
import { SentWithNext, TransactionPipeline } from '../../src/db/pipeline.js';
import { isStalePlan, MAX_NAMED, MAX_TEXT, prepareRepeatedStatements, StatementNames } from '../../src/db/prepared.js';

// Which statements are sent as named prepared ones on PostgreSQL (src/db/prepared.ts).
describe('the names of prepared statements', () => {
  it('names a text the second time it is seen, and keeps that name', () => {
    const names = new StatementNames();
    expect(names.nameFor('select 1 where a = $1')).toBeUndefined();
    const name = names.nameFor('select 1 where a = $1');
    expect(name).toMatch(/^lf\d+$/);
    expect(names.nameFor('select 1 where a = $1')).toBe(name);
    expect(names.nameFor('select 2 where a = $1')).toBeUndefined();
    expect(names.nameFor('select 2 where a = $1')).not.toBe(name);
  });

  it('never names a long text, and names at most MAX_NAMED texts', () => {
    const names = new StatementNames();
    const long = `select ${'x, '.repeat(MAX_TEXT)}1 where a = $1`;
    names.nameFor(long);
    expect(names.nameFor(long)).toBeUndefined();
    for (let i = 0; i < MAX_NAMED + 50; i += 1) {
      names.nameFor(`select ${i} where a = $1`);
      names.nameFor(`select ${i} where a = $1`);
    }
    expect(names.size).toBe(MAX_NAMED);
    expect(names.nameFor(`select ${MAX_NAMED + 10} where a = $1`)).toBeUndefined();
    expect(names.nameFor('select 0 where a = $1')).toBe('lf1');
  });

  it('gives every text its own name', () => {
    const names = new StatementNames();
    const given = new Set<string>();
    for (let i = 0; i < 100; i += 1) {
      names.nameFor(`select ${i} where a = $1`);
      given.add(names.nameFor(`select ${i} where a = $1`)!);
    }
    expect(given.size).toBe(100);
  });

  it('sends a text whose plan went stale unnamed from then on', () => {
    const names = new StatementNames();
    names.nameFor('select * from t where a = $1');
    expect(names.nameFor('select * from t where a = $1')).toBeDefined();
    names.forget('select * from t where a = $1');
    expect(names.nameFor('select * from t where a = $1')).toBeUndefined();
    expect(names.nameFor('select * from t where a = $1')).toBeUndefined();
    // A connection may still hold the forgotten name: the next text gets a new one.
    names.nameFor('select 1 where a = $1');
    expect(names.nameFor('select 1 where a = $1')).toBe('lf2');
  });

  it("tells PostgreSQL's stale-plan error from others", () => {
    expect(isStalePlan({ code: '0A000', message: 'cached plan must not change result type' })).toBe(true);
    expect(isStalePlan({ code: '0A000', message: 'something else not supported' })).toBe(false);
    expect(isStalePlan({ code: '23505', message: 'cached plan must not change result type' })).toBe(false);
    expect(isStalePlan(null)).toBe(false);
  });

  it("forgets the name of a held statement whose plan went stale, not of the statements it failed with it", async () => {
    // A connection that runs statements in order: one whose text says so fails as a stale plan,
    // and every statement after it in the transaction fails as aborted (as PostgreSQL does).
    let aborted = false;
    const send = (...args: unknown[]) => {
      const callback = typeof args[args.length - 1] === 'function' ? (args[args.length - 1] as (error: unknown, value?: unknown) => void) : undefined;
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text;
      const answer = Promise.resolve().then(() => {
        if (text === 'commit' || text === 'rollback' || text === 'begin') {
          aborted = false;
          return { command: text.toUpperCase() };
        }
        if (aborted) throw new Error('current transaction is aborted');
        if (text.includes('stale')) {
          aborted = true;
          throw Object.assign(new Error('cached plan must not change result type'), { code: '0A000' });
        }
        return { command: 'SELECT', rows: [] };
      });
      if (!callback) return answer;
      answer.then((value) => callback(undefined, value), callback);
      return undefined;
    };
    const pipeline = new TransactionPipeline(send, () => ({ cork() {}, uncork() {} }));
    const client = { query: (...args: unknown[]) => pipeline.query(...args) } as unknown as pg.PoolClient;
    const names = new StatementNames();
    prepareRepeatedStatements(client, names, pipeline);
    const opening = 'select lock where stale = $1';
    const next = 'select thing where id = $1';
    for (const text of [opening, next]) names.nameFor(text);
    const query = (...args: unknown[]) => (client.query as unknown as (...a: unknown[]) => Promise<unknown>).apply(client, args);
    await query('begin', []);
    await query(opening, [1, new SentWithNext()]);
    await expect(query(next, [1])).rejects.toMatchObject({ code: '0A000' });
    await query('rollback', []);
    // The held statement's text is sent unnamed from now on; the one written with it keeps its name.
    expect(names.nameFor(opening)).toBeUndefined();
    expect(names.nameFor(next)).toBeDefined();
  });
});
