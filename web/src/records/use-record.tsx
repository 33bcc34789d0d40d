// A record's editing state (records/record-state.ts) bound to React: its query, the banner (a draft
// offered back, a conflict settled, the save status) and the editors that read and write it. Every
// component that shows the record calls useRecord with the same query key and so shares one state.
import { useQuery, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useContext, useEffect, useLayoutEffect, useState, useSyncExternalStore, type ReactNode } from 'react';
import type { Descendant } from 'slate';
import { plainText } from '../editor/plain-text';
import { emptyDocument } from '../editor/types';
import { LazyRichTextEditor as RichTextEditor } from '../editor/lazy-editor';
import { LandingContext, type Landing } from '../editor/landing';
import { ConflictDialog, DraftOffer, SaveStatus } from '../ui/save-status';
import { conflictKey } from './api';
import { fetchRecord, listenToOtherTabs, recordState, REFRESH_WHILE_EDITING_MS, type RecordSource, type RecordState, type ServerVersion } from './record-state';

export type { ServerVersion } from './record-state';

/** Marks where a record's own fields are edited: a newer version is not swapped in under a caret there. */
export const EDITING_ATTRIBUTE = 'data-record-editing';

/** Marks a rich-text editor among them: it keeps its caret when it starts again from new content. */
const KEEPS_CARET_ATTRIBUTE = 'data-keeps-caret';

const editorHasFocus = (): boolean | 'text' => {
  const editing = document.activeElement?.closest(`[${EDITING_ATTRIBUTE}]`);
  return editing ? (editing.hasAttribute(KEEPS_CARET_ATTRIBUTE) ? 'text' : true) : false;
};

export interface EditedRecord<R extends Record<string, unknown>, P extends Record<string, unknown>> {
  /** The server's latest acknowledged version. */
  record: R;
  state: RecordState<R, P>;
  /** Changes whenever the editors must start again from new content (a restored draft, the server's newer version). */
  generation: number;
  /** What a field shows: the unsent edit, else the server's latest. */
  value: (field: keyof P & string) => unknown;
  banner: ReactNode;
}

export function useRecord<R extends Record<string, unknown>, P extends Record<string, unknown>>(
  options: { queryKey: QueryKey; draftPrefix: string } & RecordSource<R, P>,
): { loading: true; error: unknown } | ({ loading: false; error: undefined } & EditedRecord<R, P>) {
  const queryClient = useQueryClient();
  const state = recordState<R, P>(options.queryKey, options.draftPrefix, { load: options.load, save: options.save, draftOwner: options.draftOwner, keepsDrafts: options.keepsDrafts }, queryClient);
  useSyncExternalStore(state.subscribe, () => state.version);
  const query = useQuery({
    queryKey: options.queryKey,
    queryFn: () => fetchRecord(options.queryKey, options.load),
    refetchInterval: state.editorsOpen > 0 ? REFRESH_WHILE_EDITING_MS : false,
  });
  useEffect(() => {
    if (query.data) state.receive(query.data, editorHasFocus);
  }, [query.data, state]);

  // Leaving the page or hiding the tab saves at once; the record is read again when the tab comes back.
  useEffect(() => {
    listenToOtherTabs();
    const onVisibility = () => (document.visibilityState === 'hidden' ? state.leave() : state.refresh());
    const onHide = () => state.leave();
    document.addEventListener('visibilitychange', onVisibility);
    window.addEventListener('pagehide', onHide);
    return () => {
      document.removeEventListener('visibilitychange', onVisibility);
      window.removeEventListener('pagehide', onHide);
      state.leave();
    };
  }, [state]);

  const record = state.server;
  if (!record) return { loading: true, error: query.error };
  const banner = (
    <>
      {state.offer && <DraftOffer at={state.offer.at} onRestore={() => state.restoreOffer()} onDiscard={() => state.dropOffer()} />}
      {state.state === 'conflict' && <ConflictLoader state={state} />}
      <SaveStatus state={state.state} error={state.error} />
    </>
  );
  return { loading: false, error: undefined, record: record.data, state, generation: state.generation, value: (field) => state.value(field), banner };
}

/** Lists that are not rich text: a record's properties, tags and aliases. */
const STRUCTURE_FIELDS = new Set(['properties', 'tags', 'aliases']);

function richText(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .filter(([field, value]) => !STRUCTURE_FIELDS.has(field) && Array.isArray(value) && (value.length === 0 || (typeof value[0] === 'object' && value[0] !== null && 'children' in value[0])))
    .map(([field, value]) => `${field}:\n${plainText(value as Descendant[])}`)
    .join('\n\n');
}

/** A structure field as text: tags and aliases by comma, properties one a line. */
function structureText(value: unknown[]): string {
  return value
    .map((item) => (typeof item === 'object' && item !== null && 'key' in item && 'value' in item ? `${String(item.key)}: ${JSON.stringify(item.value)}` : String(item)))
    .join(value.some((item) => typeof item === 'object') ? '\n' : ', ');
}

function describe(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .map(([field, value]) => (Array.isArray(value) ? `${field}:\n${STRUCTURE_FIELDS.has(field) ? structureText(value) : plainText(value as Descendant[])}` : `${field}:\n${String(value)}`))
    .join('\n\n');
}

/**
 * The conflict dialog takes the focus (a key must not choose a version), so it waits until the
 * typing has paused this long: meanwhile the status says "Someone else changed this", the keys go on
 * into the text, and the dialog shows every word of them.
 */
const CONFLICT_PAUSE_MS = 1000;

/** Whether the record's typing has paused for CONFLICT_PAUSE_MS (checked again when it will have). */
function useTypingPaused(state: { lastEdit: number }): boolean {
  const [paused, setPaused] = useState(false);
  const { lastEdit } = state;
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const check = () => {
      const wait = lastEdit + CONFLICT_PAUSE_MS - performance.now();
      setPaused(wait <= 0);
      if (wait > 0) timer = setTimeout(check, wait);
    };
    check();
    return () => clearTimeout(timer);
  }, [lastEdit]);
  return paused;
}

/** A 412 or a newer version met while editing: both versions side by side, read from the server now. */
function ConflictLoader<R extends Record<string, unknown>, P extends Record<string, unknown>>({ state }: { state: RecordState<R, P> }) {
  // Read once per conflict and per version of the server's met meanwhile (not again on each key typed while it waits).
  const current = useQuery({ queryKey: conflictKey(state.queryKey, `${state.conflicts} ${state.server?.etag ?? ''}`), queryFn: () => state.source.load(), staleTime: 0, gcTime: 0 });
  const paused = useTypingPaused(state);
  if (!current.data || !paused) return null;
  const answer: ServerVersion<R> = current.data;
  const mine = state.mine();
  return (
    <ConflictDialog
      mine={Object.keys(state.pending).length > 0 ? describe(mine) : richText(mine)}
      theirs={richText(answer.data)}
      onKeepMine={() => void state.keepMine(answer)}
      onTakeTheirs={() => state.takeTheirs(answer)}
    />
  );
}

/** One rich-text field's editor on a record's state: it opens on what the state holds now and writes every change to it. */
export function RecordRichField<R extends Record<string, unknown>, P extends Record<string, unknown>>({
  edited,
  field,
  label,
  campaignSlug,
  canUpload,
  fallback,
}: {
  edited: EditedRecord<R, P>;
  field: keyof P & string;
  label: string;
  campaignSlug: string;
  canUpload: boolean;
  /** What stands in the editor's place until its code has arrived. */
  fallback?: ReactNode;
}) {
  const { state } = edited;
  useEffect(() => {
    state.editorOpened();
    return () => state.editorClosed();
  }, [state]);
  const value = state.shown(field);
  const initial = Array.isArray(value) && value.length > 0 ? (value as Descendant[]) : emptyDocument();
  // Where the keys typed before the editor was there land (records/record-page.tsx), else one of its own.
  const outer = useContext(LandingContext);
  const [own] = useState<Landing>(() => ({ opened: false, keys: [] }));
  const landing = outer ?? own;
  const [box, setBox] = useState<HTMLDivElement | null>(null);
  return (
    <div ref={setBox} {...{ [EDITING_ATTRIBUTE]: '', [KEEPS_CARET_ATTRIBUTE]: '' }}>
      <LandingContext.Provider value={landing}>
        <KeepsCaret key={edited.generation} box={box} landing={landing}>
          <RichTextEditor label={label} campaignSlug={campaignSlug} canUpload={canUpload} recordGmOnly={edited.value('visibility') === 'gm'} fallback={fallback} initialValue={initial} onChange={(next) => state.update({ [field]: next } as Partial<P>)} />
        </KeepsCaret>
      </LandingContext.Provider>
    </div>
  );
}

/**
 * One generation of an editor: when it starts again from new content (the server's newer version
 * taken while nothing here was unsent) with the caret in it, the next one takes the focus back and
 * the caret lands at the same place on the page (editor/typing.ts), so the next key is not lost.
 */
function KeepsCaret({ box, landing, children }: { box: HTMLDivElement | null; landing: Landing; children: ReactNode }) {
  useLayoutEffect(() => {
    const element = box;
    // Run as this generation goes, before its text leaves the page.
    return () => {
      if (!element?.isConnected || !element.contains(document.activeElement)) return;
      const selection = window.getSelection();
      const rect = selection && selection.rangeCount > 0 ? (selection.getRangeAt(0).getClientRects()[0] ?? selection.getRangeAt(0).getBoundingClientRect()) : undefined;
      landing.point = rect && rect.height > 0 ? { pageX: rect.left + window.scrollX, pageY: rect.top + rect.height / 2 + window.scrollY } : undefined;
      landing.opened = true;
    };
  }, [box, landing]);
  return children;
}
