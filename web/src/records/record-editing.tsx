// What the thing, arc and campaign pages share: the record's one editing state (records/), keyed by
// the record's query (its page's layout and text editors: records/record-page.tsx).
import { useRecord, type ServerVersion } from './use-record';
import { recordKey } from '../campaigns/api';
import { useCampaignAccess } from '../campaigns/access';
import { useDraftOwner } from '../account/api';

export type { EditedRecord } from './use-record';

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
  const queryKey = recordKey(options.campaignSlug, options.kind, options.recordSlug, viewingAsPlayer);
  const draftOwner = useDraftOwner();
  return useRecord<R, P>({
    queryKey,
    draftPrefix: `${options.campaignSlug}.${options.kind}`,
    load: options.load,
    save: options.save,
    draftOwner,
    // The player view writes nothing: the game master's drafts are neither offered nor weighed there.
    keepsDrafts: !viewingAsPlayer,
  });
}
