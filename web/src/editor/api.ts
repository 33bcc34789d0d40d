// The editor's reads: what the mention picker offers for what is typed after `@` or `[[` (the
// search route: names, aliases, text), keyed under the campaign's key like all campaign data.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, call, type SearchResults } from '../api/client';
import { campaignKey } from '../campaigns/api';

export type MentionCandidate = SearchResults['results'][number];

/** Things and arcs matching `q` (best first; none for an empty `q`); the previous answer stays shown while the next one loads. */
export function useMentionSearch(slug: string, q: string) {
  return useQuery({
    queryKey: [...campaignKey(slug), 'mention-search', q],
    enabled: q !== '',
    placeholderData: keepPreviousData,
    queryFn: () => call(api.GET('/api/campaigns/{campaignSlug}/search', { params: { path: { campaignSlug: slug }, query: { q, limit: '8' } } })),
  });
}
