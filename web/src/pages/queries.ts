// The campaign's data as the app reads it: every key starts with ['campaign', slug], so one
// invalidation after a write refreshes everything that write may have changed (names in the
// sidebar, renderings of records that mention the changed one, backlinks).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { api, call, callWithEtag } from '../api/client';
import { fetchRecord } from '../records/record-state';

export function useCampaignSlug(): string {
  return useParams().campaignSlug!;
}

export const campaignKey = (slug: string) => ['campaign', slug] as const;

/** Reads the campaign with its ETag. */
export const loadCampaign = (slug: string) => callWithEtag(api.GET('/api/campaigns/{campaignSlug}', { params: { path: { campaignSlug: slug } } }));

/** The campaign as the server last acknowledged it: the same query (and editing state) as its description's editor. */
export function useCampaign(slug: string) {
  const queryKey = [...campaignKey(slug), 'record'] as const;
  return useQuery({ queryKey, queryFn: () => fetchRecord(queryKey, () => loadCampaign(slug)) });
}

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

export function useArcs(slug: string) {
  return useQuery({ queryKey: [...campaignKey(slug), 'arcs'], queryFn: () => call(api.GET('/api/campaigns/{campaignSlug}/arcs', { params: { path: { campaignSlug: slug } } })) });
}

export function useRendered(slug: string, kind: 'things' | 'arcs' | 'campaign', recordSlug?: string) {
  return useQuery({
    queryKey: [...campaignKey(slug), 'rendered', kind, recordSlug ?? ''],
    queryFn: async (): Promise<Record<string, string>> => {
      if (kind === 'campaign') return (await call(api.GET('/api/campaigns/{campaignSlug}/rendered', { params: { path: { campaignSlug: slug } } }))).fields;
      // A thing's and an arc's properties come rendered too (links with their target's current name), under `properties`.
      if (kind === 'things') {
        const answer = await call(api.GET('/api/campaigns/{campaignSlug}/things/{thingSlug}/rendered', { params: { path: { campaignSlug: slug, thingSlug: recordSlug! } } }));
        return { ...answer.fields, properties: answer.properties };
      }
      const answer = await call(api.GET('/api/campaigns/{campaignSlug}/arcs/{arcSlug}/rendered', { params: { path: { campaignSlug: slug, arcSlug: recordSlug! } } }));
      return { ...answer.fields, properties: answer.properties };
    },
  });
}

export function useBacklinks(slug: string, kind: 'things' | 'arcs', recordSlug: string) {
  return useQuery({
    queryKey: [...campaignKey(slug), 'backlinks', kind, recordSlug],
    queryFn: () =>
      kind === 'things'
        ? call(api.GET('/api/campaigns/{campaignSlug}/things/{thingSlug}/backlinks', { params: { path: { campaignSlug: slug, thingSlug: recordSlug } } }))
        : call(api.GET('/api/campaigns/{campaignSlug}/arcs/{arcSlug}/backlinks', { params: { path: { campaignSlug: slug, arcSlug: recordSlug } } })),
  });
}

/** Refreshes everything read from the campaign (after any write in it). */
export function useRefreshCampaign(slug: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: campaignKey(slug) });
}
