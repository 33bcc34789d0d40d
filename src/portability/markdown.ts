// Markdown parsing for imports, off the event loop and within a time limit: a worker thread
// (markdown-worker.mjs) parses; a file that takes longer than its allowance ends the worker and the
// import (400 naming the file). micromark's worst cases are quadratic or worse, so without this a
// small hostile file could stall every request of the server for minutes.
import { Worker } from 'node:worker_threads';
import type { Root } from 'mdast';
import { errors } from '../domain/errors.js';

/** A file gets this long, plus a millisecond per kilobyte (a 4 MiB file of prose parses in under a second). */
export const MARKDOWN_PARSE_MS = 3_000;
const MEMORY_MB = 512;

type Reply = { id: number; tree: Root } | { id: number; error: string };

/** One worker for one import's files, parsed one at a time. Close it when done. */
export class MarkdownParser {
  private worker: Worker | undefined;
  private next = 0;

  private start(): Worker {
    this.worker ??= new Worker(new URL('./markdown-worker.mjs', import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: MEMORY_MB } });
    return this.worker;
  }

  /** The mdast tree of `text`, or 400 invalid_import naming `file` when it cannot be parsed in time. */
  parse(text: string, file: string, allowanceMs = MARKDOWN_PARSE_MS + Math.ceil(text.length / 1024)): Promise<Root> {
    const worker = this.start();
    const id = (this.next += 1);
    return new Promise<Root>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      const fail = (problem: string) => {
        done();
        // The worker may be busy for a long time yet: end it; the next file gets a new one.
        if (this.worker === worker) this.worker = undefined;
        void worker.terminate();
        reject(errors.invalidImport(file, problem));
      };
      const onMessage = (reply: Reply) => {
        if (reply.id !== id) return;
        done();
        if ('error' in reply) reject(errors.invalidImport(file, `the Markdown cannot be read (${reply.error})`));
        else resolve(reply.tree);
      };
      const onError = (error: Error) => fail(`the Markdown cannot be read (${error.message})`);
      const onExit = () => fail('the Markdown cannot be read (its parser stopped)');
      const timer = setTimeout(() => fail(`the Markdown is too complex to read: it took longer than ${(allowanceMs / 1000).toFixed(1)} s`), allowanceMs);
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.postMessage({ id, text });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }
}
