// Reads an import's JSON document (the json export, an archive's campaign.json) in a worker thread
// of its own, so a 64 MiB document never holds up the server's event loop, and without ever holding
// the document as objects: the bytes are scanned for the document's top-level members, and each
// record of a top-level array (a thing, an arc, a link…) is found by its bytes and parsed on its own.
//   1. A first pass parses every record once, to check it is JSON and not too large or too deep to
//      read, and keeps only where it starts and ends: a problem is found before the server takes in
//      a byte of it. The top-level values that are not arrays are sent, with each array's length.
//   2. Then the server asks for the records of an array, a piece (a few hundred KiB of JSON) at a
//      time, each piece only once the last was taken in; a piece travels as the record's own JSON
//      text (a structured clone of a deeply nested value takes the receiving thread seconds to take
//      apart, JSON.parse does not).
// So the worker holds the bytes and two numbers per record, and the server one piece at a time.
// Plain JavaScript with Node's own imports only, so it runs as it is from src/ (tests, tsx) and from
// dist/ (the build copies it next to main.js).
import { TextDecoder } from 'node:util';
import { parentPort } from 'node:worker_threads';

/** A piece of at most about this many bytes of JSON (a record larger than that is a piece alone). */
const PIECE_BYTES = 256 * 1024;
/** A record nested deeper than this is serialised once to see whether it can be read at all. */
const SHALLOW = 256;

const utf8 = new TextDecoder('utf-8', { fatal: true });

class Problem extends Error {
  constructor(path, problem) {
    super(problem);
    this.path = path;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

function isSpace(byte) {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function invalid(at, what) {
  return new Problem('', `not valid JSON (${what} at byte ${at})`);
}

/** The bytes of a document, scanned from its start: where each value ends, how deep it nests. */
class Scanner {
  constructor(bytes) {
    this.bytes = bytes;
    this.at = 0;
    // A byte-order mark is not part of the document.
    if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) this.at = 3;
  }

  skipSpace() {
    const bytes = this.bytes;
    while (this.at < bytes.length && isSpace(bytes[this.at])) this.at += 1;
  }

  /** The next byte after any white space (undefined at the end). */
  peek() {
    this.skipSpace();
    return this.bytes[this.at];
  }

  expect(byte, what) {
    if (this.peek() !== byte) throw invalid(this.at, this.at >= this.bytes.length ? `the document ends where ${what} was expected` : `${what} was expected`);
    this.at += 1;
  }

  /** Skips one value from the current byte; its deepest nesting. Its syntax is checked when it is parsed. */
  skipValue() {
    const bytes = this.bytes;
    this.skipSpace();
    const start = this.at;
    let depth = 0;
    let deepest = 0;
    let at = this.at;
    while (at < bytes.length) {
      const byte = bytes[at];
      if (byte === QUOTE) {
        at += 1;
        while (at < bytes.length && bytes[at] !== QUOTE) at += bytes[at] === BACKSLASH ? 2 : 1;
        if (at >= bytes.length) throw invalid(start, 'a string that never ends');
        at += 1;
        if (depth === 0) break;
        continue;
      }
      if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
        depth += 1;
        if (depth > deepest) deepest = depth;
      } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
        if (depth === 0) break;
        depth -= 1;
        if (depth === 0) {
          at += 1;
          break;
        }
      } else if (depth === 0 && (byte === COMMA || isSpace(byte))) break;
      at += 1;
    }
    if (depth > 0) throw invalid(start, 'a value that never ends');
    if (at === start) throw invalid(start, 'a value was expected');
    this.at = at;
    return { start, end: at, deepest };
  }
}

/** The value of bytes [start, end), parsed and checked for size and depth; `path` names it in problems. */
function parseValue(bytes, { start, end, deepest }, path, maxRecordBytes) {
  const size = end - start;
  if (size > maxRecordBytes) throw new Problem(path, `is ${size} bytes of JSON; a record may be at most ${maxRecordBytes}`);
  let text;
  try {
    text = utf8.decode(bytes.subarray(start, end));
  } catch {
    throw new Problem('', 'the file is not UTF-8 text');
  }
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalid(start, `${error instanceof Error ? error.message : String(error)} in the value starting`);
  }
  if (deepest > SHALLOW) {
    // Whatever cannot be serialised cannot be checked or stored either.
    try {
      JSON.stringify(value);
    } catch {
      throw new Problem(path, 'nests too deeply to read');
    }
  }
  return { value, text };
}

/** A key of an object: a JSON string. */
function readKey(scanner) {
  if (scanner.peek() !== QUOTE) throw invalid(scanner.at, 'a key (a string) was expected');
  const span = scanner.skipValue();
  try {
    return JSON.parse(utf8.decode(scanner.bytes.subarray(span.start, span.end)));
  } catch {
    throw invalid(span.start, 'a key (a string) was expected');
  }
}

/**
 * Pass 1: the document's top-level values that are not arrays, and for each array where each
 * record's bytes start and end (every record parsed once and let go).
 */
function scan(bytes, maxRecordBytes) {
  const scanner = new Scanner(bytes);
  const head = {};
  const arrays = new Map();
  scanner.expect(OPEN_OBJECT, 'an object');
  if (scanner.peek() === CLOSE_OBJECT) scanner.at += 1;
  else {
    for (;;) {
      const key = readKey(scanner);
      scanner.expect(COLON, 'a colon');
      const pointer = `/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
      // A key given twice is its last value, as JSON.parse has it.
      delete head[key];
      arrays.delete(key);
      if (scanner.peek() === OPEN_ARRAY) {
        scanner.at += 1;
        const starts = [];
        const ends = [];
        if (scanner.peek() === CLOSE_ARRAY) scanner.at += 1;
        else {
          for (;;) {
            const span = scanner.skipValue();
            parseValue(bytes, span, `${pointer}/${starts.length}`, maxRecordBytes);
            starts.push(span.start);
            ends.push(span.end);
            const next = scanner.peek();
            scanner.at += 1;
            if (next === CLOSE_ARRAY) break;
            if (next !== COMMA) throw invalid(scanner.at - 1, 'a comma or "]" was expected');
          }
        }
        arrays.set(key, { starts, ends });
      } else {
        head[key] = parseValue(bytes, scanner.skipValue(), pointer, maxRecordBytes).value;
      }
      const next = scanner.peek();
      scanner.at += 1;
      if (next === CLOSE_OBJECT) break;
      if (next !== COMMA) throw invalid(scanner.at - 1, 'a comma or "}" was expected');
    }
  }
  if (scanner.peek() !== undefined) throw invalid(scanner.at, 'more after the document');
  return { head, arrays };
}

/** A document that is not an object: parsed whole when small, for the checks to name what is wrong. */
function notAnObject(bytes, maxRecordBytes) {
  if (bytes.length > maxRecordBytes) throw new Problem('', 'must be a loreforge-campaign document (a JSON object)');
  let text;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new Problem('', 'the file is not UTF-8 text');
  }
  let value;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new Problem('', `not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    throw new Problem('', 'must be a loreforge-campaign document (an object)');
  }
}

let document;
parentPort?.on('message', (message) => {
  try {
    if (message.type === 'piece') sendPiece(message.key, message.from);
    else start(message);
  } catch (error) {
    if (error instanceof Problem) parentPort?.postMessage({ type: 'problem', path: error.path, problem: error.message });
    else parentPort?.postMessage({ type: 'error', problem: error instanceof Error ? error.message : String(error) });
  }
});

function start({ bytes, maxRecordBytes }) {
  const scanner = new Scanner(bytes);
  if (scanner.peek() !== OPEN_OBJECT) {
    parentPort?.postMessage({ type: 'head', json: notAnObject(bytes, maxRecordBytes), arrays: {} });
    return;
  }
  const { head, arrays } = scan(bytes, maxRecordBytes);
  document = { bytes, arrays };
  const lengths = {};
  for (const [key, { starts }] of arrays) lengths[key] = starts.length;
  parentPort?.postMessage({ type: 'head', json: JSON.stringify(head), arrays: lengths });
}

/** The records of array `key` from index `from`, a piece's worth, as one JSON array's text. */
function sendPiece(key, from) {
  const { starts, ends } = document.arrays.get(key);
  const texts = [];
  let size = 0;
  let index = from;
  while (index < starts.length && (index === from || size + ends[index] - starts[index] <= PIECE_BYTES)) {
    // Checked in pass 1: it decodes.
    texts.push(utf8.decode(document.bytes.subarray(starts[index], ends[index])));
    size += ends[index] - starts[index];
    index += 1;
  }
  parentPort?.postMessage({ type: 'piece', key, from, json: `[${texts.join(',')}]` });
}
