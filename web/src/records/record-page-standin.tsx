// A record's text shown as read until the writer reaches for it (the campaign home): the server's
// rendering stands where the editor will be, in the same box, so the page's first paint waits for
// neither the editor's code nor Slate's mount. The first pointer, focus or key on it opens the
// editor; the caret lands where the pointer went down (or at the start), and the keys pressed
// before the editor was there are typed into it in order, as the editor's own
// commands (editor/typing.ts). Ctrl+click on a mention opens what it names.
import { useEffect, useMemo, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import type { QueryKey } from '@tanstack/react-query';
import { landingAt, renderedWords, recordWords, typedWithoutEditor, type Landing, type PendingKey, type WordsAt } from '../editor/landing';
import type { Reading } from './api';

// When this tab first held each version of a record (performance.now()), by the record's key and
// version (the ETag's "id-version"): a rendering asked for before then may be older than the record.
const heldSince = new Map<string, number>();
function heldAt(recordKey: QueryKey, etag: string | undefined): number {
  const version = `${JSON.stringify(recordKey)} ${/^(?:W\/)?"(\d+-\d+)/.exec(etag ?? '')?.[1] ?? etag ?? ''}`;
  let at = heldSince.get(version);
  if (at === undefined) heldSince.set(version, (at = performance.now()));
  return at;
}

function sameWords(html: string, value: unknown): boolean {
  const template = document.createElement('template');
  template.innerHTML = html; // Inert: nothing in a template loads.
  return renderedWords(template.content) === recordWords(value);
}

/**
 * Whether the rendering may be shown as read beside the record held now: one asked for after this
 * version of the record was held, or one with the record's very words (after a reload, in a second
 * tab, the record can be newer than a rendering read at the same time). While `shown`, another is
 * read again.
 */
export function useCurrentReading(recordKey: QueryKey, etag: string | undefined, value: unknown, html: string | undefined, reading: Reading | undefined, shown: boolean): boolean {
  const words = useMemo(() => html !== undefined && sameWords(html, value), [html, value]);
  const current = reading === undefined || reading.askedAt >= heldAt(recordKey, etag) || words;
  const reread = reading?.reread;
  useEffect(() => {
    if (shown && !current) reread?.();
  }, [shown, current, reread]);
  return current;
}

/**
 * The page left (reloaded, closed, hidden) with keys pressed before the editor was there: they are
 * written into the text without it (editor/landing.ts) as an edit of the record, before the record's
 * editing state saves what it holds on leaving (records/use-record.tsx): a capture listener on the
 * window hears both events first.
 */
export function useKeysKeptOnLeave(landing: Landing, value: () => unknown, edit: (value: unknown[]) => void): void {
  const latest = useRef({ value, edit });
  useEffect(() => {
    latest.current = { value, edit };
  });
  useEffect(() => {
    const keep = () => {
      if (landing.keys.length === 0 || (document.visibilityState !== 'hidden' && !pageHiding)) return;
      const typed = typedWithoutEditor(latest.current.value(), landing.keys.splice(0));
      if (typed) latest.current.edit(typed);
    };
    let pageHiding = false;
    const onPageHide = () => {
      pageHiding = true;
      keep();
    };
    window.addEventListener('visibilitychange', keep, { capture: true });
    window.addEventListener('pagehide', onPageHide, { capture: true });
    return () => {
      window.removeEventListener('visibilitychange', keep, { capture: true });
      window.removeEventListener('pagehide', onPageHide, { capture: true });
    };
  }, [landing]);
}

/** A key pressed on the stand-in, as what it will do in the editor (undefined: not kept). */
function queued(event: KeyboardEvent): PendingKey | undefined {
  const mod = event.ctrlKey || event.metaKey;
  if (event.altKey || event.nativeEvent.isComposing) return undefined;
  if (mod && !event.shiftKey && (event.key === 'End' || event.key === 'Home')) return { move: event.key === 'End' ? 'end' : 'start' };
  if (mod) return undefined;
  if (!event.shiftKey && (event.key === 'End' || event.key === 'Home')) return { move: event.key === 'End' ? 'line-end' : 'line-start' };
  if (event.key.length === 1) return { text: event.key };
  if (event.key === 'Enter') return { command: event.shiftKey ? 'soft-break' : 'break' };
  if (event.key === 'Backspace') return { command: 'delete-backward' };
  if (event.key === 'Delete') return { command: 'delete-forward' };
  return undefined;
}

/** Where a pointer at (x, y) of the window falls in the words of the rendering shown in `standIn`. */
function wordsAtPointer(standIn: HTMLElement, x: number, y: number): WordsAt | undefined {
  const root = standIn.querySelector('.rendered');
  const caret = document.caretPositionFromPoint?.(x, y);
  return root && caret ? landingAt(root, caret.offsetNode, caret.offset) : undefined;
}

/** The text as read, standing in for the editor (a textbox by the editor's name, so it is reached and announced as the editor is). */
export function TextStandIn({
  html,
  current,
  label,
  onLanding,
  onOpen,
}: {
  html: string | undefined;
  /** False while the rendering may be older than the record (or is not in yet): it keeps its place, unseen, until read again or until the editor is there. */
  current: boolean;
  label: string;
  onLanding: (change: (landing: Landing) => void) => void;
  onOpen: () => void;
}) {
  const opened = useRef(false);
  // Holding the focus (the writer reached for it; the editor is on its way), it stays shown even
  // when its rendering turns out older than the record: hidden, it would drop the focus, and the
  // keys typed on would go to the page instead of waiting for the editor.
  const [focused, setFocused] = useState(false);
  // Clicked or typed into since it took the focus (the focus alone, by Tab, is not reaching for it).
  const byHand = useRef(false);
  const open = () => {
    onLanding((landing) => (landing.opened = true));
    if (opened.current) return;
    opened.current = true;
    onOpen();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    // Tab once the writer reached for the text by hand (a click, a key; not the focus alone) is the
    // text's, as in the editor (a list item nested…); before that it is the page's, so the keyboard
    // passes the text by.
    const tab = event.key === 'Tab' && byHand.current && !event.ctrlKey && !event.metaKey && !event.altKey;
    const key: PendingKey | undefined = tab ? { command: event.shiftKey ? 'shift-tab' : 'tab' } : queued(event);
    if (!key) return;
    byHand.current = true;
    event.preventDefault();
    onLanding((landing) => landing.keys.push(key));
    open();
  };
  // A link in the text opens with Ctrl+click (⌘+click) as in the editor; a plain click writes there.
  const onClick = (event: MouseEvent<HTMLDivElement>) => {
    if ((event.target as HTMLElement).closest('a') && !event.ctrlKey && !event.metaKey) event.preventDefault();
  };
  return (
    <div
      className="record-text-loading record-text-standin"
      style={current || focused ? undefined : { visibility: 'hidden' }}
      role="textbox"
      aria-label={label}
      aria-multiline="true"
      tabIndex={0}
      onPointerDown={(event) => {
        if (event.button !== 0 || event.ctrlKey || event.metaKey) return;
        byHand.current = true;
        const at = wordsAtPointer(event.currentTarget, event.clientX, event.clientY);
        onLanding((landing) => {
          landing.point = { pageX: event.pageX, pageY: event.pageY };
          landing.at = at;
        });
      }}
      onFocus={() => {
        setFocused(true);
        open();
      }}
      // The focus gone elsewhere (Tab, the title) before the editor is there, with nothing typed: the editor, once there, does not take it back.
      onBlur={() => {
        setFocused(false);
        byHand.current = false;
        onLanding((landing) => (landing.opened = landing.keys.length > 0));
      }}
      onKeyDown={onKeyDown}
      onClick={onClick}
    >
      {/* The server's rendering: built from an allowlist (ui/rendered.tsx), shown as it is. */}
      <div className="rendered" dangerouslySetInnerHTML={{ __html: html ?? '' }} />
    </div>
  );
}
