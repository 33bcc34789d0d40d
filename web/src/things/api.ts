// The things' and thing types' reads (every key under the campaign's, campaigns/api.ts).
import { useQuery } from '@tanstack/react-query';
import { api, call, callWithEtag, type Thing } from '../api/client';
import type { StructurePatch } from '../records/properties/record-structure';
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
    queryFn: () => call(api.GET('/api/campaigns/{campaignSlug}/things/{thingSlug}/arcs', { params: { path: { campaignSlug: slug, thingSlug } } })),
  });
}

export const addThingToArc = (slug: string, thingSlug: string, arcSlug: string) => call(api.POST('/api/campaigns/{campaignSlug}/things/{thingSlug}/arcs', { params: { path: { campaignSlug: slug, thingSlug } }, body: { arcSlug } }));
export const removeThingFromArc = (slug: string, thingSlug: string, arcSlug: string) => call(api.DELETE('/api/campaigns/{campaignSlug}/things/{thingSlug}/arcs/{arcSlug}', { params: { path: { campaignSlug: slug, thingSlug, arcSlug } } }));
export const deleteThing = (slug: string, thing: Pick<Thing, 'slug'>) => call(api.DELETE('/api/campaigns/{campaignSlug}/things/{thingSlug}', { params: { path: { campaignSlug: slug, thingSlug: thing.slug } } }));

/** Creates a thing (of a type of the campaign, with the campaign's default visibility); answers it. */
export function useCreateThing(slug: string) {
  return useCampaignWrite(slug, (newThing: { name: string; typeId: number }) =>
    call(api.POST('/api/campaigns/{campaignSlug}/things', { params: { path: { campaignSlug: slug } }, body: { newThing } })),
  );
}
