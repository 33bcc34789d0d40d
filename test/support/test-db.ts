import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createDatabase, type Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { databaseUrl } from './postgres-global-setup.js';

export type TestDialect = 'sqlite' | 'postgres';

/** The dialect this run of the integration suites targets; vitest.config.ts sets TEST_DIALECT per project. */
export const dialect: TestDialect = parseDialect(process.env.TEST_DIALECT);

export interface TestDatabaseOptions {
  /** Sees every statement the test causes, and only those (no set-up statements). */
  onQuery?: (sql: string) => void;
  /** PostgreSQL pool size; ignored on SQLite. */
  poolSize?: number;
  /** `false` gives an empty database with no migrations applied. Default `true`. */
  migrate?: boolean;
}

export type TestDatabase = Database & {
  /** The PostgreSQL database's URL, for a second app instance on the same database; undefined on SQLite. */
  url?: string;
};

/**
 * A fresh, migrated database of the current dialect: SQLite in memory, or on PostgreSQL a new
 * database cloned from the template the global setup migrated. The caller closes it.
 */
export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const { onQuery, poolSize, migrate = true } = options;
  // Set-up statements must not reach onQuery: it is switched on once they have run.
  let counting = false;
  const countedOnQuery =
    onQuery &&
    ((sql: string) => {
      if (counting) onQuery(sql);
    });

  let database: TestDatabase;
  if (dialect === 'postgres') {
    const server = inject('postgres');
    if (!server) throw new Error('TEST_DIALECT=postgres needs the globalSetup of the postgres project (vitest.config.ts)');
    const name = `${server.databasePrefix}${randomBytes(6).toString('hex')}`;
    await createPostgresDatabase(server.adminUrl, name, migrate ? server.template : 'template0');
    const url = databaseUrl(server.adminUrl, name);
    database = Object.assign(createDatabase({ url, onQuery: countedOnQuery, poolSize }), { url });
  } else {
    database = Object.assign(createDatabase({ sqliteFile: ':memory:', onQuery: countedOnQuery }), { url: undefined });
  }
  try {
    if (migrate && dialect === 'sqlite') await migrateToLatest(database);
    // Kysely's destroy() does nothing to a Kysely that never ran a query, and the next query then
    // opens a new pool: one round trip now makes close() final on both dialects alike.
    await database.ping();
  } catch (error) {
    await database.close();
    throw error;
  }
  counting = true;
  return database;
}

async function createPostgresDatabase(adminUrl: string, name: string, template: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const statement = `CREATE DATABASE ${admin.escapeIdentifier(name)} TEMPLATE ${admin.escapeIdentifier(template)}`;
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(statement);
        return;
      } catch (error) {
        // 55006: "source database is being accessed by other users", a connection to the
        // template that has not quite gone; PostgreSQL itself already waited 5 s for it.
        if ((error as { code?: string }).code !== '55006' || attempt === 5) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  } finally {
    await admin.end();
  }
}

function parseDialect(value: string | undefined): TestDialect {
  if (value === undefined || value === '' || value === 'sqlite') return 'sqlite';
  if (value === 'postgres') return 'postgres';
  throw new Error(`TEST_DIALECT must be sqlite or postgres, not ${value}`);
}
