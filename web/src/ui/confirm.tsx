import { useState, type ReactNode } from 'react';
import { messageOf } from '../api/client';
import { Modal, useDialogTrigger } from './dialog';

/**
 * A button that asks before doing something that cannot be undone: a modal dialog (focus kept
 * inside, Escape closes) that says what goes with it.
 */
export function ConfirmButton({ label, title, children, confirmLabel, onConfirm }: { label: string; title: string; children: ReactNode; confirmLabel: string; onConfirm: () => Promise<unknown> }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await onConfirm();
      setOpen(false);
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  const opener = useDialogTrigger(
    <button type="button" className="danger">
      {label}
    </button>,
    open,
    () => setOpen(true),
  );
  return (
    <>
      {opener.element}
      {open && (
        <Modal open onOpenChange={setOpen} title={title} description={<div>{children}</div>} returnFocusTo={opener.id}>
          {error && (
            <p className="error" role="alert">
              {error}
            </p>
          )}
          <div className="actions">
            <button type="button" onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button type="button" className="danger" disabled={busy} onClick={() => void confirm()}>
              {confirmLabel}
            </button>
          </div>
        </Modal>
      )}
    </>
  );
}
