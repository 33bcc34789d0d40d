import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dialect, type TestDatabase } from '../support/test-db.js';

// PostgreSQL only (src/db/prepared.ts): SQLite keeps its compiled statements its own way
// (database.ts withStatementCache). A statement text sent again is prepared once per connection,
// and one whose table changed shape under it is sent again unnamed, inside a write or alone.
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
    (await sql<{ statement: string }>`select statement from pg_prepared_statements where name like 'lf%'`.execute(database.kysely)).rows.map((r) => r.statement);
  const read = (id: number) => database.kysely.selectFrom('prepared_probe' as never).selectAll().where('id' as never, '=', id as never).executeTakeFirst();

  it('prepares a statement the second time it is sent, and answers the same', async () => {
    expect(await read(1)).toEqual({ id: 1, a: 'one' });
    expect((await prepared()).some((text) => text.includes('prepared_probe'))).toBe(false);
    expect(await read(2)).toEqual({ id: 2, a: 'two' });
    expect((await prepared()).filter((text) => text.includes('prepared_probe'))).toHaveLength(1);
    expect(await read(1)).toEqual({ id: 1, a: 'one' });
    expect(await read(3)).toBeUndefined();
    expect((await prepared()).filter((text) => text.includes('prepared_probe'))).toHaveLength(1);
  });

  it('answers with the new columns when the table changed shape under a prepared statement, alone or in a write', async () => {
    await read(1);
    await read(1);
    await sql`alter table prepared_probe add column b text default 'bee'`.execute(database.kysely);
    // Alone: sent again unnamed at once.
    expect(await read(1)).toEqual({ id: 1, a: 'one', b: 'bee' });

    // In a write: the transaction has failed, and the write runs again.
    const second = (db: typeof database.kysely) => db.selectFrom('prepared_probe' as never).selectAll().where('id' as never, '=', 2 as never).where('a' as never, '=', 'two' as never).executeTakeFirst();
    await second(database.kysely);
    await second(database.kysely);
    await sql`alter table prepared_probe add column c text default 'sea'`.execute(database.kysely);
    const reruns = database.reruns;
    const row = await database.write((trx) => second(trx));
    expect(row).toEqual({ id: 2, a: 'two', b: 'bee', c: 'sea' });
    expect(database.reruns).toBe(reruns + 1);
  });
});
