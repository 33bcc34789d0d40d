// Callouts, highlights and tasks in Chromium, typed as Obsidian users type them (issue 26): the
// Markdown shortcuts `> [!warning] `, `==text==`, `**text**`, `*text*`, `~~text~~` and `- [ ] `, a callout's title field, a task's
// checkbox by mouse and by keyboard; what is saved renders as the vocabulary says, and the page has
// no serious accessibility violation.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, createThing, expectNoPageErrors, gmJourney, playerView, saved } from './browser.js';

const journey = gmJourney('Editor vocabulary');

async function freshThing(page: Page, name: string): Promise<void> {
  await page.goto(`${journey.server.base}/campaigns/${journey.campaign}`);
  await page.getByRole('heading', { level: 1, name: 'Editor vocabulary' }).waitFor();
  await createThing(page, name);
}

describe('callouts, highlights and tasks in the browser', () => {
  it('makes them from Markdown shortcuts, ticks tasks by mouse and keyboard, and renders what was saved', async () => {
    const { page } = journey.browser;
    await freshThing(page, 'Barovia');
    const editor = page.getByRole('textbox', { name: 'Description' });
    await editor.click();
    await page.keyboard.type('> [!warning] Take the ford.');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await page.keyboard.type('Strahd is ==awake== now, **pale** and *wary*, ~~asleep~~.');
    await page.keyboard.press('Enter');
    await page.keyboard.type('- [ ] Buy rope');
    await page.keyboard.press('Enter');
    await page.keyboard.type('Find the map');
    await editor.locator('aside.callout[data-type="warning"]').waitFor();
    await editor.locator('mark', { hasText: 'awake' }).waitFor();
    // The title is a field of its own; the checkboxes are named after their tasks.
    await page.getByRole('textbox', { name: 'Title of the warning callout' }).fill('The bridge is out');
    await page.getByRole('checkbox', { name: 'Done: Find the map' }).click();
    const rope = page.getByRole('checkbox', { name: 'Done: Buy rope' });
    await rope.focus();
    await page.keyboard.press('Space');
    await expect.poll(() => rope.isChecked()).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await saved(page);
    // As the players read it (the game master's page is the editor).
    await playerView(page, true);
    const rendered = page.getByRole('region', { name: 'Description (rendered)' });
    await rendered.waitFor();
    expect(await rendered.innerHTML()).toBe(
      '<aside class="callout" data-type="warning"><p class="callout-title">The bridge is out</p><p>Take the ford.</p></aside>' +
        '<p>Strahd is <mark>awake</mark> now, <strong>pale</strong> and <em>wary</em>, <s>asleep</s>.</p>' +
        '<ul><li class="task done">☑ Buy rope</li><li class="task done">☑ Find the map</li></ul>',
    );
    await playerView(page, false);
    expectNoPageErrors(journey.browser);
  });
});
