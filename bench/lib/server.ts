// Building and starting the production server the way a user runs it: `npm run build`, then
// `node dist/main.js` with its settings in the environment.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { delay, freePort, onCleanup, runToCompletion, startProcess, stopWatchdog, type ManagedProcess } from './processes.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export async function buildServer(): Promise<void> {
  console.log('building: npm run build');
  await runToCompletion('npm', ['run', '--silent', 'build'], ROOT);
  if (!fs.existsSync(path.join(ROOT, 'dist', 'main.js'))) throw new Error('npm run build produced no dist/main.js');
}

/** A fresh folder under the system temp dir, removed at the end of the run (or by a watchdog). */
export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const watchdog = spawn('sh', ['-c', 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; sleep 3; rm -rf "$2"', 'loreforge-bench-tmp-watchdog', String(process.pid), dir], {
    detached: true,
    stdio: 'ignore',
  });
  watchdog.on('error', () => {});
  watchdog.unref();
  onCleanup(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    stopWatchdog(watchdog.pid);
  });
  return dir;
}

export interface ServerOptions {
  name: string;
  dataDir: string;
  databaseUrl?: string | undefined;
  logLevel: string;
  /** More settings (e.g. LOGIN_MAX_FAILURES_PER_ACCOUNT). */
  env?: Record<string, string>;
  /** Options for node itself (e.g. --cpu-prof). */
  nodeArgs?: string[];
}

export interface RunningServer {
  name: string;
  port: number;
  url: string;
  process: ManagedProcess;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: options.dataDir,
    LOG_LEVEL: options.logLevel,
    ...options.env,
  };
  delete env.DATABASE_URL;
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  const child = startProcess(options.name, process.execPath, [...(options.nodeArgs ?? []), path.join(ROOT, 'dist', 'main.js')], { env, cwd: ROOT });
  const url = `http://127.0.0.1:${port}`;
  await waitForHealth(url, child, 60_000);
  return { name: options.name, port, url, process: child };
}

/** Polls GET /api/health until it answers 200; fails early if the process exits. */
export async function waitForHealth(url: string, child: ManagedProcess, timeoutMs: number, healthPath = '/api/health'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.hasExited()) throw new Error(`${child.name} exited before it was ready:\n${child.output()}`);
    try {
      const response = await fetch(`${url}${healthPath}`, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`${child.name} was not ready within ${timeoutMs} ms:\n${child.output()}`);
    await delay(100);
  }
}
