// The campaign home's description shown as read until the game master reaches for it
// (web/src/records/record-page-standin.tsx): the editor's code is not even fetched before, and on a
// 4× slower CPU (a phone) every key pressed before the editor is there lands in it, at the click,
// with nothing on the page moving.
import type { CDPSession, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectNoPageErrors, gmJourney, saved } from './browser.js';

const journey = gmJourney('Stand-in');

/** The paragraphs of the campaign's description as the server holds them. */
async function serverParagraphs(page: Page, slug: string): Promise<string[]> {
  return page.evaluate(async (slug) => {
    const body = (await (await fetch(`/api/campaigns/${slug}`)).json()) as { description: { children: { text?: string }[] }[] };
    return body.description.map((block) => block.children.map((child) => child.text ?? '').join(''));
  }, slug);
}

/** Opens the home on a 4× slower CPU, noting whether the editor's code was requested, and every layout shift. */
async function openHome(page: Page): Promise<{ cdp: CDPSession; editorFetched: () => boolean }> {
  let fetched = false;
  page.on('request', (request) => {
    if (/\/assets\/editor-[^/]*\.js$/.test(request.url())) fetched = true;
  });
  await page.addInitScript(() => {
    const shifts: number[] = [];
    (window as unknown as { __shifts: number[] }).__shifts = shifts;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) shifts.push((entry as unknown as { value: number }).value);
    }).observe({ type: 'layout-shift', buffered: true });
  });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  await page.goto(`${journey.server.base}/campaigns/${journey.campaign}`);
  await page.getByRole('heading', { name: 'Recently updated things' }).waitFor();
  return { cdp, editorFetched: () => fetched };
}

const shifts = (page: Page) => page.evaluate(() => (window as unknown as { __shifts: number[] }).__shifts);

describe('the campaign description, shown as read until it is written in', () => {
  it('keys typed at once after the click land in the editor in order (Enter, Backspace too), on a 4× slower CPU', async () => {
    const page = await journey.browser.newPage();
    const { cdp, editorFetched } = await openHome(page);
    const text = page.getByRole('textbox', { name: 'Campaign description', exact: true });
    await page.waitForLoadState('networkidle');
    expect(editorFetched()).toBe(false);
    expect(await page.locator('[data-slate-editor]').count()).toBe(0);

    const shiftsBefore = (await shifts(page)).length;
    await text.click();
    // No wait for the editor: these keys are pressed while its code loads and it mounts.
    await page.keyboard.type('First line of the campaign.');
    await page.keyboard.press('Enter');
    await page.keyboard.type('Second linee');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('.');
    await expect.poll(() => serverParagraphs(page, journey.campaign), { timeout: 15_000 }).toEqual(['First line of the campaign.', 'Second line.']);
    await saved(page);
    expect(editorFetched()).toBe(true);
    // Every shift counted, those right after the click too (which CLS forgives): the swap moves nothing.
    expect((await shifts(page)).slice(shiftsBefore)).toEqual([]);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
    await page.close();
    expectNoPageErrors(journey.browser);
  });

  it('the caret lands where the click was, in the middle of the text, and Ctrl+End before the editor is there still moves it', async () => {
    const page = await journey.browser.newPage();
    const { cdp } = await openHome(page);
    const text = page.getByRole('textbox', { name: 'Campaign description', exact: true });
    await text.getByText('First line of the campaign.').waitFor();
    expect(await page.locator('[data-slate-editor]').count()).toBe(0);
    // Just inside the left edge of the "l" of "line" in the first paragraph.
    const at = await text.evaluate((element) => {
      const node = [...element.querySelectorAll('p')].find((p) => p.textContent === 'First line of the campaign.')!.firstChild!;
      const range = document.createRange();
      range.setStart(node, 6);
      range.setEnd(node, 7);
      const rect = range.getBoundingClientRect();
      return { x: rect.left + 1, y: rect.top + rect.height / 2 };
    });
    await page.waitForLoadState('networkidle');
    const shiftsBefore = (await shifts(page)).length;
    await page.mouse.click(at.x, at.y);
    await page.keyboard.type('new ');
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' The end.');
    await expect.poll(() => serverParagraphs(page, journey.campaign), { timeout: 15_000 }).toEqual(['First new line of the campaign.', 'Second line. The end.']);
    await saved(page);
    // Every shift counted, those right after the click too (which CLS forgives): the swap moves nothing.
    expect((await shifts(page)).slice(shiftsBefore)).toEqual([]);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
    await page.close();
    expectNoPageErrors(journey.browser);
  });
});
