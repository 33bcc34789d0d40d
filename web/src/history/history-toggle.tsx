// The "History" button of a record page and, once opened, its panel (loaded then: the diff and the
// panel are not in the first page's bundle). Only owners and game masters are shown it: history
// holds secret text, and players get 403.
import { lazy, Suspense, useState } from 'react';
import type { HistoryPanelProps } from './history-panel';

const HistoryPanel = lazy(() => import('./history-panel'));

export function HistoryToggle(props: HistoryPanelProps) {
  const [open, setOpen] = useState(false);
  return (
    <div className="history">
      <button type="button" className="history-button" aria-expanded={open} aria-controls={open ? 'history-panel' : undefined} onClick={() => setOpen(!open)}>
        History
      </button>
      {open && (
        <Suspense fallback={<p className="loading">Loading…</p>}>
          <HistoryPanel {...props} />
        </Suspense>
      )}
    </div>
  );
}
