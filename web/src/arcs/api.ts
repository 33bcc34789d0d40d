// The arcs' reads and writes (every key under the campaign's, campaigns/api.ts).
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client';
import type { components } from '../api/schema';
import { campaignKey, useCampaignWrite } from '../campaigns/api';

/** An arc as navigation lists it (`things=none`): every field but its linked things. */
export type ArcWithoutThings = components['schemas']['ArcWithoutThings'];

/** Every arc the caller may see, without their linked things (the tree, names for mentions and history). */
export function useArcs(slug: string) {
  return useQuery({
    queryKey: [...campaignKey(slug), 'arcs', 'without-things'],
    queryFn: async () => (await call(api.GET('/api/campaigns/{campaignSlug}/arcs', { params: { path: { campaignSlug: slug }, query: { things: 'none' } } }))) as ArcWithoutThings[],
  });
}

export function useCreateArc(slug: string) {
  return useCampaignWrite(slug, (newArc: { name: string; visibility: 'all' | 'gm' }) => call(api.POST('/api/campaigns/{campaignSlug}/arcs', { params: { path: { campaignSlug: slug } }, body: { newArc } })));
}

/** Links a thing to an arc (the arc's "Add a thing", a thing's "Add to an arc"); run it as a campaign write (records/actions.tsx's `act`). */
export const linkThingToArc = (slug: string, thingSlug: string, arcSlug: string) =>
  call(api.POST('/api/campaigns/{campaignSlug}/things/{thingSlug}/arcs', { params: { path: { campaignSlug: slug, thingSlug } }, body: { arcSlug } }));
