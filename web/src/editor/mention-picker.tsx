import * as Dialog from '@radix-ui/react-dialog';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, call } from '../api/client';

export interface MentionTarget {
  targetType: 'thing' | 'arc';
  targetId: number;
  name: string;
}

export function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return debounced;
}

/** The popup of `@` and `[[`: things and arcs of the campaign matching what is typed. */
export function MentionPicker({ campaignSlug, onPick }: { campaignSlug: string; onPick: (target: MentionTarget | undefined) => void }) {
  const [q, setQ] = useState('');
  const query = useDebounced(q.trim(), 150);
  const results = useQuery({
    queryKey: ['campaign', campaignSlug, 'search', query],
    enabled: query !== '',
    queryFn: () => call(api.GET('/api/campaigns/{campaignSlug}/search', { params: { path: { campaignSlug }, query: { q: query, limit: '10' } } })),
  });
  const targets = (results.data?.results ?? []).filter((r) => r.type === 'thing' || r.type === 'arc');
  return (
    <Dialog.Root open onOpenChange={(open) => !open && onPick(undefined)}>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content className="dialog picker" aria-describedby={undefined}>
          <Dialog.Title>Mention a thing or an arc</Dialog.Title>
          <div className="field">
            <label htmlFor="mention-search">Name</label>
            <input id="mention-search" autoFocus value={q} onChange={(e) => setQ(e.target.value)} autoComplete="off" />
          </div>
          <ul className="results" aria-label="Matches">
            {targets.map((r) => (
              <li key={`${r.type}-${r.id}`}>
                <button type="button" onClick={() => onPick({ targetType: r.type as 'thing' | 'arc', targetId: r.id, name: r.name })}>
                  {r.name} <span className="muted">({r.type})</span>
                </button>
              </li>
            ))}
          </ul>
          {query !== '' && results.isSuccess && targets.length === 0 && <p className="muted">Nothing matches “{query}”.</p>}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
