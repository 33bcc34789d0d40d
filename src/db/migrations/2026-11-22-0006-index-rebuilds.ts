import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// Requests to rebuild a derived index (the search index; later the mentions index), written by the
// migration that creates or changes the index and carried out by db/migrate.ts right after the
// migrations, with the live code that keeps the index. A request is deleted only once its rebuild
// has finished, so a crash in between repeats it at the next start.
//
// The search index is requested here once for every database: before this migration, migration 0003
// filled it itself; from now on a database that has just received 0003 (one from before search)
// gets it here, and one that already had it is rebuilt once, which changes nothing.
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('index_rebuilds')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('requested_at', 'text', (c) => c.notNull())
    .execute();
  await sql`insert into index_rebuilds (name, requested_at) values ('search', ${new Date().toISOString()})`.execute(db);
}
