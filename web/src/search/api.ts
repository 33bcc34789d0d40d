// The search route's reads (every key under the campaign's, campaigns/api.ts): the search list as
// one types (pickers, the quick switcher, the mention picker) and the search page.
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { campaignKey } from '../campaigns/api';

/** The query of up to 8 matches of what is typed, things and arcs or one kind (nothing is read while it is empty): the search list's and the mention picker's. */
export const searchMatchesQuery = (campaignSlug: string, q: string, type?: 'thing' | 'arc') => ({
  queryKey: [...campaignKey(campaignSlug), 'search-list', type ?? '', q],
  enabled: q !== '',
  queryFn: () => call(api.GET('/api/campaigns/{campaignSlug}/search', { params: { path: { campaignSlug }, query: { q, limit: '8', ...(type ? { type } : {}) } } })),
});

export function useSearchMatches(campaignSlug: string, q: string, type?: 'thing' | 'arc') {
  return useQuery(searchMatchesQuery(campaignSlug, q, type));
}

/** The search page's results: the words, one kind of record or all, and tags that must all be there. */
export function useSearchResults(campaignSlug: string, q: string, type: string, tags: string[]) {
  return useQuery({
    queryKey: [...campaignKey(campaignSlug), 'search-page', q, type, ...tags],
    enabled: q.trim() !== '',
    queryFn: () => call(api.GET('/api/campaigns/{campaignSlug}/search', { params: { path: { campaignSlug }, query: { q, ...(type ? { type } : {}), ...(tags.length > 0 ? { tag: tags } : {}) } } })),
  });
}
