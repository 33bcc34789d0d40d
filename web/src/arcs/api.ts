// The arcs' reads (every key under the campaign's, campaigns/api.ts).
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { campaignKey } from '../campaigns/api';

export function useArcs(slug: string) {
  return useQuery({ queryKey: [...campaignKey(slug), 'arcs'], queryFn: () => call(api.GET('/api/campaigns/{campaignSlug}/arcs', { params: { path: { campaignSlug: slug } } })) });
}
