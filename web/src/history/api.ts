// The revisions of a thing, an arc or the campaign (CONTRACT "History and trash"): owner and game
// masters only. Their queries sit under the campaign's key, so every save refreshes them.
import { useQuery } from '@tanstack/react-query';
import { api, call, callWithEtag, type Answer } from '../api/client';
import { campaignKey } from '../campaigns/api';

export type HistoryKind = 'thing' | 'arc' | 'campaign';
export type RevisionSummary = Answer<'listThingRevisions'>[number];

/** A revision with its snapshot: the record's fields as they were. */
export interface Revision extends RevisionSummary {
  record: Record<string, unknown>;
}

export interface RecordRef {
  kind: HistoryKind;
  campaignSlug: string;
  /** The thing's or arc's slug ('' for the campaign). */
  recordSlug: string;
}

export const revisionsKey = (ref: RecordRef) => [...campaignKey(ref.campaignSlug), 'revisions', ref.kind, ref.recordSlug] as const;

function listRevisions({ kind, campaignSlug, recordSlug }: RecordRef): Promise<RevisionSummary[]> {
  if (kind === 'thing') return call(api.GET('/api/campaigns/{campaignSlug}/things/{thingSlug}/revisions', { params: { path: { campaignSlug, thingSlug: recordSlug } } }));
  if (kind === 'arc') return call(api.GET('/api/campaigns/{campaignSlug}/arcs/{arcSlug}/revisions', { params: { path: { campaignSlug, arcSlug: recordSlug } } }));
  return call(api.GET('/api/campaigns/{campaignSlug}/revisions', { params: { path: { campaignSlug } } }));
}

function getRevision({ kind, campaignSlug, recordSlug }: RecordRef, id: number): Promise<Revision> {
  const revisionId = String(id);
  if (kind === 'thing') return call(api.GET('/api/campaigns/{campaignSlug}/things/{thingSlug}/revisions/{revisionId}', { params: { path: { campaignSlug, thingSlug: recordSlug, revisionId } } }));
  if (kind === 'arc') return call(api.GET('/api/campaigns/{campaignSlug}/arcs/{arcSlug}/revisions/{revisionId}', { params: { path: { campaignSlug, arcSlug: recordSlug, revisionId } } }));
  return call(api.GET('/api/campaigns/{campaignSlug}/revisions/{revisionId}', { params: { path: { campaignSlug, revisionId } } }));
}

export function useRevisions(ref: RecordRef) {
  return useQuery({ queryKey: revisionsKey(ref), queryFn: () => listRevisions(ref) });
}

export function useRevision(ref: RecordRef, id: number | undefined) {
  return useQuery({ queryKey: [...revisionsKey(ref), id ?? 'none'], queryFn: () => getRevision(ref, id!), enabled: id !== undefined });
}

export function nameRevision({ kind, campaignSlug, recordSlug }: RecordRef, id: number, name: string | null): Promise<RevisionSummary> {
  const revisionId = String(id);
  const body = { name };
  if (kind === 'thing') return call(api.PUT('/api/campaigns/{campaignSlug}/things/{thingSlug}/revisions/{revisionId}', { params: { path: { campaignSlug, thingSlug: recordSlug, revisionId } }, body }));
  if (kind === 'arc') return call(api.PUT('/api/campaigns/{campaignSlug}/arcs/{arcSlug}/revisions/{revisionId}', { params: { path: { campaignSlug, arcSlug: recordSlug, revisionId } }, body }));
  return call(api.PUT('/api/campaigns/{campaignSlug}/revisions/{revisionId}', { params: { path: { campaignSlug, revisionId } }, body }));
}

/** Restores a revision as a new change, based on the version shown (If-Match): the record as it is now, with its ETag. */
export async function restoreRevision({ kind, campaignSlug, recordSlug }: RecordRef, id: number, ifMatch: string | undefined): Promise<{ data: Record<string, unknown>; etag: string | undefined }> {
  const revisionId = String(id);
  // The route honours If-Match but its OpenAPI parameters do not list it: sent as a plain header.
  const headers = ifMatch ? { 'if-match': ifMatch } : {};
  if (kind === 'thing') return callWithEtag(api.POST('/api/campaigns/{campaignSlug}/things/{thingSlug}/revisions/{revisionId}/restore', { params: { path: { campaignSlug, thingSlug: recordSlug, revisionId } }, headers }));
  if (kind === 'arc') return callWithEtag(api.POST('/api/campaigns/{campaignSlug}/arcs/{arcSlug}/revisions/{revisionId}/restore', { params: { path: { campaignSlug, arcSlug: recordSlug, revisionId } }, headers }));
  return callWithEtag(api.POST('/api/campaigns/{campaignSlug}/revisions/{revisionId}/restore', { params: { path: { campaignSlug, revisionId } }, headers }));
}
