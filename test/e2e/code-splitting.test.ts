// Pages load their code when first shown (app/routes.tsx). What a first visit fetches, and what
// happens when a page's code cannot be had (a new release replaced the files this tab knew).
import { describe, expect, it } from 'vitest';
import { createThing, expectNoPageErrors, gmJourney, launchBrowser } from './browser.js';

const journey = gmJourney('Split Again');

describe('code splitting', () => {
  it('loads a campaign page’s own code, not other pages’, and the editor only where there is text to write', async () => {
    // A browser with nothing cached, signed in as the GM.
    const browser = await launchBrowser();
    await browser.context.addCookies(await journey.browser.context.cookies());
    const { page } = browser;
    const scripts: string[] = [];
    page.on('request', (request) => {
      if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
    });
    // A page with no text to write (the members page): neither the editor nor other pages.
    await page.goto(`${journey.server.base}/campaigns/${journey.campaign}/members`);
    await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(scripts.some((path) => /\/campaign-shell-/.test(path))).toBe(true);
    expect(scripts.some((path) => /\/members-page-/.test(path))).toBe(true);
    expect(scripts.filter((path) => /\/(editor|thing-page|import-page|account-page|campaign-home)-/.test(path))).toEqual([]);
    // The campaign's home, where a game master writes the description in place: its own code, and
    // the editor's once the page is shown (its rendered text stands in meanwhile); no other page's.
    scripts.length = 0;
    await page.goto(`${journey.server.base}/campaigns/${journey.campaign}`);
    await page.getByRole('heading', { level: 1, name: 'Split Again' }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(scripts.some((path) => /\/campaign-home-/.test(path))).toBe(true);
    expect(scripts.filter((path) => /\/(thing-page|import-page|account-page|members-page)-/.test(path))).toEqual([]);
    // The page's HTML named every script the page asked for before its first paint (src/http/page-code.ts), so
    // none waited for the app's entry to run; what it asks for later (the editor on the first click, the
    // quick switcher's and the dialogs' code in idle time) is not named.
    const html = await (await page.request.get(`${journey.server.base}/campaigns/${journey.campaign}`)).text();
    const named = [...html.matchAll(/<(?:script type="module"|link rel="modulepreload") crossorigin (?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(named.some((path) => /\/campaign-home-/.test(path))).toBe(true);
    expect(scripts.filter((path) => !named.includes(path) && !/\/(editor|quick-switcher|search-list|api|history-panel|dialog)-/.test(path))).toEqual([]);
    expectNoPageErrors(browser);
    await browser.close();
  });

  it('asks for what a record page’s first paint does not need (its lists below the text, the tags, the pickers’ code) only once its text is drawn', async () => {
    const gm = journey.browser.page;
    await gm.goto(`${journey.server.base}/campaigns/${journey.campaign}`);
    await createThing(gm, 'The Lantern Keeper');
    const thingPath = new URL(gm.url()).pathname;
    const browser = await launchBrowser({ width: 375, height: 740 });
    try {
      await browser.context.addCookies(await journey.browser.context.cookies());
      const { page } = browser;
      // When the record's text first stands in the page (performance.now(), as resource timings are).
      await page.addInitScript(() => {
        const seen = new MutationObserver(() => {
          if (!document.querySelector('.record-text')) return;
          (window as unknown as { textAt: number }).textAt = performance.now();
          seen.disconnect();
        });
        seen.observe(document, { childList: true, subtree: true });
      });
      await page.goto(journey.server.base + thingPath);
      await page.getByRole('heading', { name: 'In arcs' }).waitFor();
      await page.waitForLoadState('networkidle');
      const { textAt, started } = await page.evaluate(() => ({
        textAt: (window as unknown as { textAt: number }).textAt,
        started: performance.getEntriesByType('resource').map((entry) => ({ path: new URL(entry.name).pathname, at: entry.startTime })),
      }));
      const later = [/\/things\/[^/]+\/backlinks$/, /\/things\/[^/]+\/arcs$/, /\/tags$/, /\/assets\/search-list-[^/]+\.js$/];
      for (const pattern of later) {
        const asked = started.filter((entry) => pattern.test(entry.path));
        expect(asked.length, String(pattern)).toBeGreaterThan(0);
        for (const entry of asked) expect(entry.at, `${entry.path} asked for before the text was drawn`).toBeGreaterThan(textAt);
      }
      // The page's own reads were not held back: the record and its rendering were asked for before the text was drawn.
      expect(started.filter((entry) => /\/api\/campaigns\/[^/]+\/things\/[^/]+(\/rendered)?$/.test(entry.path)).every((entry) => entry.at < textAt)).toBe(true);
      expectNoPageErrors(browser);
    } finally {
      await browser.close();
    }
  });

  it('moves nothing while a first visit’s code and data arrive (cumulative layout shift under 0.1)', async () => {
    const browser = await launchBrowser({ width: 375, height: 740 });
    try {
      await browser.context.addCookies(await journey.browser.context.cookies());
      const { page } = browser;
      // Every layout shift from the very start of the page, as the browser reports them.
      await page.addInitScript(() => {
        const shifts: number[] = [];
        (window as unknown as { shifts: number[] }).shifts = shifts;
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) shifts.push((entry as unknown as { value: number }).value);
        }).observe({ type: 'layout-shift', buffered: true });
      });
      // A thing's page too: what it asks for once its text is drawn (ui/page-drawn.ts) lands below the text.
      const gm = journey.browser.page;
      await gm.goto(`${journey.server.base}/campaigns/${journey.campaign}`);
      await createThing(gm, 'The Quiet Ferryman');
      const thingPath = new URL(gm.url()).pathname;
      for (const path of [`/campaigns/${journey.campaign}`, thingPath, '/', '/sign-in']) {
        await page.goto(journey.server.base + path);
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        await page.waitForLoadState('networkidle');
        const shifts = await page.evaluate(() => (window as unknown as { shifts: number[] }).shifts);
        expect(shifts.reduce((a, b) => a + b, 0), path).toBeLessThan(0.1);
      }
      expectNoPageErrors(browser);
    } finally {
      await browser.close();
    }
  });

  it('loads the new release when a page’s code is gone, and shows the page', async () => {
    const page = journey.browser.page;
    await page.goto(`${journey.server.base}/campaigns/${journey.campaign}`);
    await page.getByRole('heading', { level: 1, name: 'Split Again' }).waitFor();
    // The members page's code is missing once (as after a release), then there again.
    let refused = 0;
    await page.route(/\/assets\/members-page-[^/]+\.js$/, async (route) => {
      if (refused === 0) {
        refused += 1;
        await route.fulfill({ status: 404, body: 'gone' });
      } else {
        await route.continue();
      }
    });
    const reloaded = page.waitForEvent('load');
    await page.getByRole('link', { name: 'Members' }).click();
    await reloaded;
    await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
    expect(refused).toBe(1);
    expect(new URL(page.url()).pathname).toBe(`/campaigns/${journey.campaign}/members`);
    // The 404 of the missing file is logged by the browser as a failed request, nothing else.
    expectNoPageErrors(journey.browser);
  });
});
