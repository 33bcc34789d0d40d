// Reading an import's JSON document off the event loop (CONTRACT "Hostile input"): json-worker.mjs
// scans and checks it in a worker thread with a bounded heap, never holding it as objects, and hands
// its top-level arrays' records over piece by piece, each piece asked for only when the reader wants
// it, so the server answers other requests between pieces and holds one piece at a time (the plan
// keeps what it needs of each record). A worker that runs out of memory, a record too large or too
// deep, or text that is not JSON is 400 invalid_import naming the entry; a client gone away ends the
// worker.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { errors } from '../../domain/errors.js';
import { PROPERTIES_MAX_BYTES } from '../../domain/properties.js';
import { RICH_TEXT_MAX_BYTES } from '../../domain/rich-text.js';
import { ImportBudget, ImportCancelled } from '../budget.js';

/** The worker's heap: it holds a record at a time, a piece of records and where each record is. */
const MEMORY_MB = 128;
/**
 * The largest record of a document, as JSON: an arc's seven texts and its properties at their
 * limits, and room to spare (tags, aliases, names). A record larger could never be imported;
 * refusing it early keeps the pieces small.
 */
export const RECORD_MAX_BYTES = 7 * RICH_TEXT_MAX_BYTES + PROPERTIES_MAX_BYTES + 256 * 1024;

/** The document's reading gets this long, plus a millisecond per KiB (64 MiB parses in a few seconds). */
export const JSON_PARSE_MS = 30_000;

type FromWorker =
  | { type: 'head'; json: string; arrays: Record<string, number> }
  | { type: 'piece'; key: string; from: number; json: string }
  | { type: 'problem'; path: string; problem: string }
  | { type: 'error'; problem: string };

/** A JSON document being read: its top-level values at once, its top-level arrays a piece at a time. */
export interface JsonDocument {
  /** The document's value; when it is an object, without its arrays (their records come from `records`). */
  readonly head: unknown;
  /** The length of each top-level array of the document (an object). */
  readonly arrays: ReadonlyMap<string, number>;
  /** The records of top-level array `key`, in order; each piece is read when the last is used up. */
  records(key: string): AsyncIterable<unknown>;
  /** Ends the reading (the worker); always called once the document is no longer needed. */
  close(): void;
}

/**
 * Opens the document in `bytes` (UTF-8 JSON) in a worker; 400 naming `entry` when it cannot be read.
 * The bytes are the worker's from then on: a Buffer that owns its memory is moved, not copied.
 */
export function openJsonDocument(bytes: Buffer, entry: string, budget: ImportBudget): Promise<JsonDocument> {
  budget.check();
  const worker = new Worker(new URL('./json-worker.mjs', import.meta.url), {
    resourceLimits: { maxOldGenerationSizeMb: MEMORY_MB, maxYoungGenerationSizeMb: 4 },
  });
  const signal = budget.signal;
  let failure: Error | undefined;
  let closed = false;
  let waiting: { resolve(message: FromWorker): void; reject(error: Error): void } | undefined;
  const allowanceMs = JSON_PARSE_MS + Math.ceil(bytes.length / 1024);
  const timer = setTimeout(
    () => fail(errors.invalidImport(entry, `the document is too complex to read: it took longer than ${(allowanceMs / 1000).toFixed(1)} s`)),
    allowanceMs,
  );
  const close = () => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    void worker.terminate();
  };
  const fail = (error: Error) => {
    if (closed) return;
    failure = error;
    close();
    const pending = waiting;
    waiting = undefined;
    pending?.reject(error);
  };
  const onAbort = () => fail(new ImportCancelled());
  signal.addEventListener('abort', onAbort, { once: true });
  /** The worker's next answer. */
  const receive = (): Promise<FromWorker> =>
    failure ? Promise.reject(failure) : closed ? Promise.reject(new Error('the document was closed')) : new Promise((resolve, reject) => (waiting = { resolve, reject }));
  worker.on('message', (message: FromWorker) => {
    if (message.type === 'problem') {
      fail(message.path === '' ? errors.invalidImport(entry, message.problem) : errors.invalidImport(`${entry}#${message.path}`, message.problem));
      return;
    }
    if (message.type === 'error') {
      fail(errors.invalidImport(entry, `the document cannot be read (${message.problem})`));
      return;
    }
    const pending = waiting;
    waiting = undefined;
    pending?.resolve(message);
  });
  worker.on('error', (error: Error & { code?: string }) =>
    fail(
      errors.invalidImport(
        entry,
        error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'the document is too large to read: it needs more memory than an import may take' : `the document cannot be read (${error.message})`,
      ),
    ),
  );
  worker.on('exit', () => fail(errors.invalidImport(entry, 'the document cannot be read (its parser stopped)')));

  const head = receive();
  const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
  const view = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // A Buffer that shares its memory with others (a pooled one) is copied; one that owns it is moved.
  worker.postMessage({ bytes: view, maxRecordBytes: RECORD_MAX_BYTES }, owned ? [view.buffer as ArrayBuffer] : []);

  return head.then(
    (message) => {
      if (message.type !== 'head') throw new Error(`the document reader answered ${message.type} first`);
      const arrays = new Map(Object.entries(message.arrays));
      const value = JSON.parse(message.json) as unknown;
      return {
        head: value,
        arrays,
        close,
        async *records(key: string): AsyncIterable<unknown> {
          const length = arrays.get(key) ?? 0;
          let from = 0;
          while (from < length) {
            // Yield first: whatever else the server has to do runs between two pieces.
            await yieldToEventLoop();
            const next = receive();
            worker.postMessage({ type: 'piece', key, from });
            const piece = await next;
            if (piece.type !== 'piece' || piece.key !== key || piece.from !== from) throw new Error('the document reader answered out of turn');
            const items = JSON.parse(piece.json) as unknown[];
            from += items.length;
            yield* items;
          }
        },
      };
    },
    (error: unknown) => {
      close();
      throw error;
    },
  );
}
