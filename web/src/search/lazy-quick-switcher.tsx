import { lazy, Suspense, useEffect, useState } from 'react';

// The quick switcher (its dialog, search list and cmdk) is loaded the first time it is opened, by
// its button or Ctrl+K (⌘K), not with the campaign's frame; it then opens at once.
const QuickSwitcher = lazy(() => import('./quick-switcher').then((module) => ({ default: module.QuickSwitcher })));

function TriggerButton({ onClick }: { onClick?: () => void }) {
  return (
    <button type="button" className="switcher-button" aria-keyshortcuts="Control+K Meta+K" onClick={onClick}>
      Quick switch <kbd>Ctrl K</kbd>
    </button>
  );
}

export function LazyQuickSwitcher({ campaignSlug }: { campaignSlug: string }) {
  const [wanted, setWanted] = useState(false);
  useEffect(() => {
    if (wanted) return;
    const onKey = (event: KeyboardEvent) => {
      // A Ctrl+K the editor already handled (a link in the text) is not for the switcher.
      if (!event.defaultPrevented && (event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        setWanted(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [wanted]);
  if (!wanted) return <TriggerButton onClick={() => setWanted(true)} />;
  return (
    <Suspense fallback={<TriggerButton />}>
      <QuickSwitcher campaignSlug={campaignSlug} initiallyOpen />
    </Suspense>
  );
}
