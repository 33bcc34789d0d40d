// Keystroke latency in Chromium (bench/web.ts): per key, from the key event to the end of the next
// frame after the page has handled it (a requestAnimationFrame callback, then a task after that
// frame's paint).
//
// The display's refresh is taken out of the figure: at 60 Hz a frame can only start on the next
// vsync, so a key waits 0–16.7 ms for it whatever the page costs (a key right after another key's
// frame waits nearly all of it), and the p95 of that measure is about 17 ms on a page holding one
// 5-word contenteditable and nothing else (measured on this machine, 2026-11-25). A budget of
// "< 16 ms a keystroke" asks whether a key's work fits in one frame, so the browser runs with
// frames unthrottled (UNTHROTTLED_FRAMES: a frame starts as soon as the page asks for one) and the
// figure is the page's own time from the key to its painted frame. The browser's own floor (the
// same keys into a 5-word contenteditable) is measured alongside, in the same mode.
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../../test/e2e/chromium.js';

/** Chromium's switches for frames that start when asked for, not on the display's next vsync. */
export const UNTHROTTLED_FRAMES = ['--disable-frame-rate-limit', '--disable-gpu-vsync'];

/** What is typed, once a round: one sentence, every key timed. */
export const SENTENCE = 'The party rests at the inn while the rain keeps falling over Phandalin. ';

/** Types `rounds` sentences at the caret (30 ms between keys) and returns each key's latency in ms. */
export async function typeAndTime(page: Page, rounds: number): Promise<number[]> {
  // In the page (a string: this file is typed for Node, not the DOM).
  await page.evaluate(`
    window.__latencies = [];
    document.addEventListener('keydown', () => {
      const started = performance.now();
      requestAnimationFrame(() => setTimeout(() => window.__latencies.push(performance.now() - started), 0));
    }, true);
  `);
  for (let round = 0; round < rounds; round++) await page.keyboard.type(SENTENCE, { delay: 30 });
  await page.waitForTimeout(200);
  return page.evaluate<number[]>('window.__latencies');
}

/** The same keys into a page holding one 5-word contenteditable: what the browser alone costs. */
export async function browserFloor(rounds: number, args: string[]): Promise<number[]> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS, ...args] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.setContent('<div id="text" contenteditable>Five words of plain text</div>');
    await page.click('#text');
    await page.keyboard.press('End');
    return await typeAndTime(page, rounds);
  } finally {
    await browser.close();
  }
}

export const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))]!;

/** "p50 / p95 / max" of a set of latencies. */
export const spread = (values: number[]) => (values.length === 0 ? 'not measured' : `${percentile(values, 50).toFixed(1)} / ${percentile(values, 95).toFixed(1)} / ${Math.max(...values).toFixed(1)} ms`);
