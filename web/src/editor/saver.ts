// Saving a record as the user types: every change is kept in the browser (localStorage) at once,
// sent shortly after typing stops, on leaving the page and when the tab is hidden, with If-Match.
// The draft stays until the server has acknowledged exactly what it holds, so a crash, a closed tab
// or a dead server loses nothing: the next visit offers it back. A 412 is a conflict for the user
// to settle; a network failure or a 5xx is retried with backoff.
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, messageOf } from '../api/client';

export type SaveState = 'saved' | 'unsaved' | 'saving' | 'offline' | 'conflict' | 'error';

export interface Draft<P> {
  patch: Partial<P>;
  baseEtag: string | undefined;
  at: string;
}

const IDLE_MS = 800;
const PREFIX = 'loreforge.draft.';

export function readDraft<P>(key: string): Draft<P> | undefined {
  try {
    const raw = localStorage.getItem(PREFIX + key);
    return raw ? (JSON.parse(raw) as Draft<P>) : undefined;
  } catch {
    return undefined;
  }
}

function writeDraft<P>(key: string, draft: Draft<P> | undefined): void {
  try {
    if (draft && Object.keys(draft.patch).length > 0) localStorage.setItem(PREFIX + key, JSON.stringify(draft));
    else localStorage.removeItem(PREFIX + key);
  } catch {
    // Storage full or refused: the server copy is all there is; saving goes on.
  }
}

export interface Saver<P> {
  state: SaveState;
  error: ApiError | undefined;
  /** Queues a change (kept in the browser at once) and saves it shortly. */
  update: (patch: Partial<P>) => void;
  /** Saves what is queued now. */
  flush: () => Promise<void>;
  /** After a conflict: save ours over the version the server has now. */
  keepMine: (currentEtag: string | undefined) => Promise<void>;
  /** After a conflict, or to drop an offered draft: forget ours. */
  discard: () => void;
  etag: () => string | undefined;
}

export function useSaver<P extends Record<string, unknown>>(options: {
  draftKey: string;
  etag: string | undefined;
  save: (patch: Partial<P>, ifMatch: string | undefined, init: { keepalive: boolean }) => Promise<string | undefined>;
  onSaved?: () => void;
}): Saver<P> {
  const { draftKey } = options;
  const etagRef = useRef(options.etag);
  // The record may load after the first render, and is replaced when the user takes the other
  // version: a new ETag from the caller wins; saves keep etagRef current in between.
  const givenEtag = useRef(options.etag);
  if (givenEtag.current !== options.etag) {
    givenEtag.current = options.etag;
    etagRef.current = options.etag;
  }
  const pending = useRef<Partial<P>>({});
  const inFlight = useRef<Promise<void> | undefined>(undefined);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const retries = useRef(0);
  const optionsRef = useRef(options);
  optionsRef.current = options;
  const [state, setState] = useState<SaveState>('saved');
  const [error, setError] = useState<ApiError>();
  const stateRef = useRef(state);
  stateRef.current = state;

  const persist = useCallback(() => writeDraft(draftKey, { patch: pending.current, baseEtag: etagRef.current, at: new Date().toISOString() }), [draftKey]);

  const flush = useCallback(
    async (keepalive = false): Promise<void> => {
      clearTimeout(timer.current);
      if (inFlight.current) await inFlight.current;
      const sent = pending.current;
      if (Object.keys(sent).length === 0 || stateRef.current === 'conflict') return;
      const run = (async () => {
        setState('saving');
        try {
          etagRef.current = await optionsRef.current.save(sent, etagRef.current, { keepalive });
          retries.current = 0;
          // Keep whatever changed while the request was out.
          const rest: Partial<P> = {};
          for (const [key, value] of Object.entries(pending.current)) if (sent[key] !== value) (rest as Record<string, unknown>)[key] = value;
          pending.current = rest;
          persist();
          setError(undefined);
          setState(Object.keys(rest).length > 0 ? 'unsaved' : 'saved');
          optionsRef.current.onSaved?.();
          if (Object.keys(rest).length > 0) timer.current = setTimeout(() => void flush(), IDLE_MS);
        } catch (e) {
          const failure = e instanceof ApiError ? e : new ApiError(0, undefined);
          setError(failure);
          if (failure.status === 412) setState('conflict');
          else if (failure.status === 0 || failure.status >= 500 || failure.status === 429) {
            setState('offline');
            retries.current += 1;
            timer.current = setTimeout(() => void flush(), Math.min(30_000, 1000 * 2 ** retries.current));
          } else setState('error');
        }
      })();
      inFlight.current = run;
      await run;
      inFlight.current = undefined;
    },
    [persist],
  );

  const update = useCallback(
    (patch: Partial<P>) => {
      pending.current = { ...pending.current, ...patch };
      persist();
      if (stateRef.current !== 'conflict') setState('unsaved');
      clearTimeout(timer.current);
      timer.current = setTimeout(() => void flush(), IDLE_MS);
    },
    [flush, persist],
  );

  // Leaving the page or hiding the tab saves at once (keepalive lets the request outlive the page).
  useEffect(() => {
    const onHide = () => {
      if (document.visibilityState === 'hidden') void flush(true);
    };
    const onUnload = () => void flush(true);
    document.addEventListener('visibilitychange', onHide);
    window.addEventListener('pagehide', onUnload);
    return () => {
      document.removeEventListener('visibilitychange', onHide);
      window.removeEventListener('pagehide', onUnload);
      void flush(true);
    };
  }, [flush]);

  return {
    state,
    error,
    update,
    flush: () => flush(),
    keepMine: async (currentEtag) => {
      etagRef.current = currentEtag;
      setState('unsaved');
      stateRef.current = 'unsaved';
      await flush();
    },
    discard: () => {
      clearTimeout(timer.current);
      pending.current = {};
      persist();
      setError(undefined);
      setState('saved');
      stateRef.current = 'saved';
    },
    etag: () => etagRef.current,
  };
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
