// A record's text shown as read until the writer reaches for it (the campaign home): the server's
// rendering stands where the editor will be, in the same box, so the page's first paint waits for
// neither the editor's code nor Slate's mount. The first pointer, focus or key on it opens the
// editor; the caret lands where the pointer went down (or at the start), and the keys pressed
// before the editor was there are typed into it in order, as the editor's own
// commands (editor/typing.ts). Ctrl+click on a mention opens what it names.
import { useEffect, useMemo, useRef, type KeyboardEvent, type MouseEvent } from 'react';
import type { QueryKey } from '@tanstack/react-query';
import { typedWithoutEditor, type Landing, type PendingKey } from '../editor/landing';
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

// The words of a text and where its mentions and images sit, from the record and from its rendering:
// equal, the rendering shows the record's words (a mention's name and an image's caption are the
// rendering's own, and left out). Anything else the rendering adds (a task's box, a callout's title
// or code as the renderer lays it out) makes them differ, and the rendering is read again.
const MENTION = '\u0001';
const IMAGE = '\u0002';
function recordWords(value: unknown): string {
  if (Array.isArray(value)) return value.map(recordWords).join('');
  if (typeof value !== 'object' || value === null) return '';
  const node = value as { text?: unknown; type?: unknown; children?: unknown };
  if (typeof node.text === 'string') return node.text;
  if (node.type === 'mention') return MENTION;
  if (node.type === 'image') return IMAGE;
  return recordWords(node.children);
}
function renderedWords(node: Node): string {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent ?? '';
  if (!(node instanceof Element)) return [...node.childNodes].map(renderedWords).join('');
  if (node.matches('.mention')) return MENTION;
  if (node.matches('img')) return IMAGE;
  if (node.matches('br')) return '\n';
  if (node.matches('figcaption, .callout-title')) return '';
  return [...node.childNodes].map(renderedWords).join('');
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
  if (event.key.length === 1) return { text: event.key };
  if (event.key === 'Enter') return { command: event.shiftKey ? 'soft-break' : 'break' };
  if (event.key === 'Backspace') return { command: 'delete-backward' };
  if (event.key === 'Delete') return { command: 'delete-forward' };
  return undefined;
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
  const open = () => {
    onLanding((landing) => (landing.opened = true));
    if (opened.current) return;
    opened.current = true;
    onOpen();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const key = queued(event);
    if (!key) return;
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
      style={current ? undefined : { visibility: 'hidden' }}
      role="textbox"
      aria-label={label}
      aria-multiline="true"
      tabIndex={0}
      onPointerDown={(event) => {
        if (event.button === 0 && !event.ctrlKey && !event.metaKey) onLanding((landing) => (landing.point = { pageX: event.pageX, pageY: event.pageY }));
      }}
      onFocus={open}
      // The focus gone elsewhere (Tab, the title) before the editor is there, with nothing typed: the editor, once there, does not take it back.
      onBlur={() => onLanding((landing) => (landing.opened = landing.keys.length > 0))}
      onKeyDown={onKeyDown}
      onClick={onClick}
    >
      {/* The server's rendering: built from an allowlist (ui/rendered.tsx), shown as it is. */}
      <div className="rendered" dangerouslySetInnerHTML={{ __html: html ?? '' }} />
    </div>
  );
}
