// Parses Markdown (CommonMark and GFM, by micromark) into mdast, in a worker thread of its own.
// micromark takes quadratic or worse time on some inputs (deeply nested quotes, lists and emphasis:
// 28 KB can take ten seconds), so an import never parses on the server's event loop: it sends each
// file here, and markdown.ts ends this worker when one takes too long (see parseMarkdown).
// Plain JavaScript with package imports only, so it runs as it is from src/ (tests, tsx) and from
// dist/ (the build copies it next to main.js).
import { parentPort } from 'node:worker_threads';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

parentPort?.on('message', (/** @type {{ id: number; text: string }} */ message) => {
  try {
    const tree = fromMarkdown(message.text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
    parentPort?.postMessage({ id: message.id, tree });
  } catch (error) {
    parentPort?.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) });
  }
});
