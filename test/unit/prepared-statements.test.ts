import { describe, expect, it } from 'vitest';
import { isStalePlan, MAX_NAMED, MAX_TEXT, StatementNames } from '../../src/db/prepared.js';

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
});
