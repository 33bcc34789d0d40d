// The real server as a user runs it, in a child process: built, started with its settings in the
// environment, probed until it answers, stopped. Tests, the reliability scripts and the benchmarks
// all start it here. No vitest imports.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { delay, freePort, killAllNow, onCleanup, runToCompletion, startProcess, stopWatchdog, type ManagedProcess } from './processes.js';

export const repoRoot = path.resolve(import.meta.dirname, '..');

/**
 * Runs the production build (`npm run build`: scripts/build.mjs into dist/) and returns dist/main.js.
 * `web: false` builds the server alone; `web: <dir>` writes the web app into that folder (serve it
 * with WEB_ROOT), so a suite's copy is never rewritten by another suite's build.
 */
export async function buildServer(options: { web?: false | string } = {}): Promise<string> {
  const webArgs = options.web === false ? ['--no-web'] : options.web ? ['--web-out', options.web] : [];
  await runToCompletion(process.execPath, ['scripts/build.mjs', ...webArgs], repoRoot);
  const entry = path.join(repoRoot, 'dist', 'main.js');
  if (!fs.existsSync(entry)) throw new Error('the production build produced no dist/main.js');
  return entry;
}

export interface StartOptions {
  /** The server's settings. Nothing else is inherited that names a database: DATABASE_URL only when given here. */
  env: Record<string, string>;
  /** Shown in errors and logs (default "loreforge"). */
  name?: string;
  /** A production bundle's main.js (see buildServer) to run instead of the TypeScript sources through tsx. */
  entry?: string;
  /** Reuse this port (a restart keeps the address its clients know). */
  port?: number;
  /** Options for node itself (e.g. --cpu-prof). */
  nodeArgs?: string[];
  readyTimeoutMs?: number;
}

export interface ServerProcess {
  name: string;
  base: string;
  port: number;
  pid: number;
  process: ManagedProcess;
  /** The last lines the process wrote to stdout and stderr. */
  output(): string;
  /** Sends a signal to the process (SIGKILL for a crash, SIGTERM for a shutdown). */
  kill(signal: NodeJS.Signals): void;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<number | string>;
}

/**
 * Starts the server and waits until GET /api/health answers 200 (polling, with a deadline).
 * LOG_LEVEL defaults to warn: a request log per request would cost the server more than the caller.
 */
export async function startServer(options: StartOptions): Promise<ServerProcess> {
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort());
    try {
      return await startOn(port, options);
    } catch (error) {
      // Another process may have taken a port we probed as free; a fixed port gets no second try.
      if (options.port !== undefined || attempt === 3 || !String(error).includes('EADDRINUSE')) throw error;
    }
  }
}

async function startOn(port: number, options: StartOptions): Promise<ServerProcess> {
  const name = options.name ?? 'loreforge';
  const env: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...options.env, PORT: String(port) };
  if (options.env.DATABASE_URL === undefined) delete env.DATABASE_URL;
  // What the server spools to the system temp dir (imports) stays in its data folder, so a server
  // killed mid-import (the crash tests) leaves nothing behind once that folder is removed.
  if (options.env.DATA_DIR !== undefined && options.env.TMPDIR === undefined) {
    env.TMPDIR = path.join(options.env.DATA_DIR, 'tmp');
    fs.mkdirSync(env.TMPDIR, { recursive: true });
  }
  const entry = options.entry ? [options.entry] : ['--import', 'tsx', 'src/main.ts'];
  const managed = startProcess(name, process.execPath, [...(options.nodeArgs ?? []), ...entry], { env, cwd: repoRoot });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(base, managed, options.readyTimeoutMs ?? 60_000);
  } catch (error) {
    await managed.stop();
    throw error;
  }
  return {
    name,
    base,
    port,
    pid: managed.pid,
    process: managed,
    output: () => managed.output(),
    kill: (signal) => void managed.child.kill(signal),
    exited: managed.exited.then(({ code, signal }) => code ?? signal ?? 'unknown'),
  };
}

/** Polls `healthPath` until it answers 200; fails early if the process exits. */
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
    if (Date.now() > deadline) throw new Error(`${child.name} did not answer on ${url} within ${timeoutMs} ms:\n${child.output()}`);
    await delay(50);
  }
}

/** Sends `signal` and waits for the process to end. */
export async function stopServer(server: ServerProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | string> {
  if (!server.process.hasExited()) server.kill(signal);
  return server.exited;
}

/** SIGKILLs every server (and other process) started here that is still running (for afterAll hooks). */
export function killAllStarted(): void {
  killAllNow();
}

/** A fresh folder under the system temp dir, removed at the end of the run (or by a watchdog). */
export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const watchdog = spawn('sh', ['-c', 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; sleep 3; rm -rf "$2"', 'loreforge-tmp-watchdog', String(process.pid), dir], {
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
