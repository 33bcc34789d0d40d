// Parsing an import's JSON document off the event loop (CONTRACT "Hostile input"): json-worker.mjs
// decodes and parses it in a worker thread with a bounded heap, and hands the document back piece
// by piece, each piece asked for only after the last was taken in, so the server answers other
// requests between pieces. A worker that runs out of memory, a record too large or too deep, or
// text that is not JSON is 400 invalid_import naming the entry; a client gone away ends the worker.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { errors } from '../domain/errors.js';
import { RICH_TEXT_MAX_BYTES } from '../domain/rich-text.js';
import { ImportBudget, ImportCancelled } from './budget.js';

/** The worker's heap: a 64 MiB document of small records needs about this much. */
const MEMORY_MB = 384;
/**
 * The largest record of a document, as JSON: an arc's seven texts at their limit and room to spare.
 * A record larger could never be imported; refusing it early keeps the pieces small.
 */
export const RECORD_MAX_BYTES = 8 * RICH_TEXT_MAX_BYTES + 64 * 1024;

/** The document's reading gets this long, plus a millisecond per KiB (64 MiB parses in a few seconds). */
export const JSON_PARSE_MS = 30_000;

type FromWorker =
  | { type: 'head'; json: string; arrays: string[] }
  | { type: 'piece'; key: string; json: string }
  | { type: 'end' }
  | { type: 'problem'; path: string; problem: string }
  | { type: 'error'; problem: string };

/** The document in `bytes` (UTF-8 JSON), parsed in a worker; 400 naming `entry` when it cannot be. */
export function parseJsonDocument(bytes: Buffer, entry: string, budget: ImportBudget): Promise<unknown> {
  budget.check();
  const worker = new Worker(new URL('./json-worker.mjs', import.meta.url), {
    resourceLimits: { maxOldGenerationSizeMb: MEMORY_MB, maxYoungGenerationSizeMb: 16 },
  });
  const signal = budget.signal;
  return new Promise<unknown>((resolve, reject) => {
    let document: Record<string, unknown[]> | undefined;
    let settled = false;
    const allowanceMs = JSON_PARSE_MS + Math.ceil(bytes.length / 1024);
    const timer = setTimeout(
      () => finish(errors.invalidImport(entry, `the document is too complex to read: it took longer than ${(allowanceMs / 1000).toFixed(1)} s`)),
      allowanceMs,
    );
    const finish = (error: Error | undefined, value?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      void worker.terminate();
      if (error) reject(error);
      else resolve(value);
    };
    const onAbort = () => finish(new ImportCancelled());
    signal.addEventListener('abort', onAbort, { once: true });
    const askForMore = () => {
      // Yield first: whatever else the server has to do runs between two pieces.
      void yieldToEventLoop().then(() => {
        if (!settled) worker.postMessage({ type: 'next' });
      });
    };
    worker.on('message', (message: FromWorker) => {
      switch (message.type) {
        case 'head': {
          const head = JSON.parse(message.json) as unknown;
          if (message.arrays.length === 0) {
            finish(undefined, head);
            return;
          }
          document = head as Record<string, unknown[]>;
          for (const key of message.arrays) document[key] = [];
          askForMore();
          return;
        }
        case 'piece':
          for (const item of JSON.parse(message.json) as unknown[]) document![message.key]!.push(item);
          askForMore();
          return;
        case 'end':
          finish(undefined, document);
          return;
        case 'problem':
          finish(message.path === '' ? errors.invalidImport(entry, message.problem) : errors.invalidImport(`${entry}#${message.path}`, message.problem));
          return;
        case 'error':
          finish(errors.invalidImport(entry, `the document cannot be read (${message.problem})`));
          return;
      }
    });
    worker.on('error', (error: Error & { code?: string }) =>
      finish(
        errors.invalidImport(
          entry,
          error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'the document is too large to read: it needs more memory than an import may take' : `the document cannot be read (${error.message})`,
        ),
      ),
    );
    worker.on('exit', () => finish(errors.invalidImport(entry, 'the document cannot be read (its parser stopped)')));
    // Copied to the worker (a Buffer may share its memory with others: it is never transferred).
    worker.postMessage({ bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), maxRecordBytes: RECORD_MAX_BYTES });
  });
}
