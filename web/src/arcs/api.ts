// The arcs' reads and writes (every key under the campaign's, campaigns/api.ts).
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, call, callWithEtag, type Arc } from '../api/client';
import type { components } from '../api/schema';
import type { StructurePatch } from '../records/properties/record-structure';
import { campaignKey, useCampaignWrite } from '../campaigns/api';
import type { RecordState } from '../records/record-state';

/** An arc as navigation lists it (`things=none`): every field but its linked things. */
export type ArcWithoutThings = components['schemas']['ArcWithoutThings'];

/** The key of the arcs list (`useArcs`). */
export const arcsKey = (slug: string) => [...campaignKey(slug), 'arcs', 'without-things'] as const;

/** Every arc the caller may see, without their linked things (the tree, names for mentions and history). */
export function useArcs(slug: string) {
  return useQuery({
    queryKey: arcsKey(slug),
    queryFn: async () => (await call(api.GET('/api/campaigns/{campaignSlug}/arcs', { params: { path: { campaignSlug: slug }, query: { things: 'none' } } }))) as ArcWithoutThings[],
  });
}

/** What an arc's page saves: any of its fields. */
export type ArcPatch = { name: string; visibility: 'all' | 'gm'; parentArcId: number | null; hook: unknown[]; protagonist: unknown[]; antagonist: unknown[]; problem: unknown[]; key: unknown[]; outcome: unknown[]; notes: unknown[] } & StructurePatch;

/** An arc read and saved with its ETag (the record's editing state, records/record-state.ts). */
export function arcSource(campaignSlug: string, arcSlug: string) {
  const path = { campaignSlug, arcSlug };
  return {
    load: () => callWithEtag(api.GET('/api/campaigns/{campaignSlug}/arcs/{arcSlug}', { params: { path } })),
    save: (patch: Partial<ArcPatch>, ifMatch: string | undefined, init: { keepalive?: boolean } = {}) =>
      callWithEtag(api.PUT('/api/campaigns/{campaignSlug}/arcs/{arcSlug}', { params: { path, header: ifMatch ? { 'if-match': ifMatch } : {} }, body: { updatedArc: patch }, ...init })),
  };
}

/**
 * Moves the arc inside another (`null`: top level), after what was typed is saved: the answer is the
 * arc's latest version, which its editing state takes (and so refreshes the rest of the campaign).
 */
export function useSetArcParent(campaignSlug: string, arcSlug: string, state: RecordState<Arc, ArcPatch>) {
  return useMutation({
    mutationFn: async (parentArcId: number | null) => {
      await state.flush();
      state.acknowledge(await arcSource(campaignSlug, arcSlug).save({ parentArcId }, state.etag()));
    },
  });
}

export const deleteArc = (slug: string, arcSlug: string) => call(api.DELETE('/api/campaigns/{campaignSlug}/arcs/{arcSlug}', { params: { path: { campaignSlug: slug, arcSlug } } }));

export function useCreateArc(slug: string) {
  return useCampaignWrite(slug, (newArc: { name: string; visibility: 'all' | 'gm' }) => call(api.POST('/api/campaigns/{campaignSlug}/arcs', { params: { path: { campaignSlug: slug } }, body: { newArc } })));
}
