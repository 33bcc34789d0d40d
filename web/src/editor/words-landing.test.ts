// @vitest-environment jsdom
// A click on the text shown as read lands the caret by the words, not by the page's layout
// (editor/landing.ts landingAt, editor/typing.ts pointAtWords): every caret position in the server's
// own rendering of a text maps to the point of the editor's text with the same words before it, in
// the same block. The editor's layout at its mount can differ from the rendering's (a mention's name
// is not known yet, so lines wrap elsewhere), and a click mapped by position landed blocks away.
import fc from 'fast-check';
import { createEditor, Editor, Element, Node, Path, type Descendant, type Point } from 'slate';
import { describe, expect, it } from 'vitest';
import { renderRichText } from '../../../src/render/index.js';
import type { RenderContext } from '../../../src/render/model.js';
import type { RichText } from '../../../src/domain/rich-text.js';
import { withLoreforge } from './commands';
import { landingAt, recordWords, renderedWords } from './landing';
import { pointAtWords } from './typing';

const NEZZNAR = { id: 1, slug: 'nezznar', name: 'Nezznar the Black Spider' };
const context: RenderContext = {
  campaignSlug: 'c',
  showSecrets: true,
  things: { byId: new Map([[1, NEZZNAR]]), bySlug: new Map([['nezznar', NEZZNAR]]) },
  arcs: { byId: new Map(), bySlug: new Map() },
  assets: { byId: new Map(), byUrl: new Map() },
};

/** The rendering of `value` as the stand-in holds it. */
function rendered(value: Descendant[]): HTMLElement {
  const root = document.createElement('div');
  root.className = 'rendered';
  root.innerHTML = renderRichText(value as unknown as RichText, 'html', context);
  return root;
}

function editorOn(value: Descendant[]): Editor {
  const editor = withLoreforge(createEditor());
  editor.children = structuredClone(value);
  return editor;
}

/** Every caret position the browser can give in the rendering's text (not inside a mention's name). */
function caretPositions(root: HTMLElement): { node: globalThis.Node; offset: number }[] {
  const positions: { node: globalThis.Node; offset: number }[] = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement?.closest('.mention')) continue;
    for (let offset = 0; offset <= (node.textContent ?? '').length; offset += 1) positions.push({ node, offset });
  }
  return positions;
}

/** The block of the editor's text a point is in, as its words. */
function editorBlockWords(editor: Editor, point: Point): string {
  const [block] = Editor.above(editor, { at: point, match: (n) => Element.isElement(n) && Editor.isBlock(editor, n) })!;
  return recordWords([block]);
}

/** The words of the editor's text before a point. */
function wordsBefore(editor: Editor, point: Point): string {
  let words = '';
  for (const [text, path] of Node.texts(editor)) {
    if (Path.equals(path, point.path)) return words + text.text.slice(0, point.offset);
    const [voidEntry] = Editor.nodes(editor, { at: path, match: (n) => Element.isElement(n) && Editor.isVoid(editor, n) });
    words += voidEntry ? recordWords([voidEntry[0]]) : text.text;
  }
  throw new Error('no such point');
}

const p = (...children: Descendant[]) => ({ type: 'paragraph', children }) as Descendant;
const mention = () => ({ type: 'mention', targetType: 'thing', targetId: 1, children: [{ text: '' }] }) as unknown as Descendant;

describe('a click on the text shown as read, as a place in its words', () => {
  const value: Descendant[] = [
    { type: 'heading-two', children: [{ text: 'Background' }] },
    p({ text: 'Gundren hired the party. ' }, mention(), { text: ' knows ' }, { text: 'where he is.', bold: true }),
    { type: 'bulleted-list', children: [{ type: 'list-item', children: [{ text: 'list item one' }] }, { type: 'list-item', children: [{ text: 'list item two' }] }] },
    p({ text: 'Plain after.' }),
  ];

  it('lands in the item clicked, at the letter clicked', () => {
    const root = rendered(value);
    const item = [...root.querySelectorAll('li')].find((li) => li.textContent === 'list item two')!.firstChild!;
    const at = landingAt(root, item, 6)!;
    expect(at.words).toBe(recordWords(value));
    const editor = editorOn(value);
    const point = pointAtWords(editor, at);
    expect(Node.string(Node.get(editor, point.path))).toBe('list item two');
    expect(point.offset).toBe(6);
  });

  it('takes the start of a block clicked at its start, and the end of one clicked at its end', () => {
    const root = rendered(value);
    const editor = editorOn(value);
    const [one, two] = [...root.querySelectorAll('li')].map((li) => li.firstChild!);
    const start = pointAtWords(editor, landingAt(root, two!, 0)!);
    expect(Node.string(Node.get(editor, start.path))).toBe('list item two');
    expect(start.offset).toBe(0);
    const end = pointAtWords(editor, landingAt(root, one!, 'list item one'.length)!);
    expect(Node.string(Node.get(editor, end.path))).toBe('list item one');
    expect(end.offset).toBe('list item one'.length);
  });

  it('takes a click inside a mention as before it, or after it past its first letter', () => {
    const root = rendered(value);
    const editor = editorOn(value);
    const name = root.querySelector('.mention')!.firstChild!;
    const before = pointAtWords(editor, landingAt(root, name, 0)!);
    expect(wordsBefore(editor, before)).toBe('BackgroundGundren hired the party. ');
    const after = pointAtWords(editor, landingAt(root, name, 3)!);
    expect(wordsBefore(editor, after)).toBe('BackgroundGundren hired the party. \u0001');
  });

  it('is no place for a node outside the rendering', () => {
    const root = rendered(value);
    expect(landingAt(root, document.createTextNode('elsewhere'), 0)).toBeUndefined();
  });

  it('takes a caret between the children of an element as the start of what follows', () => {
    const root = rendered(value);
    const editor = editorOn(value);
    const list = root.querySelector('ul')!;
    const point = pointAtWords(editor, landingAt(root, list, 1)!);
    expect(Node.string(Node.get(editor, point.path))).toBe('list item two');
    expect(point.offset).toBe(0);
  });

  // Texts of headings, paragraphs and lists (nested too), their words in marked runs and mentions.
  const run = fc.oneof(
    { weight: 4, arbitrary: fc.record({ text: fc.stringMatching(/^[a-c .]{1,8}$/), bold: fc.boolean() }).map(({ text, bold }) => (bold ? { text, bold: true } : { text }) as Descendant) },
    { weight: 1, arbitrary: fc.constant(null).map(mention) },
  );
  const inlines = fc.array(run, { minLength: 1, maxLength: 5 }).map((children) => {
    // As Slate holds them: a text on each side of a mention, and no two texts in a row.
    const out: Descendant[] = [];
    for (const child of children) {
      const last = out.at(-1);
      if (Element.isElement(child)) {
        if (!last || Element.isElement(last)) out.push({ text: '' });
        out.push(child, { text: '' });
      } else if (last && !Element.isElement(last) && last.text === '') out[out.length - 1] = child;
      else if (last && !Element.isElement(last) && Boolean((last as { bold?: boolean }).bold) === Boolean((child as { bold?: boolean }).bold)) out[out.length - 1] = { ...last, text: last.text + (child as { text: string }).text };
      else out.push(child);
    }
    return out;
  });
  const block = fc.oneof(
    inlines.map((children) => ({ type: 'paragraph', children })),
    inlines.map((children) => ({ type: 'heading-two', children })),
    fc.array(inlines, { minLength: 1, maxLength: 3 }).map((items) => ({ type: 'bulleted-list', children: items.map((children) => ({ type: 'list-item', children })) })),
    // An item with a list under its words (Tab in the editor, or an import).
    fc.tuple(inlines, fc.array(inlines, { minLength: 1, maxLength: 2 }), inlines).map(([words, under, after]) => ({
      type: 'bulleted-list',
      children: [
        { type: 'list-item', children: [{ type: 'paragraph', children: words }, { type: 'bulleted-list', children: under.map((children) => ({ type: 'list-item', children })) }] },
        { type: 'list-item', children: after },
      ],
    })),
  );

  it('maps every caret position of the rendering to the point with the same words before it, in the same block', () => {
    fc.assert(
      fc.property(fc.array(block, { minLength: 1, maxLength: 5 }), (value) => {
        const root = rendered(value);
        const editor = editorOn(value);
        expect(renderedWords(root)).toBe(recordWords(value));
        for (const { node, offset } of caretPositions(root)) {
          const at = landingAt(root, node, offset)!;
          const point = pointAtWords(editor, at);
          expect(wordsBefore(editor, point)).toBe(at.words.slice(0, at.offset));
          const domBlock = node.parentElement!.closest('p, li, h1, h2, h3, h4, h5, h6')!;
          // An item's words are lines of their own (a tight list): its block is them, not the list under them.
          const own = domBlock.cloneNode(true) as HTMLElement;
          for (const under of own.querySelectorAll(':scope > ul, :scope > ol')) under.remove();
          expect(editorBlockWords(editor, point)).toBe(renderedWords(own));
        }
      }),
      { numRuns: 300 },
    );
  });
});
