// What every record page reads besides the record: its rendering and its backlinks (keys under the campaign's).
import { useQuery, type QueryKey, type UseQueryResult } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { campaignKey, openedAt, startEarly, takeEarly } from '../campaigns/api';
import { usePageDrawn } from '../ui/page-drawn';

export { takeEarly };

/** Starts a thing's or an arc's page's requests (the record by `load`, its rendering) if the browser opened the app at its address (a first load, not a move inside the app). */
export function startRecordPage(kind: 'things' | 'arcs', load: (campaignSlug: string, recordSlug: string) => Promise<unknown>): void {
  const match = openedAt(new RegExp(`^/campaigns/([^/]+)/${kind}/([^/]+)/?$`));
  if (!match) return;
  const [campaignSlug, recordSlug] = match as [string, string];
  startEarly(['record', kind, campaignSlug, recordSlug], () => load(campaignSlug, recordSlug));
  startEarly(['rendered', kind, campaignSlug, recordSlug], () => loadRendered(campaignSlug, kind, recordSlug).then(preloadFirstImage));
}

/**
 * Asks for a rendering's first eager image (the one the server marks `fetchpriority="high"`, likely
 * what the page paints largest) as soon as the rendering is in, not once the page is drawn: a
 * preload with the img's own srcset and sizes, which the img then takes (one request, not two).
 */
function preloadFirstImage(fields: Record<string, string>): Record<string, string> {
  for (const html of Object.values(fields)) {
    const tag = /<img\b[^>]*\bfetchpriority="high"[^>]*>/i.exec(html)?.[0];
    const img = tag ? new DOMParser().parseFromString(tag, 'text/html').querySelector('img') : null;
    if (!img) continue;
    const link = document.createElement('link');
    link.rel = 'preload';
    link.as = 'image';
    link.href = img.getAttribute('src') ?? '';
    if (img.hasAttribute('srcset')) link.imageSrcset = img.getAttribute('srcset')!;
    if (img.hasAttribute('sizes')) link.imageSizes = img.getAttribute('sizes')!;
    link.fetchPriority = 'high';
    document.head.append(link);
    break;
  }
  return fields;
}

/** Starts the campaign home's rendered description if the browser opened the app at the home (a first load). */
export function startCampaignHome(): void {
  const match = openedAt(/^\/campaigns\/([^/]+)\/?$/);
  if (match) startEarly(['rendered', 'campaign', match[0]!, ''], () => loadRendered(match[0]!, 'campaign'));
}

// When each rendering was asked for (performance.now()): one asked for before the record shown
// beside it was read may be older than the record (records/record-page-standin.tsx).
const askedAt = new WeakMap<object, number>();

/** How recent a rendering is, and how to read it again: for the text shown as read. */
export interface Reading {
  askedAt: number;
  reread: () => void;
}

export function readingOf(query: UseQueryResult<Record<string, string>>): Reading | undefined {
  const data = query.data;
  return data ? { askedAt: askedAt.get(data) ?? -Infinity, reread: () => void query.refetch({ cancelRefetch: false }) } : undefined;
}

export function useRendered(slug: string, kind: 'things' | 'arcs' | 'campaign', recordSlug?: string) {
  return useQuery({
    queryKey: [...campaignKey(slug), 'rendered', kind, recordSlug ?? ''],
    // Each answer its own object, so each carries when it was asked for.
    structuralSharing: false,
    queryFn: async (): Promise<Record<string, string>> => {
      const { at, answer } = takeEarly(['rendered', kind, slug, recordSlug ?? ''], () => loadRendered(slug, kind, recordSlug));
      const fields = await answer;
      askedAt.set(fields, at);
      return fields;
    },
  });
}

async function loadRendered(slug: string, kind: 'things' | 'arcs' | 'campaign', recordSlug?: string): Promise<Record<string, string>> {
  if (kind === 'campaign') return (await call(api.GET('/api/campaigns/{campaignSlug}/rendered', { params: { path: { campaignSlug: slug } } }))).fields;
  // A thing's and an arc's properties come rendered too (links with their target's current name), under `properties`.
  if (kind === 'things') {
    const answer = await call(api.GET('/api/campaigns/{campaignSlug}/things/{thingSlug}/rendered', { params: { path: { campaignSlug: slug, thingSlug: recordSlug! } } }));
    return { ...answer.fields, properties: answer.properties };
  }
  const answer = await call(api.GET('/api/campaigns/{campaignSlug}/arcs/{arcSlug}/rendered', { params: { path: { campaignSlug: slug, arcSlug: recordSlug! } } }));
  return { ...answer.fields, properties: answer.properties };
}

export function useBacklinks(slug: string, kind: 'things' | 'arcs', recordSlug: string) {
  return useQuery({
    queryKey: [...campaignKey(slug), 'backlinks', kind, recordSlug],
    // Below the text: asked for once the page's text is drawn (ui/page-drawn.ts).
    enabled: usePageDrawn(),
    queryFn: () =>
      kind === 'things'
        ? call(api.GET('/api/campaigns/{campaignSlug}/things/{thingSlug}/backlinks', { params: { path: { campaignSlug: slug, thingSlug: recordSlug } } }))
        : call(api.GET('/api/campaigns/{campaignSlug}/arcs/{arcSlug}/backlinks', { params: { path: { campaignSlug: slug, arcSlug: recordSlug } } })),
  });
}

/**
 * The server's version of a record read afresh for a conflict (records/use-record.tsx): outside the
 * campaign's key, so no write's refresh reads it again; one per state of the record's editing.
 */
export const conflictKey = (recordKey: QueryKey, at: string) => ['conflict', ...recordKey, at] as const;
