import { useRef, useState } from 'react';
import type { ApiError } from '../api/client';
import { saveStateText, type SaveState } from '../editor/saver';
import { Modal } from './dialog';

export function SaveStatus({ state, error }: { state: SaveState; error: ApiError | undefined }) {
  return (
    <p className={`save-status ${state}`} role="status" aria-live="polite">
      {saveStateText(state, error)}
    </p>
  );
}

/** A draft this browser kept that the server never acknowledged: offered back. */
export function DraftOffer({ at, onRestore, onDiscard }: { at: string; onRestore: () => void; onDiscard: () => void }) {
  return (
    <div className="banner" role="alert">
      <p>Changes you made on {new Date(at).toLocaleString()} were not saved yet. They are kept in this browser.</p>
      <button type="button" className="primary" onClick={onRestore}>
        Restore my changes
      </button>
      <button type="button" onClick={onDiscard}>
        Discard them
      </button>
    </div>
  );
}

/** A 412: both versions side by side; keep mine, take theirs, or copy mine out. */
export function ConflictDialog({ mine, theirs, onKeepMine, onTakeTheirs }: { mine: string; theirs: string; onKeepMine: () => void; onTakeTheirs: () => void }) {
  const [copied, setCopied] = useState(false);
  const title = useRef<HTMLHeadingElement>(null);
  return (
    <Modal
      open
      className="dialog wide"
      title="Someone else changed this while you were editing"
      titleRef={title}
      titleTabIndex={-1}
      description={<p>Choose which version to keep. Nothing is lost until you choose.</p>}
      onEscapeKeyDown={(e) => e.preventDefault()}
      onPointerDownOutside={(e) => e.preventDefault()}
      // The dialog opens while the game master may be typing: the focus goes to its title (read
      // out first), not to a button, so a key typed on cannot copy, keep or take a version.
      onOpenAutoFocus={(e) => {
        e.preventDefault();
        title.current?.focus();
      }}
    >
      <div className="versions">
        <section aria-label="Your version">
          <h3>Your version</h3>
          <pre>{mine}</pre>
        </section>
        <section aria-label="Their version">
          <h3>Their version</h3>
          <pre>{theirs}</pre>
        </section>
      </div>
      <div className="actions">
        <button
          type="button"
          onClick={() =>
            void navigator.clipboard.writeText(mine).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          {copied ? 'Copied' : 'Copy mine'}
        </button>
        <button type="button" onClick={onTakeTheirs}>
          Take theirs
        </button>
        <button type="button" className="primary" onClick={onKeepMine}>
          Keep mine
        </button>
      </div>
    </Modal>
  );
}
