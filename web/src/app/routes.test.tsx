// @vitest-environment jsdom
// A page's code loaded on its first showing (app/routes.tsx `page`): drawn in the very render that
// asks for it once its code is there (no fallback React would hold for 300 ms), the stand-in while
// it is not, and a module that cannot load thrown while rendering, as React.lazy throws it.
import { act, Component, type ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { rootPerTest } from '../ui/test-root';
import { page } from './routes';

const dom = rootPerTest();
const Here = () => <h1>Here</h1>;

class Caught extends Component<{ children: ReactNode }, { error?: Error }> {
  override state: { error?: Error } = {};
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  override render() {
    return this.state.error ? <p role="alert">{this.state.error.message}</p> : this.props.children;
  }
}

describe('a page loaded when first shown', () => {
  it('is drawn in the first render once its code has been loaded (preloaded, as a first load does)', async () => {
    const route = page(() => Promise.resolve({ Here }), 'Here');
    await (route.handle as { load: () => Promise<unknown> }).load();
    act(() => dom.root.render(route.element));
    expect(dom.container.querySelector('h1')?.textContent).toBe('Here');
    expect(dom.container.querySelector('[aria-busy="true"]')).toBeNull();
  });

  it('shows the stand-in until its code arrives, then the page, loading it once', async () => {
    let arrive: (module: { Here: typeof Here }) => void = () => undefined;
    const load = vi.fn(() => new Promise<{ Here: typeof Here }>((resolve) => (arrive = resolve)));
    const route = page(load, 'Here');
    act(() => dom.root.render(route.element));
    expect(dom.container.querySelector('main[aria-busy="true"]')).not.toBeNull();
    expect(dom.container.querySelector('h1')).toBeNull();
    await act(async () => {
      arrive({ Here });
      await Promise.resolve();
    });
    expect(dom.container.querySelector('h1')?.textContent).toBe('Here');
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('shows the page when its code arrives between the render that showed the stand-in and that render’s effects', async () => {
    let arrive: (module: { Here: typeof Here }) => void = () => undefined;
    const route = page(() => new Promise<{ Here: typeof Here }>((resolve) => (arrive = resolve)), 'Here');
    // Started before the page is shown, as a first load preloads the address's pages.
    void (route.handle as { load: () => Promise<unknown> }).load();
    // As in the browser, without act(): the render is committed in one task and its effects run in
    // a later one. The code arrives right after the commit that drew the stand-in.
    const env = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean };
    env.IS_REACT_ACT_ENVIRONMENT = false;
    try {
      const observer = new MutationObserver(() => {
        if (dom.container.querySelector('main[aria-busy="true"]')) arrive({ Here });
      });
      observer.observe(dom.container, { childList: true, subtree: true });
      dom.root.render(route.element);
      await vi.waitFor(() => expect(dom.container.querySelector('h1')?.textContent).toBe('Here'), { timeout: 1000 });
      observer.disconnect();
    } finally {
      env.IS_REACT_ACT_ENVIRONMENT = true;
    }
  });

  it('stays the stand-in when the import gives nothing (the tab is loading the new release)', async () => {
    const route = page(() => Promise.resolve(undefined as unknown as { Here: typeof Here }), 'Here');
    act(() => dom.root.render(route.element));
    await act(async () => (route.handle as { load: () => Promise<unknown> }).load());
    expect(dom.container.querySelector('main[aria-busy="true"]')).not.toBeNull();
  });

  it('throws a failed import while rendering, to the nearest error boundary', async () => {
    const route = page<{ Here: typeof Here }>(() => Promise.reject(new Error('the page’s code is gone')), 'Here');
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      act(() => dom.root.render(<Caught>{route.element}</Caught>));
      await act(async () => (route.handle as { load: () => Promise<unknown> }).load().catch(() => undefined));
      expect(dom.container.querySelector('[role="alert"]')?.textContent).toBe('the page’s code is gone');
    } finally {
      quiet.mockRestore();
    }
  });
});
