// The trash's API calls, query keys and the restore every Undo and the Trash page use (CONTRACT
// "History and trash"). A campaign's trash is read by its owner and game masters; deleted campaigns
// are their owner's.
import { useQuery } from '@tanstack/react-query';
import { campaignKey } from '../pages/queries';
import { send } from '../api/untyped';

export type TrashKind = 'thing' | 'arc' | 'thing-type' | 'asset';

export interface TrashItem {
  kind: TrashKind;
  id: number;
  slug: string | null;
  name: string;
  deletedAt: string;
  deletedBy: { userId: number; name: string } | null;
  with: { things: number; arcs: number; links: number };
}

export interface Restored {
  record: Record<string, unknown>;
  slug: string | null;
  restored: { things: number; arcs: number; links: number };
}

export interface TrashedCampaign {
  id: number;
  slug: string;
  name: string;
  deletedAt: string;
}

export const trashKey = (campaignSlug: string) => [...campaignKey(campaignSlug), 'trash'] as const;
export const trashedCampaignsKey = ['trash', 'campaigns'] as const;

const base = (campaignSlug: string) => `/api/campaigns/${encodeURIComponent(campaignSlug)}/trash`;

export function useTrash(campaignSlug: string) {
  return useQuery({ queryKey: trashKey(campaignSlug), queryFn: () => send<TrashItem[]>('GET', base(campaignSlug)) });
}

export const restoreFromTrash = (campaignSlug: string, kind: TrashKind, id: number) => send<Restored>('POST', `${base(campaignSlug)}/${kind}/${id}/restore`);
export const eraseFromTrash = (campaignSlug: string, kind: TrashKind, id: number) => send<undefined>('DELETE', `${base(campaignSlug)}/${kind}/${id}`);

export function useTrashedCampaigns() {
  return useQuery({ queryKey: trashedCampaignsKey, queryFn: () => send<TrashedCampaign[]>('GET', '/api/trash/campaigns') });
}

export const restoreCampaignFromTrash = (id: number) => send<Restored>('POST', `/api/trash/campaigns/${id}/restore`);
export const eraseCampaignFromTrash = (id: number) => send<undefined>('DELETE', `/api/trash/campaigns/${id}`);

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
