// Modal dialogs without their code on the first load: the frame (ui/dialog-frame.tsx, Radix's dialog
// and its focus trap and scroll lock, about 12 KB compressed) is its own chunk, asked for on the first
// open or in idle time once the first page is drawn (`preloadDialogs`), and drawn at once when it is there.
import { cloneElement, lazy, Suspense, useId, type MouseEvent, type ReactElement } from 'react';
import type { DialogFrameProps } from './dialog-frame';

type FrameModule = typeof import('./dialog-frame');
let loaded: FrameModule | undefined;
let loading: Promise<FrameModule> | undefined;
const load = () => (loading ??= import('./dialog-frame').then((module) => (loaded = module)));

// Once the code is here, a dialog opens in the same frame as the click (a thenable that answers as
// it is asked: React does not suspend on it), not a frame later.
const Frame = lazy((): Promise<{ default: FrameModule['DialogFrame'] }> => {
  if (loaded) {
    const frame = { default: loaded.DialogFrame };
    return { then: (resolve: (module: typeof frame) => void) => resolve(frame) } as Promise<typeof frame>;
  }
  return load().then((module) => ({ default: module.DialogFrame }));
});

/** Asks for the dialogs' code in idle time, a moment after the page has loaded (so it never competes with the page's own). */
export function preloadDialogs(): void {
  const later = () => setTimeout(() => (window.requestIdleCallback ?? setTimeout)(() => void load().catch(() => undefined)), 1_000);
  if (document.readyState === 'complete') later();
  else window.addEventListener('load', later, { once: true });
}

/** A modal dialog (DialogFrameProps): nothing is drawn until its code is there. */
export function Modal(props: DialogFrameProps) {
  return (
    <Suspense fallback={null}>
      <Frame {...props} />
    </Suspense>
  );
}

type TriggerProps = { id?: string; onClick?: (event: MouseEvent<HTMLElement>) => void; 'aria-haspopup'?: 'dialog'; 'aria-expanded'?: boolean };

/**
 * The button that opens a dialog, as the dialog's own trigger would be: it says it opens a dialog
 * and whether it is open, opens it on a click (after its own handler, unless that prevented it),
 * and is where the focus goes back (its `id`, given to the Modal as `returnFocusTo`).
 */
export function useDialogTrigger(trigger: ReactElement<TriggerProps>, open: boolean, onOpen: () => void): { element: ReactElement; id: string } {
  const generated = useId();
  const id = trigger.props.id ?? generated;
  const element = cloneElement(trigger, {
    id,
    'aria-haspopup': 'dialog',
    'aria-expanded': open,
    onClick: (event: MouseEvent<HTMLElement>) => {
      trigger.props.onClick?.(event);
      if (!event.defaultPrevented) onOpen();
    },
  });
  return { element, id };
}
