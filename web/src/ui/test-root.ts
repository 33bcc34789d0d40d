// For the web app's jsdom tests: a React root in an element of its own, made before each test and
// unmounted and removed after it, with act() enabled for the file.
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach } from 'vitest';

export interface TestRoot {
  readonly container: HTMLDivElement;
  readonly root: Root;
  /** Unmounts what was rendered and starts a new root in the same element. */
  remount(): void;
}

/** Call at a test file's top: `dom.root` renders into `dom.container` in every test. */
export function rootPerTest(): TestRoot {
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
  let container: HTMLDivElement | undefined;
  let root: Root | undefined;
  beforeEach(() => {
    container = document.createElement('div');
    document.body.append(container);
    root = createRoot(container);
  });
  afterEach(() => {
    act(() => root!.unmount());
    container!.remove();
  });
  return {
    get container() {
      return container!;
    },
    get root() {
      return root!;
    },
    remount() {
      act(() => root!.unmount());
      root = createRoot(container!);
    },
  };
}
