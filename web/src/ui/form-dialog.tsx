import { useRef, useState, type FormEvent, type ReactElement, type ReactNode } from 'react';
import { ApiError, messageOf } from '../api/client';
import { Modal, useDialogTrigger } from './dialog';
import { ErrorMessage } from './field';

/**
 * A modal form (focus kept inside, Escape closes): its submit runs `onSubmit`, shows an error it
 * throws as a sentence (unless a field of `fields` shows it beside itself), and closes on success.
 */
export function FormDialog({
  trigger,
  title,
  submitLabel,
  onSubmit,
  children,
  fields = [],
  extraActions,
  onOpenChange,
  onClosed,
  focusAfterSubmit,
}: {
  trigger: ReactElement;
  title: string;
  submitLabel: string;
  onSubmit: (form: FormData) => Promise<void> | void;
  /** The form's fields, given the last error (for the messages beside them). */
  children: (error: unknown) => ReactNode;
  fields?: string[];
  extraActions?: ReactNode;
  onOpenChange?: (open: boolean) => void;
  /** Called instead of giving focus back to the trigger once closed. */
  onClosed?: () => void;
  /**
   * Where the focus goes after a successful submit (a CSS selector), once it is on the page: a
   * dialog that leads to a new page (a record just created) puts the keyboard there, not back on
   * the button that opened it. A cancel still gives it back to that button.
   */
  focusAfterSubmit?: string;
}) {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submitted = useRef(false);
  const change = (next: boolean) => {
    if (next) {
      setError(undefined);
      submitted.current = false;
    }
    onOpenChange?.(next);
    setOpen(next);
  };
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await onSubmit(new FormData(event.currentTarget));
      submitted.current = true;
      change(false);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const shownAtField = error instanceof ApiError && fields.some((field) => error.fieldMessage(field) !== undefined);
  const opener = useDialogTrigger(trigger as ReactElement<{ id?: string }>, open, () => change(true));
  return (
    <>
      {opener.element}
      {open && (
        <Modal
          open
          onOpenChange={change}
          title={title}
          returnFocusTo={opener.id}
          onCloseAutoFocus={(event) => {
            if (submitted.current && focusAfterSubmit) {
              event.preventDefault();
              focusWhenThere(focusAfterSubmit);
              return;
            }
            if (!onClosed) return;
            event.preventDefault();
            onClosed();
          }}
        >
          <form onSubmit={(event) => void submit(event)}>
            {children(error)}
            {error !== undefined && !shownAtField && <ErrorMessage>{messageOf(error)}</ErrorMessage>}
            <div className="actions">
              {extraActions}
              <button type="button" onClick={() => change(false)}>
                Cancel
              </button>
              <button type="submit" className="primary" disabled={busy}>
                {submitLabel}
              </button>
            </div>
          </form>
        </Modal>
      )}
    </>
  );
}

/** Focuses the first element `selector` picks as soon as it is on the page (a page still loading), for up to `within` ms. */
export function focusWhenThere(selector: string, within = 5000): void {
  const focus = () => {
    const element = document.querySelector<HTMLElement>(selector);
    element?.focus();
    return element !== null;
  };
  if (focus()) return;
  const observer = new MutationObserver(() => {
    if (!focus()) return;
    observer.disconnect();
    clearTimeout(timer);
  });
  observer.observe(document.body, { childList: true, subtree: true });
  const timer = setTimeout(() => observer.disconnect(), within);
}
