// The search list as the record pages' pickers use it (a thing's arcs, an arc's things and parent,
// a property's link): its code and cmdk's load once the page's text is drawn, so a first visit to a
// record carries only what the page shows first. Until then a field of the same size and label
// stands in, read-only, so nothing moves and nothing typed is lost.
import { lazy, Suspense, type ComponentProps } from 'react';
import { usePageDrawn } from '../ui/page-drawn';
import type { SearchList as EagerSearchList } from './search-list';

const Loaded = lazy(() => import('./search-list').then((module) => ({ default: module.SearchList })));

export function SearchList(props: ComponentProps<typeof EagerSearchList>) {
  const standIn = (
    <div className="search-list">
      <input cmdk-input="" readOnly aria-label={props.label} aria-busy="true" placeholder="Type a name or a word" />
    </div>
  );
  // Its code is asked for once the page's text is drawn (ui/page-drawn.ts).
  if (!usePageDrawn()) return standIn;
  return (
    <Suspense fallback={standIn}>
      <Loaded {...props} />
    </Suspense>
  );
}
