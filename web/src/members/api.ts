// Sharing: members, roles, invitations, the transfer, leaving; the invitation a link carries.
// Campaign data is keyed under the campaign's key; writes go through useCampaignWrite.
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { campaignKey, campaignsQuery, updateCampaign, useCampaignWrite } from '../campaigns/api';

export const memberKeys = {
  members: (slug: string) => [...campaignKey(slug), 'members'] as const,
  invitations: (slug: string) => [...campaignKey(slug), 'invitations'] as const,
  preview: (token: string | null) => ['invitation-preview', token] as const,
};

export function useMembers(slug: string) {
  return useQuery({ queryKey: memberKeys.members(slug), queryFn: () => call(api.GET('/api/campaigns/{campaignSlug}/members', { params: { path: { campaignSlug: slug } } })) });
}

export function useInvitations(slug: string) {
  return useQuery({ queryKey: memberKeys.invitations(slug), queryFn: () => call(api.GET('/api/campaigns/{campaignSlug}/invitations', { params: { path: { campaignSlug: slug } } })) });
}

export function useCreateInvitation(slug: string) {
  return useCampaignWrite(slug, (body: { role: 'gm' | 'player'; expiresAt: string; maxUses: number }) => call(api.POST('/api/campaigns/{campaignSlug}/invitations', { params: { path: { campaignSlug: slug } }, body })));
}

export function useRevokeInvitation(slug: string) {
  return useCampaignWrite(slug, (id: number) => call(api.DELETE('/api/campaigns/{campaignSlug}/invitations/{id}', { params: { path: { campaignSlug: slug, id: String(id) } } })));
}

export function useDefaultVisibility(slug: string) {
  return useCampaignWrite(slug, (defaultVisibility: 'all' | 'gm') => updateCampaign(slug, { defaultVisibility }));
}

export function useChangeRole(slug: string) {
  return useCampaignWrite(slug, ({ userId, role }: { userId: string; role: 'gm' | 'player' }) => call(api.PUT('/api/campaigns/{campaignSlug}/members/{userId}', { params: { path: { campaignSlug: slug, userId } }, body: { role } })));
}

export function useTransfer(slug: string) {
  return useCampaignWrite(slug, (userId: string) => call(api.POST('/api/campaigns/{campaignSlug}/transfer', { params: { path: { campaignSlug: slug } }, body: { userId } })));
}

/** Removing a member; removing oneself (leaving) refreshes the campaigns list instead, the campaign being gone for us. */
export function useRemoveMember(slug: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ userId }: { userId: string; self: boolean }) => call(api.DELETE('/api/campaigns/{campaignSlug}/members/{userId}', { params: { path: { campaignSlug: slug, userId } } })),
    onSuccess: (_answer, { self }) => queryClient.invalidateQueries({ queryKey: self ? campaignsQuery.queryKey : campaignKey(slug) }),
  });
}

export const invitationPreviewQuery = (token: string | null) =>
  queryOptions({
    queryKey: memberKeys.preview(token),
    queryFn: () => call(api.POST('/api/invitations/preview', { body: { token: token ?? '' } })),
    enabled: token !== null,
    retry: false,
    staleTime: Infinity,
  });

export function useAcceptInvitation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (token: string) => call(api.POST('/api/invitations/accept', { body: { token } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: campaignsQuery.queryKey }),
  });
}
