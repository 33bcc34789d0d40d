// Rich text as the wire format defines it: an array of blocks; a block has a `type` and `children`
// (blocks or text leaves); a leaf has `text` and optional boolean marks. Any other key on a block or
// a leaf is the client's own and is kept as given.

import type { FieldIssue } from './errors.js';
import { CALLOUT_KIND_MAX_LENGTH, CALLOUT_TITLE_MAX_LENGTH, MARKS, RICH_TEXT_MAX_DEPTH } from '../vocabulary/elements.js';

export const RICH_TEXT_MARKS = MARKS;
export type RichTextMark = (typeof RICH_TEXT_MARKS)[number];

export type RichTextLeaf = {
  text: string;
  [key: string]: unknown;
} & Partial<Record<RichTextMark, boolean>>;

export interface RichTextBlock {
  type: string;
  children: RichTextNode[];
  [key: string]: unknown;
}

export type RichTextNode = RichTextBlock | RichTextLeaf;
export type RichText = RichTextBlock[];

export { RICH_TEXT_MAX_DEPTH };
export const RICH_TEXT_MAX_BYTES = 256 * 1024;
// Enough to show a client what is wrong without letting a hostile document produce a huge answer.
export const RICH_TEXT_MAX_ISSUES = 20;

export function emptyRichText(): RichText {
  return [{ type: 'paragraph', children: [{ text: '' }] }];
}

function pointerToken(token: string | number): string {
  return `/${String(token).replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Own properties only: `Object.hasOwn` and direct reads never consult or change the prototype, so an
// own `__proto__` key (as JSON.parse creates) is an ordinary, ignored extra key.
function ownValue(node: JsonObject, key: string): unknown {
  return Object.hasOwn(node, key) ? node[key] : undefined;
}

/** One array of nodes being walked: the top level, or a block's children. */
interface Frame {
  nodes: readonly unknown[];
  next: number;
  /** The pointer of the array itself; a node's is this plus its index, built only when needed. */
  path: string;
  depth: number; // depth a block in this array would have; a top-level block is depth 1
}

export function validateRichText(value: unknown, basePointer: string): FieldIssue[] {
  return checkRichText(value, basePointer).issues;
}

/**
 * validateRichText, and the value serialized as serializeRichText would serialize it when it is
 * valid (the size check serializes it anyway: a write stores that text rather than serializing the
 * value twice).
 */
export function checkRichText(value: unknown, basePointer: string): { issues: FieldIssue[]; json: string | undefined } {
  const issues: FieldIssue[] = [];
  let json: string | undefined;
  try {
    checkStructure(value, basePointer, issues);
    if (issues.length < RICH_TEXT_MAX_ISSUES) json = checkSize(value, basePointer, issues);
  } catch {
    // Only a hostile programmatic value (a throwing getter, a proxy) gets here; JSON never does.
    issues.push({ path: basePointer, message: 'must be a rich-text value' });
  }
  return { issues: issues.slice(0, RICH_TEXT_MAX_ISSUES), json: issues.length === 0 ? json : undefined };
}

function checkStructure(value: unknown, basePointer: string, issues: FieldIssue[]): void {
  const report = (path: string, message: string): void => {
    issues.push({ path, message });
  };
  if (!Array.isArray(value)) {
    report(basePointer, 'must be an array of blocks');
    return;
  }
  if (value.length === 0) {
    report(basePointer, 'must contain at least one block');
    return;
  }
  // Depth first, in document order, with an explicit stack (the call stack stays flat however the
  // value is shaped) of one cursor per array: nothing is allocated per node before it is visited,
  // so a hostile array of a million bad nodes costs only the nodes visited until the issues cap.
  const frames: Frame[] = [{ nodes: value, next: 0, path: basePointer, depth: 1 }];
  while (frames.length > 0 && issues.length < RICH_TEXT_MAX_ISSUES) {
    const frame = frames[frames.length - 1]!;
    if (frame.next >= frame.nodes.length) {
      frames.pop();
      continue;
    }
    const index = frame.next;
    frame.next += 1;
    const node = frame.nodes[index];
    const depth = frame.depth;
    const path = frame.path + pointerToken(index);
    if (!isObject(node)) {
      // Arrays, null and primitives are neither blocks nor leaves.
      report(path, depth === 1 ? 'must be a block object' : 'must be a block or text leaf object');
      continue;
    }
    // Decision: a node with an own `text` key is a leaf, whatever else it carries.
    if (Object.hasOwn(node, 'text')) {
      // Decision: the top level holds blocks only; a leaf must sit inside a block.
      if (depth === 1) {
        report(path, 'must be a block; text leaves are only allowed inside a block');
        continue;
      }
      checkLeaf(node, path, report);
      continue;
    }
    // Decision: depth counts blocks; a leaf adds no level, so a depth-16 block may hold text.
    if (depth > RICH_TEXT_MAX_DEPTH) {
      report(path, `must not nest blocks deeper than ${RICH_TEXT_MAX_DEPTH} levels`);
      continue;
    }
    const children = checkBlock(node, path, report);
    if (children === undefined || children.length === 0) continue;
    frames.push({ nodes: children, next: 0, path: path + pointerToken('children'), depth: depth + 1 });
  }
}

// Returns the children to walk, or undefined when `children` is unusable. Decision: a block's
// `children` may be empty; the keys the vocabulary gives a meaning to are checked (a callout's
// `kind` and `title`, a task's `checked`); other keys on a block are kept as given and not inspected.
function checkBlock(
  node: JsonObject,
  path: string,
  report: (path: string, message: string) => void,
): unknown[] | undefined {
  const type = ownValue(node, 'type');
  if (type === undefined) report(path + pointerToken('type'), 'is required');
  else if (typeof type !== 'string') report(path + pointerToken('type'), 'must be a string');
  else if (type.length === 0) report(path + pointerToken('type'), 'must not be empty');
  if (type === 'callout') checkCallout(node, path, report);
  if (Object.hasOwn(node, 'checked')) {
    if (type !== 'list-item') report(path + pointerToken('checked'), 'must only be present on a list-item');
    else if (typeof node.checked !== 'boolean') report(path + pointerToken('checked'), 'must be a boolean');
  }
  const children = ownValue(node, 'children');
  if (children === undefined) {
    report(path + pointerToken('children'), 'is required');
    return undefined;
  }
  if (!Array.isArray(children)) {
    report(path + pointerToken('children'), 'must be an array');
    return undefined;
  }
  return children as unknown[];
}

const characters = (value: string): number => {
  let count = 0;
  for (const _ of value) count += 1;
  return count;
};

// A callout (vocabulary/elements.ts): `kind` a non-empty string, `title` an optional string.
function checkCallout(node: JsonObject, path: string, report: (path: string, message: string) => void): void {
  const kind = ownValue(node, 'kind');
  if (kind === undefined) report(path + pointerToken('kind'), 'is required on a callout');
  else if (typeof kind !== 'string') report(path + pointerToken('kind'), 'must be a string');
  else if (kind.length === 0) report(path + pointerToken('kind'), 'must not be empty');
  else if (kind.length > CALLOUT_KIND_MAX_LENGTH && characters(kind) > CALLOUT_KIND_MAX_LENGTH) report(path + pointerToken('kind'), `must be at most ${CALLOUT_KIND_MAX_LENGTH} characters`);
  if (!Object.hasOwn(node, 'title')) return;
  const title = node.title;
  if (typeof title !== 'string') report(path + pointerToken('title'), 'must be a string');
  else if (title.length > CALLOUT_TITLE_MAX_LENGTH && characters(title) > CALLOUT_TITLE_MAX_LENGTH) report(path + pointerToken('title'), `must be at most ${CALLOUT_TITLE_MAX_LENGTH} characters`);
}

// Decision: a leaf must not carry `children` or `type` (it would be ambiguous which it is), nor
// `checked` (a list item's); the marks must be booleans when present; any other key on a leaf is
// kept as given.
function checkLeaf(node: JsonObject, path: string, report: (path: string, message: string) => void): void {
  if (typeof node.text !== 'string') report(path + pointerToken('text'), 'must be a string');
  if (Object.hasOwn(node, 'children')) report(path + pointerToken('children'), 'must not be present on a text leaf');
  if (Object.hasOwn(node, 'type')) report(path + pointerToken('type'), 'must not be present on a text leaf');
  if (Object.hasOwn(node, 'checked')) report(path + pointerToken('checked'), 'must only be present on a list-item');
  for (const mark of RICH_TEXT_MARKS) {
    if (Object.hasOwn(node, mark) && typeof node[mark] !== 'boolean') {
      report(path + pointerToken(mark), 'must be a boolean');
    }
  }
}

/** Reports a value too large to store; returns its JSON (serializeRichText's). */
function checkSize(value: unknown, basePointer: string, issues: FieldIssue[]): string | undefined {
  let json: string | undefined;
  try {
    json = serializeRichText(value as RichText);
  } catch {
    // A cycle, a BigInt or nesting deeper than the engine serialises: it could never be stored. When
    // the structure is already reported (over-deep blocks make JSON.stringify overflow), that says it.
    if (issues.length === 0) issues.push({ path: basePointer, message: 'must be serialisable as JSON' });
    return undefined;
  }
  // Cheap bound first: every UTF-16 unit is at most 3 UTF-8 bytes.
  if (json === undefined || json.length * 3 <= RICH_TEXT_MAX_BYTES) return json;
  if (Buffer.byteLength(json, 'utf8') > RICH_TEXT_MAX_BYTES) {
    issues.push({ path: basePointer, message: `must be at most ${RICH_TEXT_MAX_BYTES} bytes of JSON` });
  }
  return json;
}

// Stored values were validated when written. A column never written (SQL NULL), or holding a JSON
// null, reads as the empty paragraph: the wire never carries null for rich text.
export function parseStoredRichText(stored: string | null): RichText {
  if (stored === null) return emptyRichText();
  const parsed = JSON.parse(stored) as RichText | null;
  return parsed ?? emptyRichText();
}

export function serializeRichText(value: RichText): string {
  return JSON.stringify(value);
}
