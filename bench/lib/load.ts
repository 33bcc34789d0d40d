// One load run with autocannon: a warm-up whose figures are thrown away, then the measured run,
// with the CPU time the measured processes spent during it.
import { createRequire } from 'node:module';
import autocannon from 'autocannon';
import { cpuDelta, cpuMsOfAll, isExiting } from '../../toolkit/processes.js';

// autocannon appends every response body to a string, whether or not anything reads it; on
// responses of a megabyte that alone halves the rate the load generator can take in. Keep bodies
// only for requests with an onResponse handler (the only reader here).
{
  type Queue = { peek: () => { req?: { onResponse?: unknown } } | undefined };
  type AddBody = (this: Queue, data: Buffer) => void;
  const { prototype } = createRequire(import.meta.url)('autocannon/lib/pipelinedRequestsQueue.js') as { prototype: { addBody: AddBody } };
  const keepBody = prototype.addBody;
  prototype.addBody = function (this: Queue, data: Buffer) {
    if (typeof this.peek()?.req?.onResponse === 'function') keepBody.call(this, data);
  };
}

export type LoadRequest = autocannon.Request;

export interface LoadSpec {
  /** Origin of the server, e.g. http://127.0.0.1:41234. */
  url: string;
  connections: number;
  /** Seconds of the measured run. */
  duration: number;
  /** Seconds of warm-up before it (0: none). */
  warmup: number;
  headers: Record<string, string>;
  /** The request sequence every connection loops over. */
  requests: LoadRequest[];
  setupClient?: (client: autocannon.Client) => void;
  /** Seconds before a request counts as timed out (default 30, the server's own request timeout). */
  timeout?: number;
  /** Named groups of processes whose CPU time is measured during the run (e.g. server, postgres). */
  cpu?: Record<string, () => number[]>;
  /** Polled during the run; a reason stops the run early (e.g. the server's memory ran away). */
  abortWhen?: () => string | undefined;
}

export interface LoadStats {
  /** Completed requests per second over the measured run. */
  rps: number;
  requests: number;
  seconds: number;
  connections: number;
  p50: number;
  p99: number;
  /** Responses with a status outside 2xx. */
  non2xx: number;
  /** Socket errors, timeouts included. */
  socketErrors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** CPU milliseconds per measured group during the run. */
  cpuMs: Record<string, number>;
  aborted?: string;
}

export function errorsOf(stats: LoadStats): number {
  return stats.non2xx + stats.socketErrors;
}

/**
 * Warm-up (if any), then the measured run. `between` runs after the warm-up: requests the warm-up
 * left in flight are still being served and must not be counted against the measured run.
 */
export async function measure(spec: LoadSpec, between?: () => Promise<void>): Promise<LoadStats> {
  if (spec.warmup > 0) {
    await runLoad(spec, spec.warmup);
    await between?.();
  }
  return runLoad(spec, spec.duration);
}

/**
 * The response time of one request at a time (no concurrency), median of up to `maxRequests`
 * sequential requests within `seconds`: how long the route takes on its own. Doubles as a gentle
 * warm-up for routes too heavy to warm up with every connection at once.
 */
export async function unloadedLatency(url: string, headers: Record<string, string>, seconds: number, maxRequests = 200): Promise<{ medianMs: number; requests: number }> {
  const times: number[] = [];
  const deadline = Date.now() + seconds * 1000;
  while (times.length < maxRequests && (times.length < 3 || Date.now() < deadline)) {
    const started = performance.now();
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(120_000) });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`GET ${url}: ${response.status}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { medianMs: times[Math.floor(times.length / 2)] ?? 0, requests: times.length };
}

/** One run of `seconds` (the spec's warm-up is not applied). */
export async function runLoad(spec: LoadSpec, seconds: number): Promise<LoadStats> {
  const groups = Object.entries(spec.cpu ?? {});
  const before = groups.map(([name, pids]) => [name, cpuMsOfAll(pids())] as const);
  let aborted: string | undefined;
  let poll: NodeJS.Timeout | undefined;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        connections: spec.connections,
        duration: seconds,
        timeout: spec.timeout ?? 30,
        headers: spec.headers,
        requests: spec.requests,
        ...(spec.setupClient ? { setupClient: spec.setupClient } : {}),
      },
      (error, outcome) => (error ? reject(error) : resolve(outcome)),
    );
    if (spec.abortWhen) {
      const check = spec.abortWhen;
      poll = setInterval(() => {
        const reason = check();
        if (reason !== undefined && aborted === undefined) {
          aborted = reason;
          instance.stop();
        }
      }, 200);
    }
  }).finally(() => clearInterval(poll));
  // Interrupted (Ctrl-C): the servers are being stopped; these figures mean nothing.
  if (isExiting()) throw new Error('interrupted');
  const cpuMs: Record<string, number> = {};
  for (const [name, start] of before) {
    const pids = spec.cpu?.[name]?.() ?? [];
    cpuMs[name] = cpuDelta(start, cpuMsOfAll(pids));
  }
  const statusCodes: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats)) statusCodes[code] = count;
  const requests = result.requests.total;
  return {
    rps: result.duration > 0 ? requests / result.duration : 0,
    requests,
    seconds: result.duration,
    connections: spec.connections,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    socketErrors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    cpuMs,
    ...(aborted === undefined ? {} : { aborted }),
  };
}
