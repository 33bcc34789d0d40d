// @vitest-environment jsdom
// The mention picker's list as the search route answers it: a record found by an alias is offered
// by its name, with the alias that matched, and picking it inserts the record under its name.
// (Finding by alias is the server's: test/integration/search-structure.test.ts.)
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SearchResults } from '../api/client';
import { MentionPicker, type MentionTarget } from './mention-picker';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let container: HTMLDivElement;
let root: Root;

beforeEach(() => {
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  // jsdom lays nothing out: cmdk watches the list's size and scrolls the highlighted option into view.
  if (!('scrollIntoView' in Element.prototype)) Object.assign(Element.prototype, { scrollIntoView() {} });
  globalThis.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  };
});
afterEach(() => {
  act(() => root.unmount());
  container.remove();
});

const ANSWER: SearchResults = {
  results: [
    { type: 'thing', id: 7, slug: 'yusdrayl', name: 'Yusdrayl', alias: 'The Kobold Queen', excerpt: '', highlights: ['Kobold', 'Queen'], score: 2.9 },
    { type: 'thing', id: 8, slug: 'meepo', name: 'Meepo', excerpt: 'Serves the kobold queen.', highlights: ['kobold', 'queen'], score: 1.9 },
  ],
};

describe('the mention picker', () => {
  it('offers a record found by an alias under its name, with the alias, and picks it by its name', async () => {
    // The search route's answer for what was typed, already in the cache: no request is made.
    const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
    client.setQueryData(['campaign', 'c', 'search-list', '', 'kobold queen'], ANSWER);
    const picked: (MentionTarget | undefined)[] = [];
    act(() =>
      root.render(
        <QueryClientProvider client={client}>
          <MentionPicker campaignSlug="c" takeTyped={() => 'kobold queen'} onPick={(target) => picked.push(target)} />
        </QueryClientProvider>,
      ),
    );
    const options = async () => {
      let found: Element[] = [];
      await vi.waitFor(() => {
        found = [...document.querySelectorAll('[role="option"]')];
        expect(found.length).toBe(2);
      });
      return found;
    };
    const [queen, meepo] = await options();
    expect(queen!.textContent).toBe('Yusdrayl “The Kobold Queen” (thing)');
    expect(meepo!.textContent).toBe('Meepo (thing)');
    act(() => (queen as HTMLElement).click());
    expect(picked).toEqual([{ targetType: 'thing', targetId: 7, name: 'Yusdrayl' }]);
  });
});
