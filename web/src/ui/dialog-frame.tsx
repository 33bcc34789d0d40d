// A modal dialog's frame: Radix's dialog (focus kept inside, Escape and a click outside close, the
// page behind hidden from screen readers and its scroll locked). Its own chunk, loaded through
// ui/dialog.tsx on the first open (or in idle time after the first page), not with the app.
import * as Dialog from '@radix-ui/react-dialog';
import type { ReactElement, ReactNode, Ref } from 'react';

type ContentProps = Dialog.DialogContentProps;

export interface DialogFrameProps {
  open: boolean;
  onOpenChange?: (open: boolean) => void;
  /** The content's class: `dialog`, `dialog wide`. */
  className?: string;
  title: ReactNode;
  titleRef?: Ref<HTMLHeadingElement>;
  titleTabIndex?: number;
  /** The element that describes the dialog (a `<p>` or `<div>`), read out with its title. */
  description?: ReactElement;
  /** The id of the element that opened the dialog: the focus goes back to it when the dialog closes. */
  returnFocusTo?: string;
  onEscapeKeyDown?: ContentProps['onEscapeKeyDown'];
  onPointerDownOutside?: ContentProps['onPointerDownOutside'];
  onOpenAutoFocus?: ContentProps['onOpenAutoFocus'];
  /** Called as it closes; `preventDefault()` keeps the focus from going back to `returnFocusTo`. */
  onCloseAutoFocus?: ContentProps['onCloseAutoFocus'];
  children: ReactNode;
}

export function DialogFrame({ open, onOpenChange, className = 'dialog', title, titleRef, titleTabIndex, description, returnFocusTo, onEscapeKeyDown, onPointerDownOutside, onOpenAutoFocus, onCloseAutoFocus, children }: DialogFrameProps) {
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content
          className={className}
          {...(description ? {} : { 'aria-describedby': undefined })}
          onEscapeKeyDown={onEscapeKeyDown}
          onPointerDownOutside={onPointerDownOutside}
          onOpenAutoFocus={onOpenAutoFocus}
          onCloseAutoFocus={(event) => {
            onCloseAutoFocus?.(event);
            if (event.defaultPrevented) return;
            event.preventDefault();
            if (returnFocusTo) document.getElementById(returnFocusTo)?.focus();
          }}
        >
          <Dialog.Title ref={titleRef} tabIndex={titleTabIndex}>
            {title}
          </Dialog.Title>
          {description && <Dialog.Description asChild>{description}</Dialog.Description>}
          {children}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
