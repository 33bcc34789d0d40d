// The things' and thing types' reads (every key under the campaign's, campaigns/api.ts).
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { campaignKey, useCampaignWrite } from '../campaigns/api';

export function useThingTypes(slug: string) {
  return useQuery({ queryKey: [...campaignKey(slug), 'types'], queryFn: () => call(api.GET('/api/campaigns/{campaignSlug}/thing-types', { params: { path: { campaignSlug: slug } } })) });
}

/** Up to 1000 things (`fetchAll`): only where every name is needed (mentions' names in an editor); `enabled` false reads nothing. */
export function useAllThings(slug: string, enabled = true) {
  return useQuery({
    queryKey: [...campaignKey(slug), 'things', 'all'],
    enabled,
    queryFn: () => call(api.GET('/api/campaigns/{campaignSlug}/things', { params: { path: { campaignSlug: slug }, query: { fetchAll: 'true' } } })),
  });
}

/** Creates a thing (of a type of the campaign, with the campaign's default visibility); answers it. */
export function useCreateThing(slug: string) {
  return useCampaignWrite(slug, (newThing: { name: string; typeId: number }) =>
    call(api.POST('/api/campaigns/{campaignSlug}/things', { params: { path: { campaignSlug: slug } }, body: { newThing } })),
  );
}
