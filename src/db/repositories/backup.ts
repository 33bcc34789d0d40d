import { sql } from 'kysely';
import type { Db } from '../database.js';

/**
 * A consistent copy of a SQLite database in the new file `target`: VACUUM INTO reads the database
 * in one transaction while the server goes on writing, and writes a compact copy.
 */
export async function vacuumInto(db: Db, target: string): Promise<void> {
  await sql`VACUUM INTO ${target}`.execute(db);
}
