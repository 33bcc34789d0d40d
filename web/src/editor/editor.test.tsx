// @vitest-environment jsdom
// The editor component itself, rendered by React into a DOM (jsdom): every element and mark of the
// vocabulary shows as it should, unknown elements show their text, and the toolbar names every
// control. (Typing is driven in Chromium by the browser journeys: jsdom has no editing.)
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act } from 'react';
import { createEditor, Editor, Text, Transforms, type Descendant } from 'slate';
import { withHistory } from 'slate-history';
import { withReact } from 'slate-react';
import { walkWithSecrecy } from '../../../src/vocabulary/index.js';
import { withLoreforge } from './commands';
import { describe, expect, it } from 'vitest';
import { RichTextEditor } from './editor';
import { arcsKey } from '../arcs/api';
import { allThingsKey } from '../things/api';
import { rootPerTest } from '../ui/test-root';

const t = (text: string, marks: Record<string, boolean> = {}) => ({ text, ...marks });
const cell = (text: string) => ({ type: 'table-cell', children: [t(text)] });
const EVERYTHING = [
  { type: 'heading-one', children: [t('One')] },
  { type: 'heading-two', children: [t('Two')] },
  { type: 'heading-three', children: [t('Three')] },
  { type: 'heading-four', children: [t('Four')] },
  { type: 'heading-five', children: [t('Five')] },
  { type: 'heading-six', children: [t('Six')] },
  { type: 'paragraph', children: [t('plain '), t('bold', { bold: true }), t('italic', { italic: true }), t('under', { underline: true }), t('code', { code: true }), t('struck', { strikethrough: true })] },
  { type: 'paragraph', children: [t('a '), { type: 'link', url: 'https://example.test/', children: [t('link')] }, t(' and '), { type: 'mention', targetType: 'thing', targetId: 3, children: [t('Bob')] }, t('')] },
  { type: 'block-quote', children: [t('quoted')] },
  { type: 'bulleted-list', children: [{ type: 'list-item', children: [t('one')] }] },
  { type: 'numbered-list', children: [{ type: 'list-item', children: [t('first')] }] },
  { type: 'code-block', children: [t('let x = 1;')] },
  { type: 'divider', children: [t('')] },
  { type: 'image', url: 'https://example.test/map.png', alt: 'A map', caption: 'The old map', children: [t('')] },
  { type: 'table', children: [{ type: 'table-row', children: [cell('Name'), cell('Role')] }] },
  { type: 'paragraph', isSecret: true, children: [t('for the GM')] },
  { type: 'admonition', icon: 'skull', children: [t('a client’s own')] },
  { type: 'callout', kind: 'warning', title: 'The bridge is out', children: [{ type: 'paragraph', children: [t('Take the '), t('ford', { highlight: true })] }] },
  { type: 'bulleted-list', children: [{ type: 'list-item', checked: false, children: [t('Buy rope')] }, { type: 'list-item', checked: true, children: [t('Find the map')] }] },
] as unknown as Descendant[];

const dom = rootPerTest();

function render(value: Descendant[], client = new QueryClient()) {
  act(() =>
    dom.root.render(
      <QueryClientProvider client={client}>
        <RichTextEditor label="Description" campaignSlug="c" canUpload={false} initialValue={value} onChange={() => {}} />
      </QueryClientProvider>,
    ),
  );
  return dom.container.querySelector<HTMLElement>('[data-slate-editor]')!;
}

describe('the editor component', () => {
  it('shows every element and mark of the vocabulary', () => {
    const editable = render(EVERYTHING);
    expect(editable.getAttribute('aria-label')).toBe('Description');
    for (const [selector, text] of [
      ['h1', 'One'],
      ['h2', 'Two'],
      ['h3', 'Three'],
      ['h4', 'Four'],
      ['h5', 'Five'],
      ['h6', 'Six'],
      ['strong', 'bold'],
      ['em', 'italic'],
      ['u', 'under'],
      ['p code', 'code'],
      ['s', 'struck'],
      ['a[href="https://example.test/"]', 'link'],
      ['blockquote', 'quoted'],
      ['ul > li', 'one'],
      ['ol > li', 'first'],
      ['pre code', 'let x = 1;'],
      ['figcaption', 'The old map'],
      ['table td', 'Name'],
      ['.secret-block p', 'for the GM'],
      ['aside.callout[data-type="warning"] p', 'Take the'],
      ['aside.callout mark', 'ford'],
      ['li.task', 'Buy rope'],
      ['li.task.done', 'Find the map'],
    ] as const) {
      const element = editable.querySelector(selector);
      expect(element, selector).not.toBeNull();
      expect(element!.textContent, selector).toContain(text);
    }
    expect(editable.querySelector('hr')).not.toBeNull();
    expect(editable.querySelector('img')!.getAttribute('alt')).toBe('A map');
    const mention = editable.querySelector('.mention')!;
    // (Slate puts a zero-width character in every void element for the caret.)
    expect([mention.getAttribute('data-type'), mention.getAttribute('data-id'), mention.textContent?.replace(/\uFEFF/g, '')]).toEqual(['thing', '3', '@Bob']);
    expect(editable.querySelector('.secret-badge')!.textContent).toBe('GM only');
    expect(editable.textContent).toContain('a client’s own');
    // The callout's title is a named field; a task's state is a named checkbox.
    const title = editable.querySelector<HTMLInputElement>('aside.callout input')!;
    expect([title.getAttribute('aria-label'), title.value]).toEqual(['Title of the warning callout', 'The bridge is out']);
    const boxes = [...editable.querySelectorAll<HTMLInputElement>('li.task input[type="checkbox"]')].map((box) => [box.getAttribute('aria-label'), box.checked]);
    expect(boxes).toEqual([
      ['Done: Buy rope', false],
      ['Done: Find the map', true],
    ]);
  });

  it('ticks a task by its checkbox and sets a callout’s title by its field', async () => {
    let value: unknown;
    act(() =>
      dom.root.render(
        <QueryClientProvider client={new QueryClient()}>
          <RichTextEditor
            label="Description"
            campaignSlug="c"
            canUpload={false}
            initialValue={[
              { type: 'bulleted-list', children: [{ type: 'list-item', checked: false, children: [t('Buy rope')] }] },
              { type: 'callout', kind: 'note', children: [{ type: 'paragraph', children: [t('x')] }] },
            ] as Descendant[]}
            onChange={(next) => (value = next)}
          />
        </QueryClientProvider>,
      ),
    );
    // Slate tells of a change after the operations' microtask: awaited acts let it run.
    await act(() => {
      dom.container.querySelector<HTMLInputElement>('li.task input[type="checkbox"]')!.click();
      return Promise.resolve();
    });
    const input = dom.container.querySelector<HTMLInputElement>('aside.callout input')!;
    await act(() => {
      // React listens for the native input event; set the value as a browser would.
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(input, 'Read aloud');
      input.dispatchEvent(new Event('input', { bubbles: true }));
      return Promise.resolve();
    });
    expect(value).toEqual([
      { type: 'bulleted-list', children: [{ type: 'list-item', checked: true, children: [t('Buy rope')] }] },
      { type: 'callout', kind: 'note', title: 'Read aloud', children: [{ type: 'paragraph', children: [t('x')] }] },
    ]);
  });

  it('names every toolbar control', () => {
    render(EVERYTHING);
    const toolbar = dom.container.querySelector('[role="toolbar"]')!;
    expect(toolbar.getAttribute('aria-label')).toBe('Description: formatting');
    const names = [...toolbar.querySelectorAll('button')].map((b) => b.getAttribute('aria-label'));
    expect(names).toEqual([
      'Bold (Ctrl+B)',
      'Italic (Ctrl+I)',
      'Underline (Ctrl+U)',
      'Strikethrough (Ctrl+Shift+X)',
      'Code (Ctrl+`)',
      'Highlight (Ctrl+Shift+H)',
      'Heading 1',
      'Heading 2',
      'Heading 3',
      'Quote',
      'Bulleted list',
      'Numbered list',
      'Task list (Ctrl+Enter ticks a task)',
      'Code block',
      'Callout',
      'Divider',
      'Table',
      'Link (Ctrl+K)',
      'Image',
      'Mention a thing or an arc (@)',
      'GM only (hidden from players)',
    ]);
  });

  it('shows the "GM only" band on a secret element wherever it sits', () => {
    const editable = render([
      { type: 'bulleted-list', children: [{ type: 'list-item', children: [t('open')] }, { type: 'list-item', isSecret: true, children: [t('hidden item')] }] },
      { type: 'table', children: [{ type: 'table-row', children: [cell('a'), { type: 'table-cell', isSecret: true, children: [t('hidden cell')] }] }] },
      { type: 'block-quote', children: [{ type: 'paragraph', isSecret: true, children: [t('hidden quote')] }] },
    ]);
    const secrets = [...editable.querySelectorAll('[data-secret="true"]')].map((e) => e.textContent?.replace(/\uFEFF/g, ''));
    expect(secrets).toEqual(['GM onlyhidden item', 'GM onlyhidden cell', 'GM onlyhidden quote']);
  });

  it('shows a mention’s current name (it stores none), its own label, or that its target is missing', () => {
    const client = new QueryClient();
    client.setQueryData(allThingsKey('c'), [{ id: 3, name: 'Nezznar' }]);
    client.setQueryData(arcsKey('c'), [{ id: 4, name: 'The Mine' }]);
    const mention = (targetType: string, targetId: number, label = '') => ({ type: 'mention', targetType, targetId, children: [t(label)] });
    const editable = render([{ type: 'paragraph', children: [t(''), mention('thing', 3), t(' '), mention('arc', 4), t(' '), mention('thing', 3, 'the spider'), t(' '), mention('thing', 99), t('')] }] as unknown as Descendant[], client);
    const shown = [...editable.querySelectorAll('.mention')].map((e) => e.textContent?.replace(/\uFEFF/g, ''));
    expect(shown).toEqual(['@Nezznar', '@The Mine', '@the spider', '@(missing)']);
  });

  it('keeps secret words pasted from the clipboard secret (insertData, as a paste in the browser)', () => {
    // The editor as the component builds it, clipboard included (slate-dom's insertData).
    const editor = withLoreforge(withHistory(withReact(createEditor())));
    editor.children = [
      { type: 'bulleted-list', isSecret: true, children: [{ type: 'list-item', children: [t('one')] }, { type: 'list-item', children: [t('two')] }] },
      { type: 'paragraph', children: [t('open')] },
    ];
    Transforms.select(editor, { anchor: Editor.start(editor, [0]), focus: Editor.end(editor, [0]) });
    const encoded = window.btoa(encodeURIComponent(JSON.stringify(editor.getFragment())));
    Transforms.select(editor, Editor.end(editor, [1]));
    editor.insertData({ getData: (format: string) => (format === 'application/x-slate-fragment' ? encoded : '') } as unknown as DataTransfer);
    const visible: string[] = [];
    walkWithSecrecy(editor.children, (node, secret) => {
      if (Text.isText(node) && !secret && node.text !== '') visible.push(node.text);
    });
    expect(visible).toEqual([]);
    expect(Editor.string(editor, [])).toContain('one');
  });
});
