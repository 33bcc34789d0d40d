// The account's reads and writes: who is signed in, signing in and out, the password, sessions,
// API tokens and deleting the account. Keys: ['me'] and ['tokens'] (outside any campaign).
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, type Me } from '../api/client';
import { forgetRecentPages } from '../search/recent';

export const accountKeys = {
  me: () => ['me'] as const,
  tokens: () => ['tokens'] as const,
};

export const meQuery = queryOptions({ queryKey: accountKeys.me(), queryFn: () => call(api.GET('/api/auth/me')) });

/** The signed-in user, once known (the page renders meanwhile: its own requests start at once). */
export function useMe(): Me | undefined {
  return useQuery(meQuery).data;
}

/** The signed-in user's id for keeping drafts by author: at once when known, else once it is. */
export function useDraftOwner(): () => string | Promise<string> {
  const queryClient = useQueryClient();
  return () => queryClient.getQueryData<Me>(accountKeys.me())?.id ?? queryClient.ensureQueryData(meQuery).then((me) => me.id);
}

export const tokensQuery = queryOptions({ queryKey: accountKeys.tokens(), queryFn: () => call(api.GET('/api/auth/tokens')) });

/** Signing in or up; what comes after (the next page) is the caller's. */
export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ mode, email, password, name }: { mode: 'sign-in' | 'sign-up'; email: string; password: string; name?: string }) =>
      mode === 'sign-up' ? call(api.POST('/api/auth/register', { body: { email, password, name } })) : call(api.POST('/api/auth/login', { body: { email, password } })),
    onSuccess: (answer) => queryClient.setQueryData(accountKeys.me(), answer.user),
  });
}

/** Signing out (this device) or everywhere: every cached answer is someone else's afterwards. */
export function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (where: 'here' | 'everywhere') => (where === 'here' ? call(api.POST('/api/auth/logout')) : call(api.DELETE('/api/auth/sessions'))),
    onSuccess: () => {
      // Names of pages opened in this browser go with the session (search/recent.ts).
      forgetRecentPages(localStorage);
      queryClient.clear();
    },
  });
}

export function useResetPassword() {
  return useMutation({ mutationFn: (body: { token: string; newPassword: string }) => call(api.POST('/api/auth/password-reset', { body })) });
}

export function useChangePassword() {
  return useMutation({ mutationFn: (body: { currentPassword: string; newPassword: string }) => call(api.PUT('/api/auth/password', { body })) });
}

export function useDeleteAccount() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (password: string) => call(api.DELETE('/api/auth/me', { body: { password } })),
    onSuccess: () => queryClient.clear(),
  });
}

export function useCreateToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => call(api.POST('/api/auth/tokens', { body: { name } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountKeys.tokens() }),
  });
}

export function useRevokeToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => call(api.DELETE('/api/auth/tokens/{id}', { params: { path: { id: String(id) } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountKeys.tokens() }),
  });
}
