// What a writer did on a text shown as read (records/record-page-standin.tsx) before its editor was
// there: where the pointer went down, then the keys, in order. The editor types them in when it
// mounts (editor/typing.ts). No Slate here: the page that shows the text as read imports this file.
import { createContext } from 'react';
import { VOID_TYPES } from './types';

export type PendingKey =
  | { text: string }
  | { command: 'break' | 'soft-break' | 'delete-backward' | 'delete-forward' | 'tab' | 'shift-tab' }
  /** Ctrl+Home, Ctrl+End: the text's start or end; Home, End: its block's (the editor's line, as near as the keys can know before it is laid out). */
  | { move: 'start' | 'end' | 'line-start' | 'line-end' };

export interface Landing {
  /** Set once the writer reached for the text: the editor then takes the focus and the caret lands. */
  opened: boolean;
  point?: { pageX: number; pageY: number };
  /**
   * Where the pointer went down in the text shown as read, in its words (landingAt): the caret lands
   * there whatever the editor's layout at its mount (a mention's name not known yet, a line wrapped
   * elsewhere), if the editor holds the same words; else at `point`.
   */
  at?: WordsAt;
  keys: PendingKey[];
}

/** A place in a text's words: `offset` characters in; `forward`: at a boundary, the start of what follows rather than the end of what precedes. */
export interface WordsAt {
  words: string;
  offset: number;
  forward: boolean;
}

export const LandingContext = createContext<Landing | undefined>(undefined);

type TextNode = { text?: unknown; type?: unknown; children?: unknown };
const isVoid = (node: TextNode) => typeof node.type === 'string' && VOID_TYPES.has(node.type);

/**
 * The keys pressed before the editor was there, written into the text without it: for a page left
 * (reloaded, closed, hidden) before the editor mounted, so no typed word is lost. They land at the
 * end of the text (where a click elsewhere would have put them is the editor's to know): Enter
 * starts a paragraph (Shift+Enter splits the block), Backspace takes back what was typed.
 * Undefined: nothing was written.
 */
export function typedWithoutEditor(value: unknown, keys: readonly PendingKey[]): unknown[] | undefined {
  const blocks = (Array.isArray(value) ? structuredClone(value) : []) as TextNode[];
  const last = blocks.at(-1);
  // Each line typed, with its block's type: Enter starts a paragraph, Shift+Enter splits the block (Slate's insertSoftBreak).
  const lines = [{ text: '', type: last && typeof last.type === 'string' && !isVoid(last) ? last.type : 'paragraph' }];
  for (const key of keys) {
    const line = lines[lines.length - 1]!;
    if ('text' in key) line.text += key.text;
    else if ('move' in key || key.command === 'delete-forward' || key.command === 'tab' || key.command === 'shift-tab') continue;
    else if (key.command === 'break' || key.command === 'soft-break') lines.push({ text: '', type: key.command === 'break' ? 'paragraph' : line.type });
    else if (line.text !== '') line.text = line.text.slice(0, -1);
    else if (lines.length > 1) lines.pop();
  }
  if (lines.length === 1 && lines[0]!.text === '') return undefined;
  // The text's last leaf (the end of its last block, at any depth): the first line goes on there.
  // Never into a void (a divider, an image): the words go on a paragraph of their own after it.
  let leaf = last;
  while (leaf && typeof leaf.text !== 'string' && Array.isArray(leaf.children) && !isVoid(leaf)) leaf = (leaf.children as TextNode[]).at(-1);
  const [first, ...rest] = lines;
  if (leaf && typeof leaf.text === 'string') leaf.text += first!.text;
  else rest.unshift({ text: first!.text, type: 'paragraph' });
  return [...blocks, ...rest.map(({ text, type }) => ({ type, children: [{ text }] }))];
}

// The words of a text and where its mentions and images sit, from the record and from its rendering:
// equal, the rendering shows the record's words (a mention's name and an image's caption are the
// rendering's own, and left out). Anything else the rendering adds (a task's box, a callout's title
// or code as the renderer lays it out) makes them differ.
export const MENTION_WORD = '\u0001';
export const IMAGE_WORD = '\u0002';

/** A record's text (Slate-style JSON) as its words. */
export function recordWords(value: unknown): string {
  if (Array.isArray(value)) return value.map(recordWords).join('');
  if (typeof value !== 'object' || value === null) return '';
  const node = value as TextNode;
  if (typeof node.text === 'string') return node.text;
  if (node.type === 'mention') return MENTION_WORD;
  if (node.type === 'image') return IMAGE_WORD;
  return recordWords(node.children);
}

/** What a node of the server's rendering adds to the words: its own, a token or nothing (undefined: its children's). */
function renderedToken(node: Node): string | undefined {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent ?? '';
  if (!(node instanceof Element)) return undefined;
  if (node.matches('.mention')) return MENTION_WORD;
  if (node.matches('img')) return IMAGE_WORD;
  if (node.matches('br')) return '\n';
  if (node.matches('figcaption, .callout-title')) return '';
  return undefined;
}

/** The server's rendering of a text (a DOM node) as its words. */
export function renderedWords(node: Node): string {
  const token = renderedToken(node);
  return token ?? [...node.childNodes].map(renderedWords).join('');
}

/**
 * A caret position in the rendering under `root` (a node and an offset, as the browser gives it) as a
 * place in its words; undefined when it is not under `root`.
 */
export function landingAt(root: Node, node: Node, offset: number): WordsAt | undefined {
  if (!root.contains(node)) return undefined;
  let count = 0;
  let found: WordsAt | undefined;
  const visit = (current: Node): boolean => {
    const token = renderedToken(current);
    if (current === node && current.nodeType === Node.TEXT_NODE) {
      found = { words: '', offset: count + offset, forward: offset === 0 };
      return true;
    }
    if (token !== undefined) {
      if (current.contains(node)) {
        // Inside a mention, an image or a caption: before it, or after it past its first character.
        found = { words: '', offset: count + (token.length > 0 && offset > 0 ? token.length : 0), forward: offset === 0 };
        return true;
      }
      count += token.length;
      return false;
    }
    const children = [...current.childNodes];
    if (current === node) {
      for (const child of children.slice(0, offset)) visit(child);
      found = { words: '', offset: count, forward: true };
      return true;
    }
    return children.some(visit);
  };
  visit(root);
  return found && { ...found, words: renderedWords(root) };
}
