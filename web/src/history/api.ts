// The revisions of a thing, an arc or the campaign (CONTRACT "History and trash"): owner and game
// masters only. Their queries sit under the campaign's key, so every save refreshes them.
import { useQuery } from '@tanstack/react-query';
import { send, sendWithEtag } from '../api/untyped';
import { campaignKey } from '../pages/queries';

export type HistoryKind = 'thing' | 'arc' | 'campaign';

export interface RevisionSummary {
  id: number;
  createdAt: string;
  author: { userId: number; name: string } | null;
  name: string | null;
  /** The fields changed from the revision before. */
  fields: string[];
}

export interface Revision {
  id: number;
  createdAt: string;
  author: { userId: number; name: string } | null;
  name: string | null;
  /** The record's fields as they were. */
  record: Record<string, unknown>;
}

export interface RecordRef {
  kind: HistoryKind;
  campaignSlug: string;
  /** The thing's or arc's slug ('' for the campaign). */
  recordSlug: string;
}

function revisionsPath({ kind, campaignSlug, recordSlug }: RecordRef): string {
  const campaign = `/api/campaigns/${encodeURIComponent(campaignSlug)}`;
  if (kind === 'campaign') return `${campaign}/revisions`;
  return `${campaign}/${kind === 'thing' ? 'things' : 'arcs'}/${encodeURIComponent(recordSlug)}/revisions`;
}

const revisionsKey = (ref: RecordRef) => [...campaignKey(ref.campaignSlug), 'revisions', ref.kind, ref.recordSlug] as const;

export function useRevisions(ref: RecordRef) {
  return useQuery({ queryKey: revisionsKey(ref), queryFn: () => send<RevisionSummary[]>('GET', revisionsPath(ref)) });
}

export function useRevision(ref: RecordRef, id: number | undefined) {
  return useQuery({
    queryKey: [...revisionsKey(ref), id ?? 'none'],
    queryFn: () => send<Revision>('GET', `${revisionsPath(ref)}/${id!}`),
    enabled: id !== undefined,
  });
}

export const nameRevision = (ref: RecordRef, id: number, name: string | null) => send<RevisionSummary>('PUT', `${revisionsPath(ref)}/${id}`, { body: { name } });

/** Restores a revision as a new change, based on the version shown (If-Match): the record as it is now, with its ETag. */
export const restoreRevision = (ref: RecordRef, id: number, ifMatch: string | undefined) => sendWithEtag<Record<string, unknown>>('POST', `${revisionsPath(ref)}/${id}/restore`, { ifMatch });
