// Markdown parsing for imports, off the event loop and within a time limit: a worker thread
// (markdown-worker.mjs) parses; a file that takes longer than its allowance ends the worker and the
// import (400 naming the file). micromark's worst cases are quadratic or worse, so without this a
// small hostile file could stall every request of the server for minutes. The worker's memory is
// bounded too (micromark needs a few hundred bytes per byte of input: 4 MiB of prose takes a GiB):
// a file that needs more ends the worker, and the import, with a 400. An import whose client went
// away (its signal) ends the worker at once.
import { Worker } from 'node:worker_threads';
import type { Root } from 'mdast';
import { errors } from '../domain/errors.js';
import { ImportCancelled } from './budget.js';

/** A file gets this long, plus a millisecond per kilobyte. */
export const MARKDOWN_PARSE_MS = 3_000;
/** The parser's heap: enough for ~400 KB of dense Markdown, more than a thing's 256 KiB of text holds. */
const MEMORY_MB = 128;
const YOUNG_MB = 16;
/** Trees with more nodes are not sent back (a thing's 256 KiB of text holds far fewer). */
export const MARKDOWN_MAX_NODES = 100_000;

type Reply = { id: number; json: string } | { id: number; error: string };

/** One worker for one import's files, parsed one at a time. Close it when done. */
export class MarkdownParser {
  private worker: Worker | undefined;
  private next = 0;

  private start(): Worker {
    this.worker ??= new Worker(new URL('./markdown-worker.mjs', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: MEMORY_MB, maxYoungGenerationSizeMb: YOUNG_MB },
    });
    return this.worker;
  }

  /**
   * The mdast tree of `text` (without positions), or 400 invalid_import naming `file` when it cannot
   * be parsed in time or memory; ImportCancelled when `signal` aborts first.
   */
  parse(text: string, file: string, signal?: AbortSignal, allowanceMs = MARKDOWN_PARSE_MS + Math.ceil(text.length / 1024)): Promise<Root> {
    if (signal?.aborted) return Promise.reject(new ImportCancelled());
    const worker = this.start();
    const id = (this.next += 1);
    return new Promise<Root>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      const end = (error: Error) => {
        done();
        // The worker may be busy for a long time yet: end it; the next file gets a new one.
        if (this.worker === worker) this.worker = undefined;
        void worker.terminate();
        reject(error);
      };
      const fail = (problem: string) => end(errors.invalidImport(file, problem));
      const onAbort = () => end(new ImportCancelled());
      const onMessage = (reply: Reply) => {
        if (reply.id !== id) return;
        done();
        if ('error' in reply) reject(errors.invalidImport(file, `the Markdown cannot be read (${reply.error})`));
        else resolve(JSON.parse(reply.json) as Root);
      };
      const onError = (error: Error & { code?: string }) =>
        fail(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'the Markdown is too complex to read: it needs more memory than a note may take' : `the Markdown cannot be read (${error.message})`);
      const onExit = () => fail('the Markdown cannot be read (its parser stopped)');
      const timer = setTimeout(() => fail(`the Markdown is too complex to read: it took longer than ${(allowanceMs / 1000).toFixed(1)} s`), allowanceMs);
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.postMessage({ id, text, maxNodes: MARKDOWN_MAX_NODES });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }
}
