// The notice after a delete: "… moved to the trash. Undo" for ten seconds, one at a time (a new
// delete replaces it). It never takes the focus (someone typing keeps typing): it is announced
// politely, its Undo button comes first in the page's tab order, and Ctrl+Z (⌘Z) outside a text
// field undoes too. The time stops while the pointer or the focus is on it (WCAG 2.2.1).
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { messageOf } from '../api/client';

export const UNDO_SECONDS = 10;

interface Notice {
  id: number;
  message: string;
  undo: () => Promise<unknown>;
}

type Shown = { notice: Notice; phase: 'open' | 'undoing' | 'done' | 'failed'; error?: string };

let shown: Shown | undefined;
let counter = 0;
const listeners = new Set<() => void>();

function set(next: Shown | undefined): void {
  shown = next;
  for (const listener of listeners) listener();
}

/** Shows the notice for a delete just done; `undo` brings it back (a restore from the trash). */
export function showUndo(message: string, undo: () => Promise<unknown>): void {
  counter += 1;
  set({ notice: { id: counter, message, undo }, phase: 'open' });
}

/** Closes whatever notice is shown (a test's clean slate). */
export function dismissUndo(): void {
  set(undefined);
}

async function runUndo(notice: Notice): Promise<void> {
  if (shown?.notice.id !== notice.id || shown.phase !== 'open') return;
  set({ notice, phase: 'undoing' });
  try {
    await notice.undo();
    if (shown?.notice.id === notice.id) set({ notice, phase: 'done' });
  } catch (error) {
    if (shown?.notice.id === notice.id) set({ notice, phase: 'failed', error: messageOf(error) });
  }
}

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

const inTextField = (target: EventTarget | null): boolean => target instanceof HTMLElement && (target.isContentEditable || target.closest('input, textarea, select, [contenteditable="true"]') !== null);

/** Rendered once, first in the signed-in pages (its live region is always there, so what appears in it is announced). */
export function UndoNotice() {
  const current = useSyncExternalStore(subscribe, () => shown);
  const [held, setHeld] = useState({ pointer: false, focus: false });
  const region = useRef<HTMLDivElement>(null);
  const paused = held.pointer || held.focus;
  const id = current?.notice.id;
  const phase = current?.phase;

  // A button that held the focus may have gone with the phase (Undo, once pressed), and a notice
  // that replaced another was never pointed at: held only while the focus is really here.
  useEffect(() => {
    setHeld({ pointer: false, focus: region.current?.contains(document.activeElement) ?? false });
  }, [id, phase]);

  // Ten seconds of being shown (not counting while held), then it goes; "done" goes after a moment.
  useEffect(() => {
    if (id === undefined || paused || (phase !== 'open' && phase !== 'done')) return;
    const timer = setTimeout(() => set(undefined), phase === 'open' ? UNDO_SECONDS * 1000 : 4000);
    return () => clearTimeout(timer);
  }, [id, phase, paused]);

  useEffect(() => {
    if (!current || current.phase !== 'open') return;
    const notice = current.notice;
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey && event.key.toLowerCase() === 'z' && !inTextField(event.target)) {
        event.preventDefault();
        void runUndo(notice);
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [current]);

  return (
    <div
      ref={region}
      className={current ? 'undo-notice shown' : 'undo-notice'}
      role="status"
      aria-live="polite"
      onPointerEnter={() => setHeld((h) => ({ ...h, pointer: true }))}
      onPointerLeave={() => setHeld((h) => ({ ...h, pointer: false }))}
      onFocus={() => setHeld((h) => ({ ...h, focus: true }))}
      onBlur={(e) => {
        if (!region.current?.contains(e.relatedTarget)) setHeld((h) => ({ ...h, focus: false }));
      }}
    >
      {current && (
        <>
          <p>
            {current.phase === 'done' ? 'Undone: it is back.' : current.notice.message}
            {current.phase === 'failed' && <span className="error"> It could not be brought back: {current.error}</span>}
          </p>
          {(current.phase === 'open' || current.phase === 'undoing') && (
            <button type="button" className="primary" aria-keyshortcuts="Control+Z Meta+Z" title="Undo (Ctrl+Z)" disabled={current.phase === 'undoing'} onClick={() => void runUndo(current.notice)}>
              {current.phase === 'undoing' ? 'Undoing…' : 'Undo'}
            </button>
          )}
          <button type="button" aria-label="Dismiss" onClick={() => set(undefined)}>
            ×
          </button>
        </>
      )}
    </div>
  );
}
