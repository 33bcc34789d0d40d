// The things' and thing types' reads and writes (every key under the campaign's, campaigns/api.ts).
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api, ApiError, call } from '../api/client';
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

/** The cursor of a `Link: <…?cursor=…>; rel="next"` header, if there is one. */
export function nextCursor(link: string | null): string | undefined {
  const match = link ? /<([^>]+)>;\s*rel="next"/.exec(link) : null;
  if (!match) return undefined;
  return new URL(match[1]!, location.origin).searchParams.get('cursor') ?? undefined;
}

/** The orders of a list of things: the list route's `sort` (last changed first is its default). */
export type ThingOrder = 'updatedAt' | 'name';
export const thingOrder = (value: string | null | undefined): ThingOrder => (value === 'name' ? 'name' : 'updatedAt');

/**
 * The things of a type, page after page (`pageSize` each, the Link header's cursor for the next),
 * in the order chosen, with only the tags given (all of them) if any.
 */
export function useTypeThings(slug: string, typeId: number, options: { order: ThingOrder; pageSize: number; tags?: string[] }) {
  const tags = options.tags ?? [];
  return useInfiniteQuery({
    queryKey: [...campaignKey(slug), 'things', 'type', typeId, options.order, options.pageSize, ...tags],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) => {
      const { data, error, response } = await api.GET('/api/campaigns/{campaignSlug}/things', {
        params: {
          path: { campaignSlug: slug },
          query: { typeId: String(typeId), count: String(options.pageSize), ...(tags.length > 0 ? { tag: tags } : {}), ...(options.order === 'name' ? { sort: 'name' } : {}), ...(pageParam ? { cursor: pageParam } : {}) },
        },
      });
      if (error !== undefined || !data) throw new ApiError(response.status, error);
      return { things: data, next: nextCursor(response.headers.get('link')) };
    },
    getNextPageParam: (last) => last.next,
  });
}

export function useCreateThing(slug: string) {
  return useCampaignWrite(slug, (newThing: { name: string; typeId: number; visibility: 'all' | 'gm' }) => call(api.POST('/api/campaigns/{campaignSlug}/things', { params: { path: { campaignSlug: slug } }, body: { newThing } })));
}

export function useCreateThingType(slug: string) {
  return useCampaignWrite(slug, (name: string) => call(api.POST('/api/campaigns/{campaignSlug}/thing-types', { params: { path: { campaignSlug: slug } }, body: { newThingType: { name } } })));
}

export function useRenameThingType(slug: string, typeId: number) {
  return useCampaignWrite(slug, (name: string) => call(api.PUT('/api/campaigns/{campaignSlug}/thing-types/{thingTypeId}', { params: { path: { campaignSlug: slug, thingTypeId: String(typeId) } }, body: { updatedThingType: { name } } })));
}

/** Moves a type and its things to the trash (the caller navigates away first: the type's queries would 404). */
export const deleteThingType = (slug: string, typeId: number) => call(api.DELETE('/api/campaigns/{campaignSlug}/thing-types/{thingTypeId}', { params: { path: { campaignSlug: slug, thingTypeId: String(typeId) } } }));
