// @vitest-environment jsdom
// The mention picker on a Slate editor whose text holds what was typed after `@` (the caret stays
// in the text): its list is the search route's answer (a record found by an alias shows its name
// and the alias), the highlight stays on the record it is on when the list refreshes, Enter inserts
// exactly that record in place of the trigger and the query, Escape leaves the text, and "Create"
// is offered when no name matches exactly. (Finding by alias is the server's:
// test/integration/search-structure.test.ts; typing in Chromium: test/e2e/editor-commands.test.ts.)
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createRef, type KeyboardEvent } from 'react';
import { createEditor, Editor, Transforms, type Descendant } from 'slate';
import { withHistory } from 'slate-history';
import { Editable, Slate, withReact } from 'slate-react';
import { describe, expect, it, vi } from 'vitest';
import type { SearchResults } from '../api/client';
import { searchMatchesQuery } from '../search/api';
import { withLoreforge } from './commands';
import { MentionPicker, type MentionPickerHandle, type MentionTarget } from './mention-picker';
import { rootPerTest } from '../ui/test-root';

// jsdom lays nothing out: a range has no box of its own (in a browser the picker is placed by it, at the caret).
if (!('getBoundingClientRect' in Range.prototype)) Object.assign(Range.prototype, { getBoundingClientRect: () => ({ x: 0, y: 0, top: 0, left: 0, bottom: 0, right: 0, width: 0, height: 0, toJSON: () => ({}) }) });

const dom = rootPerTest();

const YUSDRAYL = { type: 'thing' as const, id: 7, slug: 'yusdrayl', name: 'Yusdrayl', alias: 'The Kobold Queen', excerpt: '', highlights: ['Kobold', 'Queen'], score: 2.9 };
const MEEPO = { type: 'thing' as const, id: 8, slug: 'meepo', name: 'Meepo', excerpt: 'Serves the kobold queen.', highlights: ['kobold', 'queen'], score: 1.9 };
const answer = (...results: SearchResults['results']): SearchResults => ({ results });

/** An editor holding "Meet @<typed>" with the caret at its end, and the picker opened at the `@`. */
function setUp(typed: string, { secret = false, recordGmOnly = false, defaultVisibility = 'all', client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } }) } = {}) {
  client.setQueryData(['campaign', 'c', 'types'], [{ id: 1, name: 'NPC' }, { id: 2, name: 'Place' }]);
  client.setQueryData(['campaign', 'c', 'record'], { data: { slug: 'c', name: 'C', defaultVisibility }, etag: '"1"' });
  const editor = withLoreforge(withHistory(withReact(createEditor())));
  const initialValue: Descendant[] = [{ type: 'paragraph', ...(secret ? { isSecret: true } : {}), children: [{ text: `Meet @${typed}` }] }];
  const handle = createRef<MentionPickerHandle>();
  const picked: MentionTarget[] = [];
  const onClose = vi.fn();
  act(() =>
    dom.root.render(
      <QueryClientProvider client={client}>
        <Slate editor={editor} initialValue={initialValue}>
          <Editable aria-label="Description" />
          <MentionPicker ref={handle} campaignSlug="c" recordGmOnly={recordGmOnly} open={{ trigger: '@', at: Editor.pointRef(editor, { path: [0, 0], offset: 5 }) }} onPicked={(t) => picked.push(t)} onClose={onClose} />
        </Slate>
      </QueryClientProvider>,
    ),
  );
  act(() => Transforms.select(editor, Editor.end(editor, [])));
  const key = (name: string, modifiers: { altKey?: boolean; code?: string } = {}) => {
    const event = { key: name, altKey: false, ...modifiers, ctrlKey: false, metaKey: false, shiftKey: false, preventDefault: vi.fn(), stopPropagation: vi.fn() };
    let taken = false;
    act(() => {
      taken = handle.current!.keyDown(event as unknown as KeyboardEvent);
    });
    return taken;
  };
  return { client, editor, key, picked, onClose };
}

const options = () => [...document.querySelectorAll('[role="option"]')].map((o) => `${o.textContent}${o.getAttribute('aria-selected') === 'true' ? ' *' : ''}`);

describe('the mention picker at the caret', () => {
  it('lists records found by name or alias, keeps the highlight on its record through a refresh, and inserts it in place of what was typed', async () => {
    const { client, editor, key, picked } = setUp('kobold queen');
    act(() => {
      client.setQueryData(searchMatchesQuery('c', 'kobold queen').queryKey, answer(YUSDRAYL, MEEPO));
    });
    await vi.waitFor(() => expect(options()).toEqual(['Yusdrayl alias: The Kobold Queen *', 'Meepo thing', 'Create “kobold queen”…']));
    // The editing area names the highlighted option (the caret stays in the text).
    const editable = dom.container.querySelector('[data-slate-editor]')!;
    expect(editable.getAttribute('aria-activedescendant')).toBe(document.querySelector('[aria-selected="true"]')!.id);
    expect(key('ArrowDown')).toBe(true);
    expect(options()[1]).toBe('Meepo thing *');
    // The list refreshes in another order: the highlight stays on Meepo.
    act(() => {
      client.setQueryData(searchMatchesQuery('c', 'kobold queen').queryKey, answer(MEEPO, YUSDRAYL));
    });
    await vi.waitFor(() => expect(options()).toEqual(['Meepo thing *', 'Yusdrayl alias: The Kobold Queen', 'Create “kobold queen”…']));
    expect(key('Enter')).toBe(true);
    expect(picked).toEqual([{ targetType: 'thing', targetId: 8, name: 'Meepo', slug: 'meepo' }]);
    expect(editor.children).toEqual([{ type: 'paragraph', children: [{ text: 'Meet ' }, { type: 'mention', targetType: 'thing', targetId: 8, children: [{ text: '' }] }, { text: ' ' }] }]);
  });

  it('takes Enter pressed while the list for what was typed is still being found once that list is in; typing on instead picks nothing', async () => {
    // The answers are asked for before the picker opens, so they are still on their way when Enter is pressed.
    const held = (client: QueryClient, q: string) => {
      let answerWith!: (results: SearchResults) => void;
      void client.prefetchQuery({ queryKey: searchMatchesQuery('c', q).queryKey, queryFn: () => new Promise<SearchResults>((resolve) => (answerWith = resolve)) });
      return (results: SearchResults) => act(() => Promise.resolve(answerWith(results)));
    };
    const clientOf = (typed: string) => {
      const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
      return { client, answer: held(client, typed) };
    };

    const first = clientOf('mee');
    const { editor, key, picked } = setUp('mee', { client: first.client });
    // Only "Create" is offered while the list is being found, and Enter does not take it.
    await act(async () => {});
    await vi.waitFor(() => expect(options()).toEqual(['Create “mee”… *']));
    expect(document.querySelector('[role="listbox"]')!.getAttribute('aria-busy')).toBe('true');
    expect(key('Enter')).toBe(true);
    expect(picked).toEqual([]);
    expect(Editor.string(editor, [])).toBe('Meet @mee');
    await first.answer(answer(MEEPO));
    await vi.waitFor(() => expect(picked).toEqual([{ targetType: 'thing', targetId: 8, name: 'Meepo', slug: 'meepo' }]));
    expect(editor.children).toEqual([{ type: 'paragraph', children: [{ text: 'Meet ' }, { type: 'mention', targetType: 'thing', targetId: 8, children: [{ text: '' }] }, { text: ' ' }] }]);
    dom.remount();

    const second = clientOf('mee');
    const typingOn = setUp('mee', { client: second.client });
    await act(async () => {});
    await vi.waitFor(() => expect(options()).toEqual(['Create “mee”… *']));
    expect(typingOn.key('Enter')).toBe(true);
    act(() => typingOn.editor.insertText('p'));
    await second.answer(answer(MEEPO));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(typingOn.picked).toEqual([]);
    expect(Editor.string(typingOn.editor, [])).toBe('Meet @meep');
  });

  it('offers to create what was typed, with a choice of type, when no name matches exactly', async () => {
    const { client, key } = setUp('Sildar');
    act(() => {
      client.setQueryData(searchMatchesQuery('c', 'Sildar').queryKey, answer());
    });
    await vi.waitFor(() => expect(document.body.textContent).toContain('Nothing matches “Sildar”.'));
    expect(options()).toEqual(['Create “Sildar”… *']);
    key('Enter');
    expect(options()).toEqual(['NPC *', 'Place']);
    key('ArrowDown');
    expect(options()).toEqual(['NPC', 'Place *']);
    // Escape goes back to the list, not out of the text.
    key('Escape');
    expect(options()).toEqual(['Create “Sildar”… *']);
  });

  it('is not offered to create a name that exists; Escape closes and leaves the text as typed', async () => {
    const { client, editor, key, onClose, picked } = setUp('meepo');
    act(() => {
      client.setQueryData(searchMatchesQuery('c', 'meepo').queryKey, answer(MEEPO));
    });
    await vi.waitFor(() => expect(options()).toEqual(['Meepo thing *']));
    expect(key('Escape')).toBe(true);
    expect(onClose).toHaveBeenCalled();
    expect(picked).toEqual([]);
    expect(Editor.string(editor, [])).toBe('Meet @meepo');
    // Other keys are the text's.
    expect(key('a')).toBe(false);
  });

  const gmOnlyBox = () => document.querySelector<HTMLInputElement>('.mention-visibility input[type="checkbox"]');
  const createFor = async (client: QueryClient, key: (name: string) => boolean) => {
    act(() => {
      client.setQueryData(searchMatchesQuery('c', 'Traitor Sildar').queryKey, answer());
    });
    await vi.waitFor(() => expect(document.body.textContent).toContain('Nothing matches “Traitor Sildar”.'));
    expect(options()).toEqual(['Create “Traitor Sildar”… *']);
    expect(gmOnlyBox()).toBeNull();
    key('Enter');
    expect(options()).toEqual(['NPC *', 'Place']);
  };

  it('creates GM-only from inside a secret block, and the GM can change it (click or Alt+G)', async () => {
    const { client, key } = setUp('Traitor Sildar', { secret: true });
    await createFor(client, key);
    expect(gmOnlyBox()!.checked).toBe(true);
    expect(key('©', { altKey: true, code: 'KeyG' })).toBe(true);
    expect(gmOnlyBox()!.checked).toBe(false);
    expect(document.body.textContent).toContain('players will see the name');
    act(() => gmOnlyBox()!.click());
    expect(gmOnlyBox()!.checked).toBe(true);
  });

  it('creates GM-only on a GM-only record or in a campaign whose things are GM-only by default, and for everyone otherwise', async () => {
    for (const [options, expected] of [
      [{ recordGmOnly: true }, true],
      [{ defaultVisibility: 'gm' }, true],
      [{}, false],
    ] as const) {
      const { client, key } = setUp('Traitor Sildar', options);
      await createFor(client, key);
      expect(gmOnlyBox()!.checked).toBe(expected);
      dom.remount();
    }
  });
});
