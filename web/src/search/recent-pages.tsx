// The quick switcher's recent pages in the app (the store is recent.ts): the campaign's frame
// remembers each thing, arc and type page once its record has loaded, and the switcher offers the
// remembered ones, the page open now aside, before anything is typed.
import { hashKey, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useCallback, useEffect, useSyncExternalStore } from 'react';
import { useLocation } from 'react-router';
import type { Arc, Thing } from '../api/client';
import type { ServerVersion } from '../records/record-state';
import { recordKey } from '../campaigns/api';
import { useMe } from '../account/api';
import { useCampaignAccess } from '../campaigns/access';
import { useThingTypes } from '../things/api';
import { offeredPages, recentPageAddress, recentPages, recentPagesKey, rememberPage, type RecentPage } from './recent';

/** The record page the address names: a thing or an arc by slug, a type by id. */
function pageInAddress(pathname: string): { kind: 'thing' | 'arc'; slug: string } | { kind: 'type'; id: number } | undefined {
  const match = /^\/campaigns\/[^/]+\/(things|arcs|types)\/([^/]+)\/?$/.exec(pathname);
  if (!match) return undefined;
  if (match[1] === 'types') return Number.isInteger(Number(match[2])) ? { kind: 'type', id: Number(match[2]) } : undefined;
  return { kind: match[1] === 'things' ? 'thing' : 'arc', slug: decodeURIComponent(match[2]!) };
}

/** Remembers the record page open now (rendered once, in the campaign's frame). */
export function RememberVisits({ campaignSlug }: { campaignSlug: string }) {
  const { pathname } = useLocation();
  const userId = useMe()?.id;
  const shown = pageInAddress(pathname);
  const { viewingAsPlayer } = useCampaignAccess();
  // The record as its page loaded it (the same query, in the view on screen: nothing more is read).
  const record = useLoadedData<ServerVersion<Thing | Arc>>(recordKey(campaignSlug, shown?.kind === 'arc' ? 'arc' : 'thing', shown && shown.kind !== 'type' ? shown.slug : '', viewingAsPlayer));
  const types = useThingTypes(campaignSlug);
  let page: RecentPage | undefined;
  if (shown?.kind === 'type') {
    const type = types.data?.find((t) => t.id === shown.id);
    if (type) page = { kind: 'type', id: type.id, slug: String(type.id), name: type.name, visibility: 'all' };
  } else if (shown && record && record.data.slug === shown.slug) {
    const { id, slug, name, visibility } = record.data;
    page = { kind: shown.kind, id, slug, name, visibility };
  }
  const { kind, id, slug, name, visibility } = page ?? {};
  useEffect(() => {
    if (userId === undefined || kind === undefined || id === undefined || slug === undefined || name === undefined || visibility === undefined) return;
    rememberPage(localStorage, recentPagesKey(userId, campaignSlug), { kind, id, slug, name, visibility });
  }, [userId, campaignSlug, kind, id, slug, name, visibility]);
  return null;
}

/**
 * What the query under `key` holds now, read from the query cache, not by observing the query: an
 * observer hands the query its own options each time it renders, and one without the page's query
 * function left the record's query unable to read the record again (every refetch failed with
 * "Missing queryFn", so a thing linked on an arc's page never showed there).
 */
export function useLoadedData<T>(key: QueryKey): T | undefined {
  const queryClient = useQueryClient();
  const hash = hashKey(key);
  const subscribe = useCallback(
    (onChange: () => void) =>
      queryClient.getQueryCache().subscribe((event) => {
        if (event.query.queryHash === hash) onChange();
      }),
    [queryClient, hash],
  );
  return useSyncExternalStore(subscribe, () => queryClient.getQueryCache().get<T>(hash)?.state.data);
}

/** The pages to offer now: remembered, visible to the user as they act now, not the one open. */
export function useRecentPages(campaignSlug: string): RecentPage[] {
  const userId = useMe()?.id;
  const { canEdit } = useCampaignAccess();
  const { pathname } = useLocation();
  if (userId === undefined) return [];
  return offeredPages(recentPages(localStorage, recentPagesKey(userId, campaignSlug)), canEdit).filter((p) => recentPageAddress(campaignSlug, p) !== pathname);
}
