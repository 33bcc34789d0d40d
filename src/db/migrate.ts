import { Migrator, type Kysely, type Migration } from 'kysely';
import type { Database } from './database.js';
import { runRequestedRebuilds } from './indexes/rebuilds.js';
import { migrations } from './migrations/index.js';

/** Kysely's migrator over our migrations, each handed the dialect. */
export function migrator(database: Database): Migrator {
  const provider = {
    getMigrations(): Promise<Record<string, Migration>> {
      const bound: Record<string, Migration> = {};
      for (const [name, migration] of Object.entries(migrations)) {
        bound[name] = { up: (db: Kysely<unknown>) => migration.up(db, database.dialect) };
      }
      return Promise.resolve(bound);
    },
  };
  return new Migrator({ db: database.kysely, provider });
}

/**
 * Applies every pending migration, then the index rebuilds they requested; a second run applies
 * nothing. Returns the names of the migrations applied.
 */
export async function migrateToLatest(database: Database): Promise<string[]> {
  const { error, results } = await migrator(database).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(`migration failed: ${JSON.stringify(error)}`);
  await runRequestedRebuilds(database);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
