// What changed between two versions of a rich-text field, as a reader sees it: the top-level blocks
// matched by a longest common subsequence over their whole content (text and structure), then,
// inside a block that was edited rather than replaced (same kind of block, mostly the same words), a
// word-level diff that keeps each word's marks. Pure: the History panel renders it (diff-view.tsx).
import type { Descendant } from 'slate';
import { INLINE_TYPES, VOID_TYPES } from '../../../src/vocabulary/index.js';

export type Block = Descendant;

/** One word, a run of spaces, a punctuation mark, or an inline that cannot be split (a mention), with its formatting. */
export interface Token {
  text: string;
  marks: Record<string, unknown>;
  /** The link (its `url`) or mention (`targetType`, `targetId`) the token sits in, if any. */
  inline?: Record<string, unknown>;
  /** A key equal for equal tokens. */
  key: string;
}

export interface WordPart {
  kind: 'same' | 'inserted' | 'removed';
  tokens: Token[];
}

export type BlockChange =
  | { kind: 'same'; block: Block }
  | { kind: 'inserted'; block: Block }
  | { kind: 'removed'; block: Block }
  /** Edited in place: `words` when both sides are blocks of text (a paragraph, a heading…), else undefined. */
  | { kind: 'changed'; before: Block; after: Block; words: WordPart[] | undefined };

/** Past this many cell comparisons a region is shown as replaced rather than diffed (a 256 KiB text stays quick). */
const MAX_CELLS = 4_000_000;
/** How alike two blocks' words must be (Dice coefficient over the common words) to count as one block edited. */
const SIMILAR = 0.5;

const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v));

/** The operations that turn `a` into `b` over equal keys: a longest common subsequence, common ends trimmed first. */
export function diffSequences<T>(a: readonly T[], b: readonly T[], key: (item: T) => string): { kind: 'same' | 'inserted' | 'removed'; item: T }[] {
  const ka = a.map(key);
  const kb = b.map(key);
  let start = 0;
  while (start < a.length && start < b.length && ka[start] === kb[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && ka[endA - 1] === kb[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const out: { kind: 'same' | 'inserted' | 'removed'; item: T }[] = a.slice(0, start).map((item) => ({ kind: 'same', item }));
  const n = endA - start;
  const m = endB - start;
  if (n * m > MAX_CELLS) {
    for (let i = start; i < endA; i += 1) out.push({ kind: 'removed', item: a[i]! });
    for (let j = start; j < endB; j += 1) out.push({ kind: 'inserted', item: b[j]! });
  } else {
    // lengths[i][j]: the longest common subsequence of a[start+i..endA) and b[start+j..endB).
    const width = m + 1;
    const lengths = new Uint32Array((n + 1) * width);
    for (let i = n - 1; i >= 0; i -= 1) {
      for (let j = m - 1; j >= 0; j -= 1) {
        lengths[i * width + j] = ka[start + i] === kb[start + j] ? lengths[(i + 1) * width + j + 1]! + 1 : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && ka[start + i] === kb[start + j]) {
        out.push({ kind: 'same', item: a[start + i]! });
        i += 1;
        j += 1;
      } else if (i < n && (j === m || lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!)) {
        // What was removed reads before what replaced it.
        out.push({ kind: 'removed', item: a[start + i]! });
        i += 1;
      } else {
        out.push({ kind: 'inserted', item: b[start + j]! });
        j += 1;
      }
    }
  }
  for (let i = endA; i < a.length; i += 1) out.push({ kind: 'same', item: a[i]! });
  return out;
}

const isElement = (node: unknown): node is { type?: unknown; children: unknown[]; [key: string]: unknown } => typeof node === 'object' && node !== null && Array.isArray((node as { children?: unknown }).children);
const isText = (node: unknown): node is { text: string; [key: string]: unknown } => typeof node === 'object' && node !== null && typeof (node as { text?: unknown }).text === 'string';

const INLINE: ReadonlySet<string> = new Set(INLINE_TYPES);
const VOID: ReadonlySet<string> = new Set(VOID_TYPES);

/** A block of text: its children are text and inlines only (a paragraph, a heading, a list item with no nested list); not an image or a divider. */
export function isTextBlock(block: Block): boolean {
  if (!isElement(block) || VOID.has(String(block.type))) return false;
  return block.children.every((child) => isText(child) || (isElement(child) && INLINE.has(String(child.type))));
}

/** The block's words, spaces and atomic inlines in reading order, each with its marks. */
export function tokenize(block: Block): Token[] {
  const tokens: Token[] = [];
  const pushText = (leaf: { text: string; [key: string]: unknown }, inline?: Record<string, unknown>) => {
    const { text, ...marks } = leaf;
    // Words, runs of spaces, and each punctuation mark on its own ("party." → "party", ".").
    for (const piece of text.match(/\s+|[\p{L}\p{N}\p{M}_'’-]+|[^\s\p{L}\p{N}\p{M}_'’-]/gu) ?? []) tokens.push({ text: piece, marks, ...(inline ? { inline } : {}), key: canonical([piece, marks, inline ?? null]) });
  };
  if (!isElement(block)) return tokens;
  for (const child of block.children) {
    if (isText(child)) pushText(child);
    else if (isElement(child)) {
      const { children, ...attributes } = child;
      if (child.type === 'mention') tokens.push({ text: '', marks: {}, inline: attributes, key: canonical(['mention', attributes, children]) });
      else for (const leaf of children) if (isText(leaf)) pushText(leaf, attributes);
    }
  }
  return tokens;
}

/** The word-level diff of two blocks of text, runs of one kind merged. */
export function diffWords(before: Block, after: Block): WordPart[] {
  const parts: WordPart[] = [];
  for (const { kind, item } of diffSequences(tokenize(before), tokenize(after), (t) => t.key)) {
    const last = parts[parts.length - 1];
    if (last?.kind === kind) last.tokens.push(item);
    else parts.push({ kind, tokens: [item] });
  }
  return parts;
}

/** How alike two blocks' words are: 1 the same words, 0 none in common. */
export function similarity(before: Block, after: Block): number {
  const a = tokenize(before).filter((t) => t.text.trim() !== '' || t.inline);
  const b = tokenize(after).filter((t) => t.text.trim() !== '' || t.inline);
  if (a.length + b.length === 0) return 1;
  const common = diffSequences(a, b, (t) => `${t.text}\u0000${canonical(t.inline ?? null)}`).filter((op) => op.kind === 'same').length;
  return (2 * common) / (a.length + b.length);
}

const typeOf = (block: Block): unknown => (isElement(block) ? block.type : undefined);

/**
 * The blocks of `before` and `after` in reading order, each the same, inserted, removed or changed.
 * A removed block and an inserted one of the same kind with mostly the same words, between the same
 * unchanged neighbours, are one block changed.
 */
export function diffBlocks(before: readonly Block[], after: readonly Block[]): BlockChange[] {
  const ops = diffSequences(before, after, canonical);
  const out: BlockChange[] = [];
  let index = 0;
  while (index < ops.length) {
    const op = ops[index]!;
    if (op.kind === 'same') {
      out.push({ kind: 'same', block: op.item });
      index += 1;
      continue;
    }
    // A run of removed and inserted blocks between two unchanged ones.
    const removed: Block[] = [];
    const inserted: Block[] = [];
    while (index < ops.length && ops[index]!.kind !== 'same') {
      const next = ops[index]!;
      (next.kind === 'removed' ? removed : inserted).push(next.item);
      index += 1;
    }
    out.push(...pairRun(removed, inserted));
  }
  return out;
}

function pairRun(removed: Block[], inserted: Block[]): BlockChange[] {
  const out: BlockChange[] = [];
  // Each removed block is paired with the first inserted one after the last pairing that is like it.
  let nextInserted = 0;
  for (const old of removed) {
    let match = -1;
    for (let j = nextInserted; j < inserted.length && j < nextInserted + 20; j += 1) {
      const candidate = inserted[j]!;
      if (typeOf(candidate) !== typeOf(old)) continue;
      const both = isTextBlock(old) && isTextBlock(candidate);
      if (!both || similarity(old, candidate) >= SIMILAR) {
        match = j;
        break;
      }
    }
    if (match === -1) {
      out.push({ kind: 'removed', block: old });
      continue;
    }
    for (let j = nextInserted; j < match; j += 1) out.push({ kind: 'inserted', block: inserted[j]! });
    const now = inserted[match]!;
    out.push({ kind: 'changed', before: old, after: now, words: isTextBlock(old) && isTextBlock(now) ? diffWords(old, now) : undefined });
    nextInserted = match + 1;
  }
  for (let j = nextInserted; j < inserted.length; j += 1) out.push({ kind: 'inserted', block: inserted[j]! });
  return out;
}

/** A field with no words in it (the editor's one empty paragraph) is compared as nothing at all. */
export function withoutBlankDocument(doc: readonly Block[]): readonly Block[] {
  return doc.every((block) => isTextBlock(block) && (block as { type?: unknown }).type === 'paragraph' && tokenize(block).length === 0) ? [] : doc;
}

/** The document a diff was made from (`before`) or to (`after`). */
export function sideOf(changes: readonly BlockChange[], side: 'before' | 'after'): Block[] {
  const out: Block[] = [];
  for (const change of changes) {
    if (change.kind === 'same') out.push(change.block);
    else if (change.kind === 'changed') out.push(side === 'before' ? change.before : change.after);
    else if ((change.kind === 'removed') === (side === 'before')) out.push(change.block);
  }
  return out;
}

/**
 * Where the older side of change `at` goes when it is copied back into the current text: just after
 * the current version of a changed block (nothing of the current text is replaced), else just after
 * the nearest block before it that the current text still has, else at the start.
 */
export function copyBackIndex(changes: readonly BlockChange[], at: number, current: readonly Block[]): number {
  for (let i = at; i >= 0; i -= 1) {
    const change = changes[i]!;
    const anchor = change.kind === 'same' ? change.block : change.kind === 'changed' ? change.after : change.kind === 'inserted' ? change.block : undefined;
    if (anchor === undefined) continue;
    const key = canonical(anchor);
    const found = current.findIndex((block) => canonical(block) === key);
    if (found !== -1) return found + 1;
  }
  return 0;
}

/** The current text with a copy of `block` at `index`. */
export function insertBlock(current: readonly Block[], index: number, block: Block): Block[] {
  return [...current.slice(0, index), structuredClone(block), ...current.slice(index)];
}
