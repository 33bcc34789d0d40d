import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './process-utils.js';
import path from 'node:path';

// The real server as a user runs it, in a child process: started, probed until it answers, killed.
// No vitest imports: scripts/chaos.ts and scripts/soak.ts use it too.

export const repoRoot = path.resolve(import.meta.dirname, '../..');

export interface ServerProcess {
  child: ChildProcess;
  base: string;
  port: number;
  /** The last 20 KB the process wrote to stdout and stderr. */
  output(): string;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<number | string>;
}

export interface StartOptions {
  env: Record<string, string>;
  /** A production bundle's main.js (see buildServer) to run instead of the TypeScript sources through tsx. */
  entry?: string;
  /** Reuse this port (a restart keeps the address its clients know). */
  port?: number;
  readyTimeoutMs?: number;
}

const live = new Set<ChildProcess>();

/** Runs the production build (`npm run build`: scripts/build.mjs into dist/) and returns dist/main.js. */
export async function buildServer(): Promise<string> {
  const child = spawn(process.execPath, ['scripts/build.mjs'], { cwd: repoRoot, stdio: 'inherit' });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`the production build failed (exit ${code})`);
  return path.join(repoRoot, 'dist', 'main.js');
}

/** SIGKILLs every server this module started that is still running (for afterAll and exit handlers). */
export function killAllStarted(): void {
  for (const child of live) child.kill('SIGKILL');
}


const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts the server and waits until GET /api/health answers 200 (polling, with a deadline).
 * LOG_LEVEL defaults to warn: a request log per request would cost the server more than the test.
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
  const args = options.entry ? [options.entry] : ['--import', 'tsx', 'src/main.ts'];
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...options.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => {
      live.delete(child);
      resolve(code ?? signal ?? 'unknown');
    });
  });
  let gone = false;
  void exited.then(() => (gone = true));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  for (;;) {
    if (gone) throw new Error(`the server exited before it was ready: ${output}`);
    try {
      const res = await fetch(`${base}/api/health`, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server did not answer on ${base} in time: ${output}`);
    }
    await sleep(50);
  }
  return { child, base, port, output: () => output, exited };
}

/** Sends `signal` and waits for the process to end. */
export async function stopServer(server: ServerProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | string> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill(signal);
  return server.exited;
}
