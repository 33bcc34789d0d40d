// A record as a page to read and write in place (things, arcs, the campaign's description): the
// title is the page's heading and is edited where it stands, the text is the editor itself (no mode
// to open and close), and what is not writing (type, visibility, address, history, delete) sits in
// a details panel and at the foot of the page, out of the writing path. Print: app/print.css.
import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { ApiError, messageOf } from '../api/client';
import { ErrorMessage, Field } from '../ui/field';
import { Rendered } from '../ui/rendered';
import { useMe } from '../account/api';
import { useRefreshCampaign } from '../campaigns/api';
import { EDITING_ATTRIBUTE, RecordRichField, type EditedRecord } from './use-record';
import { changeAddress } from './page-api';
import { TextStandIn, useCurrentReading, useKeysKeptOnLeave } from './record-page-standin';
import type { Reading } from './api';
import { LandingContext, type Landing } from '../editor/landing';
import './record-page.css';
import '../app/print.css';

/** The editable area of a record's text, where the title's Enter and a click on the loading text land. */
const editableIn = (element: Element | null) => element?.querySelector<HTMLElement>('[contenteditable="true"]') ?? null;

/** Puts the caret in an editor's text: at its start or its end. */
function focusText(editable: HTMLElement, at: 'start' | 'end') {
  editable.focus();
  const selection = window.getSelection();
  if (!selection) return;
  selection.selectAllChildren(editable);
  if (at === 'start') selection.collapseToStart();
  else selection.collapseToEnd();
}

/** Moves the caret into the first text of the page (the title's Enter). */
export function focusFirstText() {
  const text = document.querySelector('.record-page .record-text');
  const editable = editableIn(text);
  if (editable) focusText(editable, 'start');
  else (text?.querySelector<HTMLElement>('.record-text-standin') ?? text?.querySelector<HTMLElement>('button'))?.focus();
}

/** Whether a rich text holds nothing at all (no word, no image, no mention). */
export function isEmptyText(value: unknown): boolean {
  if (!Array.isArray(value)) return true;
  const emptyText = (child: unknown) => typeof child === 'object' && child !== null && (child as { text?: unknown }).text === '';
  return value.every((node: unknown) => {
    const element = typeof node === 'object' && node !== null ? (node as { type?: unknown; children?: unknown }) : {};
    return element.type === 'paragraph' && Array.isArray(element.children) && element.children.every(emptyText);
  });
}

/**
 * The record's name as the page's heading, edited where it stands. Enter moves the caret into the
 * text; Escape puts back the name it had when the title took the focus. A blank name is never sent
 * (the server refuses one): the title says so and the record keeps its name.
 */
export function RecordTitle({ value, generation, onName, error, label = 'Name' }: { value: string; generation: number; onName: (name: string) => void; error?: string | undefined; label?: string }) {
  const [blank, setBlank] = useState(false);
  const kept = useRef(value);
  const area = useRef<HTMLTextAreaElement>(null);
  // A textarea wraps a long name over lines; it grows with its text where CSS's field-sizing is missing.
  const fit = () => {
    const element = area.current;
    if (!element || CSS.supports('field-sizing', 'content')) return;
    element.style.height = 'auto';
    element.style.height = `${element.scrollHeight}px`;
  };
  useLayoutEffect(fit, [generation]);
  const send = (text: string) => {
    const name = text.replace(/\s*\n\s*/g, ' ');
    const isBlank = name.trim() === '';
    setBlank(isBlank);
    if (!isBlank) onName(name);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      focusFirstText();
    } else if (event.key === 'Escape' && event.currentTarget.value !== kept.current) {
      event.preventDefault();
      event.currentTarget.value = kept.current;
      send(kept.current);
      fit();
    }
  };
  const message = blank ? `A name is needed: until it has one, it keeps the name “${value}”.` : error;
  return (
    <>
      {/* A newer version is not swapped in under a caret in the title. */}
      <h1 id="record-title" className="record-title" {...{ [EDITING_ATTRIBUTE]: '' }}>
        <textarea
          key={generation}
          ref={area}
          rows={1}
          aria-label={label}
          aria-invalid={message ? true : undefined}
          aria-describedby={message ? 'record-title-error' : undefined}
          defaultValue={value}
          spellCheck
          onFocus={(e) => (kept.current = e.currentTarget.value.trim() === '' ? kept.current : e.currentTarget.value)}
          onKeyDown={onKeyDown}
          onChange={(e) => {
            send(e.target.value);
            fit();
          }}
        />
      </h1>
      {message && (
        <p className="error" id="record-title-error" role="alert">
          {message}
        </p>
      )}
    </>
  );
}

/**
 * One rich-text field of a record, edited where it is read. Until the editor's code has arrived the
 * server's rendering stands in its place (no empty flash, no jump), and a click on it puts the caret
 * in the editor as soon as it is there. Ctrl+click (⌘+click) on a mention opens what it names.
 */
export function RecordText<R extends Record<string, unknown>, P extends Record<string, unknown>>({
  edited,
  field,
  label,
  campaignSlug,
  rendered,
  reading,
  focusOnOpen = false,
  deferEditor = false,
}: {
  edited: EditedRecord<R, P>;
  field: keyof P & string;
  label: string;
  campaignSlug: string;
  rendered: string | undefined;
  /** When the rendering was asked for (records/api.ts readingOf): with deferEditor, it is shown as read only if no older than the record. */
  reading?: Reading | undefined;
  focusOnOpen?: boolean;
  /** Show the text as read (the server's rendering) until the writer reaches for it: the page's first paint waits for neither the editor's code nor its mount. */
  deferEditor?: boolean;
}) {
  const me = useMe();
  const box = useRef<HTMLDivElement>(null);
  const wanted = useRef<'start' | 'end' | undefined>(focusOnOpen ? 'end' : undefined);
  const [landing] = useState<Landing>(() => ({ opened: false, keys: [] }));
  // The rendering is the server's version: unsent edits, a restored draft or a newer version open the editor at once.
  const [open, setOpen] = useState(() => !deferEditor || focusOnOpen || rendered === undefined || edited.generation > 0 || Object.keys(edited.state.pending).length > 0);
  const [opened, setOpened] = useState(!deferEditor);
  useKeysKeptOnLeave(landing, () => edited.state.shown(field), (value) => edited.state.edit({ [field]: value } as Partial<P>));
  const current = useCurrentReading(edited.state.queryKey, edited.state.server?.etag, edited.record[field], rendered, reading, !opened);
  const state = edited.state;
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const land = () => {
      const editable = editableIn(element);
      if (editable && element.querySelector('.record-text-standin:not([hidden])')) {
        // The editor is there (what the writer did has landed in it): the stand-in goes before the next paint, so nothing moves.
        element.querySelector<HTMLElement>('.record-text-standin')!.hidden = true;
        setOpened(true);
        // The keys that waited are the editor's now; it reports what they changed before the next task.
        setTimeout(() => state.landed(), 0);
      }
      if (!editable || !wanted.current) return;
      focusText(editable, wanted.current);
      wanted.current = undefined;
    };
    land();
    const observer = new MutationObserver(land);
    observer.observe(element, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, [state]);
  const fallback = (
    <div className="record-text-loading" onMouseDown={() => (wanted.current = 'end')}>
      <Rendered html={rendered} label={label} empty={null} />
    </div>
  );
  if (!deferEditor) {
    return (
      <div ref={box} className="record-text">
        <RecordRichField edited={edited} field={field} label={label} campaignSlug={campaignSlug} canUpload={me?.premium ?? false} fallback={fallback} />
      </div>
    );
  }
  // The stand-in stays (the focus and the keys with it) until the editor has mounted beside it.
  return (
    <div ref={box} className="record-text">
      <LandingContext.Provider value={landing}>{open && <RecordRichField edited={edited} field={field} label={label} campaignSlug={campaignSlug} canUpload={me?.premium ?? false} fallback={<></>} />}</LandingContext.Provider>
      {!opened && (
        <TextStandIn
          html={rendered}
          // Not in yet (the editor is opening meanwhile): no empty text is shown or announced in its place.
          current={current && rendered !== undefined}
          label={label}
          onLanding={(change) => {
            const keys = landing.keys.length;
            change(landing);
            // A key that writes, pressed before the editor is there, is an edit of the version shown: the
            // page says "Unsaved changes", and a newer version meanwhile is held back for it (a conflict).
            if (landing.keys.slice(keys).some((key) => !('move' in key))) edited.state.typedAhead();
          }}
          onOpen={() => setOpen(true)}
        />
      )}
    </div>
  );
}

/** An empty field of a record (an arc's hook…): one line that opens its editor in place. */
export function EmptyText({ prompt, onOpen }: { prompt: string; onOpen: () => void }) {
  return (
    <button type="button" className="write-prompt" onClick={onOpen}>
      {prompt}
    </button>
  );
}

/** The record's type, visibility and address: a panel closed until it is wanted. */
export function RecordDetails({ children }: { children: ReactNode }) {
  return (
    <details className="record-details">
      <summary>Details</summary>
      <div className="record-details-body">{children}</div>
    </details>
  );
}

/** The page's foot: history and delete, out of the writing path. */
export function RecordActions({ children }: { children: ReactNode }) {
  return (
    <footer className="record-actions" aria-label="Page actions">
      {children}
    </footer>
  );
}

/** The record's address (its URL), changed on its own: a taken or malformed one is shown at the field. Unsent edits are saved first, at the old address. */
export function AddressField({ campaignSlug, kind, slug, state }: { campaignSlug: string; kind: 'things' | 'arcs'; slug: string; state: { flush: () => Promise<void>; etag: () => string | undefined } }) {
  const [value, setValue] = useState(slug);
  const [error, setError] = useState<string>();
  const navigate = useNavigate();
  const refresh = useRefreshCampaign(campaignSlug);
  const save = async () => {
    if (value === slug) return;
    setError(undefined);
    try {
      await state.flush();
      const updated = await changeAddress(campaignSlug, kind, slug, value, state.etag());
      await refresh();
      await navigate(`/campaigns/${campaignSlug}/${kind}/${updated.slug}`, { replace: true });
    } catch (e) {
      setError(e instanceof ApiError ? (e.fieldMessage('slug') ?? e.message) : messageOf(e));
    }
  };
  const prefix = `${window.location.origin}/campaigns/${campaignSlug}/${kind}/`;
  return (
    <form
      className="inline-form small address-form"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <Field label="Address" value={value} onChange={(e) => setValue(e.target.value)} error={error} hint={<span className="address-url">{prefix + value}</span>} />
      <button type="submit" disabled={value === slug}>
        Change address
      </button>
    </form>
  );
}

/** A record that cannot be shown: gone, or not loaded. */
export function RecordError({ error, what }: { error: unknown; what: string }) {
  return (
    <main className="record">
      <h1>{error instanceof ApiError && error.status === 404 ? `This ${what} does not exist (any more)` : `The ${what} could not be loaded`}</h1>
      <ErrorMessage>{messageOf(error)}</ErrorMessage>
    </main>
  );
}
