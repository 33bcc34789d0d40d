// @vitest-environment jsdom
// A modal dialog whose code loads on its first open (ui/dialog.tsx): its button says it opens a
// dialog and whether it is open, the dialog is named by its title and described, Cancel and Escape
// close it, and the focus goes back to the button that opened it.
import { act } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { ConfirmButton } from './confirm';
import { rootPerTest } from './test-root';

const dom = rootPerTest();
const dialog = () => document.querySelector<HTMLElement>('[role="dialog"]');

describe('a dialog loaded on its first open', () => {
  it('opens from its button, named and described, and closes by Cancel or Escape with the focus back on the button', async () => {
    const onConfirm = vi.fn(() => Promise.resolve());
    act(() =>
      dom.root.render(
        <ConfirmButton label="Delete…" title="Delete the mill?" confirmLabel="Delete" onConfirm={onConfirm}>
          It goes to the trash.
        </ConfirmButton>,
      ),
    );
    const button = dom.container.querySelector('button')!;
    expect(button.getAttribute('aria-haspopup')).toBe('dialog');
    expect(button.getAttribute('aria-expanded')).toBe('false');
    expect(dialog()).toBeNull();

    button.focus();
    act(() => button.click());
    await vi.waitFor(() => expect(dialog()).not.toBeNull());
    expect(button.getAttribute('aria-expanded')).toBe('true');
    const labelledBy = document.getElementById(dialog()!.getAttribute('aria-labelledby')!);
    expect(labelledBy?.textContent).toBe('Delete the mill?');
    expect(document.getElementById(dialog()!.getAttribute('aria-describedby')!)?.textContent).toBe('It goes to the trash.');

    act(() => [...dialog()!.querySelectorAll('button')].find((b) => b.textContent === 'Cancel')!.click());
    await vi.waitFor(() => expect(dialog()).toBeNull());
    await vi.waitFor(() => expect(document.activeElement).toBe(button));
    expect(button.getAttribute('aria-expanded')).toBe('false');

    // Open again (the code is here now: at once), then Escape.
    act(() => button.click());
    expect(dialog()).not.toBeNull();
    act(() => {
      document.activeElement!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    });
    await vi.waitFor(() => expect(dialog()).toBeNull());
    await vi.waitFor(() => expect(document.activeElement).toBe(button));
    expect(onConfirm).not.toHaveBeenCalled();
  });
});
