import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import setup, { databaseUrl, type PostgresTestServer } from './postgres-global-setup.js';

// PostgreSQL for the reliability scripts (chaos, soak), outside vitest: the server the test suite
// uses (TEST_DATABASE_URL, or a throwaway embedded PostgreSQL 17), with fresh databases cloned from
// its migrated template. Like the suite's, the embedded server runs without fsync: the scripts kill
// Loreforge's process, never PostgreSQL's, so PostgreSQL's own durability is not what they measure.

export interface ScriptPostgres {
  /** A new, migrated database; returns its URL. */
  newDatabase(): Promise<string>;
  stop(): Promise<void>;
}

export async function startScriptPostgres(): Promise<ScriptPostgres> {
  let server: PostgresTestServer | undefined;
  // The global setup only needs somewhere to put what it provides.
  const project = {
    provide: (_key: string, value: PostgresTestServer) => {
      server = value;
    },
  } as unknown as TestProject;
  const teardown = await setup(project);
  if (!server) throw new Error('the PostgreSQL setup provided no server');
  const { adminUrl, template, databasePrefix } = server;
  return {
    async newDatabase() {
      const name = `${databasePrefix}${randomBytes(6).toString('hex')}`;
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(name)} TEMPLATE ${admin.escapeIdentifier(template)}`);
      } finally {
        await admin.end();
      }
      return databaseUrl(adminUrl, name);
    },
    stop: teardown,
  };
}
