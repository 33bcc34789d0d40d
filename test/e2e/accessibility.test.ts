// Every page through axe-core (no serious or critical violation) in the light and the dark theme,
// and the app at 375 px wide: no sideways scrolling, the sidebar behind a menu button.
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArc, createCampaign, createThing, expectNoPageErrors, launchBrowser, screenshotPath, signUp, startE2eServer, type E2eServer } from './browser.js';

let server: E2eServer;
const pages: Record<string, string> = {};

beforeAll(async () => {
  server = await startE2eServer();
  // One campaign with a thing, an arc and some text, so every page has content to check.
  const browser = await launchBrowser();
  try {
    const { page } = browser;
    await signUp(page, server.base);
    pages['campaigns'] = '/';
    const slug = await createCampaign(page, 'Accessible Adventures');
    pages['campaign home'] = `/campaigns/${slug}`;
    await createThing(page, 'Toblen Stonehill');
    pages['thing'] = new URL(page.url()).pathname;
    await createArc(page, 'The Redbrand Hideout');
    pages['arc'] = new URL(page.url()).pathname;
    pages['thing type'] = new URL(await page.getByRole('navigation', { name: 'Things' }).getByRole('link', { name: 'NPCs' }).getAttribute('href') ?? '/', server.base).pathname;
    pages['search'] = `/campaigns/${slug}/search?q=toblen`;
    pages['account'] = '/account';
    pages['members'] = `/campaigns/${slug}/members`;
    pages['join'] = '/join';
    pages['reset password'] = '/reset-password';
    pages['import'] = '/import';
    const state = await browser.context.storageState();
    cookies = state.cookies;
  } finally {
    await browser.close();
  }
}, 120_000);
afterAll(() => server?.stop());

let cookies: Awaited<ReturnType<import('playwright-core').BrowserContext['storageState']>>['cookies'] = [];

async function violations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page: page }).analyze();
  return results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe('accessibility', () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    it(`has no serious or critical axe violation on any page, ${colorScheme} theme`, async () => {
      const browser = await launchBrowser({ colorScheme });
      try {
        const { page } = browser;
        const found: Record<string, string[]> = {};
        for (const [name, path] of [['sign in', '/sign-in'], ['sign up', '/sign-up']] as const) {
          await page.goto(server.base + path);
          await page.getByRole('heading', { level: 1 }).waitFor();
          found[name] = await violations(page);
        }
        // The theme really is the one named (the system's, emulated here).
        expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(colorScheme === 'dark' ? 'rgb(22, 21, 20)' : 'rgb(251, 250, 247)');
        await browser.context.addCookies(cookies);
        for (const [name, path] of Object.entries(pages)) {
          await page.goto(server.base + path);
          await page.getByRole('heading', { level: 1 }).first().waitFor({ state: 'attached' });
          await expect.poll(() => page.locator('.loading').count()).toBe(0);
          found[name] = await violations(page);
        }
        // A dialog open, and the editor with its toolbar.
        await page.goto(server.base + pages['thing']!);
        await page.getByRole('textbox', { name: 'Description' }).click();
        await page.getByRole('toolbar').waitFor();
        found['editor'] = await violations(page);
        await page.getByRole('button', { name: 'New thing' }).click();
        await page.getByRole('dialog').waitFor();
        found['new thing dialog'] = await violations(page);
        await page.keyboard.press('Escape');
        await page.keyboard.press('Control+k');
        await page.getByRole('dialog', { name: 'Go to…' }).getByRole('combobox').fill('toblen');
        await page.getByRole('option', { name: /Toblen Stonehill/ }).waitFor();
        found['quick switcher with matches'] = await violations(page);
        expect(Object.entries(found).filter(([, list]) => list.length > 0)).toEqual([]);
        expectNoPageErrors(browser);
      } finally {
        await browser.close();
      }
    }, 120_000);
  }

  it('works at 375 px wide: the sidebar is a menu and nothing scrolls sideways', async () => {
    const browser = await launchBrowser({ width: 375, height: 740 });
    try {
      const { page } = browser;
      await browser.context.addCookies(cookies);
      for (const path of Object.values(pages)) {
        await page.goto(server.base + path);
        await page.getByRole('heading', { level: 1 }).first().waitFor({ state: 'attached' });
        expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(375);
      }
      await page.goto(server.base + pages['thing']!);
      const sidebar = page.getByRole('complementary', { name: 'Campaign' });
      expect(await sidebar.isVisible()).toBe(false);
      await page.getByRole('button', { name: 'Menu' }).click();
      await sidebar.getByRole('link', { name: 'Accessible Adventures' }).waitFor();
      await page.screenshot({ path: screenshotPath('narrow-menu.png') });
      await sidebar.getByRole('link', { name: 'Accessible Adventures' }).click();
      await page.getByRole('heading', { level: 1, name: 'Accessible Adventures' }).waitFor();
      expect(await sidebar.isVisible()).toBe(false);
      expectNoPageErrors(browser);
    } finally {
      await browser.close();
    }
  }, 120_000);
});
