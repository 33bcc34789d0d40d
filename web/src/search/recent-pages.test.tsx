// @vitest-environment jsdom
// The quick switcher remembers the record page open now from the record's own query, which the page
// keeps reading: remembering must never take that query's function away (it once did, and a thing
// linked on an arc's page never showed there: every later read of the arc failed unsent).
import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';
import { act, useState } from 'react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { rootPerTest } from '../ui/test-root';
import { meQuery } from '../account/api';
import { recordKey } from '../campaigns/api';
import { CampaignAccessProvider } from '../campaigns/access';
import { RememberVisits } from './recent-pages';
import { recentPages, recentPagesKey } from './recent';

const dom = rootPerTest();
afterEach(() => localStorage.clear());

/**
 * Until `check` passes (at most 5 s): the query's answers reach React in a batch of their own
 * (TanStack's notifyManager, a timer), so each try lets timers run inside act() first.
 */
async function eventually(check: () => void): Promise<void> {
  await vi.waitFor(
    async () => {
      await act(() => new Promise((resolve) => setTimeout(resolve, 0)));
      check();
    },
    { timeout: 5_000 },
  );
}

function setUp({ player = false } = {}) {
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  client.setQueryData(meQuery.queryKey, { id: 'u1' } as never);
  client.setQueryData(['campaign', 'c', 'types'], []);
  let name = 'The Arc';
  const load = vi.fn(() => Promise.resolve({ data: { id: 7, slug: 'the-arc', name, visibility: 'all' }, etag: '"7-1"' }));
  let rerender: () => void = () => undefined;
  function Page() {
    // The page's key in the view on screen (records/record-editing.tsx).
    const query = useQuery({ queryKey: recordKey('c', 'arc', 'the-arc', player), queryFn: load });
    return <h1>{query.data?.data.name ?? 'Loading'}</h1>;
  }
  // The frame re-renders on its own (a route change, the signed-in user arriving): the switcher's
  // part renders after the page then.
  function Frame() {
    const [, setCount] = useState(0);
    rerender = () => setCount((n) => n + 1);
    return <RememberVisits campaignSlug="c" />;
  }
  act(() =>
    dom.root.render(
      <QueryClientProvider client={client}>
        <MemoryRouter initialEntries={['/campaigns/c/arcs/the-arc']}>
          <CampaignAccessProvider role={player ? 'player' : 'owner'} viewingAsPlayer={player} setViewingAsPlayer={() => undefined}>
            <Page />
            <Frame />
          </CampaignAccessProvider>
        </MemoryRouter>
      </QueryClientProvider>,
    ),
  );
  return { client, load, rename: (next: string) => (name = next), rerender: () => act(() => rerender()) };
}

describe('remembering the record page open now', () => {
  it('remembers it once its record has loaded', async () => {
    setUp();
    await eventually(() => expect(recentPages(localStorage, recentPagesKey('u1', 'c'))).toEqual([{ kind: 'arc', id: 7, slug: 'the-arc', name: 'The Arc', visibility: 'all' }]));
  });

  it('remembers it in the player view too, from the page’s own query there', async () => {
    setUp({ player: true });
    await eventually(() => expect(recentPages(localStorage, recentPagesKey('u1', 'c')).map((p) => p.slug)).toEqual(['the-arc']));
  });

  it('leaves the record’s query able to read it again: a refetch after a write reads it and shows the answer', async () => {
    const { client, load, rename, rerender } = setUp();
    await eventually(() => expect(dom.container.querySelector('h1')?.textContent).toBe('The Arc'));
    rerender();
    rename('The Arc, linked');
    await act(() => client.invalidateQueries({ queryKey: ['campaign', 'c'] }));
    expect(load).toHaveBeenCalledTimes(2);
    const state = client.getQueryState(recordKey('c', 'arc', 'the-arc'));
    expect(state?.status).toBe('success');
    // And what it remembers follows the answer.
    await eventually(() => {
      expect(dom.container.querySelector('h1')?.textContent).toBe('The Arc, linked');
      expect(recentPages(localStorage, recentPagesKey('u1', 'c'))[0]?.name).toBe('The Arc, linked');
    });
  });
});
