// Every page through axe-core (no serious or critical violation) in the app's light and dark
// themes (its own switch, app/theme.ts), wide and at 375 px: the pages signed out (sign-in, sign-up
// refused, reset password, an invitation), the signed-in pages, and the states that add to a page
// (the history panel, the sidebar's lists, a dialog, the quick switcher, the editor and its mention
// picker). The campaign is made through the API, so the
// test follows pages, not how records are edited; it finds things by roles and landmarks.
// At 375 px: nothing scrolls sideways, the sidebar is a menu that Escape closes.
import { AxeBuilder } from '@axe-core/playwright';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caretInEditor, expectNoPageErrors, launchBrowser, screenshotPath, signUp, startE2eServer, type E2eServer } from './browser.js';

let server: E2eServer;
let invitation = '';
let cookies: Awaited<ReturnType<BrowserContext['storageState']>>['cookies'] = [];
const pages: Record<string, string> = {};
const CAMPAIGN = 'Accessible Adventures';

const paragraph = (text: string, extra: Record<string, unknown> = {}) => ({ type: 'paragraph', ...extra, children: [{ text }] });

beforeAll(async () => {
  server = await startE2eServer();
  const browser = await launchBrowser();
  try {
    const { page } = browser;
    await signUp(page, server.base);
    // The API with the session the app signed up with.
    const send = async <T,>(method: 'POST' | 'DELETE', path: string, data?: unknown): Promise<T> => {
      const response = await page.request.fetch(server.base + path, { method, ...(data === undefined ? {} : { data }) });
      expect(response.status(), `${method} ${path}: ${await response.text()}`).toBeLessThan(300);
      return (response.status() === 204 ? undefined : await response.json()) as T;
    };
    const campaign = await send<{ slug: string }>('POST', '/api/campaigns', { newCampaign: { name: CAMPAIGN, description: [paragraph('A campaign on the Sword Coast.')] } });
    const at = `/api/campaigns/${campaign.slug}`;
    const types = (await (await page.request.get(server.base + `${at}/thing-types`)).json()) as { id: number; name: string }[];
    const npcs = types.find((type) => type.name === 'NPCs')!;
    const thing = await send<{ slug: string }>('POST', `${at}/things`, {
      newThing: { name: 'Toblen Stonehill', typeId: npcs.id, description: [paragraph('Toblen keeps the Stonehill Inn.'), paragraph('Toblen owes the Redbrands money.', { isSecret: true })] },
    });
    // A GM-only thing (its badge in the sidebar and the type's page) and one in the trash.
    const secret = await send<{ slug: string }>('POST', `${at}/things`, { newThing: { name: 'Nezznar', typeId: npcs.id, visibility: 'gm' } });
    const gone = await send<{ slug: string }>('POST', `${at}/things`, { newThing: { name: 'Torn Map', typeId: npcs.id } });
    await send('DELETE', `${at}/things/${gone.slug}`);
    const arc = await send<{ slug: string }>('POST', `${at}/arcs`, { newArc: { name: 'The Redbrand Hideout' } });
    invitation = (await send<{ url: string }>('POST', `${at}/invitations`, { role: 'player' })).url;

    pages['campaigns'] = '/';
    pages['account'] = '/account';
    pages['import'] = '/import';
    pages['campaign home'] = `/campaigns/${campaign.slug}`;
    pages['thing'] = `/campaigns/${campaign.slug}/things/${thing.slug}`;
    pages['GM-only thing'] = `/campaigns/${campaign.slug}/things/${secret.slug}`;
    pages['arc'] = `/campaigns/${campaign.slug}/arcs/${arc.slug}`;
    pages['thing type'] = `/campaigns/${campaign.slug}/types/${npcs.id}`;
    // Words found in texts: the excerpts show them highlighted (`mark`).
    pages['search'] = `/campaigns/${campaign.slug}/search?q=stonehill`;
    pages['members'] = `/campaigns/${campaign.slug}/members`;
    pages['trash'] = `/campaigns/${campaign.slug}/trash`;
    cookies = (await browser.context.storageState()).cookies;
  } finally {
    await browser.close();
  }
}, 120_000);
afterAll(() => server?.stop());

/** Serious and critical violations, and the landmark rules' of any weight (two search landmarks named alike). */
async function violations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical' || v.id.startsWith('landmark')).map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** The page is there: its heading, nothing loading. */
async function settled(page: Page): Promise<void> {
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  await expect.poll(() => page.locator('.loading, [aria-busy="true"]').count()).toBe(0);
}

/** Every page and state, with the serious and critical violations found on each. */
async function everyPage(theme: 'light' | 'dark', width?: number): Promise<Record<string, string[]>> {
  const browser = await launchBrowser(width ? { width, height: 740 } : {});
  try {
    const { page } = browser;
    // The app's own theme switch, remembered in the browser (the system's scheme stays light).
    await page.addInitScript((value) => localStorage.setItem('loreforge.theme', value), theme);
    const found: Record<string, string[]> = {};
    for (const [name, path] of [['sign in', '/sign-in'], ['reset password', '/reset-password']] as const) {
      await page.goto(server.base + path);
      await settled(page);
      found[name] = await violations(page);
    }
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(theme === 'dark' ? 'rgb(22, 21, 20)' : 'rgb(251, 250, 247)');
    // Sign-up refused: the errors shown.
    await page.goto(server.base + '/sign-up');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('alert').first().waitFor();
    found['sign up, refused'] = await violations(page);
    // The invitation, signed out: what it offers.
    await page.goto(invitation);
    await page.getByText(CAMPAIGN).waitFor();
    found['join'] = await violations(page);

    await browser.context.addCookies(cookies);
    for (const [name, path] of Object.entries(pages)) {
      await page.goto(server.base + path);
      await settled(page);
      if (name === 'search') await expect.poll(() => page.locator('main mark').count()).toBeGreaterThan(0);
      found[name] = await violations(page);
    }
    await page.goto(server.base + pages['thing']!);
    await settled(page);
    await page.getByRole('button', { name: 'History' }).click();
    await expect.poll(() => page.locator('.loading').count()).toBe(0);
    found['thing, history open'] = await violations(page);
    if (width) await page.getByRole('button', { name: 'Menu' }).click();
    // The sidebar with a type opened: its things, the GM-only one marked.
    await page.getByRole('complementary', { name: 'Campaign' }).getByRole('button', { name: /NPCs/ }).click();
    await page.getByRole('complementary', { name: 'Campaign' }).getByRole('link', { name: 'Nezznar' }).waitFor();
    found['sidebar, a type opened'] = await violations(page);
    await page.getByRole('button', { name: 'New thing' }).click();
    await page.getByRole('dialog').waitFor();
    found['new thing dialog'] = await violations(page);
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.keyboard.press('Control+k');
    await page.getByRole('dialog').getByRole('combobox').fill('toblen');
    await page.getByRole('option', { name: /Toblen Stonehill/ }).waitFor();
    found['quick switcher with matches'] = await violations(page);
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    // The editor, with the caret in it (the text shown as read until a click brings the editor),
    // and the mention picker that `@` opens.
    await page.getByRole('textbox', { name: 'Description', exact: true }).click();
    await page.locator('main [contenteditable="true"]').first().waitFor();
    await caretInEditor(page);
    found['editor'] = await violations(page);
    await page.keyboard.press('End');
    await page.keyboard.type(' @');
    await page.getByTestId('mention-picker').waitFor();
    found['mention picker'] = await violations(page);
    await page.keyboard.press('Escape');
    expectNoPageErrors(browser);
    return found;
  } finally {
    await browser.close();
  }
}

describe('accessibility', () => {
  for (const theme of ['light', 'dark'] as const) {
    for (const width of [undefined, 375]) {
      it(`has no serious or critical axe violation on any page, ${theme} theme${width ? `, ${width} px wide` : ''}`, async () => {
        const found = await everyPage(theme, width);
        expect(Object.keys(found).length).toBe(21);
        expect(Object.entries(found).filter(([, list]) => list.length > 0)).toEqual([]);
      }, 180_000);
    }
  }

  it('works at 375 px wide: nothing scrolls sideways, the sidebar is a menu Escape closes', async () => {
    const browser = await launchBrowser({ width: 375, height: 740 });
    try {
      const { page } = browser;
      await browser.context.addCookies(cookies);
      for (const path of Object.values(pages)) {
        await page.goto(server.base + path);
        await settled(page);
        expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(375);
      }
      await page.goto(server.base + pages['thing']!);
      await settled(page);
      const sidebar = page.getByRole('complementary', { name: 'Campaign' });
      const menu = page.getByRole('button', { name: 'Menu' });
      expect(await sidebar.isVisible()).toBe(false);
      await menu.click();
      await sidebar.getByRole('link', { name: CAMPAIGN }).waitFor();
      await page.screenshot({ path: screenshotPath('narrow-menu.png') });
      // Escape from inside the menu: closed, the focus back on its button.
      await sidebar.getByRole('link', { name: CAMPAIGN }).focus();
      await page.keyboard.press('Escape');
      expect(await sidebar.isVisible()).toBe(false);
      expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-controls'))).toBe('sidebar');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-expanded'))).toBe('false');
      // Enter on the button opens it again; following a link in it closes it.
      await page.keyboard.press('Enter');
      await sidebar.getByRole('link', { name: CAMPAIGN }).click();
      await page.getByRole('heading', { level: 1, name: CAMPAIGN }).waitFor();
      expect(await sidebar.isVisible()).toBe(false);
      expectNoPageErrors(browser);
    } finally {
      await browser.close();
    }
  }, 120_000);

  it('starts every page with "Skip to content", which moves the focus to the main area', async () => {
    const browser = await launchBrowser();
    try {
      const { page } = browser;
      const skips = async () => {
        await page.locator('body').focus();
        await page.keyboard.press('Tab');
        expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
        // Shown while it has the focus.
        expect((await page.getByRole('link', { name: 'Skip to content' }).boundingBox())?.y).toBeGreaterThanOrEqual(0);
        await page.keyboard.press('Enter');
        expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('MAIN');
        // The next Tab goes on from the main area, not from the top.
        await page.keyboard.press('Tab');
        expect(await page.evaluate(() => document.activeElement?.closest('main') !== null)).toBe(true);
      };
      await page.goto(server.base + '/sign-in');
      await settled(page);
      await skips();
      await browser.context.addCookies(cookies);
      for (const path of [pages['campaigns']!, pages['thing']!]) {
        await page.goto(server.base + path);
        await settled(page);
        await skips();
      }
      expectNoPageErrors(browser);
    } finally {
      await browser.close();
    }
  }, 120_000);

  it('sends the focus to what to fix after a refused sign-up', async () => {
    const browser = await launchBrowser();
    try {
      const { page } = browser;
      await page.goto(server.base + '/sign-up');
      await settled(page);
      await page.getByLabel('Email').fill('not an address');
      await page.getByLabel('Password').fill('short');
      await page.getByRole('button', { name: 'Create account' }).click();
      // The first field in error has the focus, its message tied to it and announced.
      await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-invalid'))).toBe('true');
      const described = await page.evaluate(() => document.getElementById(document.activeElement?.getAttribute('aria-describedby') ?? '')?.getAttribute('role'));
      expect(described).toBe('alert');
      expectNoPageErrors(browser);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
