// The editor's commands in Chromium, where a mouse and a keyboard drive them: the mention picker
// inserts exactly the record it highlights after its list refreshes, and a click on a mention
// never swallows what is typed next (issue 23, "Words lost in the editor").
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { caretInEditor, createThing, expectNoPageErrors, gmJourney, playerView, saved } from './browser.js';

const journey = gmJourney('Editor commands', async (page) => {
  for (const name of ['Harbor Master', 'Harbor Ghost', 'Harbor Tavern', 'Gundren Rockseeker']) await createThing(page, name);
});

/** A new thing, from the campaign's page (whatever the test before left open). */
async function freshThing(page: Page, name: string): Promise<void> {
  await page.goto(`${journey.server.base}/campaigns/${journey.campaign}`);
  await page.getByRole('heading', { level: 1, name: 'Editor commands' }).waitFor();
  await createThing(page, name);
}

async function editDescription(page: Page): Promise<Locator> {
  const editor = page.getByRole('textbox', { name: 'Description' });
  await editor.click();
  return editor;
}

async function renderedText(page: Page): Promise<string> {
  const region = page.getByRole('region', { name: 'Description (rendered)' });
  await region.waitFor();
  return (await region.textContent()) ?? '';
}

/** The picker's options once its list is the answer to what is typed (not an older one). */
async function answeredOptions(picker: Locator): Promise<Locator> {
  await picker.locator('[cmdk-list]:not([aria-busy="true"])').waitFor();
  const options = picker.getByRole('option');
  await options.first().waitFor();
  return options;
}

describe('the editor in the browser', () => {
  it('inserts the highlighted, visible record after the picker’s list refreshes', async () => {
    const { page } = journey.browser;
    await freshThing(page, 'Picker notes');
    await editDescription(page);
    await page.keyboard.type('Meet ');
    await page.keyboard.type('@');
    const picker = page.getByRole('dialog', { name: 'Mention a thing or an arc' });
    const input = picker.getByRole('combobox', { name: 'Thing or arc to mention' });
    await input.pressSequentially('harbor');
    let options = await answeredOptions(picker);
    expect(await options.count()).toBeGreaterThanOrEqual(3);
    // The user moves the highlight down, then types on: the list refreshes.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    const before = await picker.locator('[role="option"][aria-selected="true"]').textContent();
    await input.pressSequentially(' ghost');
    await expect.poll(async () => (await picker.getByRole('option').first().textContent()) ?? '').toContain('Harbor Ghost');
    options = await answeredOptions(picker);
    // The highlight is on what is shown first now, whatever it was on before.
    const highlighted = picker.locator('[role="option"][aria-selected="true"]');
    expect(await highlighted.count()).toBe(1);
    expect(await highlighted.textContent()).toBe(await options.first().textContent());
    expect(before).not.toBeNull();
    await page.keyboard.press('Enter');
    await picker.waitFor({ state: 'detached' });
    await caretInEditor(page);
    await page.keyboard.type('at noon.');
    await page.getByRole('textbox', { name: 'Description' }).locator('.mention', { hasText: '@Harbor Ghost' }).waitFor();
    await saved(page);
    // As the players read it (the game master's page is the editor).
    await playerView(page, true);
    await expect.poll(() => renderedText(page)).toContain('Meet Harbor Ghost at noon.');
    expect(await page.getByRole('region', { name: 'Description (rendered)' }).locator('a.mention').allTextContents()).toEqual(['Harbor Ghost']);
    await playerView(page, false);
  });

  it('types right after a mention that was clicked, and saves it', async () => {
    const { page } = journey.browser;
    await freshThing(page, 'Click notes');
    const editor = await editDescription(page);
    await page.keyboard.type('Ask ');
    await page.keyboard.type('@');
    const picker = page.getByRole('dialog', { name: 'Mention a thing or an arc' });
    await picker.getByRole('combobox', { name: 'Thing or arc to mention' }).pressSequentially('gundren');
    await answeredOptions(picker);
    await page.keyboard.press('Enter');
    await picker.waitFor({ state: 'detached' });
    await caretInEditor(page);
    await page.keyboard.type('about the mine.');
    const mention = editor.locator('.mention', { hasText: '@Gundren Rockseeker' });
    await mention.click();
    await page.keyboard.type(' now');
    await expect.poll(async () => (await editor.textContent())?.replace(/\uFEFF/g, '')).toContain('@Gundren Rockseeker now about the mine.');
    await saved(page);
    await page.reload();
    await playerView(page, true);
    expect(await renderedText(page)).toContain('Ask Gundren Rockseeker now about the mine.');
    await playerView(page, false);
    expectNoPageErrors(journey.browser);
  });
});
