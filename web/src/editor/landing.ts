// What a writer did on a text shown as read (records/record-page-standin.tsx) before its editor was
// there: where the pointer went down, then the keys, in order. The editor types them in when it
// mounts (editor/typing.ts). No Slate here: the page that shows the text as read imports this file.
import { createContext } from 'react';
import { VOID_TYPES } from './types';

export type PendingKey = { text: string } | { command: 'break' | 'soft-break' | 'delete-backward' | 'delete-forward' } | { move: 'start' | 'end' };

export interface Landing {
  /** Set once the writer reached for the text: the editor then takes the focus and the caret lands. */
  opened: boolean;
  point?: { pageX: number; pageY: number };
  keys: PendingKey[];
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
    else if ('move' in key || key.command === 'delete-forward') continue;
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
