import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import type { Database } from './database.js';
import { databaseErrorCode } from './errors.js';
import { runRequestedRebuilds } from './indexes/rebuilds.js';
import { migrations as allMigrations } from './migrations/index.js';

type Migrations = Record<string, { up(db: Kysely<unknown>, dialect: Database['dialect']): Promise<void> }>;

/**
 * How long a PostgreSQL migration's statement may wait for a lock, and how many times the
 * migrations are tried in all. A migration that alters a table (migration 0033 drops a trigger of
 * campaigns) waits for every transaction using that table, and while it waits, every statement
 * after it on that table waits behind it: during a rolling upgrade, the instances still serving
 * would stop answering for as long as the longest transaction. With a bound, the migrations' one
 * transaction gives up after that wait (SQLSTATE 55P03, nothing applied), the instances go on,
 * and the migrations are tried again a moment later.
 */
export interface MigrationLocks {
  lockTimeoutMs: number;
  attempts: number;
  /** Pause before the next attempt, multiplied by the attempt's number. */
  pauseMs: number;
}

export const MIGRATION_LOCKS: MigrationLocks = { lockTimeoutMs: 5_000, attempts: 6, pauseMs: 1_000 };

/** Kysely's migrator over our migrations (or `list`, for tests), each handed the dialect. */
export function migrator(database: Database, list: Migrations = allMigrations, lockTimeoutMs = MIGRATION_LOCKS.lockTimeoutMs): Migrator {
  const provider = {
    getMigrations(): Promise<Record<string, Migration>> {
      const bound: Record<string, Migration> = {};
      for (const [name, migration] of Object.entries(list)) {
        bound[name] = {
          up: async (db: Kysely<unknown>) => {
            // Kysely runs PostgreSQL's migrations in one transaction: SET LOCAL lasts until it ends.
            if (database.dialect === 'postgres') await sql.raw(`set local lock_timeout = ${Math.round(lockTimeoutMs)}`).execute(db);
            await migration.up(db, database.dialect);
          },
        };
      }
      return Promise.resolve(bound);
    },
  };
  return new Migrator({ db: database.kysely, provider });
}

const isLockTimeout = (error: unknown) => databaseErrorCode(error) === '55P03';

/**
 * Applies every pending migration, then the index rebuilds they requested; a second run applies
 * nothing. Returns the names of the migrations applied. On PostgreSQL, migrations that wait too
 * long for a lock are tried again (MigrationLocks); past the last attempt the error says so.
 */
export async function migrateToLatest(database: Database, options: { list?: Migrations; locks?: MigrationLocks } = {}): Promise<string[]> {
  const locks = options.locks ?? MIGRATION_LOCKS;
  for (let attempt = 1; ; attempt += 1) {
    const { error, results } = await migrator(database, options.list, locks.lockTimeoutMs).migrateToLatest();
    if (error && isLockTimeout(error) && attempt < locks.attempts) {
      await new Promise((resolve) => setTimeout(resolve, locks.pauseMs * attempt));
      continue;
    }
    if (error && isLockTimeout(error)) {
      const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'a migration';
      throw new Error(`${failed} waited more than ${locks.lockTimeoutMs} ms for a lock, ${locks.attempts} times: a long transaction holds a table it alters; try again when it ends`, { cause: error });
    }
    if (error) throw error instanceof Error ? error : new Error(`migration failed: ${JSON.stringify(error)}`);
    await runRequestedRebuilds(database);
    return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  }
}
