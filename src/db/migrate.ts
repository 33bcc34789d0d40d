import { Migrator, type Kysely, type Migration } from 'kysely';
import type { Database } from './database.js';
import { migrations } from './migrations/index.js';

/** Applies every pending migration; a second run applies nothing. Returns the names applied. */
export async function migrateToLatest(database: Database): Promise<string[]> {
  const provider = {
    getMigrations(): Promise<Record<string, Migration>> {
      const bound: Record<string, Migration> = {};
      for (const [name, migration] of Object.entries(migrations)) {
        bound[name] = { up: (db: Kysely<unknown>) => migration.up(db, database.dialect) };
      }
      return Promise.resolve(bound);
    },
  };
  const migrator = new Migrator({ db: database.kysely, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(`migration failed: ${JSON.stringify(error)}`);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
