// A record as a page (issue 27): a game master writes a thing's title, text and a property where
// they are read, with autosave and a reload; the title's Enter, Escape and a blank name; the text two
// Tab presses from the page's start; an arc whose empty fields are one line each, written in place;
// a player's reading page with no control and no empty section; the printed sheet.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caretInEditor, createArc, createCampaign, createThing, expectNoPageErrors, launchBrowser, saved, screenshotPath, signUp, startE2eServer, type Browser, type E2eServer } from './browser.js';

let server: E2eServer;
let gm: Browser;
let player: Browser;
let campaign: string;
let thingUrl: string;
let arcUrl: string;

beforeAll(async () => {
  server = await startE2eServer();
  gm = await launchBrowser();
  player = await launchBrowser();
  await signUp(gm.page, server.base, 'Gia the GM');
  campaign = await createCampaign(gm.page, 'Pages Saga');
}, 120_000);
afterAll(async () => {
  await gm?.close();
  await player?.close();
  await server?.stop();
});

const title = (page: Page) => page.getByRole('heading', { level: 1 }).getByRole('textbox', { name: 'Name' });
const text = (page: Page, name = 'Description') => page.getByRole('textbox', { name, exact: true });
const display = (page: Page, selector: string) => page.locator(selector).first().evaluate((element) => getComputedStyle(element).display);

/** Tab presses from the start of the page's main area until the focus is in the element named `name`. */
async function tabsTo(page: Page, name: string): Promise<number> {
  await page.locator('main').evaluate((main) => {
    main.tabIndex = -1;
    main.focus();
  });
  for (let presses = 1; presses <= 30; presses += 1) {
    await page.keyboard.press('Tab');
    if ((await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))) === name) return presses;
  }
  return Infinity;
}

describe('a record as a page', () => {
  it('lets a game master write a thing’s title, text and a property in place; a reload shows them', async () => {
    const page = gm.page;
    await createThing(page, 'Sildar');
    thingUrl = page.url();
    expect(await page.getByRole('button', { name: 'Edit description' }).count()).toBe(0);
    expect(await page.getByText(/slug/i).count()).toBe(0);
    // Counted once the page is there: its text is the editor, mounted when its code has arrived.
    await text(page).waitFor();
    expect(await tabsTo(page, 'Name')).toBe(1);
    expect(await tabsTo(page, 'Description')).toBe(2);

    // The title, edited where it stands; Enter goes on into the text.
    await title(page).click();
    await page.keyboard.press('End');
    await page.keyboard.type(' Hallwinter');
    await page.keyboard.press('Enter');
    await caretInEditor(page);
    await page.keyboard.type('A knight of the Lords’ Alliance, held by the Cragmaw goblins.');
    // A property, in the panel by the title.
    const panel = page.getByRole('region', { name: 'Properties' });
    await panel.getByRole('textbox', { name: 'New property' }).fill('Faction');
    await panel.getByRole('button', { name: 'Add property' }).click();
    await panel.getByRole('textbox', { name: 'Faction', exact: true }).fill('Lords’ Alliance');
    await saved(page);

    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Sildar Hallwinter', exact: true }).waitFor();
    await text(page).getByText('held by the Cragmaw goblins').waitFor();
    expect(await page.getByRole('region', { name: 'Properties' }).getByRole('textbox', { name: 'Faction', exact: true }).inputValue()).toBe('Lords’ Alliance');

    // Escape puts back the name the title had; a blank name is refused and nothing is sent.
    await title(page).click();
    await page.keyboard.type(' the Typo');
    await page.keyboard.press('Escape');
    expect(await title(page).inputValue()).toBe('Sildar Hallwinter');
    await title(page).fill('');
    await page.getByRole('alert').filter({ hasText: 'A name is needed' }).waitFor();
    await title(page).fill('Sildar Hallwinter');
    await saved(page);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Sildar Hallwinter', exact: true }).waitFor();

    // Type, visibility and the address are in the details panel.
    await page.getByText('Details', { exact: true }).click();
    await page.getByRole('textbox', { name: 'Address' }).waitFor();
    await page.getByRole('checkbox', { name: 'GM only', exact: true }).waitFor();
    await page.getByRole('combobox', { name: 'Type' }).waitFor();
    await page.getByText('Details', { exact: true }).click();
    await page.screenshot({ path: screenshotPath('record-page-thing.png') });
    expectNoPageErrors(gm);
  });

  it('shows an arc’s empty fields as one line each and writes one in place', async () => {
    const page = gm.page;
    await createArc(page, 'The Redbrand Hideout');
    arcUrl = page.url();
    expect(await page.getByText('Nothing written yet.').count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Edit / }).count()).toBe(0);
    const prompts = page.locator('main').getByRole('button', { name: /^Write the / });
    expect(await prompts.count()).toBe(7);
    for (const section of await page.locator('.arc-field').all()) expect((await section.boundingBox())!.height).toBeLessThan(40);

    await page.getByRole('button', { name: 'Write the hook…' }).click();
    await caretInEditor(page);
    await page.keyboard.type('Glasstaff’s thugs terrorise Phandalin.');
    await saved(page);
    await page.reload();
    await text(page, 'Hook').getByText('terrorise Phandalin').waitFor();
    expect(await prompts.count()).toBe(6);
    await page.screenshot({ path: screenshotPath('record-page-arc.png') });

    // A mention in the text is a live link: Ctrl+click opens what it names (a plain click puts the caret by it).
    await text(page, 'Hook').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' Ask @');
    await page.keyboard.type('Sildar');
    // Enter once the picker's list answers what was typed (not an older, shorter text).
    await page.locator('[data-testid="mention-picker"] [role="listbox"]:not([aria-busy="true"])').waitFor();
    await page.getByTestId('mention-picker').getByRole('option', { name: /Sildar Hallwinter/ }).first().waitFor();
    await page.keyboard.press('Enter');
    const mention = text(page, 'Hook').locator('.mention', { hasText: 'Sildar Hallwinter' });
    await mention.waitFor();
    await saved(page);
    // As a link does: a new tab with the record, this page kept as it is.
    const [opened] = await Promise.all([page.context().waitForEvent('page'), mention.click({ modifiers: ['Control'] })]);
    await opened.waitForURL(thingUrl);
    await opened.getByRole('heading', { level: 1, name: 'Sildar Hallwinter', exact: true }).waitFor();
    await opened.close();
    await text(page, 'Hook').locator('.mention', { hasText: 'Sildar Hallwinter' }).waitFor();
    expectNoPageErrors(gm);
  });

  it('prints a record as a clean sheet: title, properties and text; no navigation or controls', async () => {
    const page = gm.page;
    await page.goto(thingUrl);
    await text(page).getByText('held by the Cragmaw goblins').waitFor();
    // The text is shown as read until it is clicked: the editor (and its toolbar) are there to be hidden from print.
    await text(page).click();
    await caretInEditor(page);
    await page.emulateMedia({ media: 'print' });
    for (const selector of ['.sidebar', '.topbar', '.toolbar', '.record-details', '.record-actions', '.save-status', '.labels-fields', '.properties-fields']) {
      expect(await display(page, selector), selector).toBe('none');
    }
    expect(await page.getByRole('heading', { level: 1, name: 'Sildar Hallwinter', exact: true }).isVisible()).toBe(true);
    expect(await page.getByText('held by the Cragmaw goblins').isVisible()).toBe(true);
    expect(await page.locator('.print-only').getByText('Lords’ Alliance').isVisible()).toBe(true);
    await page.screenshot({ path: screenshotPath('record-page-print.png'), fullPage: true });
    await page.emulateMedia({ media: 'screen' });
    expect(await display(page, '.sidebar')).not.toBe('none');
  });

  it('shows the rendered text until the editor has arrived, with no jump, and a click on it lands in the editor', async () => {
    const page = await gm.newPage();
    // The editor's code is held back until the reader has clicked the text.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/assets\/editor-[^/]*\.js$/, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(thingUrl);
    const standIn = text(page).getByText('held by the Cragmaw goblins');
    await standIn.waitFor();
    const before = (await standIn.boundingBox())!;
    await standIn.click();
    expect(await page.locator('[data-slate-editor]').count()).toBe(0);
    release();
    await caretInEditor(page);
    const after = (await text(page).getByText('held by the Cragmaw goblins').boundingBox())!;
    expect(Math.abs(after.y - before.y)).toBeLessThan(4);
    expect(Math.abs(after.x - before.x)).toBeLessThan(4);
    // The caret is where the click was (in the middle of the words): the writer goes to the end.
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' Rescued at last.');
    await saved(page);
    expect(await text(page).textContent()).toContain('goblins. Rescued at last.');
    await page.close();
  });

  it('gives a player a reading page with no control and no empty section', async () => {
    const page = gm.page;
    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByLabel('Role').selectOption('player');
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    const link = await page.getByLabel(/Send this link/).inputValue();
    const reader = player.page;
    await signUp(reader, server.base, 'Pip the Player');
    await reader.goto(link);
    await reader.getByRole('button', { name: 'Join the campaign' }).click();
    await reader.getByRole('heading', { level: 1, name: 'Pages Saga' }).waitFor();

    await reader.goto(arcUrl);
    await reader.getByRole('heading', { level: 1, name: 'The Redbrand Hideout' }).waitFor();
    await reader.getByText('terrorise Phandalin').waitFor();
    expect(await reader.locator('main').getByRole('heading', { level: 2 }).allTextContents()).toEqual(['Hook']);
    expect(await reader.getByText('Nothing written yet.').count()).toBe(0);
    expect(await reader.locator('main').getByRole('button').count()).toBe(0);
    expect(await reader.locator('main').getByRole('textbox').count()).toBe(0);
    await reader.screenshot({ path: screenshotPath('record-page-player.png') });

    await reader.goto(thingUrl);
    await reader.getByRole('heading', { level: 1, name: 'Sildar Hallwinter' }).waitFor();
    await reader.getByText('Rescued at last.').waitFor();
    await reader.getByRole('region', { name: 'Properties' }).getByText('Lords’ Alliance', { exact: true }).waitFor();
    expect(await reader.locator('main').getByRole('button').count()).toBe(0);
    expect(await reader.locator('main').getByRole('textbox').count()).toBe(0);
    expect(await reader.locator('details').count()).toBe(0);
    // Sections with nothing in them are not shown to a reader.
    expect(await reader.getByRole('heading', { name: 'In arcs' }).count()).toBe(0);
    // (The arc's hook mentions him: that section has something in it. The arc page above showed no empty one.)
    await reader.getByRole('heading', { name: 'Mentioned in' }).waitFor();
    expect(await reader.locator(`a[href="/campaigns/${campaign}"]`).count()).toBeGreaterThan(0);
    expectNoPageErrors(player);
  });
});
