import * as Dialog from '@radix-ui/react-dialog';
import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { SearchList } from './search-list';
import { highlight } from './search-page';
import { useRecentPages } from './recent-pages';
import { recentPageAddress } from './recent';

/** Ctrl+K / Cmd+K: the pages opened last, then search as you type (debounced), arrows to choose, Enter to open. */
export function QuickSwitcher({ campaignSlug, initiallyOpen = false }: { campaignSlug: string; initiallyOpen?: boolean }) {
  const [open, setOpen] = useState(initiallyOpen);
  const navigate = useNavigate();
  const recent = useRecentPages(campaignSlug);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      // A key already handled (Ctrl+K in the editor inserts a link) is not the switcher's.
      if (event.defaultPrevented) return;
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        setOpen(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

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
          <SearchList
            campaignSlug={campaignSlug}
            label="Find a thing, an arc or the campaign"
            autoFocus
            idle={{
              heading: 'Recent pages',
              choices: recent.map((page) => ({
                value: `recent-${page.kind}-${page.id}`,
                content: (
                  <>
                    <span className="name">{page.name}</span> <span className="muted">({page.kind})</span>
                  </>
                ),
                onSelect: () => {
                  setOpen(false);
                  void navigate(recentPageAddress(campaignSlug, page));
                },
              })),
            }}
            renderItem={(item) => (
              <>
                <span className="name">{item.name}</span> <span className="muted">({item.type})</span>
                <span className="excerpt">{highlight(item.excerpt, item.highlights)}</span>
              </>
            )}
            onPick={(item) => {
              setOpen(false);
              void navigate(item.type === 'campaign' ? `/campaigns/${campaignSlug}` : `/campaigns/${campaignSlug}/${item.type === 'thing' ? 'things' : 'arcs'}/${item.slug}`);
            }}
          />
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
