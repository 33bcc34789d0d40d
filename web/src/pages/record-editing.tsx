// What a thing page and an arc page share: the record read with its ETag, its changes saved as
// the user types (editor/saver.ts), an unsaved draft offered back, and a conflict settled.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import type { Descendant } from 'slate';
import { LazyRichTextEditor as RichTextEditor } from '../editor/lazy-editor';
import { plainText } from '../editor/plain-text';
import { readDraft, useSaver, type Draft, type Saver } from '../editor/saver';
import { emptyDocument } from '../editor/types';
import { ConflictDialog, DraftOffer, SaveStatus } from '../components/save-status';
import { useMe } from './layout';
import { campaignKey } from './queries';

export interface RecordEditing<R, P extends Record<string, unknown>> {
  record: R;
  saver: Saver<P>;
  /** Changes whenever the editors must start again from new content (a restored draft, their version). */
  generation: number;
  /** The value a field shows: the draft's if one was restored, else the record's. */
  fieldValue: <K extends keyof P & keyof R>(field: K) => R[K] | P[K];
  banner: ReactNode;
}

export function useRecordEditing<R extends Record<string, unknown>, P extends Record<string, unknown>>(options: {
  campaignSlug: string;
  kind: 'thing' | 'arc';
  recordSlug: string;
  load: () => Promise<{ data: R; etag: string | undefined }>;
  save: (patch: Partial<P>, ifMatch: string | undefined, init: { keepalive: boolean }) => Promise<string | undefined>;
}): { loading: true; error: unknown } | ({ loading: false; error: undefined } & RecordEditing<R, P>) {
  const queryClient = useQueryClient();
  const key = [...campaignKey(options.campaignSlug), options.kind, options.recordSlug] as const;
  const loaded = useQuery({ queryKey: key, queryFn: options.load, staleTime: Infinity, refetchOnWindowFocus: false });
  const record = loaded.data;
  const draftKey = record ? `${options.campaignSlug}.${options.kind}.${String(record.data.id)}` : '';
  const saver = useSaver<P>({
    draftKey,
    etag: record?.etag,
    save: options.save,
    onSaved: () => void queryClient.invalidateQueries({ queryKey: campaignKey(options.campaignSlug), predicate: (q) => q.queryKey[2] !== options.kind || q.queryKey[3] !== options.recordSlug }),
  });
  const [generation, setGeneration] = useState(0);
  const [restored, setRestored] = useState<Partial<P>>({});
  const [offer, setOffer] = useState<Draft<P> | undefined | null>(null);

  if (!record) return { loading: true, error: loaded.error };
  if (offer === null && draftKey) {
    const draft = readDraft<P>(draftKey);
    setOffer(draft && Object.keys(draft.patch).length > 0 ? draft : undefined);
  }

  const fieldValue = <K extends keyof P & keyof R>(field: K) => (field in restored ? (restored[field] as P[K]) : record.data[field]);
  const mine = Object.entries({ ...restored, ...(readDraft<P>(draftKey)?.patch ?? {}) })
    .map(([field, value]) => `${field}:\n${Array.isArray(value) ? plainText(value) : String(value)}`)
    .join('\n\n');

  const banner = (
    <>
      {offer && (
        <DraftOffer
          at={offer.at}
          onRestore={() => {
            setRestored(offer.patch);
            setOffer(undefined);
            setGeneration((g) => g + 1);
            saver.update(offer.patch);
          }}
          onDiscard={() => {
            setOffer(undefined);
            saver.discard();
          }}
        />
      )}
      {saver.state === 'conflict' && (
        <ConflictLoader
          load={options.load}
          mine={mine}
          onKeepMine={(etag) => void saver.keepMine(etag)}
          onTakeTheirs={(current) => {
            saver.discard();
            setRestored({});
            queryClient.setQueryData(key, current);
            setGeneration((g) => g + 1);
          }}
        />
      )}
      <SaveStatus state={saver.state} error={saver.error} />
    </>
  );
  return { loading: false, error: undefined, record: record.data, saver, generation, fieldValue, banner };
}

function ConflictLoader<R>({ load, mine, onKeepMine, onTakeTheirs }: { load: () => Promise<{ data: R; etag: string | undefined }>; mine: string; onKeepMine: (etag: string | undefined) => void; onTakeTheirs: (current: { data: R; etag: string | undefined }) => void }) {
  const current = useQuery({ queryKey: ['conflict', mine], queryFn: load, staleTime: 0, gcTime: 0 });
  if (!current.data) return null;
  const text = Object.entries(current.data.data as Record<string, unknown>)
    .filter(([, value]) => Array.isArray(value) && value.length > 0 && typeof value[0] === 'object' && value[0] !== null && 'children' in value[0])
    .map(([field, value]) => `${field}:\n${plainText(value)}`)
    .join('\n\n');
  return <ConflictDialog mine={mine} theirs={text} onKeepMine={() => onKeepMine(current.data.etag)} onTakeTheirs={() => onTakeTheirs(current.data)} />;
}

/** One rich-text field's editor, wired to the saver. */
export function RichField({ label, campaignSlug, value, onChange }: { label: string; campaignSlug: string; value: unknown; onChange: (value: Descendant[]) => void }) {
  const initial = Array.isArray(value) && value.length > 0 ? (value as Descendant[]) : emptyDocument();
  const me = useMe();
  return <RichTextEditor label={label} campaignSlug={campaignSlug} canUpload={me?.premium ?? false} initialValue={initial} onChange={onChange} />;
}
