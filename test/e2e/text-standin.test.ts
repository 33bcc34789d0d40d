// The campaign home's description shown as read until the game master reaches for it
// (web/src/records/record-page-standin.tsx): the editor's code is not even fetched before, and on a
// 4× slower CPU (a phone) every key pressed before the editor is there lands in it, at the click,
// with nothing on the page moving.
import type { CDPSession, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createThing, expectNoPageErrors, gmJourney, saved } from './browser.js';

const journey = gmJourney('Stand-in');

/** The paragraphs of the campaign's description as the server holds them. */
async function serverParagraphs(page: Page, slug: string): Promise<string[]> {
  return page.evaluate(async (slug) => {
    const body = (await (await fetch(`/api/campaigns/${slug}`)).json()) as { description: { children: { text?: string }[] }[] };
    return body.description.map((block) => block.children.map((child) => child.text ?? '').join(''));
  }, slug);
}

/** From its next load, the page notes every layout shift (read with `shifts`). */
async function recordShifts(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const shifts: number[] = [];
    (window as unknown as { __shifts: number[] }).__shifts = shifts;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) shifts.push((entry as unknown as { value: number }).value);
    }).observe({ type: 'layout-shift', buffered: true });
  });
}

/** Opens the home on a 4× slower CPU, noting whether the editor's code was requested, and every layout shift. */
async function openHome(page: Page): Promise<{ cdp: CDPSession; editorFetched: () => boolean }> {
  let fetched = false;
  page.on('request', (request) => {
    if (/\/assets\/editor-[^/]*\.js$/.test(request.url())) fetched = true;
  });
  await recordShifts(page);
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

describe("a thing page's text, shown as read until it is written in", () => {
  it("the editor's code waits for the click; keys typed at once land after the text, on a 4× slower CPU, with nothing moving", async () => {
    const gm = journey.browser.page;
    await gm.goto(`${journey.server.base}/campaigns/${journey.campaign}`);
    await createThing(gm, 'Hill keep');
    const address = new URL(gm.url()).pathname;
    await gm.getByRole('textbox', { name: 'Description', exact: true }).click();
    await gm.keyboard.type('A keep on the hill.');
    await saved(gm);

    let fetched = false;
    let renderings = 0;
    const page = await journey.browser.newPage();
    page.on('request', (request) => {
      if (/\/assets\/editor-[^/]*\.js$/.test(request.url())) fetched = true;
      if (request.url().endsWith(`/api${address}/rendered`)) renderings += 1;
    });
    await recordShifts(page);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    await page.goto(`${journey.server.base}${address}`);
    const text = page.getByRole('textbox', { name: 'Description', exact: true });
    await text.getByText('A keep on the hill.').waitFor();
    await page.waitForLoadState('networkidle');
    expect(fetched).toBe(false);
    expect(await page.locator('[data-slate-editor]').count()).toBe(0);
    // Its rendering has the record's very words: shown at once, not read again.
    expect(renderings).toBe(1);
    // The page's own loading is over before the click (on a loaded machine its last answers can
    // come after the network is idle): what moves from the click on is the click's doing.
    await page.getByText('Not in any arc yet.').waitFor();
    await page.getByText('Nothing mentions it yet.').waitFor();
    await expect.poll(() => page.locator('.account-link').textContent()).not.toBe('Account');

    const shiftsBefore = (await shifts(page)).length;
    await text.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' Its gate is shut.');
    const description = () =>
      page.evaluate(async (url) => {
        const body = (await (await fetch(url)).json()) as { description: { children: { text?: string }[] }[] };
        return body.description.map((block) => block.children.map((child) => child.text ?? '').join(''));
      }, `/api${address}`);
    await expect.poll(description, { timeout: 15_000 }).toEqual(['A keep on the hill. Its gate is shut.']);
    await saved(page);
    expect(fetched).toBe(true);
    expect((await shifts(page)).slice(shiftsBefore)).toEqual([]);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
    await page.close();
    expectNoPageErrors(journey.browser);
  });
});

/** The address of a new thing whose text the game master wrote (and saved) in the editor. */
async function thingWithText(name: string, text: string): Promise<string> {
  const gm = journey.browser.page;
  await gm.goto(`${journey.server.base}/campaigns/${journey.campaign}`);
  await createThing(gm, name);
  const address = new URL(gm.url()).pathname;
  await gm.getByRole('textbox', { name: 'Description', exact: true }).click();
  await gm.keyboard.type(text);
  await saved(gm);
  return address;
}

describe('the text shown as read is never older than the record', () => {
  it('a rendering read before a newer version of the record is read again, and only the newer text is ever shown', async () => {
    const gm = journey.browser.page;
    const address = await thingWithText('Old mill', 'The wheel turns.');

    const page = await journey.browser.newPage();
    // Every frame, the text the stand-in shows (it may be there unseen while its rendering is read again).
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { __seen: string[] }).__seen = seen;
      const sample = () => {
        const standIn = document.querySelector<HTMLElement>('.record-text-standin:not([hidden])');
        if (standIn && getComputedStyle(standIn).visibility === 'visible' && seen.at(-1) !== standIn.textContent) seen.push(standIn.textContent ?? '');
        requestAnimationFrame(sample);
      };
      requestAnimationFrame(sample);
    });
    // The record's answer waits until its rendering is in and another tab has written a newer text.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const rendered = new Promise<void>((resolve) => page.on('requestfinished', (request) => request.url().endsWith(`/api${address}/rendered`) && resolve()));
    await page.route(`**/api${address}`, async (route) => {
      if (route.request().method() === 'GET') await held;
      await route.continue();
    });
    const opened = page.goto(`${journey.server.base}${address}`);
    await rendered;
    const status = await gm.evaluate(
      async (path) =>
        (await fetch(path, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ updatedThing: { description: [{ type: 'paragraph', children: [{ text: 'The wheel has stopped.' }] }] } }) })).status,
      `/api${address}`,
    );
    expect(status).toBe(200);
    release();
    await opened;
    const text = page.getByRole('textbox', { name: 'Description', exact: true });
    await text.getByText('The wheel has stopped.').waitFor();
    expect(await page.evaluate(() => (window as unknown as { __seen: string[] }).__seen.filter((shown) => shown.includes('The wheel turns.')))).toEqual([]);
    // Written in, it builds on the newer version with no conflict.
    await text.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' For now.');
    await saved(page);
    expect(await page.getByRole('dialog', { name: 'Someone else changed this while you were editing' }).count()).toBe(0);
    await page.close();
    expectNoPageErrors(journey.browser);
  });
});

describe('a mention typed before the editor is there', () => {
  it('`@` and a name typed at once after the click open the picker where they were typed, on a 4× slower CPU', async () => {
    await journey.browser.page.goto(`${journey.server.base}/campaigns/${journey.campaign}`);
    await createThing(journey.browser.page, 'Miller Tobin');
    const address = await thingWithText('Mill pond', 'Still water.');

    const page = await journey.browser.newPage();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    await page.goto(`${journey.server.base}${address}`);
    const text = page.getByRole('textbox', { name: 'Description', exact: true });
    await text.getByText('Still water.').waitFor();
    expect(await page.locator('[data-slate-editor]').count()).toBe(0);
    await text.click();
    // No wait for the editor: these keys are pressed while its code loads and it mounts.
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' Fished by @Tob');
    const picker = page.getByRole('listbox', { name: 'Things and arcs to mention' });
    await picker.getByRole('option', { name: /Miller Tobin/ }).waitFor();
    await page.keyboard.press('Enter');
    await text.locator('.mention', { hasText: 'Miller Tobin' }).waitFor();
    await saved(page);
    const description = await page.evaluate(async (path) => JSON.stringify((await (await fetch(path)).json()) as unknown), `/api${address}`);
    expect(description).toContain('"type":"mention"');
    expect(description).toContain('Still water. Fished by ');
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
    await page.close();
    expectNoPageErrors(journey.browser);
  });
});

describe('a click on the text shown as read, below a mention', () => {
  it('lands where it was clicked, though the editor learns the mention’s name only later', async () => {
    const gm = journey.browser.page;
    await gm.goto(`${journey.server.base}/campaigns/${journey.campaign}`);
    await createThing(gm, 'Nezznar the Black Spider, drow mage of the Phandelver Pact');
    const target = new URL(gm.url()).pathname;
    const address = await thingWithText('Gundren Rockseeker', 'Draft.');
    // The text: a heading, a long paragraph that wraps and mentions the thing above, a list of two items.
    const status = await gm.evaluate(
      async ({ target, address }) => {
        const { id } = (await (await fetch(`/api${target}`)).json()) as { id: number };
        const words = 'Gundren hired the party to bring his wagon of supplies to Phandalin, where he and his brothers found the lost mine. ';
        const description = [
          { type: 'heading-two', children: [{ text: 'Background' }] },
          { type: 'paragraph', children: [{ text: words.repeat(2) }, { type: 'mention', targetType: 'thing', targetId: id, children: [{ text: '' }] }, { text: ' knows ' }, { text: 'where he is.', bold: true }] },
          { type: 'bulleted-list', children: [{ type: 'list-item', children: [{ text: 'list item one' }] }, { type: 'list-item', children: [{ text: 'list item two' }] }] },
          { type: 'paragraph', children: [{ text: 'Plain after.' }] },
        ];
        const response = await fetch(`/api${address}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ updatedThing: { description } }) });
        return response.status;
      },
      { target, address },
    );
    expect(status).toBe(200);

    for (const [clicked, expected] of [
      ['list item two', ['list item one', 'list iZZtem two']],
      ['list item one', ['list iZZtem one', 'list item two']],
    ] as const) {
      const page = await journey.browser.newPage();
      await page.goto(`${journey.server.base}${address}`);
      const text = page.getByRole('textbox', { name: 'Description', exact: true });
      await text.getByText('list item two').waitFor();
      expect(await page.locator('[data-slate-editor]').count()).toBe(0);
      // Just inside the left edge of the second "i" of the item clicked.
      const at = await text.evaluate((element, clicked) => {
        const node = [...element.querySelectorAll('li')].find((li) => li.textContent === clicked)!.firstChild!;
        const range = document.createRange();
        range.setStart(node, 6);
        range.setEnd(node, 7);
        const rect = range.getBoundingClientRect();
        return { x: rect.left + 1, y: rect.top + rect.height / 2 };
      }, clicked);
      await page.mouse.click(at.x, at.y);
      await page.keyboard.type('ZZ');
      const items = () =>
        page.evaluate(async (url) => {
          const body = (await (await fetch(url)).json()) as { description: { type: string; children: { children?: { text?: string }[] }[] }[] };
          const list = body.description.find((block) => block.type === 'bulleted-list')!;
          return list.children.map((item) => (item.children ?? []).map((child) => child.text ?? '').join(''));
        }, `/api${address}`);
      await expect.poll(items, { timeout: 15_000 }).toEqual(expected);
      await saved(page);
      // Back as it was for the next click.
      const reset = await page.evaluate(
        async (url) => {
          const body = (await (await fetch(url)).json()) as { description: { type: string; children: { children?: { text?: string }[] }[] }[] };
          const list = body.description.find((block) => block.type === 'bulleted-list')!;
          for (const item of list.children) for (const child of item.children ?? []) if (typeof child.text === 'string') child.text = child.text.replace('ZZ', '');
          return (await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ updatedThing: { description: body.description } }) })).status;
        },
        `/api${address}`,
      );
      expect(reset).toBe(200);
      await page.close();
    }

    // Shown as the editor shows it: "@" and the name; once its record is in the trash, "@(missing)"
    // (the rendering leaves a missing mention empty, for players too).
    const before = (page: import('playwright-core').Page) =>
      page.getByRole('textbox', { name: 'Description', exact: true }).locator('.mention').evaluate((element) => [element.classList.contains('missing'), getComputedStyle(element, '::before').content]);
    const live = await journey.browser.newPage();
    await live.goto(`${journey.server.base}${address}`);
    await live.getByRole('textbox', { name: 'Description', exact: true }).getByText('list item two').waitFor();
    expect(await before(live)).toEqual([false, '"@"']);
    expect(await live.evaluate(async (url) => (await fetch(url, { method: 'DELETE' })).status, `/api${target}`)).toBe(204);
    await live.reload();
    await live.getByRole('textbox', { name: 'Description', exact: true }).getByText('list item two').waitFor();
    expect(await before(live)).toEqual([true, '"@(missing)"']);
    await live.close();
    expectNoPageErrors(journey.browser);
  });
});

describe('Tab, Shift+Tab, Home and End pressed before the editor is there', () => {
  it('are the text’s once it was clicked: they nest, un-nest and move in it, and the title and tags never get the words', async () => {
    const address = await thingWithText('Baron Vargas Vallakovich', 'Draft.');
    const item = (text: string) => ({ type: 'list-item', children: [{ text }] });
    const nested = [{ type: 'bulleted-list', children: [{ type: 'list-item', children: [{ type: 'paragraph', children: [{ text: 'Vallaki' }] }, { type: 'bulleted-list', children: [item('Baron Vargas')] }] }, item('Krezk')] }];
    const put = (page: Page, description: unknown) =>
      page.evaluate(async ({ url, description }) => (await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ updatedThing: { description } }) })).status, { url: `/api${address}`, description });
    const held = (page: Page) => page.evaluate(async (url) => ((await (await fetch(url)).json()) as { name: string; description: unknown; tags: string[] }), `/api${address}`);

    for (const [keys, expected] of [
      // Shift+Tab at once after a click at the end of the nested item: out one level, the words in it.
      [['Shift+Tab'], [{ type: 'bulleted-list', children: [item('Vallaki'), item('Baron Vargas is the burgomaster'), item('Krezk')] }]],
      // Tab on the first item: nothing moves, and the words stay in the text.
      [['Home', 'Tab'], null],
    ] as const) {
      const page = await journey.browser.newPage();
      await page.goto(`${journey.server.base}${address}`);
      expect(await put(page, nested)).toBe(200);
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
      await page.reload();
      const text = page.getByRole('textbox', { name: 'Description', exact: true });
      await text.getByText('Baron Vargas').waitFor();
      expect(await page.locator('[data-slate-editor]').count()).toBe(0);
      const clicked = keys[0] === 'Home' ? 'Vallaki' : 'Baron Vargas';
      const at = await text.evaluate((element, clicked) => {
        const node = [...element.querySelectorAll('li')].map((li) => li.firstChild!).find((node) => node.textContent === clicked)!;
        const target = node.nodeType === Node.TEXT_NODE ? node : node.firstChild!;
        const range = document.createRange();
        range.setStart(target, clicked.length - 1);
        range.setEnd(target, clicked.length);
        const rect = range.getBoundingClientRect();
        return { x: rect.right - 1, y: rect.top + rect.height / 2 };
      }, clicked);
      await page.mouse.click(at.x, at.y);
      // No wait for the editor: these keys are pressed while its code loads and it mounts.
      for (const key of keys) await page.keyboard.press(key);
      await page.keyboard.type(keys[0] === 'Home' ? 'Old ' : ' is the burgomaster');
      const want = expected ?? [{ type: 'bulleted-list', children: [{ type: 'list-item', children: [{ type: 'paragraph', children: [{ text: 'Old Vallaki' }] }, { type: 'bulleted-list', children: [item('Baron Vargas')] }] }, item('Krezk')] }];
      await expect.poll(async () => (await held(page)).description, { timeout: 15_000 }).toEqual(want);
      await saved(page);
      const thing = await held(page);
      expect(thing.name).toBe('Baron Vargas Vallakovich');
      expect(thing.tags).toEqual([]);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
      await page.close();
    }
    expectNoPageErrors(journey.browser);
  });
});

describe('Tab on the text shown as read, reached by the keyboard or by hand', () => {
  it('moves on from a text the keyboard only passed through, and nests an item once the text was clicked', async () => {
    const address = await thingWithText('Madam Eva', 'Draft.');
    const item = (text: string) => ({ type: 'list-item', children: [{ text }] });
    const page = await journey.browser.newPage();
    await page.goto(`${journey.server.base}${address}`);
    const listed = [{ type: 'bulleted-list', children: [item('Tser Pool'), item('Vistani camp')] }];
    const put = await page.evaluate(
      async ({ url, description }) => (await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ updatedThing: { description } }) })).status,
      { url: `/api${address}`, description: listed },
    );
    expect(put).toBe(200);
    await page.reload();
    const text = page.getByRole('textbox', { name: 'Description', exact: true });
    await text.getByText('Vistani camp').waitFor();
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
    // By the keyboard: Tab onto the text, then Tab again, moves on (the editor loads meanwhile, and keeps no focus).
    await text.focus();
    await page.keyboard.press('Tab');
    expect(await focused()).not.toBe('Description');
    await page.locator('[data-slate-editor]').waitFor();
    expect(await focused()).not.toBe('Description');
    // Back by the keyboard into the editor now there: Tab still moves on.
    await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe('Description');
    await page.keyboard.press('Tab');
    expect(await focused()).not.toBe('Description');
    // By hand: a click at the end of the second item, the editor there, then Tab nests it.
    await page.getByRole('textbox', { name: 'Description', exact: true }).getByText('Vistani camp').click();
    await page.keyboard.press('Tab');
    await saved(page);
    const held = await page.evaluate(async (url) => ((await (await fetch(url)).json()) as { description: unknown }).description, `/api${address}`);
    expect(held).toEqual([{ type: 'bulleted-list', children: [{ type: 'list-item', children: [{ type: 'paragraph', children: [{ text: 'Tser Pool' }] }, { type: 'bulleted-list', children: [item('Vistani camp')] }] }] }]);
    await page.close();
    expectNoPageErrors(journey.browser);
  });
});
