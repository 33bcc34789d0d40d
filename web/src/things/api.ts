// The things' and thing types' reads (every key under the campaign's, campaigns/api.ts).
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { campaignKey } from '../campaigns/api';

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
