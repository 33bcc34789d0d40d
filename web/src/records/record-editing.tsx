// What the thing, arc and campaign pages share: the record's one editing state (records/), keyed by
// the record's query (its page's layout and text editors: records/record-page.tsx).
import { useRecord, type ServerVersion } from './use-record';
import { campaignKey } from '../campaigns/api';
import { useCampaignAccess } from '../campaigns/access';
import { useDraftOwner } from '../account/api';

export type { EditedRecord } from './use-record';

/** The query key of a record: a thing or an arc by its slug, or the campaign itself. */
export function recordKey(campaignSlug: string, kind: 'thing' | 'arc' | 'campaign', recordSlug = '') {
  return kind === 'campaign' ? ([...campaignKey(campaignSlug), 'record'] as const) : ([...campaignKey(campaignSlug), kind, recordSlug] as const);
}

export function useRecordEditing<R extends Record<string, unknown>, P extends Record<string, unknown>>(options: {
  campaignSlug: string;
  kind: 'thing' | 'arc' | 'campaign';
  recordSlug?: string;
  load: () => Promise<ServerVersion<R>>;
  save: (patch: Partial<P>, ifMatch: string | undefined, init: { keepalive: boolean }) => Promise<ServerVersion<R>>;
}) {
  // The player view reads a redacted version: it has an editing state of its own, so the game
  // master's editors never open on (or save over) what a player sees.
  const { viewingAsPlayer } = useCampaignAccess();
  const key = recordKey(options.campaignSlug, options.kind, options.recordSlug);
  const draftOwner = useDraftOwner();
  return useRecord<R, P>({
    queryKey: viewingAsPlayer ? [...key, 'as-player'] : key,
    draftPrefix: `${options.campaignSlug}.${options.kind}`,
    load: options.load,
    save: options.save,
    draftOwner,
    // The player view writes nothing: the game master's drafts are neither offered nor weighed there.
    keepsDrafts: !viewingAsPlayer,
  });
}
