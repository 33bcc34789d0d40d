import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMIT_FOLLOWS } from '../../src/db/pipeline.js';
import { createTestDatabase, dialect, type TestDatabase } from '../support/test-db.js';

// PostgreSQL only (src/db/prepared.ts): SQLite keeps its compiled statements its own way
// (database.ts withStatementCache). A statement text sent again inside a transaction is prepared
// once per connection; one sent alone never is; one whose table changed shape under it makes its
// write run again, with the text unnamed.
describe.runIf(dialect === 'postgres')('prepared statements on postgres', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    // One connection: what it prepared is what pg_prepared_statements shows it.
    database = await createTestDatabase({ poolSize: 1, migrate: false });
    await sql`create table prepared_probe (id integer primary key, a text)`.execute(database.kysely);
    await sql`insert into prepared_probe values (1, 'one'), (2, 'two')`.execute(database.kysely);
  });
  afterAll(() => database.close());

  const prepared = async () =>
    (await sql<{ statement: string }>`select statement from pg_prepared_statements where name like 'lf%'`.execute(database.kysely)).rows
      .map((r) => r.statement)
      .filter((text) => text.includes('prepared_probe'));
  const read = (db: Kysely<unknown>, id: number, a?: string) => {
    let query = db.selectFrom('prepared_probe' as never).selectAll().where('id' as never, '=', id as never);
    if (a !== undefined) query = query.where('a' as never, '=', a as never);
    return query.executeTakeFirst();
  };
  const inWrite = (id: number, a?: string) => database.write((trx) => read(trx as unknown as Kysely<unknown>, id, a));

  it('prepares a statement sent again inside a transaction, never one sent alone, and answers the same', async () => {
    const kysely = database.kysely as unknown as Kysely<unknown>;
    for (let i = 0; i < 3; i += 1) expect(await read(kysely, 1)).toEqual({ id: 1, a: 'one' });
    expect(await prepared()).toHaveLength(0);
    expect(await inWrite(1)).toEqual({ id: 1, a: 'one' });
    expect(await prepared()).toHaveLength(0);
    expect(await inWrite(2)).toEqual({ id: 2, a: 'two' });
    expect(await prepared()).toHaveLength(1);
    expect(await inWrite(3)).toBeUndefined();
    expect(await inWrite(1)).toEqual({ id: 1, a: 'one' });
    expect(await prepared()).toHaveLength(1);
  });

  it('runs a write again, with the new columns, when the table changed shape under a statement it prepared', async () => {
    await inWrite(2, 'two');
    await inWrite(2, 'two');
    expect((await prepared()).some((text) => text.includes('"a" = $2'))).toBe(true);
    await sql`alter table prepared_probe add column b text default 'bee'`.execute(database.kysely);
    const reruns = database.reruns;
    expect(await inWrite(2, 'two')).toEqual({ id: 2, a: 'two', b: 'bee' });
    expect(database.reruns).toBe(reruns + 1);
    // From then on that text is sent unnamed: no more re-runs.
    expect(await inWrite(1, 'one')).toEqual({ id: 1, a: 'one', b: 'bee' });
    expect(database.reruns).toBe(reruns + 1);
  });

  // db/pipeline.ts: a statement marked COMMIT_FOLLOWS is written with its transaction's COMMIT,
  // unless node-postgres could not write it (a value it cannot encode): then no COMMIT goes, and
  // what the transaction wrote before is rolled back.
  it('commits nothing when the statement its COMMIT follows cannot be sent', async () => {
    const unencodable = { toPostgres: () => { throw new Error('cannot encode this'); } };
    const write = database.write(async (trx) => {
      await sql`insert into prepared_probe (id, a) values (10, 'ten')`.execute(trx);
      await sql`${sql.raw(COMMIT_FOLLOWS)}select ${unencodable}::text as x`.execute(trx);
    });
    await expect(write).rejects.toThrow('cannot encode this');
    expect(await read(database.kysely as unknown as Kysely<unknown>, 10)).toBeUndefined();
    // And when it is sent, the COMMIT after it keeps what came before.
    await database.write(async (trx) => {
      await sql`insert into prepared_probe (id, a) values (11, 'eleven')`.execute(trx);
      await sql`${sql.raw(COMMIT_FOLLOWS)}select ${'x'}::text as x`.execute(trx);
    });
    expect(await read(database.kysely as unknown as Kysely<unknown>, 11)).toMatchObject({ id: 11, a: 'eleven' });
  });
});
