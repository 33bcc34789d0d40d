import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, call } from '../api/client';
import { useDebounced } from '../editor/mention-picker';

interface Picked {
  id: number;
  slug: string;
  name: string;
}

/** A search field listing the campaign's arcs that match; choosing one calls onPick. */
export function ArcPicker({ campaignSlug, label, onPick, exclude }: { campaignSlug: string; label: string; onPick: (arc: Picked) => void; exclude?: number }) {
  const id = useId();
  const [q, setQ] = useState('');
  const query = useDebounced(q.trim(), 150);
  const results = useQuery({
    queryKey: ['campaign', campaignSlug, 'search', 'arc', query],
    enabled: query !== '',
    queryFn: () => call(api.GET('/api/campaigns/{campaignSlug}/search', { params: { path: { campaignSlug }, query: { q: query, type: 'arc', limit: '8' } } })),
  });
  const arcs = (results.data?.results ?? []).filter((r) => r.type === 'arc' && r.id !== exclude);
  return (
    <div className="picker-field">
      <label htmlFor={id}>{label}</label>
      <input id={id} type="search" value={q} onChange={(e) => setQ(e.target.value)} placeholder="Type an arc’s name" autoComplete="off" />
      {query !== '' && (
        <ul className="results" aria-label={`${label}: matches`}>
          {arcs.map((arc) => (
            <li key={arc.id}>
              <button
                type="button"
                onClick={() => {
                  setQ('');
                  onPick(arc);
                }}
              >
                {arc.name}
              </button>
            </li>
          ))}
          {results.isSuccess && arcs.length === 0 && <li className="muted">No arc matches.</li>}
        </ul>
      )}
    </div>
  );
}
