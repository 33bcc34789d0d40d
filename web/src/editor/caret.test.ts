// Where the caret goes, with Slate's model and our plugin (commands.ts), as the keys drive it:
// Enter on an empty quote line leaves the quote; ArrowLeft/Right pass a mention in one step both
// ways (at a block's edges, between two mentions), Backspace and Delete take it whole, and what is
// typed after any walk of the arrows lands in the text, never in a mention.
import fc from 'fast-check';
import { createEditor, Editor, Element as SlateElement, Node, Transforms, type Descendant } from 'slate';
import { withHistory } from 'slate-history';
import { describe, expect, it } from 'vitest';
import { mentionQuery, moveOverInlineVoid, withLoreforge } from './commands';

function editorWith(value: Descendant[]): Editor {
  const editor = withLoreforge(withHistory(createEditor()));
  editor.children = value;
  Editor.normalize(editor, { force: true });
  Transforms.select(editor, Editor.end(editor, []));
  return editor;
}

const p = (text: string): Descendant => ({ type: 'paragraph', children: [{ text }] });
const quote = (text: string): Descendant => ({ type: 'block-quote', children: [{ text }] });
const mention = (targetId: number): Descendant => ({ type: 'mention', targetType: 'thing', targetId, children: [{ text: '' }] });
const type = (editor: Editor, text: string) => {
  for (const char of text) editor.insertText(char);
};
/** An arrow key: ours next to a mention, else Slate's own move by a character. */
const arrow = (editor: Editor, reverse: boolean) => {
  if (!moveOverInlineVoid(editor, reverse)) Transforms.move(editor, { reverse });
};

describe('quotes', () => {
  it('Enter on an empty quote line leaves the quote: a paragraph after it', () => {
    const editor = editorWith([p('')]);
    type(editor, '> Said the king');
    editor.insertBreak();
    type(editor, 'to the queen');
    editor.insertBreak();
    editor.insertBreak();
    type(editor, 'After.');
    expect(editor.children).toEqual([quote('Said the king'), quote('to the queen'), p('After.')]);
  });

  it('keeps a secret quote’s line secret when Enter leaves it', () => {
    const editor = editorWith([{ type: 'block-quote', isSecret: true, children: [{ text: 'hidden' }] }]);
    editor.insertBreak();
    editor.insertBreak();
    type(editor, 'still hidden');
    expect(editor.children).toEqual([{ type: 'block-quote', isSecret: true, children: [{ text: 'hidden' }] }, { type: 'paragraph', isSecret: true, children: [{ text: 'still hidden' }] }]);
  });

  it('leaves a quote of paragraphs (an imported one) on Enter in its empty last paragraph', () => {
    const editor = editorWith([{ type: 'block-quote', children: [p('one')] }]);
    editor.insertBreak();
    editor.insertBreak();
    type(editor, 'after');
    expect(editor.children).toEqual([{ type: 'block-quote', children: [p('one')] }, p('after')]);
  });
});

describe('the caret around mentions', () => {
  it('passes a mention in one step both ways, at the start and the end of a block and between two', () => {
    const editor = editorWith([{ type: 'paragraph', children: [{ text: '' }, mention(1), { text: '' }, mention(2), { text: '' }] }]);
    Transforms.select(editor, Editor.start(editor, []));
    const steps: string[] = [];
    const where = () => `${editor.selection!.anchor.path.join('.')}:${editor.selection!.anchor.offset}`;
    for (let i = 0; i < 2; i++) {
      arrow(editor, false);
      steps.push(where());
    }
    for (let i = 0; i < 2; i++) {
      arrow(editor, true);
      steps.push(where());
    }
    expect(steps).toEqual(['0.2:0', '0.4:0', '0.2:0', '0.0:0']);
  });

  it('steps out of a mention the caret was put inside, to the side it moves to', () => {
    const editor = editorWith([{ type: 'paragraph', children: [{ text: 'Ask ' }, mention(7), { text: ' now' }] }]);
    Transforms.select(editor, { path: [0, 1, 0], offset: 0 });
    expect(moveOverInlineVoid(editor, true)).toBe(true);
    expect(editor.selection!.anchor).toEqual({ path: [0, 0], offset: 4 });
    Transforms.select(editor, { path: [0, 1, 0], offset: 0 });
    expect(moveOverInlineVoid(editor, false)).toBe(true);
    expect(editor.selection!.anchor).toEqual({ path: [0, 2], offset: 0 });
    // Away from a mention the arrows are Slate's.
    Transforms.select(editor, { path: [0, 2], offset: 2 });
    expect(moveOverInlineVoid(editor, false)).toBe(false);
  });

  it('Backspace after a mention and Delete before it take it whole', () => {
    const editor = editorWith([{ type: 'paragraph', children: [{ text: 'Ask ' }, mention(7), { text: ' now' }] }]);
    Transforms.select(editor, { path: [0, 2], offset: 0 });
    editor.deleteBackward('character');
    expect(editor.children).toEqual([p('Ask  now')]);
    const other = editorWith([{ type: 'paragraph', children: [{ text: 'Ask ' }, mention(7), { text: ' now' }] }]);
    Transforms.select(other, { path: [0, 0], offset: 4 });
    other.deleteForward('character');
    expect(other.children).toEqual([p('Ask  now')]);
  });

  it('what is typed after any walk of the arrows lands in the text, and every mention stays whole', () => {
    const token = fc.oneof(fc.stringMatching(/^[a-z ]{0,4}$/).map((text) => ({ text })), fc.integer({ min: 1, max: 9 }).map(mention));
    fc.assert(
      fc.property(fc.array(fc.array(token, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 3 }), fc.array(fc.boolean(), { maxLength: 20 }), (blocks, moves) => {
        const editor = editorWith(blocks.map((children): Descendant => ({ type: 'paragraph', children })));
        const mentionsOf = () => [...Node.descendants(editor)].filter(([n]) => SlateElement.isElement(n) && n.type === 'mention').map(([n]) => (n as { targetId: number }).targetId);
        const before = mentionsOf();
        const text = Node.string(editor);
        Transforms.select(editor, Editor.start(editor, []));
        for (const reverse of moves) {
          arrow(editor, reverse);
          // Never inside a mention after our step.
          expect(Editor.above(editor, { match: (n) => SlateElement.isElement(n) && n.type === 'mention' })).toBeUndefined();
        }
        type(editor, 'Z');
        expect(mentionsOf()).toEqual(before);
        expect(Node.string(editor).replace('Z', '')).toBe(text);
        for (const [n] of Node.descendants(editor)) if (SlateElement.isElement(n) && n.type === 'mention') expect(Node.string(n)).toBe('');
      }),
      { numRuns: 300 },
    );
  });
});

describe('the mention picker’s query', () => {
  it('is what follows the trigger up to the caret, in the same block, until it is no longer a name being typed', () => {
    const editor = editorWith([p('Meet @harbor gh')]);
    const at = { path: [0, 0], offset: 5 };
    expect(mentionQuery(editor, at, '@')?.query).toBe('harbor gh');
    Transforms.select(editor, { path: [0, 0], offset: 3 });
    expect(mentionQuery(editor, at, '@')).toBeUndefined();
    const spaced = editorWith([p('Meet @harbor  ')]);
    expect(mentionQuery(spaced, at, '@')).toBeUndefined();
    const other = editorWith([p('Meet @harbor'), p('next')]);
    expect(mentionQuery(other, at, '@')).toBeUndefined();
    const brackets = editorWith([p('See [[gund')]);
    expect(mentionQuery(brackets, { path: [0, 0], offset: 4 }, '[[')?.query).toBe('gund');
  });
});
