// The editor's behaviour without a browser: Slate's editor with our plugin (commands.ts), driven
// as the toolbar, the keyboard shortcuts and the Markdown shortcuts drive it.
import fc from 'fast-check';
import { createEditor, Editor, Element as SlateElement, Node, Text, Transforms, type Descendant } from 'slate';
import { withHistory } from 'slate-history';
import { describe, expect, it } from 'vitest';
import { validateRichText, type RichText } from '../../../src/domain/rich-text.js';
import { renderRichText } from '../../../src/render/index.js';
import { RICH_TEXT_MAX_DEPTH, walkWithSecrecy } from '../../../src/vocabulary/index.js';
import {
  indentListItems,
  outdentListItems,
  tabInText,
  insertImage,
  insertMention,
  insertTable,
  insertTableColumn,
  insertTableRow,
  isCalloutActive,
  isMarkActive,
  isSecretActive,
  isTaskListActive,
  removeLink,
  setCalloutTitle,
  setLink,
  toggleBlock,
  toggleCallout,
  toggleMark,
  toggleSecret,
  toggleTaskChecked,
  toggleTaskList,
  withLoreforge,
} from './commands';
import { MARKS, type BlockType } from './types';

function editorWith(value: Descendant[]): Editor {
  const editor = withLoreforge(withHistory(createEditor()));
  editor.children = value;
  Transforms.select(editor, Editor.end(editor, []));
  return editor;
}

const p = (text: string): Descendant => ({ type: 'paragraph', children: [{ text }] });

/** The selection copied as slate-dom puts it on the clipboard (JSON): new objects, not the document's own. */
const copied = (editor: Editor): Descendant[] => JSON.parse(JSON.stringify(editor.getFragment())) as Descendant[];

/** Types `text` one character at a time, as a keyboard does. */
function type(editor: Editor, text: string) {
  for (const char of text) editor.insertText(char);
}

describe('marks', () => {
  it.each(MARKS)('%s toggles on the selected text and off again', (mark) => {
    const editor = editorWith([p('hello world')]);
    Transforms.select(editor, { anchor: { path: [0, 0], offset: 6 }, focus: { path: [0, 0], offset: 11 } });
    toggleMark(editor, mark);
    expect(editor.children).toEqual([{ type: 'paragraph', children: [{ text: 'hello ' }, { text: 'world', [mark]: true }] }]);
    expect(isMarkActive(editor, mark)).toBe(true);
    toggleMark(editor, mark);
    expect(editor.children).toEqual([p('hello world')]);
  });

  it('applies a mark to what is typed next', () => {
    const editor = editorWith([p('a ')]);
    toggleMark(editor, 'bold');
    type(editor, 'bold');
    expect(editor.children).toEqual([{ type: 'paragraph', children: [{ text: 'a ' }, { text: 'bold', bold: true }] }]);
  });
});

describe('blocks', () => {
  const simple: BlockType[] = ['heading-one', 'heading-two', 'heading-three', 'block-quote', 'code-block'];
  it.each(simple)('%s from the toolbar, and back to a paragraph', (type) => {
    const editor = editorWith([p('text')]);
    toggleBlock(editor, type);
    expect(editor.children).toEqual([{ type, children: [{ text: 'text' }] }]);
    toggleBlock(editor, type);
    expect(editor.children).toEqual([p('text')]);
  });

  it.each(['bulleted-list', 'numbered-list'] as const)('%s wraps list items', (type) => {
    const editor = editorWith([p('one')]);
    toggleBlock(editor, type);
    expect(editor.children).toEqual([{ type, children: [{ type: 'list-item', children: [{ text: 'one' }] }] }]);
    toggleBlock(editor, type);
    expect(editor.children).toEqual([p('one')]);
  });

  it('marks the top-level block GM-only and unmarks it', () => {
    const editor = editorWith([p('open'), p('secret')]);
    toggleSecret(editor);
    expect(editor.children).toEqual([p('open'), { type: 'paragraph', isSecret: true, children: [{ text: 'secret' }] }]);
    toggleSecret(editor);
    expect(editor.children).toEqual([p('open'), p('secret')]);
  });
});

describe('Markdown shortcuts', () => {
  const cases: [string, Descendant][] = [
    ['# ', { type: 'heading-one', children: [{ text: 'x' }] }],
    ['## ', { type: 'heading-two', children: [{ text: 'x' }] }],
    ['### ', { type: 'heading-three', children: [{ text: 'x' }] }],
    ['#### ', { type: 'heading-four', children: [{ text: 'x' }] }],
    ['##### ', { type: 'heading-five', children: [{ text: 'x' }] }],
    ['###### ', { type: 'heading-six', children: [{ text: 'x' }] }],
    ['- ', { type: 'bulleted-list', children: [{ type: 'list-item', children: [{ text: 'x' }] }] }],
    ['* ', { type: 'bulleted-list', children: [{ type: 'list-item', children: [{ text: 'x' }] }] }],
    ['1. ', { type: 'numbered-list', children: [{ type: 'list-item', children: [{ text: 'x' }] }] }],
    ['> ', { type: 'block-quote', children: [{ text: 'x' }] }],
    ['``` ', { type: 'code-block', children: [{ text: 'x' }] }],
  ];
  it.each(cases)('%j at the start of a paragraph', (shortcut, expected) => {
    const editor = editorWith([p('')]);
    type(editor, `${shortcut}x`);
    expect(editor.children).toEqual([expected]);
  });

  it('``` and Enter make a code block, in which Enter is a line break', () => {
    const editor = editorWith([p('')]);
    type(editor, '```');
    editor.insertBreak();
    type(editor, 'a');
    editor.insertBreak();
    type(editor, 'b');
    expect(editor.children).toEqual([{ type: 'code-block', children: [{ text: 'a\nb' }] }]);
  });

  it('--- and Enter make a divider followed by a paragraph', () => {
    const editor = editorWith([p('')]);
    type(editor, '---');
    editor.insertBreak();
    type(editor, 'after');
    expect(editor.children).toEqual([{ type: 'divider', children: [{ text: '' }] }, p('after')]);
  });

  it('keeps the text when the shortcut is not at the start', () => {
    const editor = editorWith([p('')]);
    type(editor, 'a # b');
    expect(editor.children).toEqual([p('a # b')]);
  });

  it('ends a list on Enter in an empty item, and a heading on Enter at its end', () => {
    const editor = editorWith([p('')]);
    type(editor, '- one');
    editor.insertBreak();
    editor.insertBreak();
    type(editor, 'after');
    expect(editor.children).toEqual([{ type: 'bulleted-list', children: [{ type: 'list-item', children: [{ text: 'one' }] }] }, p('after')]);
    const heading = editorWith([p('')]);
    type(heading, '# Title');
    heading.insertBreak();
    type(heading, 'body');
    expect(heading.children).toEqual([{ type: 'heading-one', children: [{ text: 'Title' }] }, p('body')]);
  });

  it('turns a block back into a paragraph on Backspace at its start', () => {
    const editor = editorWith([p('')]);
    type(editor, '> quoted');
    Transforms.select(editor, Editor.start(editor, [0]));
    editor.deleteBackward('character');
    expect(editor.children).toEqual([p('quoted')]);
  });
});

describe('callouts, highlights and tasks', () => {
  const list = (...items: Descendant[]): Descendant => ({ type: 'bulleted-list', children: items });
  const task = (checked: boolean, text: string): Descendant => ({ type: 'list-item', checked, children: [{ text }] });
  const callout = (fields: Record<string, unknown>, ...children: Descendant[]): Descendant => ({ type: 'callout', kind: 'note', ...fields, children });

  it('> [!warning] makes a callout of that kind holding what is typed next', () => {
    const editor = editorWith([p('')]);
    type(editor, '> [!Warning] Do not trust Strahd');
    expect(editor.children).toEqual([callout({ kind: 'warning' }, p('Do not trust Strahd'))]);
    expect(isCalloutActive(editor)).toBe(true);
  });

  it('takes the fold sign of Obsidian’s marker and any word as the kind', () => {
    const editor = editorWith([p('')]);
    type(editor, '> [!faq]- x');
    expect(editor.children).toEqual([callout({ kind: 'faq' }, p('x'))]);
  });

  it('> [!secret] makes a GM-only paragraph, not a callout (as a vault’s [!secret] imports)', () => {
    const editor = editorWith([p('')]);
    type(editor, '> [!secret] hidden');
    expect(editor.children).toEqual([{ type: 'paragraph', isSecret: true, children: [{ text: 'hidden' }] }]);
  });

  it('leaves a quote that does not start with a marker a quote', () => {
    const editor = editorWith([p('')]);
    type(editor, '> a [!note] b');
    expect(editor.children).toEqual([{ type: 'block-quote', children: [{ text: 'a [!note] b' }] }]);
  });

  it('leaves the callout on Enter in its empty last paragraph', () => {
    const editor = editorWith([p('')]);
    type(editor, '> [!tip] one');
    editor.insertBreak();
    type(editor, 'two');
    editor.insertBreak();
    editor.insertBreak();
    type(editor, 'after');
    expect(editor.children).toEqual([callout({ kind: 'tip' }, p('one'), p('two')), p('after')]);
  });

  it('the toolbar wraps the selected blocks in a note and unwraps them again; the title is set and cleared', () => {
    const editor = editorWith([p('one'), p('two')]);
    Transforms.select(editor, { anchor: Editor.start(editor, [0]), focus: Editor.end(editor, [1]) });
    toggleCallout(editor);
    expect(editor.children).toEqual([callout({}, p('one'), p('two'))]);
    setCalloutTitle(editor, [0], 'Read aloud');
    expect(editor.children).toEqual([callout({ title: 'Read aloud' }, p('one'), p('two'))]);
    setCalloutTitle(editor, [0], '');
    expect(editor.children).toEqual([callout({}, p('one'), p('two'))]);
    toggleCallout(editor);
    expect(editor.children).toEqual([p('one'), p('two')]);
  });

  it('the toolbar wraps a whole list in a callout, never one of its items', () => {
    const editor = editorWith([list({ type: 'list-item', children: [{ text: 'a' }] }, { type: 'list-item', children: [{ text: 'b' }] })]);
    Transforms.select(editor, Editor.end(editor, [0, 1]));
    toggleCallout(editor);
    expect(editor.children).toEqual([callout({}, list({ type: 'list-item', children: [{ text: 'a' }] }, { type: 'list-item', children: [{ text: 'b' }] }))]);
  });

  it('Enter inside a done task leaves it done and starts a task to do with the rest; at its start, the new one above is to do', () => {
    const editor = editorWith([list(task(true, 'abcd'))]);
    Transforms.select(editor, { path: [0, 0, 0], offset: 2 });
    editor.insertBreak();
    expect(editor.children).toEqual([list(task(true, 'ab'), task(false, 'cd'))]);
    Transforms.select(editor, Editor.start(editor, [0, 0]));
    editor.insertBreak();
    expect(editor.children).toEqual([list(task(false, ''), task(true, 'ab'), task(false, 'cd'))]);
  });

  it('keeps a secret callout’s words secret when it is unwrapped', () => {
    const editor = editorWith([{ type: 'callout', kind: 'note', isSecret: true, children: [p('QXZJ')] }]);
    toggleCallout(editor);
    expect(editor.children).toEqual([{ type: 'paragraph', isSecret: true, children: [{ text: 'QXZJ' }] }]);
  });

  it('==words== highlights the words and what is typed next is not highlighted', () => {
    const editor = editorWith([p('')]);
    type(editor, 'The ==vampire lord== wakes');
    expect(editor.children).toEqual([{ type: 'paragraph', children: [{ text: 'The ' }, { text: 'vampire lord', highlight: true }, { text: ' wakes' }] }]);
  });

  it('leaves == alone where it highlights nothing, and in code', () => {
    const editor = editorWith([p('')]);
    type(editor, 'a == b ==== c');
    expect(editor.children).toEqual([p('a == b ==== c')]);
    const code = editorWith([{ type: 'code-block', children: [{ text: '' }] }]);
    type(code, 'x ==y==');
    expect(code.children).toEqual([{ type: 'code-block', children: [{ text: 'x ==y==' }] }]);
  });

  it.each([
    ['**bold**', 'bold'],
    ['__bold__', 'bold'],
    ['*leaning*', 'italic'],
    ['_leaning_', 'italic'],
    ['~~struck out~~', 'strikethrough'],
    ['`a code`', 'code'],
  ] as const)('%s typed marks the words %s, and what is typed next does not take the mark', (typed, mark) => {
    const editor = editorWith([p('')]);
    type(editor, `The ${typed}, then more`);
    const words = typed.replace(/^[*_~`]+|[*_~`]+$/g, '');
    expect(editor.children).toEqual([{ type: 'paragraph', children: [{ text: 'The ' }, { text: words, [mark]: true }, { text: ', then more' }] }]);
  });

  it('gives back the signs as typed on an undo right after the mark, and the words go on undoing as typing', () => {
    const editor = editorWith([p('')]);
    type(editor, 'The **bold**');
    expect(editor.children).toEqual([{ type: 'paragraph', children: [{ text: 'The ' }, { text: 'bold', bold: true }] }]);
    editor.undo();
    expect(editor.children).toEqual([p('The **bold**')]);
    editor.redo();
    expect(editor.children).toEqual([{ type: 'paragraph', children: [{ text: 'The ' }, { text: 'bold', bold: true }] }]);
  });

  it('what is typed after a typed mark and Enter is plain on the new line (and an @ there is plain text, typed into the line)', () => {
    const editor = editorWith([p('')]);
    type(editor, 'The **bold**');
    editor.insertBreak();
    type(editor, '@plain');
    expect(editor.children).toEqual([{ type: 'paragraph', children: [{ text: 'The ' }, { text: 'bold', bold: true }] }, p('@plain')]);
    // Ctrl+B off before Enter, the same.
    const toggled = editorWith([p('')]);
    toggleMark(toggled, 'bold');
    type(toggled, 'Loud');
    toggleMark(toggled, 'bold');
    toggled.insertBreak();
    type(toggled, 'quiet');
    expect(toggled.children).toEqual([{ type: 'paragraph', children: [{ text: 'Loud', bold: true }] }, p('quiet')]);
    // Bold still on: the new line goes on bold.
    const kept = editorWith([p('')]);
    toggleMark(kept, 'bold');
    type(kept, 'Loud');
    kept.insertBreak();
    type(kept, 'still');
    expect(kept.children).toEqual([{ type: 'paragraph', children: [{ text: 'Loud', bold: true }] }, { type: 'paragraph', children: [{ text: 'still', bold: true }] }]);
  });

  it('marks at the start of a line, and two marks in one line', () => {
    const editor = editorWith([p('')]);
    type(editor, '**Strahd** waits in *Ravenloft*');
    expect(editor.children).toEqual([{ type: 'paragraph', children: [{ text: 'Strahd', bold: true }, { text: ' waits in ' }, { text: 'Ravenloft', italic: true }] }]);
  });

  it('leaves the signs as typed where they mark nothing: inside words, around spaces, half a pair, in code', () => {
    const cases = ['snake_case_name', '2*3*4', 'a * b * c', '** spaced **', 'x ~~ y ~~', 'a ~b~ c', '**', '__', '``', 'x *', '_ _', 'a ` b ` c'];
    for (const typed of cases) {
      const editor = editorWith([p('')]);
      type(editor, typed);
      expect(editor.children, typed).toEqual([p(typed)]);
    }
    const code = editorWith([{ type: 'code-block', children: [{ text: '' }] }]);
    type(code, 'x **y** `z`');
    expect(code.children).toEqual([{ type: 'code-block', children: [{ text: 'x **y** `z`' }] }]);
    // Inside code-marked words the signs are the code's own.
    const marked = editorWith([{ type: 'paragraph', children: [{ text: 'f(', code: true }] }]);
    Transforms.select(marked, { path: [0, 0], offset: 2 });
    type(marked, '*a*');
    expect(marked.children).toEqual([{ type: 'paragraph', children: [{ text: 'f(*a*', code: true }] }]);
  });

  it('waits for the second sign of a pair: **bold* is not italic', () => {
    const editor = editorWith([p('')]);
    type(editor, '**bold*');
    expect(editor.children).toEqual([p('**bold*')]);
    type(editor, '*');
    expect(editor.children).toEqual([{ type: 'paragraph', children: [{ text: 'bold', bold: true }] }]);
  });

  it('never loses a typed character but the signs of a mark (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', ' ', '*', '_', '~', '`', '=', 'é', '2'), { maxLength: 24 }), (chars) => {
        // After a word: the shortcuts at the start of a line (`* ` a list…) are another matter.
        const typed = `x${chars.join('')}`;
        const editor = editorWith([p('')]);
        type(editor, typed);
        const text = Node.string(editor);
        const words = (value: string) => value.replace(/[*_~`=]/g, '');
        // Every letter, digit and space typed is there, in order; only signs went.
        expect(words(text)).toBe(words(typed));
        expect(text.length).toBeLessThanOrEqual(typed.length);
        expect(validateRichText(editor.children, '')).toEqual([]);
      }),
      { numRuns: 400 },
    );
  });

  it('highlight is a mark of the toolbar like the others', () => {
    const editor = editorWith([p('hello world')]);
    Transforms.select(editor, { anchor: { path: [0, 0], offset: 0 }, focus: { path: [0, 0], offset: 5 } });
    toggleMark(editor, 'highlight');
    expect(editor.children).toEqual([{ type: 'paragraph', children: [{ text: 'hello', highlight: true }, { text: ' world' }] }]);
  });

  it.each([
    ['- [ ] ', false],
    ['- [x] ', true],
    ['* [X] ', true],
  ] as const)('%j makes a task', (shortcut, checked) => {
    const editor = editorWith([p('')]);
    type(editor, `${shortcut}Buy rope`);
    expect(editor.children).toEqual([list(task(checked, 'Buy rope'))]);
    expect(isTaskListActive(editor)).toBe(true);
  });

  it('Enter after a done task starts a task still to do; Enter on an empty task ends the list as a paragraph without checked', () => {
    const editor = editorWith([p('')]);
    type(editor, '- [x] one');
    editor.insertBreak();
    type(editor, 'two');
    editor.insertBreak();
    editor.insertBreak();
    type(editor, 'after');
    expect(editor.children).toEqual([list(task(true, 'one'), task(false, 'two')), p('after')]);
  });

  it('ticks and unticks a task at the caret (Ctrl+Enter) or by its path (the checkbox), and nothing else', () => {
    const editor = editorWith([list(task(false, 'one'), { type: 'list-item', children: [{ text: 'plain' }] })]);
    Transforms.select(editor, Editor.end(editor, [0, 0]));
    expect(toggleTaskChecked(editor)).toBe(true);
    expect(editor.children).toEqual([list(task(true, 'one'), { type: 'list-item', children: [{ text: 'plain' }] })]);
    expect(toggleTaskChecked(editor, [0, 0])).toBe(true);
    expect(editor.children).toEqual([list(task(false, 'one'), { type: 'list-item', children: [{ text: 'plain' }] })]);
    Transforms.select(editor, Editor.end(editor, [0, 1]));
    expect(toggleTaskChecked(editor)).toBe(false);
  });

  it('the toolbar makes paragraphs a task list and back, and a plain list a task list', () => {
    const editor = editorWith([p('one'), p('two')]);
    Transforms.select(editor, { anchor: Editor.start(editor, [0]), focus: Editor.end(editor, [1]) });
    toggleTaskList(editor);
    expect(editor.children).toEqual([list(task(false, 'one'), task(false, 'two'))]);
    toggleTaskList(editor);
    expect(editor.children).toEqual([p('one'), p('two')]);
    const plain = editorWith([list({ type: 'list-item', children: [{ text: 'x' }] })]);
    toggleTaskList(plain);
    expect(plain.children).toEqual([list(task(false, 'x'))]);
  });

  it('never leaves checked on anything but a list item (a heading made of a task)', () => {
    const editor = editorWith([list(task(true, 'one'))]);
    Transforms.select(editor, Editor.end(editor, [0, 0]));
    toggleBlock(editor, 'heading-one');
    expect(editor.children).toEqual([{ type: 'heading-one', children: [{ text: 'one' }] }]);
  });
});

describe('inserting', () => {
  it('a mention of a thing, without its name (no name to go stale or leak), and a space after it', () => {
    const editor = editorWith([p('Ask ')]);
    insertMention(editor, { targetType: 'thing', targetId: 7 });
    type(editor, 'now');
    expect(editor.children).toEqual([
      { type: 'paragraph', children: [{ text: 'Ask ' }, { type: 'mention', targetType: 'thing', targetId: 7, children: [{ text: '' }] }, { text: ' now' }] },
    ]);
  });

  it('an image by address with alt text and caption, and a paragraph to go on in', () => {
    const editor = editorWith([p('')]);
    insertImage(editor, { url: 'https://example.test/map.png', alt: 'A map', caption: 'The old map' });
    expect(editor.children).toEqual([p(''), { type: 'image', url: 'https://example.test/map.png', alt: 'A map', caption: 'The old map', children: [{ text: '' }] }, p('')]);
  });

  it('an uploaded image by its asset id', () => {
    const editor = editorWith([p('')]);
    insertImage(editor, { url: '/api/images/1/abc.png', assetId: 3 });
    expect(editor.children[1]).toEqual({ type: 'image', url: '/api/images/1/abc.png', assetId: 3, children: [{ text: '' }] });
  });

  it('a link around the selection, changed, then removed', () => {
    const editor = editorWith([p('see the site')]);
    Transforms.select(editor, { anchor: { path: [0, 0], offset: 4 }, focus: { path: [0, 0], offset: 12 } });
    setLink(editor, 'https://example.test');
    expect(editor.children).toEqual([{ type: 'paragraph', children: [{ text: 'see ' }, { type: 'link', url: 'https://example.test', children: [{ text: 'the site' }] }, { text: '' }] }]);
    Transforms.select(editor, { path: [0, 1, 0], offset: 2 });
    setLink(editor, 'https://example.test/2');
    expect((editor.children[0] as { children: { url?: string }[] }).children[1]!.url).toBe('https://example.test/2');
    removeLink(editor);
    expect(Editor.string(editor, [0])).toBe('see the site');
    expect(JSON.stringify(editor.children)).not.toContain('"link"');
  });

  it('a link at the caret, with its address as its text, and what is typed next after it', () => {
    const editor = editorWith([p('see ')]);
    setLink(editor, 'https://example.test/');
    type(editor, ' now');
    expect(editor.children).toEqual([
      { type: 'paragraph', children: [{ text: 'see ' }, { type: 'link', url: 'https://example.test/', children: [{ text: 'https://example.test/' }] }, { text: ' now' }] },
    ]);
  });

  it('a table of two rows and two cells', () => {
    const editor = editorWith([p('')]);
    insertTable(editor);
    const cell = { type: 'table-cell', children: [{ text: '' }] };
    expect(editor.children[1]).toEqual({ type: 'table', children: [{ type: 'table-row', children: [cell, cell] }, { type: 'table-row', children: [cell, cell] }] });
  });
});

describe('tables', () => {
  const cell = (text = '') => ({ type: 'table-cell', children: [{ text }] });
  it('grow by a row below the current one and a column right of the current cell', () => {
    const editor = editorWith([{ type: 'table', children: [{ type: 'table-row', children: [cell('a'), cell('b')] }, { type: 'table-row', children: [cell('c'), cell('d')] }] }]);
    Transforms.select(editor, { path: [0, 0, 0, 0], offset: 1 });
    insertTableRow(editor);
    insertTableColumn(editor);
    expect(editor.children).toEqual([
      {
        type: 'table',
        children: [
          { type: 'table-row', children: [cell('a'), cell(), cell('b')] },
          { type: 'table-row', children: [cell(), cell(), cell()] },
          { type: 'table-row', children: [cell('c'), cell(), cell('d')] },
        ],
      },
    ]);
  });
});

describe('what the editor keeps', () => {
  it('keeps unknown elements and keys as they are while the text around them is edited', () => {
    const custom: Descendant = { type: 'admonition', icon: 'skull', children: [{ text: 'kept', tint: 'yellow' }] };
    const editor = editorWith([custom, p('edit me')]);
    type(editor, '!');
    expect(editor.children).toEqual([custom, p('edit me!')]);
  });
});

describe('secrets that hold (CONTRACT "Secrets that hold")', () => {
  const secret = (text: string): Descendant => ({ type: 'paragraph', isSecret: true, children: [{ text }] });
  const secretWords = (editor: Editor): string[] => {
    const out: string[] = [];
    walkWithSecrecy(editor.children, (node, isSecret) => {
      if (Text.isText(node) && isSecret && node.text !== '') out.push(node.text);
    });
    return out;
  };
  const atStart = (editor: Editor, path: number[]) => Transforms.select(editor, Editor.start(editor, path));

  it.each(['- ', '* ', '1. ', '# ', '> ', '``` '])('keeps a secret paragraph secret through the Markdown shortcut %j', (shortcut) => {
    const editor = editorWith([p('open'), secret('hidden')]);
    atStart(editor, [1]);
    type(editor, shortcut);
    expect(secretWords(editor)).toEqual(['hidden']);
  });

  it.each(['bulleted-list', 'numbered-list', 'heading-one', 'block-quote', 'code-block'] as const)('keeps a secret paragraph secret through the toolbar’s %s, on and off', (block) => {
    const editor = editorWith([secret('hidden')]);
    toggleBlock(editor, block);
    expect(secretWords(editor)).toEqual(['hidden']);
    toggleBlock(editor, block);
    expect(secretWords(editor)).toEqual(['hidden']);
  });

  it('keeps both halves of a secret paragraph split by Enter secret', () => {
    const editor = editorWith([secret('hidden words')]);
    Transforms.select(editor, { path: [0, 0], offset: 6 });
    editor.insertBreak();
    expect(secretWords(editor)).toEqual(['hidden', ' words']);
  });

  it('makes a visible paragraph that a secret one is merged into by Backspace secret', () => {
    const editor = editorWith([p('open'), secret('hidden')]);
    atStart(editor, [1]);
    editor.deleteBackward('character');
    expect(editor.children).toEqual([{ type: 'paragraph', isSecret: true, children: [{ text: 'openhidden' }] }]);
  });

  it('makes a visible paragraph that a secret one is merged into by Delete secret', () => {
    const editor = editorWith([p('open'), secret('hidden')]);
    Transforms.select(editor, Editor.end(editor, [0]));
    editor.deleteForward('character');
    expect(secretWords(editor)).toEqual(['openhidden']);
  });

  it('keeps the words after a deleted selection across a secret paragraph secret', () => {
    const editor = editorWith([p('open'), secret('hidden words')]);
    Transforms.select(editor, { anchor: { path: [0, 0], offset: 2 }, focus: { path: [1, 0], offset: 6 } });
    editor.deleteFragment();
    expect(secretWords(editor)).toEqual(['op words']);
  });

  it('keeps an item lifted out of a secret list by Backspace at its start secret', () => {
    const list = { type: 'bulleted-list', isSecret: true, children: [{ type: 'list-item', children: [{ text: 'one' }] }, { type: 'list-item', children: [{ text: 'two' }] }] };
    const editor = editorWith([list]);
    atStart(editor, [0, 1]);
    editor.deleteBackward('character');
    expect(secretWords(editor)).toEqual(['one', 'two']);
    expect(editor.children[1]).toEqual({ type: 'paragraph', isSecret: true, children: [{ text: 'two' }] });
  });

  it('keeps a secret list item secret through Backspace at its start', () => {
    const list = { type: 'bulleted-list', children: [{ type: 'list-item', isSecret: true, children: [{ text: 'hidden' }] }] };
    const editor = editorWith([p('open'), list]);
    atStart(editor, [1, 0]);
    editor.deleteBackward('character');
    expect(secretWords(editor)).toEqual(['hidden']);
  });

  it('keeps the items of a secret list secret when the list is toggled off and on Enter in an empty item', () => {
    const list = { type: 'numbered-list', isSecret: true, children: [{ type: 'list-item', children: [{ text: 'one' }] }, { type: 'list-item', children: [{ text: 'two' }] }] };
    const editor = editorWith([list]);
    Transforms.select(editor, { anchor: Editor.start(editor, []), focus: Editor.end(editor, []) });
    toggleBlock(editor, 'numbered-list');
    expect(editor.children).toEqual([secret('one'), secret('two')]);
    const ending = editorWith([list]);
    ending.insertBreak();
    ending.insertBreak();
    type(ending, 'after');
    expect(secretWords(ending)).toEqual(['one', 'two', 'after']);
  });

  it('makes the block that secret words are pasted into secret', () => {
    const editor = editorWith([secret('hidden'), p('open')]);
    Transforms.select(editor, { anchor: Editor.start(editor, [0]), focus: Editor.end(editor, [0]) });
    const fragment = copied(editor);
    Transforms.select(editor, Editor.end(editor, [1]));
    editor.insertFragment(fragment);
    expect(secretWords(editor)).toEqual(['hidden', 'openhidden']);
  });

  it('keeps pasted items of a secret list secret wherever Slate puts them', () => {
    const list = { type: 'bulleted-list', isSecret: true, children: [{ type: 'list-item', children: [{ text: 'one' }] }, { type: 'list-item', children: [{ text: 'two' }] }, { type: 'list-item', children: [{ text: 'three' }] }] };
    const editor = editorWith([list, p('open')]);
    Transforms.select(editor, { anchor: Editor.start(editor, [0]), focus: Editor.end(editor, [0, 2]) });
    const fragment = copied(editor);
    Transforms.select(editor, Editor.end(editor, [1]));
    editor.insertFragment(fragment);
    expect(secretWords(editor).filter((w) => ['one', 'two', 'three'].some((x) => w.endsWith(x)))).toHaveLength(6);
  });

  it('lets only the GM’s toggle (and undo) take secrecy away', () => {
    const editor = editorWith([secret('hidden')]);
    Transforms.unsetNodes(editor, 'isSecret', { at: [0] });
    Transforms.setNodes(editor, { isSecret: false }, { at: [0] });
    expect(secretWords(editor)).toEqual(['hidden']);
    toggleSecret(editor);
    expect(editor.children).toEqual([p('hidden')]);
    editor.undo();
    expect(editor.children).toEqual([secret('hidden')]);
  });

  it('finds and toggles off a secret at any depth', () => {
    const list = { type: 'bulleted-list', children: [{ type: 'list-item', isSecret: true, children: [{ text: 'hidden' }] }] };
    const editor = editorWith([list]);
    expect(isSecretActive(editor)).toBe(true);
    toggleSecret(editor);
    expect(secretWords(editor)).toEqual([]);
    expect(isSecretActive(editor)).toBe(false);
  });

  it('keeps a secret heading’s next paragraph secret on Enter at its end', () => {
    const editor = editorWith([{ type: 'heading-one', isSecret: true, children: [{ text: 'Plot' }] }]);
    editor.insertBreak();
    type(editor, 'twist');
    expect(secretWords(editor)).toEqual(['Plot', 'twist']);
  });
});

describe('mentions', () => {
  it('types after a mention when the caret was put inside it (a click on it)', () => {
    const editor = editorWith([{ type: 'paragraph', children: [{ text: 'Ask ' }, { type: 'mention', targetType: 'thing', targetId: 7, children: [{ text: '' }] }, { text: '' }] }]);
    Transforms.select(editor, { path: [0, 1, 0], offset: 0 });
    type(editor, ' now');
    expect(editor.children).toEqual([{ type: 'paragraph', children: [{ text: 'Ask ' }, { type: 'mention', targetType: 'thing', targetId: 7, children: [{ text: '' }] }, { text: ' now' }] }]);
  });

  it("puts closing punctuation typed right after a picked mention against its name (@Strahd's, not @Strahd 's), and a space typed there is the one it has", () => {
    const mentioned = (after: string): Descendant => ({ type: 'paragraph', children: [{ text: 'Ask ' }, { type: 'mention', targetType: 'thing', targetId: 7, children: [{ text: '' }] }, { text: after }] });
    for (const [typed, after] of [
      ["'s castle", "'s castle"],
      ['.', '.'],
      [', then', ', then'],
      ['?!', '?!'],
      [' (at night)', ' (at night)'],
      ['and', ' and'],
      [' and', ' and'],
    ] as const) {
      const editor = editorWith([p('Ask ')]);
      insertMention(editor, { targetType: 'thing', targetId: 7 });
      type(editor, typed);
      expect(editor.children, typed).toEqual([mentioned(after)]);
    }
    // A space typed on purpose, then a word, then punctuation: nothing taken.
    const editor = editorWith([p('Ask ')]);
    insertMention(editor, { targetType: 'thing', targetId: 7 });
    type(editor, 'x.');
    expect(editor.children).toEqual([mentioned(' x.')]);
  });

  // A drag or Shift+click that ends on a mention puts the selection's end in its hidden text.
  // Found by the secrecy property test (seed 1676157460): Slate's delete then kept the mentions and
  // the words between them, left an empty list, and Enter threw.
  const mention = (targetId: number): Descendant => ({ type: 'mention', targetType: 'thing', targetId, children: [{ text: '' }] });
  const intoListWithMentions = (): Descendant[] => [
    p('a'),
    p(''),
    p('b'),
    { type: 'bulleted-list', children: [{ type: 'list-item', children: [{ text: 'ash ' }, mention(1), { text: 'elm ' }, mention(2), { text: 'tail' }] }] },
  ];

  it.each([
    ['Delete', (editor: Editor) => editor.deleteFragment(), [p('tail')]],
    ['typing', (editor: Editor) => editor.insertText('x'), [p('xtail')]],
    ['Enter', (editor: Editor) => editor.insertBreak(), [p(''), p('tail')]],
    ['a paste', (editor: Editor) => editor.insertFragment([p('new')]), [p('newtail')]],
  ] as const)('%s over a selection that ends inside a mention takes the mention and all before it, and leaves no empty list', (_, act, expected) => {
    for (const backward of [false, true]) {
      const editor = editorWith(intoListWithMentions());
      const start = { path: [0, 0], offset: 0 };
      const inMention = { path: [3, 0, 3, 0], offset: 0 };
      Transforms.select(editor, backward ? { anchor: inMention, focus: start } : { anchor: start, focus: inMention });
      act(editor);
      expect(editor.children).toEqual(expected);
    }
  });

  it('a selection that starts inside a mention takes the mention too', () => {
    const editor = editorWith([{ type: 'paragraph', children: [{ text: 'Ask ' }, mention(7), { text: ' now' }] }, p('later')]);
    Transforms.select(editor, { anchor: { path: [0, 1, 0], offset: 0 }, focus: { path: [1, 0], offset: 2 } });
    editor.deleteFragment();
    expect(editor.children).toEqual([p('Ask ter')]);
  });

  it('a selection from a paragraph into a list item after a mention keeps the rest of the item and no empty list', () => {
    const editor = editorWith(intoListWithMentions());
    Transforms.select(editor, { anchor: { path: [0, 0], offset: 0 }, focus: { path: [3, 0, 2], offset: 2 } });
    editor.insertBreak();
    expect(editor.children).toEqual([p(''), { type: 'paragraph', children: [{ text: 'm ' }, mention(2), { text: 'tail' }] }]);
  });
});

describe('a paste keeps the text within the depth the server takes', () => {
  /** Callouts nested `depth - 1` deep around a paragraph holding `text` (the paragraph at level `depth`). */
  const nested = (depth: number, text: string, secret = false): Descendant =>
    depth === 1 ? (secret ? { type: 'paragraph', isSecret: true, children: [{ text }] } : p(text)) : { type: 'callout', kind: 'note', children: [nested(depth - 1, text, secret)] };
  const words = (nodes: Descendant[]) => [...Editor.nodes(editorWith(structuredClone(nodes)), { at: [], match: Text.isText })].map(([leaf]) => leaf.text).join('|');

  it('pastes blocks as they are while the text stays within the limit', () => {
    const editor = editorWith([p('one'), nested(3, 'inner'), p('two')]);
    Transforms.select(editor, { anchor: { path: [0, 0], offset: 1 }, focus: { path: [2, 0], offset: 1 } });
    const fragment = copied(editor);
    Transforms.select(editor, Editor.end(editor, []));
    editor.insertFragment(fragment);
    expect(editor.children).toEqual([p('one'), nested(3, 'inner'), p('twone'), nested(3, 'inner'), p('t')]);
  });

  it('pastes a fragment that would nest too deep as paragraphs of its words, secret ones secret, and the server takes the result', () => {
    const editor = editorWith([p('before'), nested(12, 'deep'), { type: 'callout', kind: 'note', children: [nested(10, 'GM only words', true)] }, p('after')]);
    Transforms.select(editor, { anchor: { path: [0, 0], offset: 2 }, focus: { path: [3, 0], offset: 3 } });
    const fragment = copied(editor);
    // Pasted into the deepest paragraph: as it is, its callouts would sit 11 levels below it.
    Transforms.select(editor, Editor.end(editor, [1]));
    editor.insertFragment(fragment);
    expect(validateRichText(editor.children, '')).toEqual([]);
    const deepest = Math.max(...[...Editor.nodes(editor, { at: [], match: (n) => SlateElement.isElement(n) })].map(([, path]) => path.length));
    expect(deepest).toBeLessThanOrEqual(RICH_TEXT_MAX_DEPTH);
    // Every word is there, and the secret ones are still secret.
    expect(words(editor.children)).toContain('deepfore');
    expect(words(editor.children)).toContain('GM only words');
    walkWithSecrecy(editor.children, (node, secret) => {
      if (Text.isText(node) && node.text.includes('GM only')) expect(secret).toBe(true);
    });
  });

  it('keeps headings and other blocks of a paste that fits, however deep the caret', () => {
    const wrapped = (depth: number, children: Descendant[]): Descendant => (depth === 0 ? (children[0] as Descendant) : { type: 'callout', kind: 'note', children: depth === 1 ? children : [wrapped(depth - 1, children)] });
    const editor = editorWith([wrapped(8, [p('one'), { type: 'heading-two', children: [{ text: 'Title' }] }, p('three')])]);
    Transforms.select(editor, { anchor: Editor.start(editor, []), focus: Editor.end(editor, []) });
    const fragment = copied(editor);
    // Into the middle of "three", at level 9: Slate drops the fragment's outer callouts there.
    const three = [...Editor.nodes(editor, { at: [], match: Text.isText })].at(-1)![1];
    Transforms.select(editor, { path: three, offset: 2 });
    editor.insertFragment(fragment);
    expect(validateRichText(editor.children, '')).toEqual([]);
    expect([...Editor.nodes(editor, { at: [], match: (n) => SlateElement.isElement(n) && n.type === 'heading-two' })]).toHaveLength(2);
  });

  it('at the deepest level, pastes a link as its text so the server still takes the text', () => {
    const editor = editorWith([nested(RICH_TEXT_MAX_DEPTH, 'deep')]);
    const fragment: Descendant[] = [
      { type: 'paragraph', children: [{ text: 'see ' }, { type: 'link', url: 'https://example.com', children: [{ text: 'here' }] }, { text: '' }] },
      { type: 'paragraph', children: [{ text: 'and ' }, { type: 'link', url: 'https://example.com', children: [{ text: 'there', bold: true }] }, { text: '' }] },
    ];
    editor.insertFragment(fragment);
    expect(validateRichText(editor.children, '')).toEqual([]);
    expect(words(editor.children)).toContain('deepsee here');
    expect(words(editor.children)).toContain('and |there');
    expect([...Editor.nodes(editor, { at: [], match: (n) => SlateElement.isElement(n) && n.type === 'link' })]).toEqual([]);
  });
});

describe('lists hold list items only', () => {
  it('an empty text beside items goes, making no empty item', () => {
    const editor = editorWith([{ type: 'bulleted-list', children: [{ type: 'list-item', children: [{ text: 'a' }] }, { text: '' }] }]);
    Editor.normalize(editor, { force: true });
    expect(editor.children).toEqual([{ type: 'bulleted-list', children: [{ type: 'list-item', children: [{ text: 'a' }] }] }]);
  });

  it('an empty list goes, or becomes a paragraph when it is all there is', () => {
    const editor = editorWith([p('kept'), { type: 'numbered-list', children: [{ text: '' }] }]);
    Editor.normalize(editor, { force: true });
    expect(editor.children).toEqual([p('kept')]);
    const alone = editorWith([{ type: 'bulleted-list', children: [{ text: '' }] }]);
    Editor.normalize(alone, { force: true });
    expect(alone.children).toEqual([p('')]);
  });

  it('a list item outside a list (part of a list pasted) is a bulleted list of that one item', () => {
    const editor = editorWith([p('before'), { type: 'list-item', checked: true, children: [{ text: 'done' }] }, { type: 'callout', kind: 'note', children: [{ type: 'list-item', children: [{ text: 'inside' }] }] }]);
    Editor.normalize(editor, { force: true });
    expect(editor.children).toEqual([
      p('before'),
      { type: 'bulleted-list', children: [{ type: 'list-item', checked: true, children: [{ text: 'done' }] }] },
      { type: 'callout', kind: 'note', children: [{ type: 'bulleted-list', children: [{ type: 'list-item', children: [{ text: 'inside' }] }] }] },
    ]);
  });

  it('text and inlines left in a list go into one item, and a block into an item of its own', () => {
    const editor = editorWith([
      {
        type: 'bulleted-list',
        children: [{ text: 'loose ' }, { type: 'mention', targetType: 'thing', targetId: 7, children: [{ text: '' }] }, { text: ' end' }, { type: 'list-item', children: [{ text: 'item' }] }, p('para')],
      },
    ]);
    Editor.normalize(editor, { force: true });
    expect(editor.children).toEqual([
      {
        type: 'bulleted-list',
        children: [
          { type: 'list-item', children: [{ text: 'loose ' }, { type: 'mention', targetType: 'thing', targetId: 7, children: [{ text: '' }] }, { text: ' end' }] },
          { type: 'list-item', children: [{ text: 'item' }] },
          { type: 'list-item', children: [p('para')] },
        ],
      },
    ]);
  });

  it('a list straight inside a list gives it its items where it stood, no deeper', () => {
    const item = (text: string): Descendant => ({ type: 'list-item', children: [{ text }] });
    const editor = editorWith([{ type: 'bulleted-list', children: [item('one'), { type: 'numbered-list', children: [item('two'), item('three')] }, item('four')] }]);
    Editor.normalize(editor, { force: true });
    expect(editor.children).toEqual([{ type: 'bulleted-list', children: [item('one'), item('two'), item('three'), item('four')] }]);
  });

  it('keeps a list nested in an item (as an import writes it) as it is', () => {
    const nested: Descendant[] = [{ type: 'bulleted-list', children: [{ type: 'list-item', children: [p('one'), { type: 'numbered-list', children: [{ type: 'list-item', children: [{ text: 'deeper' }] }] }] }] }];
    const editor = editorWith(structuredClone(nested));
    Editor.normalize(editor, { force: true });
    expect(editor.children).toEqual(nested);
  });

});

describe('list items one level deeper and out (Tab, Shift+Tab)', () => {
  const item = (text: string, extra: Record<string, unknown> = {}): Descendant => ({ type: 'list-item', ...extra, children: [{ text }] });
  const list = (...items: Descendant[]): Descendant => ({ type: 'bulleted-list', children: items });
  const numbered = (...items: Descendant[]): Descendant => ({ type: 'numbered-list', children: items });
  const parent = (text: string, sub: Descendant, extra: Record<string, unknown> = {}): Descendant => ({ type: 'list-item', ...extra, children: [p(text), sub] });
  /** The caret in the text of the item at `path` (its words), at `offset`. */
  const caretIn = (editor: Editor, path: number[], offset = 0) => {
    const [, textPath] = Editor.first(editor, path);
    Transforms.select(editor, { path: textPath, offset });
  };
  const valid = (editor: Editor) => expect(validateRichText(editor.children, '')).toEqual([]);

  it('Tab puts an item under the one before it, in a list of its kind; again, the next one joins it', () => {
    const editor = editorWith([list(item('Barovia'), item('Vallaki'), item('Krezk'))]);
    caretIn(editor, [0, 1], 3);
    expect(indentListItems(editor)).toBe(true);
    expect(editor.children).toEqual([list(parent('Barovia', list(item('Vallaki'))), item('Krezk'))]);
    // The caret stayed where it was, in the words moved.
    expect(editor.selection?.anchor).toEqual({ path: [0, 0, 1, 0, 0], offset: 3 });
    caretIn(editor, [0, 1]);
    expect(indentListItems(editor)).toBe(true);
    expect(editor.children).toEqual([list(parent('Barovia', list(item('Vallaki'), item('Krezk'))))]);
    valid(editor);
    const numberedEditor = editorWith([numbered(item('one'), item('two'))]);
    caretIn(numberedEditor, [0, 1]);
    indentListItems(numberedEditor);
    expect(numberedEditor.children).toEqual([numbered(parent('one', numbered(item('two'))))]);
  });

  it('Tab does nothing on a first item, outside a list, or past the depth the server takes', () => {
    const editor = editorWith([list(item('first'), item('second')), p('text')]);
    caretIn(editor, [0, 0]);
    expect(indentListItems(editor)).toBe(false);
    caretIn(editor, [1]);
    expect(indentListItems(editor)).toBe(false);
    expect(editor.children).toEqual([list(item('first'), item('second')), p('text')]);
    // Items nested as deep as they go: one more level would be past RICH_TEXT_MAX_DEPTH.
    let deep: Descendant = list(item('a'), item('b'));
    while (elementLevels(deep) + 2 <= RICH_TEXT_MAX_DEPTH) deep = list(parent('up', deep));
    const deepest = editorWith([deep]);
    const [, bPath] = [...Editor.nodes(deepest, { at: [], match: (n) => Text.isText(n) && n.text === 'b' })][0]!;
    Transforms.select(deepest, { path: bPath, offset: 0 });
    const before = structuredClone(deepest.children);
    expect(indentListItems(deepest)).toBe(false);
    expect(deepest.children).toEqual(before);
  });

  it('Tab over a selection of items moves them all, with what is under them', () => {
    const editor = editorWith([list(item('a'), item('b'), parent('c', list(item('c1'))), item('d'))]);
    Transforms.select(editor, { anchor: { path: [0, 1, 0], offset: 1 }, focus: { path: [0, 2, 1, 0, 0], offset: 1 } });
    expect(indentListItems(editor)).toBe(true);
    expect(editor.children).toEqual([list(parent('a', list(item('b'), parent('c', list(item('c1'))))), item('d'))]);
    valid(editor);
  });

  it('Shift+Tab takes an item out after the one it was under; the items after it stay after it, under it', () => {
    const editor = editorWith([list(parent('Barovia', list(item('Vallaki'), item('Krezk'), item('Argynvostholt'))), item('Ravenloft'))]);
    caretIn(editor, [0, 0, 1, 1], 2);
    expect(outdentListItems(editor)).toBe(true);
    expect(editor.children).toEqual([list(parent('Barovia', list(item('Vallaki'))), parent('Krezk', list(item('Argynvostholt'))), item('Ravenloft'))]);
    expect(editor.selection?.anchor).toEqual({ path: [0, 1, 0, 0], offset: 2 });
    // The last one out: the item it was under holds its words again.
    caretIn(editor, [0, 0, 1, 0]);
    expect(outdentListItems(editor)).toBe(true);
    expect(editor.children).toEqual([list(item('Barovia'), item('Vallaki'), parent('Krezk', list(item('Argynvostholt'))), item('Ravenloft'))]);
    // A list at the top: nothing to come out of.
    expect(outdentListItems(editor)).toBe(false);
    valid(editor);
  });

  it('Tab then Shift+Tab gives back the list as it was, and the same over and over (no drift)', () => {
    const start = [list(item('a'), item('b', { checked: false }), item('c'), item('d'))];
    const editor = editorWith(structuredClone(start));
    for (let round = 0; round < 3; round += 1) {
      caretIn(editor, [0, 2]);
      expect(indentListItems(editor)).toBe(true);
      caretIn(editor, [0, 1, 1, 0]);
      expect(outdentListItems(editor)).toBe(true);
      expect(editor.children).toEqual(start);
    }
  });

  it('Enter in the words of an item with a list under it makes a new item, which takes that list', () => {
    const editor = editorWith([list(parent('Barovia', list(item('Vallaki'))))]);
    caretIn(editor, [0, 0, 0], 'Barovia'.length);
    editor.insertBreak();
    type(editor, 'Tser Pool');
    expect(editor.children).toEqual([list(item('Barovia'), parent('Tser Pool', list(item('Vallaki'))))]);
    // In the middle of the words: the words after the caret go with the new item.
    caretIn(editor, [0, 1, 0], 4);
    editor.insertBreak();
    expect(editor.children).toEqual([list(item('Barovia'), item('Tser'), parent(' Pool', list(item('Vallaki'))))]);
    valid(editor);
  });

  it('Backspace at the start of an item in a list inside an item takes it out; at the top, an item with a list under it leaves its list', () => {
    const editor = editorWith([list(parent('Barovia', list(item('Vallaki'))))]);
    caretIn(editor, [0, 0, 1, 0]);
    editor.deleteBackward('character');
    expect(editor.children).toEqual([list(item('Barovia'), item('Vallaki'))]);
    const top = editorWith([p('before'), list(item('a'), parent('b', list(item('b1'))), item('c'))]);
    caretIn(top, [1, 1, 0]);
    top.deleteBackward('character');
    expect(top.children).toEqual([p('before'), list(item('a')), p('b'), list(item('b1')), list(item('c'))]);
    valid(top);
  });

  it('Enter on an empty item in a list inside an item comes out one level, and at the top ends the list', () => {
    const editor = editorWith([numbered(item('Arrive in Barovia'), item('Meet Ismark'))]);
    caretIn(editor, [0, 1], 'Meet Ismark'.length);
    expect(tabInText(editor, false)).toBe(true);
    editor.insertBreak();
    editor.insertBreak();
    type(editor, 'Then the church');
    expect(editor.children).toEqual([numbered(parent('Arrive in Barovia', numbered(item('Meet Ismark'))), item('Then the church'))]);
    editor.insertBreak();
    editor.insertBreak();
    type(editor, 'After the list');
    expect(editor.children).toEqual([numbered(parent('Arrive in Barovia', numbered(item('Meet Ismark'))), item('Then the church')), p('After the list')]);
    valid(editor);
  });

  it('Tab is the text’s in a list even where nothing moves (first item, deepest level), and the browser’s outside', () => {
    const editor = editorWith([list(item('first'), item('second')), p('plain')]);
    caretIn(editor, [0, 0]);
    expect(tabInText(editor, false)).toBe(true);
    expect(tabInText(editor, true)).toBe(true);
    expect(editor.children).toEqual([list(item('first'), item('second')), p('plain')]);
    caretIn(editor, [1]);
    expect(tabInText(editor, false)).toBe(false);
    expect(tabInText(editor, true)).toBe(false);
    const code = editorWith([{ type: 'code-block', children: [{ text: 'x' }] }]);
    expect(tabInText(code, false)).toBe(true);
    expect(tabInText(code, true)).toBe(true);
    expect(code.children).toEqual([{ type: 'code-block', children: [{ text: 'x  ' }] }]);
  });

  it('an item left with no words before its list (a Delete that merged them away, a paste) gives its items to the list', () => {
    const editor = editorWith([p('Intro'), list(parent('Alpha', list(item('a1'), item('a2'))), item('Beta'))]);
    Transforms.select(editor, Editor.end(editor, [0]));
    editor.deleteForward('character');
    expect(editor.children).toEqual([p('IntroAlpha'), list(item('a1'), item('a2'), item('Beta'))]);
    valid(editor);
    // Copied nested items pasted into an empty item: at that item's level, not one deeper.
    const source = editorWith([list(item('A'), parent('B', list(item('B1'))))]);
    Transforms.select(source, { anchor: Editor.start(source, [0, 1]), focus: Editor.end(source, [0, 1]) });
    const fragment = copied(source);
    const target = editorWith([list(item('x'), item(''))]);
    caretIn(target, [0, 1]);
    target.insertFragment(fragment);
    expect(target.children).toEqual([list(item('x'), parent('B', list(item('B1'))))]);
    const noWordless = (nodes: Descendant[]): boolean => nodes.every((node) => !SlateElement.isElement(node) || ((node.type !== 'list-item' || !(SlateElement.isElement(node.children[0]) && (node.children[0] as { type: string }).type.endsWith('-list'))) && noWordless(node.children)));
    expect(noWordless(target.children)).toBe(true);
    expect(Node.string(target)).toBe('xBB1');
    valid(target);
  });

  it('the shortcuts of an item apply to the words of an item with a list under them: [ ] makes a task, - and 1. stay as typed', () => {
    const editor = editorWith([list(parent('', list(item('sub'))))]);
    caretIn(editor, [0, 0, 0]);
    type(editor, '[ ] Buy rope');
    expect(editor.children).toEqual([list(parent('Buy rope', list(item('sub')), { checked: false }))]);
    const literal = editorWith([list(parent('', list(item('sub'))))]);
    caretIn(literal, [0, 0, 0]);
    type(literal, '- 1. --- ');
    expect(literal.children).toEqual([list(parent('- 1. --- ', list(item('sub'))))]);
    literal.insertBreak();
    valid(literal);
  });

  it('GM in a list hides the items selected (a sub-item alone too), and a player reads the rest; across a list’s end, the blocks', () => {
    const editor = editorWith([list(parent('Vallaki', list(item('Baron Vargas'), item('the secret festival'))), item('Krezk')), p('after')]);
    caretIn(editor, [0, 0, 1, 1], 3);
    toggleSecret(editor);
    expect(editor.children).toEqual([list(parent('Vallaki', list(item('Baron Vargas'), item('the secret festival', { isSecret: true }))), item('Krezk')), p('after')]);
    const player = renderRichText(editor.children as unknown as RichText, 'html', { campaignSlug: 'c', showSecrets: false, things: { byId: new Map(), bySlug: new Map() }, arcs: { byId: new Map(), bySlug: new Map() }, assets: { byId: new Map(), byUrl: new Map() } });
    expect(player).not.toContain('secret festival');
    expect(player).toContain('Baron Vargas');
    // Again there: un-hidden.
    toggleSecret(editor);
    expect(editor.children).toEqual([list(parent('Vallaki', list(item('Baron Vargas'), item('the secret festival'))), item('Krezk')), p('after')]);
    // Two items of the top list selected: those two, with what is under them.
    Transforms.select(editor, { anchor: { path: [0, 0, 0, 0], offset: 1 }, focus: { path: [0, 1, 0], offset: 2 } });
    toggleSecret(editor);
    expect(editor.children).toEqual([list(parent('Vallaki', list(item('Baron Vargas'), item('the secret festival')), { isSecret: true }), item('Krezk', { isSecret: true })), p('after')]);
    // From an item into the paragraph after the list: the top-level blocks, as outside lists.
    const across = editorWith([list(item('one'), item('two')), p('after')]);
    Transforms.select(across, { anchor: { path: [0, 1, 0], offset: 1 }, focus: { path: [1, 0], offset: 2 } });
    toggleSecret(across);
    expect(across.children).toEqual([{ ...(list(item('one'), item('two')) as object), isSecret: true }, { ...(p('after') as object), isSecret: true }]);
  });

  it('keeps secrets: an item out of a GM-only item stays GM-only, and a GM-only item moved stays so', () => {
    const editor = editorWith([list(parent('GM only', list(item('the vampire'), item('visible?'))), item('after'))].map((node) => node));
    (editor.children[0] as { children: { isSecret?: boolean }[] }).children[0]!.isSecret = true;
    caretIn(editor, [0, 0, 1, 0]);
    expect(outdentListItems(editor)).toBe(true);
    const words = (secret: boolean) => {
      const out: string[] = [];
      walkWithSecrecy(editor.children, (node, isSecret) => {
        if (Text.isText(node) && node.text !== '' && isSecret === secret) out.push(node.text);
      });
      return out;
    };
    // Out of the secret item, the moved words (and those under them) are still GM-only.
    expect(words(false)).toEqual(['after']);
    const secretItem = editorWith([list(item('open'), item('hidden', { isSecret: true }))]);
    caretIn(secretItem, [0, 1]);
    indentListItems(secretItem);
    expect(secretItem.children).toEqual([list(parent('open', list(item('hidden', { isSecret: true }))))]);
    valid(secretItem);
  });
});

/** Element levels of a node (a list is 1, its items 2…). */
function elementLevels(node: Descendant): number {
  return SlateElement.isElement(node) ? 1 + Math.max(0, ...node.children.map((child) => elementLevels(child))) : 0;
}
