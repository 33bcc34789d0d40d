// The campaign's tags as tag fields offer them and a type's page filters by them (GET …/tags; key under the campaign's).
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import { campaignKey } from '../../campaigns/api';

export function useCampaignTags(campaignSlug: string, enabled = true) {
  return useQuery({
    queryKey: [...campaignKey(campaignSlug), 'tags'],
    enabled,
    queryFn: () => call(api.GET('/api/campaigns/{campaignSlug}/tags', { params: { path: { campaignSlug } } })),
  });
}
