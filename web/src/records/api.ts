// What every record page reads besides the record: its rendering and its backlinks (keys under the campaign's).
import { useQuery, type QueryKey, type UseQueryResult } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { campaignKey } from '../campaigns/api';

// A record page's first requests, started when its code arrives on a first load (its module's top),
// not after the campaign's answer: the page's query takes the answer when it first runs (once, if
// it is fresh), so the record, its rendering and the first image come one round trip sooner.
const EARLY_FOR_MS = 30_000;
const early = new Map<string, { at: number; answer: Promise<unknown> }>();

function startEarly(name: readonly string[], request: () => Promise<unknown>): void {
  const answer = request();
  answer.catch(() => undefined); // A failure is the query's to show, if it runs.
  early.set(JSON.stringify(name), { at: performance.now(), answer });
}

/** The answer started early under `name` (once, while fresh), else `request`'s; and when it was asked for. */
export function takeEarly<T>(name: readonly string[], request: () => Promise<T>): { at: number; answer: Promise<T> } {
  const key = JSON.stringify(name);
  const started = early.get(key);
  early.delete(key);
  if (started && performance.now() - started.at < EARLY_FOR_MS) return started as { at: number; answer: Promise<T> };
  return { at: performance.now(), answer: request() };
}

/** Starts a thing's or an arc's page's requests (the record by `load`, its rendering) if the browser opened the app at its address (a first load, not a move inside the app). */
export function startRecordPage(kind: 'things' | 'arcs', load: (campaignSlug: string, recordSlug: string) => Promise<unknown>): void {
  const opened = performance.getEntriesByType('navigation')[0];
  if (!opened || new URL(opened.name).pathname !== window.location.pathname) return;
  const match = new RegExp(`^/campaigns/([^/]+)/${kind}/([^/]+)/?$`).exec(window.location.pathname);
  if (!match) return;
  const [campaignSlug, recordSlug] = [decodeURIComponent(match[1]!), decodeURIComponent(match[2]!)];
  startEarly(['record', kind, campaignSlug, recordSlug], () => load(campaignSlug, recordSlug));
  startEarly(['rendered', kind, campaignSlug, recordSlug], () => loadRendered(campaignSlug, kind, recordSlug));
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
export const conflictKey = (recordKey: QueryKey, version: number) => ['conflict', ...recordKey, version] as const;
