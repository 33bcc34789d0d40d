// Parses Markdown (CommonMark and GFM, by micromark) into mdast, in a worker thread of its own.
// micromark takes quadratic or worse time on some inputs (deeply nested quotes, lists and emphasis:
// 28 KB can take ten seconds), and a few hundred bytes of working memory per byte of input, so an
// import never parses on the server's event loop: it sends each file here, and markdown.ts ends
// this worker when one takes too long, and bounds its memory (see MarkdownParser).
// The tree goes back as JSON text without positions (nothing reads them; they are half its size),
// and only when it has at most `maxNodes` nodes: more could not fit a thing's text anyway.
// Plain JavaScript with package imports only, so it runs as it is from src/ (tests, tsx) and from
// dist/ (the build copies it next to main.js).
import { parentPort } from 'node:worker_threads';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

/** Removes `position` from every node (without recursion: a tree may be deep); false past `max` nodes. */
function strip(tree, max) {
  const stack = [tree];
  let count = 0;
  while (stack.length > 0) {
    const node = stack.pop();
    count += 1;
    if (count > max) return false;
    delete node.position;
    if (Array.isArray(node.children)) for (const child of node.children) stack.push(child);
  }
  return true;
}

parentPort?.on('message', (/** @type {{ id: number; text: string; maxNodes: number }} */ message) => {
  try {
    const tree = fromMarkdown(message.text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
    if (!strip(tree, message.maxNodes)) {
      parentPort?.postMessage({ id: message.id, error: `it has more than ${message.maxNodes} elements, more than a thing's text holds` });
      return;
    }
    // As JSON text: the structured clone of a deeply nested tree takes the receiving thread (the
    // server's event loop) seconds to take apart (1,500 nested quotes: over 15 s); JSON.parse does not.
    let json;
    try {
      json = JSON.stringify(tree);
    } catch {
      parentPort?.postMessage({ id: message.id, error: 'it nests too deeply to read' });
      return;
    }
    parentPort?.postMessage({ id: message.id, json });
  } catch (error) {
    parentPort?.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) });
  }
});
