import * as Dialog from '@radix-ui/react-dialog';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState, type KeyboardEvent } from 'react';
import { useNavigate } from 'react-router';
import { api, call } from '../api/client';
import { useDebounced } from '../editor/mention-picker';
import { highlight } from './search';

/** Ctrl+K / Cmd+K: search as you type (debounced), arrows to choose, Enter to open. */
export function QuickSwitcher({ campaignSlug }: { campaignSlug: string }) {
  const [open, setOpen] = useState(false);
  const [q, setQ] = useState('');
  const [active, setActive] = useState(0);
  const navigate = useNavigate();
  const listId = useId();
  const query = useDebounced(q.trim(), 120);
  const results = useQuery({
    queryKey: ['campaign', campaignSlug, 'switcher', query],
    enabled: open && query !== '',
    queryFn: () => call(api.GET('/api/campaigns/{campaignSlug}/search', { params: { path: { campaignSlug }, query: { q: query, limit: '8' } } })),
  });
  const items = results.data?.results ?? [];

  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        setOpen(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  useEffect(() => setActive(0), [query]);

  const go = (index: number) => {
    const item = items[index];
    if (!item) return;
    setOpen(false);
    setQ('');
    void navigate(item.type === 'campaign' ? `/campaigns/${campaignSlug}` : `/campaigns/${campaignSlug}/${item.type === 'thing' ? 'things' : 'arcs'}/${item.slug}`);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      setActive((i) => Math.min(items.length - 1, i + 1));
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      setActive((i) => Math.max(0, i - 1));
    } else if (event.key === 'Enter') {
      event.preventDefault();
      go(active);
    }
  };

  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger asChild>
        <button type="button" className="switcher-button" aria-keyshortcuts="Control+K Meta+K">
          Quick switch <kbd>Ctrl K</kbd>
        </button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content className="dialog switcher" aria-describedby={undefined}>
          <Dialog.Title>Go to…</Dialog.Title>
          <input
            autoFocus
            type="text"
            role="combobox"
            aria-label="Find a thing, an arc or the campaign"
            aria-expanded={items.length > 0}
            aria-controls={listId}
            aria-autocomplete="list"
            aria-activedescendant={items[active] ? `${listId}-${active}` : undefined}
            value={q}
            onChange={(e) => setQ(e.target.value)}
            onKeyDown={onKeyDown}
          />
          <ul id={listId} role="listbox" aria-label="Matches" className="switcher-results">
            {items.map((item, index) => (
              <li key={`${item.type}-${item.id}`} id={`${listId}-${index}`} role="option" aria-selected={index === active} className={index === active ? 'active' : undefined} onMouseDown={(e) => e.preventDefault()} onClick={() => go(index)}>
                <span className="name">{item.name}</span> <span className="muted">({item.type})</span>
                <span className="excerpt">{highlight(item.excerpt, item.highlights)}</span>
              </li>
            ))}
          </ul>
          {query !== '' && results.isSuccess && items.length === 0 && <p className="muted">Nothing matches “{query}”.</p>}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
