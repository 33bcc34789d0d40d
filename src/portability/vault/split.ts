// A vault note too long for one thing's text (RICH_TEXT_MAX_BYTES of JSON), and its Markdown too
// long to parse at once, cut where nothing is lost:
// - `markdownChunks`: the Markdown in pieces of at most MARKDOWN_CHUNK characters, cut at blank
//   lines outside fenced code (else at line breaks, else anywhere between two characters), each
//   parsed on its own (the parser's memory is bounded: see markdown.ts); a comment open at the end
//   of a piece is carried into the next (read.ts), so it stays a secret to its end;
// - `splitBlocks`: rich text in parts of at most `max` bytes of JSON each, cut between top-level
//   blocks; a block larger than a part is cut between its children (a list into two lists, a
//   paragraph between its leaves, a leaf's text between two characters), every word kept.
import type { RichTextBlock, RichTextNode } from '../../domain/rich-text.js';

/** Markdown longer than this is parsed in pieces. */
export const MARKDOWN_CHUNK = 192 * 1024;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** The Markdown cut into pieces of at most `max` characters (see above); the pieces joined are the text. */
export function markdownChunks(text: string, max = MARKDOWN_CHUNK): string[] {
  if (text.length <= max) return [text];
  // Cut points: after each blank line outside a fence (best), after each line break (else).
  const lines = text.split(/(?<=\n)/);
  const pieces: string[] = [];
  let current = '';
  let fence: string | undefined;
  let cuttable = true;
  const push = (piece: string) => {
    for (let at = 0; at < piece.length; ) {
      let end = Math.min(piece.length, at + max);
      // After a space when there is one in the second half (a word kept whole), never between the
      // two halves of a surrogate pair, nor in a comment's `%%`, `<!--` or `-->`, nor after a `\`.
      const space = end < piece.length ? piece.lastIndexOf(' ', end - 1) : -1;
      if (space > at + max / 2) end = space + 1;
      else if (end < piece.length) {
        if (/[\uD800-\uDBFF]/.test(piece[end - 1]!)) end -= 1;
        while (end > at + max / 2 && /[%<!\-\\]/.test(piece[end - 1]!)) end -= 1;
      }
      pieces.push(piece.slice(at, end));
      at = end;
    }
  };
  for (const line of lines) {
    const opened = FENCE.exec(line);
    if (opened) {
      if (fence === undefined) fence = opened[1]!;
      else if (opened[1]![0] === fence[0] && opened[1]!.length >= fence.length) fence = undefined;
    }
    if (current.length + line.length > max && current !== '') {
      if (cuttable || current.length > max / 2) {
        pieces.push(current);
        current = '';
      }
    }
    current += line;
    if (current.length > max) {
      push(current);
      current = '';
    }
    cuttable = fence === undefined && line.trim() === '';
  }
  if (current !== '') pieces.push(current);
  return pieces;
}

/** The bytes one UTF-16 unit takes in JSON (UTF-8); a high surrogate counts for its pair. */
function unitBytes(code: number): number {
  if (code === 0x22 || code === 0x5c || code === 0x08 || code === 0x0c || code === 0x0a || code === 0x0d || code === 0x09) return 2;
  if (code < 0x20) return 6;
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  if (code >= 0xd800 && code <= 0xdbff) return 4;
  if (code >= 0xdc00 && code <= 0xdfff) return 0;
  return 3;
}

/** What an uploaded image's block may grow by when the writer gives it the image's URL. */
export const IMAGE_URL_ALLOWANCE = 512;

/** A node's bytes of JSON as it will be stored: an image block of an uploaded image counted with its URL to come. */
export function sizeOf(node: unknown): number {
  const json = JSON.stringify(node);
  // `"assetId":` only ever appears as a key: inside a string its quotes are escaped.
  return Buffer.byteLength(json, 'utf8') + (json.split('"assetId":').length - 1) * IMAGE_URL_ALLOWANCE;
}

/** A leaf's text cut into leaves of at most `room` bytes of JSON each (its marks on each). */
function splitLeaf(leaf: RichTextNode & { text: string }, room: number): RichTextNode[] {
  const shell = sizeOf({ ...leaf, text: '' });
  const budget = Math.max(16, room - shell);
  const out: RichTextNode[] = [];
  let start = 0;
  let used = 0;
  // The last space of the current piece, and the bytes up to it: a piece ends after a space when one is in its second half.
  let space = -1;
  let usedAtSpace = 0;
  for (let i = 0; i < leaf.text.length; i++) {
    const code = leaf.text.charCodeAt(i);
    const pair = code >= 0xd800 && code <= 0xdbff && i + 1 < leaf.text.length;
    const cost = unitBytes(code);
    if (used + cost > budget && i > start) {
      const cut = space > start && usedAtSpace > budget / 2 ? space + 1 : i;
      out.push({ ...leaf, text: leaf.text.slice(start, cut) });
      used = cut === i ? 0 : used - usedAtSpace;
      start = cut;
      space = -1;
    }
    used += cost;
    if (code === 0x20) {
      space = i;
      usedAtSpace = used;
    }
    if (pair) i++;
  }
  out.push({ ...leaf, text: leaf.text.slice(start) });
  return out;
}

/** A node as pieces of at most `max` bytes each: itself, or copies of it each holding some of its children. */
function pieces(node: RichTextNode, max: number): RichTextNode[] {
  if (sizeOf(node) <= max) return [node];
  if (typeof (node as { text?: unknown }).text === 'string') return splitLeaf(node as RichTextNode & { text: string }, max);
  const block = node as RichTextBlock;
  const shell = sizeOf({ ...block, children: [] });
  const room = Math.max(64, max - shell);
  const groups: RichTextNode[][] = [];
  let group: RichTextNode[] = [];
  let used = 0;
  for (const child of block.children.flatMap((c) => pieces(c, room))) {
    const size = sizeOf(child) + 1;
    if (used + size > room && group.length > 0) {
      groups.push(group);
      group = [];
      used = 0;
    }
    group.push(child);
    used += size;
  }
  if (group.length > 0) groups.push(group);
  return groups.map((children) => ({ ...block, children }));
}

/**
 * The node cut in two where `room` bytes end: a first piece of at most `room` bytes and the rest, or
 * undefined when no first piece fits.
 */
function cutAt(node: RichTextNode, room: number): [RichTextNode, RichTextNode] | undefined {
  if (typeof (node as { text?: unknown }).text === 'string') {
    const leaf = node as RichTextNode & { text: string };
    const [head, ...rest] = splitLeaf(leaf, room) as (RichTextNode & { text: string })[];
    if (rest.length === 0 || sizeOf(head) > room) return undefined;
    return [head!, { ...leaf, text: rest.map((piece) => piece.text).join('') }];
  }
  const block = node as RichTextBlock;
  const avail = room - sizeOf({ ...block, children: [] });
  let used = 0;
  for (let i = 0; i < block.children.length; i++) {
    const child = block.children[i]!;
    const size = sizeOf(child) + 1;
    if (used + size <= avail) {
      used += size;
      continue;
    }
    const cut = cutAt(child, avail - used - 1);
    const head = cut ? [...block.children.slice(0, i), cut[0]] : block.children.slice(0, i);
    const tail = cut ? [cut[1], ...block.children.slice(i + 1)] : block.children.slice(i);
    return head.length === 0 ? undefined : [{ ...block, children: head }, { ...block, children: tail }];
  }
  return undefined;
}

/** A part is filled to its end by cutting the next block when at least this much room is left. */
const FILL_MIN = 4096;

/** Rich text in parts of at most `max` bytes of JSON each (see above); a text within `max` is one part. */
export function splitBlocks(blocks: RichTextBlock[], max: number, fillMin = FILL_MIN): RichTextBlock[][] {
  const parts: RichTextBlock[][] = [];
  let part: RichTextBlock[] = [];
  let used = 2;
  for (let block of blocks.flatMap((b) => pieces(b, max - 2) as RichTextBlock[])) {
    let size = sizeOf(block) + 1;
    if (used + size > max && part.length > 0) {
      const room = max - used - 1;
      const cut = room >= fillMin ? cutAt(block, room) : undefined;
      if (cut) {
        part.push(cut[0] as RichTextBlock);
        block = cut[1] as RichTextBlock;
        size = sizeOf(block) + 1;
      }
      parts.push(part);
      part = [];
      used = 2;
    }
    part.push(block);
    used += size;
  }
  if (part.length > 0 || parts.length === 0) parts.push(part);
  return parts;
}
