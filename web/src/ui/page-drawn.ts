// What a first load does not need for its first paint (a record's "In arcs" and "Mentioned in"
// lists, the campaign's tags for the tag fields, the pickers' code) waits until the page has drawn
// its main content, so that neither its requests nor its code compete with the text and the first
// image on a slow phone (issue 27: the thing page's largest paint). A record page says when its text
// is drawn (`markPageDrawn`); the work starts one frame later, after that paint. Once drawn, it stays
// so for the tab: moving between pages inside the app waits for nothing. A page that never says so
// (or a first load that fails) lets it start a moment after the window's load event.
import { useEffect, useSyncExternalStore } from 'react';

const LOAD_FALLBACK_MS = 1_000;
let drawn = typeof window === 'undefined';
const listeners = new Set<() => void>();

function settle(): void {
  if (drawn) return;
  drawn = true;
  for (const listener of listeners) listener();
  listeners.clear();
}

/** The page's main content is in the DOM: what waits for it starts after the next paint. */
export function markPageDrawn(): void {
  if (drawn) return;
  requestAnimationFrame(() => setTimeout(settle, 0));
}

/** Marks the page drawn once `ready` (its main content is rendered in this commit). */
export function useMarkPageDrawn(ready: boolean): void {
  useEffect(() => {
    if (ready) markPageDrawn();
  }, [ready]);
}

if (!drawn) {
  const fallback = () => setTimeout(settle, LOAD_FALLBACK_MS);
  if (document.readyState === 'complete') fallback();
  else window.addEventListener('load', fallback, { once: true });
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Whether the page's main content has been drawn (then it stays true). */
export function usePageDrawn(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => drawn,
    () => true,
  );
}
