// Parses an import's JSON document (the json export, an archive's campaign.json) in a worker thread
// of its own, so a 64 MiB document never holds up the server's event loop (JSON.parse of it takes
// seconds), with its memory bounded by the worker's heap. The parsed document goes back in pieces:
// the top-level values that are not arrays first, then each top-level array a few hundred KiB at a
// time, each piece only once the server asks for it, so taking them in never blocks the server for
// long either. Pieces travel as JSON text: a structured clone of a deeply nested value takes the
// receiving thread seconds to take apart, JSON.parse does not. A record too large for the limits (or nested too deeply to measure) is refused here,
// naming it, before anything is sent.
// Plain JavaScript with Node's own imports only, so it runs as it is from src/ (tests, tsx) and from dist/ (the
// build copies it next to main.js).
import { TextDecoder } from 'node:util';
import { parentPort } from 'node:worker_threads';

/** A piece of at most about this many bytes of JSON (a record larger than that is a piece alone). */
const PIECE_BYTES = 256 * 1024;

/** The size of a value as JSON, or undefined when it cannot be measured (nested too deeply). */
function sizeOf(value) {
  try {
    const json = JSON.stringify(value);
    return json === undefined ? 0 : json.length;
  } catch {
    return undefined;
  }
}

let pending;
parentPort?.on('message', (message) => {
  if (message.type === 'next') {
    pending?.();
    return;
  }
  void run(message).catch((error) => parentPort?.postMessage({ type: 'error', problem: error instanceof Error ? error.message : String(error) }));
});

function next() {
  return new Promise((resolve) => {
    pending = resolve;
  });
}

function fail(path, problem) {
  parentPort?.postMessage({ type: 'problem', path, problem });
}

async function run({ bytes, maxRecordBytes }) {
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    fail('', 'the file is not UTF-8 text');
    return;
  }
  let document;
  try {
    document = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    fail('', `not valid JSON (${error instanceof Error ? error.message : String(error)})`);
    return;
  }
  text = undefined;
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    // Not a document at all: sent whole when small, for the checks to name what is wrong.
    const size = sizeOf(document);
    if (size === undefined || size > maxRecordBytes) fail('', 'must be a loreforge-campaign document (an object)');
    else parentPort?.postMessage({ type: 'head', json: JSON.stringify(document) ?? 'null', arrays: [] });
    return;
  }
  const head = {};
  const arrays = [];
  for (const [key, value] of Object.entries(document)) {
    if (Array.isArray(value)) arrays.push(key);
    else {
      const size = sizeOf(value);
      if (size === undefined) return fail(`/${key}`, 'nests too deeply to read');
      if (size > maxRecordBytes) return fail(`/${key}`, `is ${size} bytes of JSON; a record may be at most ${maxRecordBytes}`);
      head[key] = value;
    }
  }
  // Every record measured before anything is sent: a problem is found before the server takes in a byte.
  for (const key of arrays) {
    const items = document[key];
    for (let i = 0; i < items.length; i++) {
      const size = sizeOf(items[i]);
      if (size === undefined) return fail(`/${key}/${i}`, 'nests too deeply to read');
      if (size > maxRecordBytes) return fail(`/${key}/${i}`, `is ${size} bytes of JSON; a record may be at most ${maxRecordBytes}`);
    }
  }
  parentPort?.postMessage({ type: 'head', json: JSON.stringify(head), arrays });
  for (const key of arrays) {
    const items = document[key];
    let start = 0;
    while (start < items.length) {
      let end = start;
      let bytes = 0;
      while (end < items.length && (end === start || bytes + sizeOf(items[end]) <= PIECE_BYTES)) {
        bytes += sizeOf(items[end]);
        end += 1;
      }
      await next();
      parentPort?.postMessage({ type: 'piece', key, json: JSON.stringify(items.slice(start, end)) });
      // What was sent is the server's now: let this copy go.
      for (let i = start; i < end; i++) items[i] = undefined;
      start = end;
    }
  }
  await next();
  parentPort?.postMessage({ type: 'end' });
}
