import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { createDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { startEmbeddedPostgres } from '../../toolkit/embedded-postgres.js';

/** What the `postgres` project's test files receive through `inject('postgres')`. */
export interface PostgresTestServer {
  /** A database on the server from which `CREATE DATABASE` may be run. */
  adminUrl: string;
  /** A migrated database that every test database is cloned from. */
  template: string;
  /** Names of the test databases of this run start with it, so teardown can find them. */
  databasePrefix: string;
}

/** The URL of another database on the server `url` points at. */
export function databaseUrl(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(database)}`;
  return parsed.toString();
}

/**
 * Runs once per vitest run for the `postgres` project: uses the server at TEST_DATABASE_URL, or
 * starts a throwaway one, and builds the migrated template the test databases are cloned from.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const runId = randomBytes(6).toString('hex');
  const template = `loreforge_template_${runId}`;
  const databasePrefix = `loreforge_test_${runId}_`;
  const externalUrl = process.env.TEST_DATABASE_URL;

  const server = externalUrl ? { url: externalUrl, stop: () => Promise.resolve() } : await startEmbeddedServer();
  const teardown = async () => {
    try {
      if (externalUrl) await dropDatabases(externalUrl, template, databasePrefix);
    } finally {
      await server.stop();
    }
  };
  try {
    await createTemplate(server.url, template);
  } catch (error) {
    // vitest runs no teardown when setup throws.
    await teardown().catch(() => {});
    throw error;
  }
  project.provide('postgres', { adminUrl: server.url, template, databasePrefix });
  return teardown;
}

async function createTemplate(adminUrl: string, template: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(template)}`);
    const database = createDatabase({ url: databaseUrl(adminUrl, template), poolSize: 1 });
    try {
      await migrateToLatest(database);
    } finally {
      await database.close();
    }
    // A closed client's backend leaves the server a moment later; cloning a database someone is
    // still connected to fails, so wait until the server has let go of every connection to it.
    const deadline = Date.now() + 10_000;
    for (;;) {
      const { rows } = await admin.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
        [template],
      );
      if (rows[0]?.n === 0) break;
      if (Date.now() > deadline) throw new Error(`connections to ${template} did not close`);
      await delay(20);
    }
  } finally {
    await admin.end();
  }
}

/** Drops the template and every test database of this run from a server we do not own. */
async function dropDatabases(adminUrl: string, template: string, databasePrefix: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname = $1 OR left(datname, length($2)) = $2',
      [template, databasePrefix],
    );
    for (const { datname } of rows) {
      const name = admin.escapeIdentifier(datname);
      try {
        // FORCE (PostgreSQL 13+) ends connections a crashed test file may have left behind.
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } catch (error) {
        if ((error as { code?: string }).code !== '42601') throw error;
        await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      }
    }
  } finally {
    await admin.end();
  }
}

/** A server of our own for this run: nothing in it needs to survive a crash, so nothing is fsynced. */
function startEmbeddedServer(): Promise<{ url: string; stop: () => Promise<void> }> {
  return startEmbeddedPostgres({ name: 'loreforge-pg', settings: ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off'] }).then(
    (server) => ({ url: server.adminUrl, stop: server.stop }),
  );
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
