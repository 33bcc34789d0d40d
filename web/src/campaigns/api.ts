// The campaign's data as the app reads it: every key starts with ['campaign', slug], so one
// invalidation after a write refreshes everything that write may have changed (names in the
// sidebar, renderings of records that mention the changed one, backlinks). Each feature folder
// reads its own records in its api.ts under this key (things/api.ts, arcs/api.ts, records/api.ts…).
//
// The one way the app writes, besides a record's autosave (records/record-state.ts): a TanStack
// mutation from a feature's api.ts (`useCampaignWrite` for anything in a campaign), whose success
// refreshes what it changed; forms and buttons call its `mutateAsync` and show its error.
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { api, call, callWithEtag } from '../api/client';
import { playerViewCampaign } from '../api/view';
import { fetchRecord } from '../records/record-state';

// A page's first requests, started when its code arrives on a first load (its module's top), not
// after the answers before them: the page's query takes the answer when it first runs (once, if it
// is fresh), so the campaign, the record, its rendering and the first image come a round trip sooner.
// An answer is kept under the view it was asked in ("View as player", api/view.ts): a query run
// after the view changed never takes an answer read in the other view (a GM's text, secrets and all,
// shown as the player's).
const EARLY_FOR_MS = 30_000;
const early = new Map<string, { at: number; answer: Promise<unknown> }>();
const earlyKey = (name: readonly string[]) => JSON.stringify([playerViewCampaign(), ...name]);

export function startEarly(name: readonly string[], request: () => Promise<unknown>): void {
  if (early.has(earlyKey(name))) return;
  const answer = request();
  answer.catch(() => undefined); // A failure is the query's to show, if it runs.
  early.set(earlyKey(name), { at: performance.now(), answer });
}

/** The answer started early under `name` in this view (once, while fresh), else `request`'s; and when it was asked for. */
export function takeEarly<T>(name: readonly string[], request: () => Promise<T>): { at: number; answer: Promise<T> } {
  const key = earlyKey(name);
  const started = early.get(key);
  early.delete(key);
  if (started && performance.now() - started.at < EARLY_FOR_MS) return started as { at: number; answer: Promise<T> };
  return { at: performance.now(), answer: request() };
}

/** The address's parts `pattern` captures (decoded) if the browser opened the app at this address: a first load, not a move inside the app. */
export function openedAt(pattern: RegExp): string[] | undefined {
  const opened = performance.getEntriesByType('navigation')[0];
  if (!opened || new URL(opened.name).pathname !== window.location.pathname) return undefined;
  const match = pattern.exec(window.location.pathname);
  return match ? match.slice(1).map((part) => decodeURIComponent(part)) : undefined;
}

/** Starts the campaign's read if the app was opened at one of its pages (the campaign's frame, at its module's top). */
export function startCampaign(): void {
  const match = openedAt(/^\/campaigns\/([^/]+)(?:\/.*)?$/);
  if (match) startEarly(['campaign', match[0]!], () => loadCampaign(match[0]!));
}

export function useCampaignSlug(): string {
  return useParams().campaignSlug!;
}

export const campaignKey = (slug: string) => ['campaign', slug] as const;

/**
 * The query key of a record: a thing or an arc by its slug, or the campaign itself; in the player
 * view (`asPlayer`) a key of its own, so nothing read or saved in one view is shown in the other.
 */
export function recordKey(campaignSlug: string, kind: 'thing' | 'arc' | 'campaign', recordSlug = '', asPlayer = false) {
  const key = kind === 'campaign' ? [...campaignKey(campaignSlug), 'record'] : [...campaignKey(campaignSlug), kind, recordSlug];
  return asPlayer ? [...key, 'as-player'] : key;
}

/** The signed-in user's campaigns (outside any one campaign's key). */
export const campaignsQuery = queryOptions({ queryKey: ['campaigns'] as const, queryFn: () => call(api.GET('/api/campaigns')) });

/** Starting a campaign: the list refreshes; the caller goes to it. */
export function useCreateCampaign() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => call(api.POST('/api/campaigns', { body: { newCampaign: { name } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: campaignsQuery.queryKey }),
  });
}

/** Reads the campaign with its ETag. */
export const loadCampaign = (slug: string) => callWithEtag(api.GET('/api/campaigns/{campaignSlug}', { params: { path: { campaignSlug: slug } } }));

/** What the campaign's description editor saves. */
export type CampaignPatch = { description: unknown[] };

/** The campaign read and saved with its ETag (its description's editing state, records/record-state.ts). */
export function campaignSource(slug: string) {
  return {
    load: () => loadCampaign(slug),
    save: (patch: Partial<CampaignPatch>, ifMatch: string | undefined, init: { keepalive: boolean }) =>
      callWithEtag(api.PUT('/api/campaigns/{campaignSlug}', { params: { path: { campaignSlug: slug }, header: ifMatch ? { 'if-match': ifMatch } : {} }, body: { updatedCampaign: patch }, ...init })),
  };
}

/** Changes the campaign's settings (name, address, default visibility…), without If-Match: the answer is the campaign. */
export const updateCampaign = (slug: string, updatedCampaign: { name?: string; slug?: string; defaultVisibility?: 'all' | 'gm' }) =>
  call(api.PUT('/api/campaigns/{campaignSlug}', { params: { path: { campaignSlug: slug } }, body: { updatedCampaign } }));

/** The campaign's name and address (settings); `after` hears the campaign as saved (at its new address, if it changed). */
export function useSaveCampaignSettings(slug: string, after: (campaign: { slug: string }) => unknown) {
  return useCampaignWrite(
    slug,
    (settings: { name: string; slug?: string }) => updateCampaign(slug, settings),
    after,
  );
}

/** Moves the campaign to its owner's trash (the caller leaves it, then refreshes the lists: history/trash-api.ts). */
export const deleteCampaign = (slug: string) => call(api.DELETE('/api/campaigns/{campaignSlug}', { params: { path: { campaignSlug: slug } } }));

/**
 * The campaign as the server last acknowledged it, in the view on screen: the same query (and
 * editing state) as its description's editor (records/record-editing.tsx). Under the game master's
 * key in the player view, a save of the description answered after the switch (or a read taking
 * that save's answer) put the game master's campaign, role and all, where the player view's frame
 * reads its own.
 */
export function useCampaign(slug: string) {
  const queryKey = recordKey(slug, 'campaign', '', playerViewCampaign() === slug);
  return useQuery({ queryKey, queryFn: () => fetchRecord(queryKey, () => takeEarly(['campaign', slug], () => loadCampaign(slug)).answer) });
}

/** Refreshes everything read from the campaign (after any write in it). */
export function useRefreshCampaign(slug: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: campaignKey(slug) });
}

/**
 * A write in the campaign (a button, a form): a mutation that refreshes everything read from the
 * campaign once it succeeds, then runs `after` (navigate, show a notice…).
 */
export function useCampaignWrite<Input = void, Result = unknown>(slug: string, write: (input: Input) => Promise<Result>, after?: (result: Result, input: Input) => unknown) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: write,
    onSuccess: async (result, input) => {
      await queryClient.invalidateQueries({ queryKey: campaignKey(slug) });
      await after?.(result, input);
    },
  });
}
