// @vitest-environment jsdom
// What a first load leaves until the page's text is drawn (ui/page-drawn.ts): not before the page
// says so, then after the next frame, and for good; a second after the window's load when no page
// says so. Each test loads the module afresh (its state is the tab's), with the clock in the test's hands.
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { rootPerTest } from './test-root';

const dom = rootPerTest();

async function freshModule() {
  vi.resetModules();
  const { useMarkPageDrawn, usePageDrawn } = await import('./page-drawn');
  const Later = () => <p>{usePageDrawn() ? 'drawn' : 'waiting'}</p>;
  const Page = ({ ready }: { ready: boolean }) => {
    useMarkPageDrawn(ready);
    return <Later />;
  };
  return { Page, Later };
}
const pass = (ms: number) => act(() => void vi.advanceTimersByTime(ms));

describe('work that waits for the page to be drawn', () => {
  beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'requestAnimationFrame', 'cancelAnimationFrame', 'performance'] }));
  afterEach(() => void vi.useRealTimers());

  it('waits while the page is loading, starts a frame after its content is drawn, and stays started', async () => {
    const { Page } = await freshModule();
    act(() => dom.root.render(<Page ready={false} />));
    expect(dom.container.textContent).toBe('waiting');
    pass(500);
    expect(dom.container.textContent).toBe('waiting');
    act(() => dom.root.render(<Page ready />));
    // Not in the commit that drew the content: after the paint that follows it.
    expect(dom.container.textContent).toBe('waiting');
    pass(40);
    expect(dom.container.textContent).toBe('drawn');
    // Another page, even one still loading, waits for nothing.
    dom.remount();
    act(() => dom.root.render(<Page ready={false} />));
    expect(dom.container.textContent).toBe('drawn');
  });

  it('starts a second after the window has loaded when no page says it is drawn', async () => {
    const { Later } = await freshModule();
    act(() => dom.root.render(<Later />));
    expect(dom.container.textContent).toBe('waiting');
    pass(900);
    expect(dom.container.textContent).toBe('waiting');
    pass(200);
    expect(dom.container.textContent).toBe('drawn');
  });
});
