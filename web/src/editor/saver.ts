// What saving as the user types shows and keeps: the save states and their wording, and the draft
// kept in the browser (localStorage) until the server has acknowledged exactly what it holds, so a
// closed tab or a dead server loses nothing: the next visit offers it back. The guarantee: the first
// change after a quiet second (no change for DRAFT_QUIET_MS) is written at once, on that keystroke;
// the rest of a burst is coalesced into one write in the next idle moment, at most DRAFT_BOUND_MS
// (200 ms) after the change; everything waiting is written at once, synchronously, when the page is
// hidden, left or closed. So only a browser or renderer crash can lose anything, and at most the
// last 200 ms of a burst of typing; a keystroke inside a burst serializes nothing. The saving itself
// is the record's editing state (records/record-state.ts).
import { type ApiError, messageOf } from '../api/client';

export type SaveState = 'saved' | 'unsaved' | 'saving' | 'offline' | 'conflict' | 'error';

export interface Draft<P> {
  patch: Partial<P>;
  baseEtag: string | undefined;
  at: string;
}

const PREFIX = 'loreforge.draft.';

export function readDraft<P>(key: string): Draft<P> | undefined {
  try {
    const raw = localStorage.getItem(PREFIX + key);
    return raw ? (JSON.parse(raw) as Draft<P>) : undefined;
  } catch {
    return undefined;
  }
}

export function writeDraft<P>(key: string, draft: Draft<P> | undefined): void {
  try {
    if (draft && Object.keys(draft.patch).length > 0) localStorage.setItem(PREFIX + key, JSON.stringify(draft));
    else localStorage.removeItem(PREFIX + key);
  } catch {
    // Storage full or refused: the server copy is all there is; saving goes on.
  }
}

// Drafts waiting for an idle moment. The page being hidden, left or closed (pagehide, beforeunload,
// visibilitychange to hidden) writes them all at once, synchronously, before the page can go away.
export const DRAFT_BOUND_MS = 200;
export const DRAFT_QUIET_MS = 1000;
let lastChange = -Infinity;
const unwrittenDrafts = new Set<{ writeDraftNow(): void }>();
let draftCallback: number | undefined;
let listening = false;

/** Writes every waiting draft now. */
export function writeAllDrafts(): void {
  if (draftCallback !== undefined) (typeof cancelIdleCallback === 'function' ? cancelIdleCallback : clearTimeout)(draftCallback);
  draftCallback = undefined;
  for (const state of [...unwrittenDrafts]) state.writeDraftNow();
}

/** A changed draft: written now if nothing changed for DRAFT_QUIET_MS (the leading edge of a burst), else in the next idle moment (at most DRAFT_BOUND_MS from now), or before the page goes away. */
export function keepDraftSoon(state: { writeDraftNow(): void }): void {
  unwrittenDrafts.add(state);
  if (!listening && typeof window !== 'undefined') {
    listening = true;
    // Capture, registered once: before any page handler that might start a save.
    window.addEventListener('pagehide', writeAllDrafts, true);
    window.addEventListener('beforeunload', writeAllDrafts, true);
    document.addEventListener('visibilitychange', () => document.visibilityState === 'hidden' && writeAllDrafts(), true);
  }
  const now = Date.now();
  const quiet = now - lastChange >= DRAFT_QUIET_MS;
  lastChange = now;
  if (quiet) return writeAllDrafts();
  if (draftCallback !== undefined) return;
  draftCallback =
    typeof requestIdleCallback === 'function'
      ? requestIdleCallback(writeAllDrafts, { timeout: DRAFT_BOUND_MS })
      : (setTimeout(writeAllDrafts, DRAFT_BOUND_MS) as unknown as number);
}

/** A draft written meanwhile: nothing left to do for it. */
export function draftKept(state: { writeDraftNow(): void }): void {
  unwrittenDrafts.delete(state);
}

export function saveStateText(state: SaveState, error: ApiError | undefined): string {
  switch (state) {
    case 'saved':
      return 'All changes saved';
    case 'unsaved':
      return 'Unsaved changes';
    case 'saving':
      return 'Saving…';
    case 'offline':
      return 'Offline: your changes are kept in this browser and retried';
    case 'conflict':
      return 'Someone else changed this';
    case 'error':
      return `Not saved: ${messageOf(error)}`;
  }
}
