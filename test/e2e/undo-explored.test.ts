// Defects found by using the trash and Undo in Chromium as a game master would (issue 24's
// exploratory pass): words typed just before a delete, and the Undo notice in the player view.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createThing, gmJourney, saved } from './browser.js';

const journey = gmJourney('Explored');

/** What the server answers now for a path, read with the page's session. */
async function get(page: Page, path: string): Promise<{ status: number; body: string }> {
  return page.evaluate(async (p) => {
    const res = await fetch(p);
    return { status: res.status, body: await res.text() };
  }, path);
}

describe('undoing a delete', () => {
  it('keeps the words typed just before the delete: they are saved, and Undo brings them back', async () => {
    const page = journey.browser.page;
    await createThing(page, 'Typed Then Deleted');
    await page.getByRole('textbox', { name: 'Description', exact: true }).click();
    await page.keyboard.type('Start.');
    await saved(page);
    // Typed, then deleted before the autosave went out (a mistaken delete is what Undo is for).
    await page.keyboard.type(' Last words.');
    await page.getByRole('button', { name: 'Delete thing' }).click();
    await page.getByRole('dialog', { name: 'Delete Typed Then Deleted?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('status').filter({ hasText: 'moved to the trash' }).getByRole('button', { name: 'Undo' }).click();
    await page.getByRole('status').filter({ hasText: 'Undone: it is back.' }).waitFor();
    const answer = await get(page, `/api/campaigns/${journey.campaign}/things/typed-then-deleted`);
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('Start. Last words.');
    // And the page it opens shows no error about the save that met the deleted thing.
    await page.getByRole('heading', { level: 1, name: 'Typed Then Deleted', exact: true }).getByRole('textbox', { name: 'Name' }).waitFor();
    expect(await page.getByText('Not saved').count()).toBe(0);
  });

  it('keeps the focus in the Trash page after a restore or an erase done by keyboard', async () => {
    const page = journey.browser.page;
    for (const name of ['Kept One', 'Kept Two']) {
      await createThing(page, name);
      await page.getByRole('button', { name: 'Delete thing' }).click();
      await page.getByRole('dialog', { name: `Delete ${name}?` }).getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('status').filter({ hasText: `“${name}” moved to the trash` }).waitFor();
    }
    await page.getByRole('button', { name: 'Dismiss' }).click();
    await page.getByRole('link', { name: 'Trash', exact: true }).click();
    const list = page.getByRole('list', { name: 'Deleted items' });
    await list.getByRole('listitem', { name: 'Thing Kept One' }).getByRole('button', { name: 'Restore' }).focus();
    await page.keyboard.press('Enter');
    await list.getByRole('listitem', { name: 'Thing Kept One' }).waitFor({ state: 'detached' });
    // A keyboard user goes on from where they were, not from the top of the page (the focus moves to
    // the next item once the dialog, if any, has closed).
    await page.waitForFunction(() => document.activeElement !== document.body, undefined, { timeout: 2000 });
    await list.getByRole('listitem', { name: 'Thing Kept Two' }).getByRole('button', { name: 'Erase now' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Erase “Kept Two” for good?' }).waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await list.getByRole('listitem', { name: 'Thing Kept Two' }).waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement !== document.body, undefined, { timeout: 2000 });
  });

  it('never offers an Undo that cannot work: switching to the player view after a delete', async () => {
    const page = journey.browser.page;
    await page.goto(`${journey.server.base}/campaigns/${journey.campaign}`);
    await createThing(page, 'Toggle Test');
    await page.getByRole('button', { name: 'Delete thing' }).click();
    await page.getByRole('dialog', { name: 'Delete Toggle Test?' }).getByRole('button', { name: 'Delete' }).click();
    const notice = page.getByRole('status').filter({ hasText: 'moved to the trash' });
    await notice.waitFor();
    await page.getByRole('button', { name: 'View as player' }).click();
    // The player view is read-only: the notice goes with the switch (the Trash page still has it).
    await notice.getByRole('button', { name: 'Undo' }).waitFor({ state: 'detached' });
    expect((await get(page, `/api/campaigns/${journey.campaign}/things/toggle-test`)).status).toBe(404);
  });
});
