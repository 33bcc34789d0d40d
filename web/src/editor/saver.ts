// What saving as the user types shows and keeps: the save states and their wording, and the draft
// kept in the browser (localStorage) until the server has acknowledged exactly what it holds, so a
// crash, a closed tab or a dead server loses nothing: the next visit offers it back. The saving
// itself is the record's editing state (records/record-state.ts).
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
