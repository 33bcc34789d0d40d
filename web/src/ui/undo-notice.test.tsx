// @vitest-environment jsdom
// The Undo notice after a delete (undo-notice.tsx), on a fake clock: ten seconds, held while the
// focus or the pointer is on it, one at a time, never taking the focus, and Ctrl+Z outside a text
// field as well as its button.
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/client';
import { dismissUndo, showUndo, UNDO_SECONDS, UndoNotice } from './undo-notice';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let container: HTMLDivElement;
let root: Root;
let input: HTMLInputElement;

beforeEach(() => {
  vi.useFakeTimers();
  container = document.createElement('div');
  input = document.createElement('input');
  document.body.append(input, container);
  root = createRoot(container);
  act(() => root.render(<UndoNotice />));
});
afterEach(() => {
  act(() => dismissUndo());
  act(() => root.unmount());
  container.remove();
  input.remove();
  vi.useRealTimers();
});

const region = () => container.querySelector('[role="status"]')!;
const undoButton = () => [...container.querySelectorAll('button')].find((b) => b.textContent === 'Undo');
const press = (target: EventTarget, key: string, init: KeyboardEventInit = {}) => act(() => void target.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...init })));

describe('UndoNotice', () => {
  it('is a polite live region that is there before anything is shown in it', () => {
    expect(region().getAttribute('aria-live')).toBe('polite');
    expect(region().textContent).toBe('');
  });

  it('says what was deleted, offers Undo, and leaves the focus where it was', () => {
    input.focus();
    act(() => showUndo('“Sildar” moved to the trash.', () => Promise.resolve()));
    expect(region().textContent).toContain('“Sildar” moved to the trash.');
    expect(undoButton()).toBeDefined();
    expect(document.activeElement).toBe(input);
  });

  it('goes after ten seconds', () => {
    act(() => showUndo('Gone.', () => Promise.resolve()));
    act(() => {
      vi.advanceTimersByTime(UNDO_SECONDS * 1000 - 1);
    });
    expect(undoButton()).toBeDefined();
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(undoButton()).toBeUndefined();
  });

  it('stays while the focus is on it, and counts again once it leaves', () => {
    act(() => showUndo('Gone.', () => Promise.resolve()));
    act(() => undoButton()!.focus());
    act(() => {
      vi.advanceTimersByTime(60_000);
    });
    expect(undoButton()).toBeDefined();
    act(() => input.focus());
    act(() => {
      vi.advanceTimersByTime(UNDO_SECONDS * 1000);
    });
    expect(undoButton()).toBeUndefined();
  });

  it('shows one notice at a time: the newer delete replaces the older, with its own ten seconds', () => {
    const undone: string[] = [];
    act(() => showUndo('First.', () => Promise.resolve(undone.push('first'))));
    act(() => {
      vi.advanceTimersByTime(6000);
    });
    act(() => showUndo('Second.', () => Promise.resolve(undone.push('second'))));
    expect(region().textContent).toContain('Second.');
    expect(region().textContent).not.toContain('First.');
    act(() => {
      vi.advanceTimersByTime(6000);
    });
    expect(undoButton()).toBeDefined();
    act(() => undoButton()!.click());
    expect(undone).toEqual(['second']);
  });

  it('undoes with its button once, then says it is back', async () => {
    let calls = 0;
    act(() => showUndo('Gone.', () => Promise.resolve(calls++)));
    act(() => undoButton()!.click());
    await act(() => Promise.resolve());
    expect(calls).toBe(1);
    expect(region().textContent).toContain('it is back');
    expect(undoButton()).toBeUndefined();
  });

  it('once undone from its focused button, says so for a moment and goes; the next notice has its ten seconds', async () => {
    act(() => showUndo('Gone.', () => Promise.resolve()));
    act(() => undoButton()!.focus());
    act(() => undoButton()!.click());
    await act(() => Promise.resolve());
    expect(region().textContent).toContain('it is back');
    act(() => {
      vi.advanceTimersByTime(4000);
    });
    expect(region().textContent).toBe('');
    act(() => showUndo('Gone again.', () => Promise.resolve()));
    act(() => {
      vi.advanceTimersByTime(UNDO_SECONDS * 1000);
    });
    expect(region().textContent).toBe('');
  });

  it('undoes with Ctrl+Z or ⌘Z outside a text field, never inside one (the text’s own undo)', async () => {
    let calls = 0;
    act(() => showUndo('Gone.', () => Promise.resolve(calls++)));
    press(input, 'z', { ctrlKey: true });
    expect(calls).toBe(0);
    press(document.body, 'z', { metaKey: true });
    await act(() => Promise.resolve());
    expect(calls).toBe(1);
  });

  it('says why when the undo fails, and keeps the message', async () => {
    act(() => showUndo('Gone.', () => Promise.reject(new ApiError(409, { status: 409, code: 'restore_container_first', detail: 'Restore its type first.' }))));
    act(() => undoButton()!.click());
    await act(() => Promise.resolve());
    expect(region().textContent).toContain('Restore its type first.');
    act(() => {
      vi.advanceTimersByTime(60_000);
    });
    expect(region().textContent).toContain('Restore its type first.');
  });
});
