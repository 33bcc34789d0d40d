// The things' and thing types' reads and writes (every key under the campaign's, campaigns/api.ts).
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api, ApiError, call, callWithEtag, type Thing } from '../api/client';
import type { components } from '../api/schema';
import type { StructurePatch } from '../records/properties/record-structure';
import type { TypeField } from '../records/properties/model';
import { campaignKey, useCampaignWrite } from '../campaigns/api';
import { usePageDrawn } from '../ui/page-drawn';

export function useThingTypes(slug: string) {
  return useQuery({ queryKey: [...campaignKey(slug), 'types'], queryFn: () => call(api.GET('/api/campaigns/{campaignSlug}/thing-types', { params: { path: { campaignSlug: slug } } })) });
}

/** A thing as navigation lists it (`fields=summary`): no text, properties, tags or aliases. */
export type ThingNames = components['schemas']['ThingSummary'];

/** Things as summaries (`fields=summary`), last changed first: the list route's first page for `query`. */
const thingSummaries = async (slug: string, query: { fetchAll: 'true' } | { count: string }) =>
  (await call(api.GET('/api/campaigns/{campaignSlug}/things', { params: { path: { campaignSlug: slug }, query: { ...query, fields: 'summary' } } }))) as ThingNames[];

export const allThingsKey = (slug: string) => [...campaignKey(slug), 'things', 'all', 'summary'] as const;

/** Up to 1000 things' names (`fetchAll`, `fields=summary`): where every name is needed (mentions' names in an editor); `enabled` false reads nothing. */
export function useAllThings(slug: string, enabled = true) {
  return useQuery({ queryKey: allThingsKey(slug), enabled, queryFn: () => thingSummaries(slug, { fetchAll: 'true' }) });
}

/** The 10 things changed last (`fields=summary`: names, addresses, visibility; no text is read): the campaign's home. */
export function useRecentThings(slug: string) {
  return useQuery({ queryKey: [...campaignKey(slug), 'things', 'recent', 'summary'], queryFn: () => thingSummaries(slug, { count: '10' }) });
}

/** What a thing's page saves: any of its fields. */
export type ThingPatch = { name: string; typeId: number; description: unknown[]; visibility: 'all' | 'gm' } & StructurePatch;

/** A thing read and saved with its ETag (the record's editing state, records/record-state.ts). */
export function thingSource(campaignSlug: string, thingSlug: string) {
  const path = { campaignSlug, thingSlug };
  return {
    load: () => callWithEtag(api.GET('/api/campaigns/{campaignSlug}/things/{thingSlug}', { params: { path } })),
    save: (patch: Partial<ThingPatch>, ifMatch: string | undefined, init: { keepalive: boolean }) =>
      callWithEtag(api.PUT('/api/campaigns/{campaignSlug}/things/{thingSlug}', { params: { path, header: ifMatch ? { 'if-match': ifMatch } : {} }, body: { updatedThing: patch }, ...init })),
  };
}

/** The arcs a thing is in. */
export function useThingArcs(slug: string, thingSlug: string) {
  return useQuery({
    queryKey: [...campaignKey(slug), 'thing-arcs', thingSlug],
    // Below the text: asked for once the page's text is drawn (ui/page-drawn.ts).
    enabled: usePageDrawn(),
    queryFn: () => call(api.GET('/api/campaigns/{campaignSlug}/things/{thingSlug}/arcs', { params: { path: { campaignSlug: slug, thingSlug } } })),
  });
}

export const addThingToArc = (slug: string, thingSlug: string, arcSlug: string) => call(api.POST('/api/campaigns/{campaignSlug}/things/{thingSlug}/arcs', { params: { path: { campaignSlug: slug, thingSlug } }, body: { arcSlug } }));
export const removeThingFromArc = (slug: string, thingSlug: string, arcSlug: string) => call(api.DELETE('/api/campaigns/{campaignSlug}/things/{thingSlug}/arcs/{arcSlug}', { params: { path: { campaignSlug: slug, thingSlug, arcSlug } } }));
export const deleteThing = (slug: string, thing: Pick<Thing, 'slug'>) => call(api.DELETE('/api/campaigns/{campaignSlug}/things/{thingSlug}', { params: { path: { campaignSlug: slug, thingSlug: thing.slug } } }));


/** The cursor of a `Link: <…?cursor=…>; rel="next"` header, if there is one. */
export function nextCursor(link: string | null): string | undefined {
  const match = link ? /<([^>]+)>;\s*rel="next"/.exec(link) : null;
  if (!match) return undefined;
  return new URL(match[1]!, location.origin).searchParams.get('cursor') ?? undefined;
}

/** The orders of a list of things: the list route's `sort` (last changed first is its default). */
export type ThingOrder = 'updatedAt' | 'name';
export const thingOrder = (value: string | null | undefined): ThingOrder => (value === 'name' ? 'name' : 'updatedAt');

interface TypeListOptions {
  order: ThingOrder;
  pageSize: number;
  tags?: string[];
}

/** One page of a type's things and the cursor of the next (from the Link header), if any. */
async function typePage<T extends ThingNames>(slug: string, typeId: number, options: TypeListOptions & { summary: boolean }, cursor: string | undefined): Promise<{ things: T[]; next: string | undefined }> {
  const tags = options.tags ?? [];
  const { data, error, response } = await api.GET('/api/campaigns/{campaignSlug}/things', {
    params: {
      path: { campaignSlug: slug },
      query: {
        typeId: String(typeId),
        count: String(options.pageSize),
        ...(options.summary ? { fields: 'summary' as const } : {}),
        ...(tags.length > 0 ? { tag: tags } : {}),
        ...(options.order === 'name' ? { sort: 'name' } : {}),
        ...(cursor ? { cursor } : {}),
      },
    },
  });
  if (error !== undefined || !data) throw new ApiError(response.status, error);
  // The answer's shape follows `fields` (full things or summaries); the generated type cannot tell which.
  return { things: data as unknown as T[], next: nextCursor(response.headers.get('link')) };
}

const typeListKey = (slug: string, typeId: number, options: TypeListOptions, shape: 'full' | 'summary') => [...campaignKey(slug), 'things', 'type', typeId, shape, options.order, options.pageSize, ...(options.tags ?? [])];

function useTypeList<T extends ThingNames>(slug: string, typeId: number, options: TypeListOptions, shape: 'full' | 'summary') {
  return useInfiniteQuery({
    queryKey: typeListKey(slug, typeId, options, shape),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => typePage<T>(slug, typeId, { ...options, summary: shape === 'summary' }, pageParam),
    getNextPageParam: (last) => last.next,
  });
}

/** The things of a type in full (their tags shown), page after page, in the order chosen, with every tag given if any. */
export const useTypeThings = (slug: string, typeId: number, options: TypeListOptions) => useTypeList<Thing>(slug, typeId, options, 'full');

/** The names of a type's things (`fields=summary`: no text is read), page after page, in the order chosen: the sidebar's. */
export const useTypeThingNames = (slug: string, typeId: number, options: TypeListOptions) => useTypeList<ThingNames>(slug, typeId, options, 'summary');

/** Creates a thing (of a type of the campaign; with the campaign's default visibility unless given); answers it. */
export function useCreateThing(slug: string) {
  return useCampaignWrite(slug, (newThing: { name: string; typeId: number; visibility?: 'all' | 'gm' }) => call(api.POST('/api/campaigns/{campaignSlug}/things', { params: { path: { campaignSlug: slug } }, body: { newThing } })));
}

export function useCreateThingType(slug: string) {
  return useCampaignWrite(slug, (name: string) => call(api.POST('/api/campaigns/{campaignSlug}/thing-types', { params: { path: { campaignSlug: slug } }, body: { newThingType: { name } } })));
}

/** Changes a type's name or its declared fields (PUT …/thing-types/{id}). */
export function useUpdateThingType(slug: string, typeId: number) {
  return useCampaignWrite(slug, (updatedThingType: { name?: string; fields?: { key: string; kind: TypeField['kind'] }[] }) =>
    call(api.PUT('/api/campaigns/{campaignSlug}/thing-types/{thingTypeId}', { params: { path: { campaignSlug: slug, thingTypeId: String(typeId) } }, body: { updatedThingType } })),
  );
}

/** Moves a type and its things to the trash (the caller navigates away first: the type's queries would 404). */
export const deleteThingType = (slug: string, typeId: number) => call(api.DELETE('/api/campaigns/{campaignSlug}/thing-types/{thingTypeId}', { params: { path: { campaignSlug: slug, thingTypeId: String(typeId) } } }));
