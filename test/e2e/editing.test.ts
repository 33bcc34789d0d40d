// Not one typed word lost: two tabs editing one thing (the 412 and its conflict dialog), the server
// killed mid-edit (offline, retried, saved once it is back), a tab closed with unsaved text (offered
// back on the next visit), and creating a thing with the keyboard alone.
import { describe, expect, it } from 'vitest';
import { createThing, expectNoPageErrors, gmJourney, holdReads, saved } from './browser.js';

const journey = gmJourney('Editing');

async function typeInto(page: import('playwright-core').Page, text: string) {
  const editor = page.getByRole('textbox', { name: 'Description' });
  await editor.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type(text);
}

/** The text a game master's page shows: the editor's, once it has loaded. */
async function renderedText(page: import('playwright-core').Page): Promise<string> {
  const editor = page.getByRole('textbox', { name: 'Description' });
  await editor.waitFor();
  return (await editor.textContent()) ?? '';
}

describe('editing in the browser', () => {
  it('settles a conflict between two tabs: the second sees both versions and keeps its own', async () => {
    const first = journey.browser.page;
    await createThing(first, 'Contested');
    const url = first.url();
    const second = await journey.browser.newPage();
    await second.goto(url);
    for (const page of [first, second]) await page.getByRole('textbox', { name: 'Description' }).waitFor();

    await typeInto(first, 'Written in the first tab.');
    await saved(first);
    // The second tab's read of the record, as its editor opens, is slow: it types on the old version.
    const release = await holdReads(second, `/api/campaigns/${journey.campaign}/things/${new URL(url).pathname.split('/').pop()!}`);
    await typeInto(second, 'Written in the second tab.');
    await release();
    const dialog = second.getByRole('dialog', { name: 'Someone else changed this while you were editing' });
    await dialog.waitFor({ timeout: 15_000 });
    expect(await dialog.getByRole('region', { name: 'Your version' }).textContent()).toContain('Written in the second tab.');
    expect(await dialog.getByRole('region', { name: 'Their version' }).textContent()).toContain('Written in the first tab.');
    // Typing on as it opens chooses nothing: the focus is on its title, not on a button.
    expect(await second.evaluate(() => document.activeElement?.textContent)).toBe('Someone else changed this while you were editing');
    await second.keyboard.type(' and on', { delay: 20 });
    await second.keyboard.press('Enter');
    expect(await dialog.isVisible()).toBe(true);
    expect(await dialog.getByRole('button', { name: 'Copy mine' }).isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Keep mine' }).click();
    await saved(second);

    await first.reload();
    expect(await renderedText(first)).toContain('Written in the second tab.');
    await second.close();
  });

  it('keeps typing through a server crash and saves everything once the server is back', async () => {
    const page = journey.browser.page;
    await createThing(page, 'Resilient');
    await typeInto(page, 'Before the crash. ');
    await saved(page);

    journey.server.server.kill('SIGKILL');
    await journey.server.server.exited;
    await typeInto(page, 'While the server is down.');
    await page.getByRole('status').filter({ hasText: 'Offline' }).waitFor({ timeout: 20_000 });

    await journey.server.restart();
    await saved(page);
    await page.reload();
    const text = await renderedText(page);
    expect(text).toContain('Before the crash.');
    expect(text).toContain('While the server is down.');
  }, 120_000);

  it('offers back text typed into a tab that was closed before the server had it', async () => {
    const page = journey.browser.page;
    await createThing(page, 'Closed tab');
    const url = page.url();

    // The server goes away, then the tab is closed with the text unsaved.
    journey.server.server.kill('SIGKILL');
    await journey.server.server.exited;
    await typeInto(page, 'Typed, then the tab was closed.');
    await page.getByRole('status').filter({ hasText: /Offline|Unsaved|Saving/ }).waitFor();
    const tab = await journey.browser.newPage();
    await page.close();
    await journey.server.restart();

    await tab.goto(url);
    const offer = tab.getByRole('alert').filter({ hasText: 'were not saved yet' });
    await offer.waitFor();
    await offer.getByRole('button', { name: 'Restore my changes' }).click();
    await saved(tab);
    await tab.reload();
    expect(await renderedText(tab)).toContain('Typed, then the tab was closed.');
    journey.browser.page = tab;
  }, 120_000);

  it('creates a thing with the keyboard alone', async () => {
    const page = journey.browser.page;
    await page.goto(`${journey.server.base}/campaigns/${journey.campaign}`);
    await page.getByRole('heading', { level: 1, name: 'Editing' }).waitFor();
    // Tab from the top of the page to the "New thing" button.
    await page.locator('body').focus();
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate(() => document.activeElement?.textContent)) === 'New thing') break;
    }
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('New thing');
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'New thing' });
    await dialog.waitFor();
    // The name field has focus; type, then Enter submits the form.
    await page.keyboard.type('Keyboard Kobold');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Keyboard Kobold', exact: true }).getByRole('textbox', { name: 'Name' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/campaigns/${journey.campaign}/things/keyboard-kobold`);
    // The focus is on the new thing's name (not back on "New thing"): Enter there goes on to its text.
    await expect.poll(() => page.evaluate(() => (document.activeElement?.closest('h1#record-title') ? (document.activeElement as HTMLTextAreaElement).value : document.activeElement?.textContent))).toBe('Keyboard Kobold');
    await page.keyboard.press('Enter');
    await page.keyboard.type('Written by keyboard alone.');
    await saved(page);
    const description = await page.evaluate(async (url) => JSON.stringify(((await (await fetch(url)).json()) as { description: unknown }).description), `/api/campaigns/${journey.campaign}/things/keyboard-kobold`);
    expect(description).toContain('Written by keyboard alone.');
    // Escape closes a dialog and gives focus back.
    await page.getByRole('button', { name: 'New arc' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'New arc' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: 'New arc' }).waitFor({ state: 'detached' });
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('New arc');
    expectNoPageErrors(journey.browser);
  });
});
