// What a writer did on a text shown as read (records/record-page-standin.tsx) before its editor was
// there: where the pointer went down, then the keys, in order. The editor types them in when it
// mounts (editor/typing.ts). No Slate here: the page that shows the text as read imports this file.
import { createContext } from 'react';

export type PendingKey = { text: string } | { command: 'break' | 'soft-break' | 'delete-backward' | 'delete-forward' } | { move: 'start' | 'end' };

export interface Landing {
  /** Set once the writer reached for the text: the editor then takes the focus and the caret lands. */
  opened: boolean;
  point?: { pageX: number; pageY: number };
  keys: PendingKey[];
}

export const LandingContext = createContext<Landing | undefined>(undefined);

type Leaf = { text?: unknown };
type Block = { type?: unknown; children?: unknown };

/**
 * The keys pressed before the editor was there, written into the text without it: for a page left
 * (reloaded, closed, hidden) before the editor mounted, so no typed word is lost. They land at the
 * end of the text (where a click elsewhere would have put them is the editor's to know): Enter
 * starts a paragraph, Shift+Enter a line, Backspace takes back what was typed. Undefined: nothing
 * was written.
 */
export function typedWithoutEditor(value: unknown, keys: readonly PendingKey[]): unknown[] | undefined {
  const lines = [''];
  for (const key of keys) {
    if ('text' in key) lines[lines.length - 1] += key.text;
    else if ('move' in key || key.command === 'delete-forward') continue;
    else if (key.command === 'break') lines.push('');
    else if (key.command === 'soft-break') lines[lines.length - 1] += '\n';
    else if (lines[lines.length - 1] !== '') lines[lines.length - 1] = lines[lines.length - 1]!.slice(0, -1);
    else if (lines.length > 1) lines.pop();
  }
  if (lines.length === 1 && lines[0] === '') return undefined;
  const blocks = (Array.isArray(value) ? structuredClone(value) : []) as Block[];
  const last = blocks.at(-1);
  const leaf = last?.type === 'paragraph' && Array.isArray(last.children) ? (last.children.at(-1) as Leaf | undefined) : undefined;
  const [first, ...rest] = lines;
  if (leaf && typeof leaf.text === 'string') leaf.text += first;
  else rest.unshift(first!);
  return [...blocks, ...rest.map((text) => ({ type: 'paragraph', children: [{ text }] }))];
}
