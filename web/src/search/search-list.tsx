import { useQuery } from '@tanstack/react-query';
import { Command } from 'cmdk';
import { useEffect, useState, type ReactNode } from 'react';
import { api, call, type SearchResults } from '../api/client';

export type SearchResult = SearchResults['results'][number];

export function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return debounced;
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
}) {
  const [q, setQ] = useState('');
  useEffect(() => {
    if (seed) setQ((typed) => seed + typed);
  }, [seed]);
  useEffect(() => {
    onQueryChange?.(q);
  }, [q, onQueryChange]);
  const query = useDebounced(q.trim(), 150);
  const results = useQuery({
    queryKey: ['campaign', campaignSlug, 'search-list', type ?? '', query],
    enabled: query !== '',
    queryFn: () => call(api.GET('/api/campaigns/{campaignSlug}/search', { params: { path: { campaignSlug }, query: { q: query, limit: '8', ...(type ? { type } : {}) } } })),
  });
  const items = (results.data?.results ?? []).filter((r) => (type === undefined || r.type === type) && !exclude?.(r));
  // The highlighted option follows what is shown: the first match of the latest answer, or the one
  // the user moved to among these matches. Enter picks exactly that, and nothing while what is
  // typed has no answer yet (the list shown is for older text).
  const values = items.map((item) => `${item.type}-${item.id}`);
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
