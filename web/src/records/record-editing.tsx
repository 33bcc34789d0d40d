// What the thing, arc and campaign pages share: the record's one editing state (records/), keyed by
// the record's query, and its rich-text fields' editors.
import { RecordRichField, useRecord, type EditedRecord, type ServerVersion } from './use-record';
import { useMe } from '../account/api';
import { campaignKey } from '../campaigns/api';

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
  return useRecord<R, P>({
    queryKey: recordKey(options.campaignSlug, options.kind, options.recordSlug),
    draftPrefix: `${options.campaignSlug}.${options.kind}`,
    load: options.load,
    save: options.save,
  });
}

/** One rich-text field's editor on the record's editing state. */
export function RichField<R extends Record<string, unknown>, P extends Record<string, unknown>>({ edited, field, label, campaignSlug }: { edited: EditedRecord<R, P>; field: keyof P & string; label: string; campaignSlug: string }) {
  const me = useMe();
  return <RecordRichField edited={edited} field={field} label={label} campaignSlug={campaignSlug} canUpload={me?.premium ?? false} />;
}
