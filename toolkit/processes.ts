// Child processes of a test, script or benchmark run, and making sure none outlives it: every
// process started here is stopped by the cleanup that runs on a normal end, on an error and on
// Ctrl-C (runMain), and a detached watchdog stops it even if this process is killed outright.
// Also what /proc tells about a process (memory, CPU). No vitest imports.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

/** A port free right now on 127.0.0.1 (another process may still take it before we bind). */
export function freePort(): Promise<number> {
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

/** `promise`, or a rejection naming `what` once `ms` have passed. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

type Cleanup = () => Promise<void> | void;
const cleanups: Cleanup[] = [];
const running = new Set<ManagedProcess>();
let exiting = false;

/** Runs `fn` when the run ends, however it ends (last registered, first run). */
export function onCleanup(fn: Cleanup): () => void {
  cleanups.push(fn);
  return () => {
    const at = cleanups.indexOf(fn);
    if (at >= 0) cleanups.splice(at, 1);
  };
}

export async function runCleanups(): Promise<void> {
  while (cleanups.length > 0) {
    const fn = cleanups.pop();
    try {
      await withTimeout(Promise.resolve(fn?.()), 20_000, 'a cleanup step');
    } catch (error) {
      console.error(`cleanup: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/**
 * Runs `main`, then the cleanups, and exits with its code: 0, 1 on an error, 130/143 on a signal.
 * A second Ctrl-C kills the children at once.
 */
export function runMain(main: () => Promise<number>): void {
  const onSignal = (signal: NodeJS.Signals) => {
    if (exiting) {
      killAllNow();
      process.exit(1);
    }
    exiting = true;
    console.error(`\n${signal}: stopping the run and its processes…`);
    void runCleanups().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);
  process.on('exit', killAllNow);
  main().then(
    async (code) => {
      exiting = true;
      await runCleanups();
      process.exit(code);
    },
    async (error: unknown) => {
      exiting = true;
      console.error(`\nfailed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      await runCleanups();
      process.exit(1);
    },
  );
}

export function isExiting(): boolean {
  return exiting;
}

/** SIGKILLs every process started here that is still running (afterAll hooks, exit handlers). */
export function killAllNow(): void {
  for (const managed of running) {
    try {
      managed.child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
    stopWatchdog(managed.watchdog);
  }
}

export interface ManagedProcess {
  name: string;
  pid: number;
  child: ChildProcess;
  watchdog: number | undefined;
  /** The last lines the process wrote (stdout and stderr). */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  hasExited(): boolean;
  stop(): Promise<void>;
}

export function startProcess(
  name: string,
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; echo?: boolean } = {},
): ManagedProcess {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  if (child.pid === undefined) throw new Error(`could not start ${name} (${command})`);
  const pid = child.pid;
  const lines: string[] = [];
  const remember = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    if (options.echo) process.stderr.write(`[${name}] ${text}`);
    lines.push(text);
    if (lines.length > 200) lines.shift();
  };
  child.stdout?.on('data', remember);
  child.stderr?.on('data', remember);
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
    child.on('error', (error) => {
      done = true;
      lines.push(String(error));
      resolve({ code: null, signal: null });
    });
  });
  const managed: ManagedProcess = {
    name,
    pid,
    child,
    watchdog: startWatchdog(pid, readComm(pid)),
    output: () => lines.join(''),
    exited,
    hasExited: () => done,
    async stop() {
      if (!done) {
        child.kill('SIGTERM');
        const ended = await Promise.race([exited.then(() => true), delay(10_000).then(() => false)]);
        if (!ended) {
          child.kill('SIGKILL');
          await Promise.race([exited, delay(2_000)]);
        }
      }
      stopWatchdog(managed.watchdog);
      running.delete(managed);
    },
  };
  running.add(managed);
  onCleanup(() => managed.stop());
  void exited.then(() => stopWatchdog(managed.watchdog));
  return managed;
}

function readComm(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

/**
 * A detached shell that stops `pid` once this process is gone (killed before its cleanup ran).
 * It checks the process name first, so a recycled pid is left alone.
 */
function startWatchdog(pid: number, comm: string): number | undefined {
  const script = `
    while kill -0 "$1" 2>/dev/null; do sleep 1; done
    if [ -z "$3" ] || [ "$(cat "/proc/$2/comm" 2>/dev/null)" = "$3" ]; then
      kill -TERM "$2" 2>/dev/null
      i=0
      while kill -0 "$2" 2>/dev/null && [ "$i" -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
      kill -KILL "$2" 2>/dev/null
    fi
  `;
  const watchdog = spawn('sh', ['-c', script, 'loreforge-watchdog', String(process.pid), String(pid), comm], {
    detached: true,
    stdio: 'ignore',
  });
  watchdog.on('error', () => {});
  watchdog.unref();
  return watchdog.pid;
}

export function stopWatchdog(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    // The whole group: the shell and the `sleep` it may be waiting on.
    process.kill(-pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
}

/** Runs a command to completion with inherited output; throws on a non-zero exit. */
export async function runToCompletion(command: string, args: string[], cwd: string): Promise<void> {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  const killChild = () => {
    child.kill('SIGTERM');
  };
  const unregister = onCleanup(killChild);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (exitCode) => resolve(exitCode));
  });
  unregister();
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${code}`);
}


/** Resident set size of a process, in MiB (VmRSS of /proc/<pid>/status), or undefined once it is gone. */
export function rssMb(pid: number): number | undefined {
  return memoryOf(pid)?.rssMiB;
}

/** Resident memory now and its peak so far (VmRSS and VmHWM), in MiB, or undefined once it is gone. */
export function memoryOf(pid: number): { rssMiB: number; peakMiB: number } | undefined {
  let status: string;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const mib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
  return { rssMiB: mib('VmRSS'), peakMiB: mib('VmHWM') };
}

// USER_HZ: the unit of utime/stime in /proc/<pid>/stat; 100 on every mainstream Linux build.
const CLOCK_TICKS_PER_SECOND = 100;

/** CPU time (user + system, every thread) a process has used so far, in milliseconds. */
export function cpuMs(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** The pid and its direct children (e.g. a postmaster and its backends). */
export function processTree(pid: number): number[] {
  const pids = [pid];
  for (const entry of safeReaddir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** Total CPU milliseconds of a set of processes, counting only those still alive. */
export function cpuMsOfAll(pids: number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    const ms = cpuMs(pid);
    if (ms !== undefined) out.set(pid, ms);
  }
  return out;
}

/** CPU used between two readings by the processes present in both. */
export function cpuDelta(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, end] of after) {
    const start = before.get(pid);
    if (start !== undefined) total += end - start;
  }
  return total;
}

/** Samples a process's RSS every second; tracks the peak. */
export class RssSampler {
  peakMb = 0;
  lastMb = 0;
  private timer: NodeJS.Timeout | undefined;
  private listeners: ((mb: number) => void)[] = [];

  constructor(private readonly pid: number) {}

  start(): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), 1000);
    this.timer.unref();
    return this;
  }

  /** Reads the RSS now (also counted towards the peak). */
  sample(): number | undefined {
    const mb = rssMb(this.pid);
    if (mb !== undefined) {
      this.lastMb = mb;
      this.peakMb = Math.max(this.peakMb, mb);
      for (const listener of this.listeners) listener(mb);
    }
    return mb;
  }

  onSample(listener: (mb: number) => void): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}


/**
 * Waits until the processes are idle (less than `threshold` of one core over `windowMs`), at most
 * `maxMs`: requests a load generator gave up on may still be running on the server, and must not
 * be counted against the next scenario. Returns how long it waited.
 */
export async function waitUntilIdle(pids: () => number[], maxMs = 30_000, windowMs = 500, threshold = 0.15): Promise<number> {
  const started = Date.now();
  for (;;) {
    const before = cpuMsOfAll(pids());
    await delay(windowMs);
    const used = cpuDelta(before, cpuMsOfAll(pids())) / windowMs;
    if (used < threshold || Date.now() - started > maxMs) return Date.now() - started;
  }
}
