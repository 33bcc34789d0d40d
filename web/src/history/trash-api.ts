// The trash's API calls, query keys and the restore every Undo and the Trash page use (CONTRACT
// "History and trash"). A campaign's trash is read by its owner and game masters; deleted campaigns
// are their owner's.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, type Answer } from '../api/client';
import { campaignKey, campaignsQuery } from '../campaigns/api';

export type TrashItem = Answer<'listTrash'>[number];
export type TrashKind = TrashItem['kind'];
export type Restored = Answer<'restoreFromTrash'>;
export type TrashedCampaign = Answer<'listTrashedCampaigns'>[number];

export const trashKey = (campaignSlug: string) => [...campaignKey(campaignSlug), 'trash'] as const;
export const trashedCampaignsKey = ['trash', 'campaigns'] as const;

export function useTrash(campaignSlug: string) {
  return useQuery({ queryKey: trashKey(campaignSlug), queryFn: () => call(api.GET('/api/campaigns/{campaignSlug}/trash', { params: { path: { campaignSlug } } })) });
}

export const restoreFromTrash = (campaignSlug: string, kind: TrashKind, id: number) =>
  call(api.POST('/api/campaigns/{campaignSlug}/trash/{kind}/{id}/restore', { params: { path: { campaignSlug, kind, id: String(id) } } }));

export const eraseFromTrash = (campaignSlug: string, kind: TrashKind, id: number) => call(api.DELETE('/api/campaigns/{campaignSlug}/trash/{kind}/{id}', { params: { path: { campaignSlug, kind, id: String(id) } } }));

export function useTrashedCampaigns() {
  return useQuery({ queryKey: trashedCampaignsKey, queryFn: () => call(api.GET('/api/trash/campaigns')) });
}

/** Refreshes the user's campaigns and deleted campaigns (after a campaign is deleted, restored or erased). */
export function useRefreshCampaignLists() {
  const queryClient = useQueryClient();
  return async () => {
    await queryClient.invalidateQueries({ queryKey: trashedCampaignsKey });
    await queryClient.invalidateQueries({ queryKey: campaignsQuery.queryKey });
  };
}

export const restoreCampaignFromTrash = (id: number) => call(api.POST('/api/trash/campaigns/{id}/restore', { params: { path: { id: String(id) } } }));
export const eraseCampaignFromTrash = (id: number) => call(api.DELETE('/api/trash/campaigns/{id}', { params: { path: { id: String(id) } } }));

/** Where a restored record lives in the app. */
export function restoredPath(campaignSlug: string, kind: TrashKind, id: number, slug: string | null): string {
  switch (kind) {
    case 'thing':
      return `/campaigns/${campaignSlug}/things/${slug ?? ''}`;
    case 'arc':
      return `/campaigns/${campaignSlug}/arcs/${slug ?? ''}`;
    case 'thing-type':
      return `/campaigns/${campaignSlug}/types/${id}`;
    case 'asset':
      return `/campaigns/${campaignSlug}/trash`;
  }
}
