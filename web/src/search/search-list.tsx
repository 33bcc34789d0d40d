import { Command } from 'cmdk';
import { useEffect, useState, type ReactNode } from 'react';
import type { SearchResults } from '../api/client';
import { useSearchMatches } from './api';
import './search-list.css';
import { useDebounced } from '../ui/debounce';

export type SearchResult = SearchResults['results'][number];

/** A choice offered while nothing is typed (the quick switcher's recent pages). */
export interface IdleChoice {
  value: string;
  content: ReactNode;
  onSelect: () => void;
}

/**
 * A search field over the campaign (the search route, as the user types, debounced) with its
 * matches as a list to choose from by arrows and Enter or by pointer: cmdk's combobox and listbox,
 * so focus, the active option and their ARIA roles are the library's, not ours.
 */
export function SearchList({
  campaignSlug,
  label,
  type,
  exclude,
  autoFocus,
  renderItem,
  onPick,
  onQueryChange,
  seed,
  idle,
}: {
  campaignSlug: string;
  label: string;
  type?: 'thing' | 'arc';
  exclude?: (result: SearchResult) => boolean;
  autoFocus?: boolean;
  renderItem?: (result: SearchResult) => ReactNode;
  onPick: (result: SearchResult) => void;
  /** Hears every change of what is typed into the field. */
  onQueryChange?: (q: string) => void;
  /** Text to put before what is typed into the field (it arrived elsewhere before the field had the focus). */
  seed?: string;
  /** What to offer while nothing is typed: a heading and its choices. */
  idle?: { heading: string; choices: IdleChoice[] };
}) {
  const [q, setQ] = useState('');
  // A new seed goes before what is typed, once, as it arrives (state adjusted while rendering, as
  // React advises for state that follows a prop, rather than in an effect).
  const [seeded, setSeeded] = useState<string | undefined>();
  if (seed !== seeded) {
    setSeeded(seed);
    if (seed) setQ((typed) => seed + typed);
  }
  useEffect(() => {
    onQueryChange?.(q);
  }, [q, onQueryChange]);
  const query = useDebounced(q.trim(), 150);
  const results = useSearchMatches(campaignSlug, query, type);
  // Once the field is emptied the older matches go at once (the recent pages, if any, take their place).
  const items = q.trim() === '' ? [] : (results.data?.results ?? []).filter((r) => (type === undefined || r.type === type) && !exclude?.(r));
  // The highlighted option follows what is shown: the first match of the latest answer, or the one
  // the user moved to among these matches. Enter picks exactly that, and nothing while what is
  // typed has no answer yet (the list shown is for older text).
  const idleChoices = q.trim() === '' ? (idle?.choices ?? []) : [];
  const values = [...idleChoices.map((c) => c.value), ...items.map((item) => `${item.type}-${item.id}`)];
  const [moved, setMoved] = useState<{ query: string; value: string } | undefined>();
  const highlighted = moved !== undefined && moved.query === query && values.includes(moved.value) ? moved.value : (values[0] ?? '');
  const answered = q.trim() === query && !results.isFetching;
  return (
    <Command
      label={label}
      shouldFilter={false}
      loop
      className="search-list"
      value={highlighted}
      onValueChange={(value) => setMoved({ query, value })}
      onKeyDown={(event) => {
        if (event.key === 'Enter' && !answered) event.preventDefault();
      }}
    >
      <Command.Input value={q} onValueChange={setQ} placeholder="Type a name or a word" autoFocus={autoFocus} aria-label={label} />
      {/* Always there: the input's aria-controls names it. */}
      <Command.List label={`${label}: matches`} aria-busy={!answered}>
        {idleChoices.length > 0 && (
          <Command.Group heading={idle?.heading}>
            {idleChoices.map((choice) => (
              <Command.Item key={choice.value} value={choice.value} onSelect={choice.onSelect}>
                {choice.content}
              </Command.Item>
            ))}
          </Command.Group>
        )}
        {query !== '' && results.isSuccess && <Command.Empty>Nothing matches “{query}”.</Command.Empty>}
        {items.map((item) => (
          <Command.Item
            key={`${item.type}-${item.id}`}
            value={`${item.type}-${item.id}`}
            onSelect={() => {
              setQ('');
              onPick(item);
            }}
          >
            {renderItem ? renderItem(item) : item.name}
          </Command.Item>
        ))}
      </Command.List>
    </Command>
  );
}
