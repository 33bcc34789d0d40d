// @vitest-environment jsdom
// The campaign's frame reads the campaign in the view on screen (campaigns/api.ts useCampaign): in
// the player view, never under the game master's key, where the game master's editing state of the
// description puts a save's answer (role and all) when that save is answered after the switch.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { rootPerTest } from '../ui/test-root';
import { playerViewCampaign, setPlayerView } from '../api/view';
import { recordState } from '../records/record-state';
import { recordKey, useCampaign } from './api';

const dom = rootPerTest();
afterEach(() => setPlayerView('lost-mine', false));

type Campaign = { id: number; slug: string; name: string; role: string };
const answer = (role: string, version: number) => ({ data: { id: 3, slug: 'lost-mine', name: 'Lost Mine', role }, etag: `"3-${version}-${role}"` });

function Role() {
  const campaign = useCampaign('lost-mine');
  return <p>{campaign.data ? (campaign.data.data as Campaign).role : 'loading'}</p>;
}

describe('the campaign in the player view', () => {
  it('stays the player’s when the game master’s description save is answered after the switch', async () => {
    const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
    // A read answers as the view on screen asks (api/view.ts sends the header).
    const load = () => Promise.resolve(playerViewCampaign() === 'lost-mine' ? answer('player', 1) : answer('owner', 1));
    // The game master's editing state of the description, with a save on its way.
    const gm = recordState<Campaign, { description: unknown }>(recordKey('lost-mine', 'campaign'), 'lost-mine.campaign', { load, save: vi.fn() }, client);
    // Switched to the player view (what was read before is gone: access.tsx usePlayerView).
    setPlayerView('lost-mine', true);
    client.setQueryData(recordKey('lost-mine', 'campaign', '', true), answer('player', 1));
    act(() =>
      dom.root.render(
        <QueryClientProvider client={client}>
          <Role />
        </QueryClientProvider>,
      ),
    );
    await vi.waitFor(
      async () => {
        await act(() => new Promise((resolve) => setTimeout(resolve, 0)));
        expect(dom.container.textContent).toBe('player');
      },
      { timeout: 5_000 },
    );
    // The save's answer arrives now.
    await act(async () => {
      gm.acknowledge(answer('owner', 2));
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
    expect(dom.container.textContent).toBe('player');
  });
});
