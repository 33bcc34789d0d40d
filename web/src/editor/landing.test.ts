// The keys pressed before the editor was there, written into the text without it when the page is
// left first (editor/landing.ts): the same text the editor makes of them, typed at the end of the
// text with its own commands (editor/typing.ts), for any text and any keys.
import fc from 'fast-check';
import { createEditor, Editor, Transforms, type Descendant } from 'slate';
import { withHistory } from 'slate-history';
import { describe, expect, it } from 'vitest';
import { withLoreforge } from './commands';
import { typedWithoutEditor, type PendingKey } from './landing';

/** What the editor makes of the keys, typed at the end of `value`. */
function typedInEditor(value: Descendant[], keys: readonly PendingKey[]): Descendant[] {
  const editor = withLoreforge(withHistory(createEditor()));
  editor.children = structuredClone(value);
  Transforms.select(editor, Editor.end(editor, []));
  for (const key of keys) {
    if ('text' in key) editor.insertText(key.text);
    else if ('move' in key) continue;
    else if (key.command === 'break') editor.insertBreak();
    else if (key.command === 'soft-break') editor.insertSoftBreak();
    else if (key.command === 'delete-backward') editor.deleteBackward('character');
  }
  return editor.children;
}

// Letters, spaces and stops: no Markdown shortcut (a `#` or `-` at a line's start is the editor's alone).
const key: fc.Arbitrary<PendingKey> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('a', 'b', ' ', '.').map((text) => ({ text })) },
  { weight: 1, arbitrary: fc.constantFrom<PendingKey>({ command: 'break' }, { command: 'soft-break' }, { command: 'delete-backward' }) },
);
// Texts ending in a paragraph (a heading's own Backspace and Enter rules are the editor's alone).
const start = fc.constantFrom<Descendant[]>([{ type: 'paragraph', children: [{ text: '' }] }], [{ type: 'paragraph', children: [{ text: 'The wheel turns.' }] }], [
  { type: 'heading-two', children: [{ text: 'Mill' }] },
  { type: 'paragraph', children: [{ text: 'Still water' }] },
]);

/** Whether every Backspace takes back something typed (the editor's would go on into the text; the fallback stops). */
function takesBackOnlyTyped(keys: readonly PendingKey[]): boolean {
  let typed = 0;
  for (const k of keys) {
    if ('text' in k || ('command' in k && k.command !== 'delete-backward')) typed += 1;
    else if ('command' in k && (typed -= 1) < 0) return false;
  }
  return true;
}

describe('keys pressed before the editor was there, kept when the page is left', () => {
  it('make the text the editor makes of them, typed at the end', () => {
    fc.assert(
      fc.property(start, fc.array(key, { maxLength: 40 }), (value, keys) => {
        fc.pre(takesBackOnlyTyped(keys));
        const typed = typedWithoutEditor(value, keys);
        const expected = typedInEditor(value, keys);
        if (typed === undefined) expect(expected).toEqual(value);
        else expect(typed).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('go on a paragraph of their own after a divider or an image at the end', () => {
    const divider = { type: 'divider', children: [{ text: '' }] };
    expect(typedWithoutEditor([divider], [{ text: 'a' }, { text: 'b' }])).toEqual([divider, { type: 'paragraph', children: [{ text: 'ab' }] }]);
  });

  it('leave the text as it is when nothing was written (moves only, or all taken back)', () => {
    const value = [{ type: 'paragraph', children: [{ text: 'Kept.' }] }];
    expect(typedWithoutEditor(value, [{ move: 'end' }])).toBeUndefined();
    expect(typedWithoutEditor(value, [{ text: 'a' }, { command: 'delete-backward' }])).toBeUndefined();
    expect(value).toEqual([{ type: 'paragraph', children: [{ text: 'Kept.' }] }]);
  });
});
