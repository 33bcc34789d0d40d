// Nothing a game master does by mistake is final (issue 24), as they meet it in the app: a deleted
// thing comes back from the Undo notice (by keyboard alone), an arc from the Trash page (with the
// page checked by axe, in the light and the dark theme), a type with its things, a campaign from
// the campaigns page; an older revision of a thing restored from its History, after one of its
// paragraphs was copied back (the panel checked by axe, light and dark).
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, createArc, createCampaign, createThing, expectNoPageErrors, gmJourney, saved, screenshotPath } from './browser.js';

const journey = gmJourney('Undoing');

/** What the server answers now for a path, read with the page's session. */
async function statusOf(page: Page, path: string): Promise<number> {
  return page.evaluate(async (p) => (await fetch(p)).status, path);
}

const focusedName = (page: Page) => page.evaluate(() => document.activeElement?.textContent ?? '');

describe('trash and undo', () => {
  it('deletes a thing and brings it back from the Undo notice, by keyboard alone', async () => {
    const page = journey.browser.page;
    await createThing(page, 'Sildar Hallwinter');
    const thingPath = new URL(page.url()).pathname;
    const apiPath = `/api/campaigns/${journey.campaign}/things/sildar-hallwinter`;

    await page.getByRole('button', { name: 'Delete thing' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Delete Sildar Hallwinter?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('trash');
    // The dialog's focus starts on Cancel; Tab reaches Delete.
    await expect.poll(() => focusedName(page)).toBe('Cancel');
    await page.keyboard.press('Tab');
    expect(await focusedName(page)).toBe('Delete');
    await page.keyboard.press('Enter');

    const notice = page.getByRole('status').filter({ hasText: 'moved to the trash' });
    await notice.waitFor();
    expect(await notice.textContent()).toContain('Thing “Sildar Hallwinter” moved to the trash.');
    await page.getByRole('heading', { level: 1, name: 'Undoing' }).waitFor();
    expect(await statusOf(page, apiPath)).toBe(404);
    // The notice took no focus; the first Tab reaches its Undo button.
    expect(await page.evaluate(() => document.activeElement === document.body)).toBe(true);
    await page.keyboard.press('Tab');
    expect(await focusedName(page)).toBe('Undo');
    await page.keyboard.press('Enter');

    // Said for a few seconds once it is back (checked first: the page may take longer than that under load).
    await page.getByRole('status').filter({ hasText: 'Undone: it is back.' }).waitFor();
    await page.waitForURL((url) => url.pathname === thingPath);
    await page.getByRole('heading', { level: 1, name: 'Sildar Hallwinter', exact: true }).getByRole('textbox', { name: 'Name' }).waitFor();
    expect(await statusOf(page, apiPath)).toBe(200);
    expectNoPageErrors(journey.browser);
  });

  it('restores an arc from the Trash page, and erases another for good', async () => {
    const page = journey.browser.page;
    await createArc(page, 'The Redbrand Hideout');
    await page.getByRole('button', { name: 'Delete arc' }).click();
    await page.getByRole('dialog', { name: 'Delete The Redbrand Hideout?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('status').filter({ hasText: 'moved to the trash' }).waitFor();
    await createArc(page, 'A Dead End');
    await page.getByRole('button', { name: 'Delete arc' }).click();
    await page.getByRole('dialog', { name: 'Delete A Dead End?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('status').filter({ hasText: 'Arc “A Dead End” moved to the trash.' }).waitFor();
    // One notice at a time: the newer delete's.
    expect(await page.getByRole('status').filter({ hasText: 'Redbrand' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Dismiss' }).click();
    // A type goes with its things, and its dialog says how many.
    await page.getByRole('textbox', { name: 'New type' }).fill('Villains');
    await page.getByRole('button', { name: 'Add type' }).click();
    await page.getByRole('navigation', { name: 'Things' }).getByRole('link', { name: 'Villains', exact: true }).waitFor();
    await createThing(page, 'Glasstaff', 'Villains');
    await page.getByRole('navigation', { name: 'Things' }).getByRole('link', { name: 'Villains', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Villains' }).waitFor();
    await page.getByRole('button', { name: 'Delete type' }).click();
    const typeDialog = page.getByRole('dialog', { name: 'Delete the type Villains?' });
    expect(await typeDialog.textContent()).toContain('Its 1 thing goes to the campaign’s trash with it');
    await typeDialog.getByRole('button', { name: 'Delete it and its 1 thing' }).click();
    await page.getByRole('status').filter({ hasText: 'Type “Villains” and its 1 thing moved to the trash.' }).waitFor();

    await page.getByRole('link', { name: 'Trash', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Trash' }).waitFor();
    const list = page.getByRole('list', { name: 'Deleted items' });
    const hideout = list.getByRole('listitem', { name: 'Arc The Redbrand Hideout' });
    await hideout.waitFor();
    expect(await hideout.textContent()).toContain('by Gia the GM');
    // Newest first.
    expect(await list.getByRole('listitem').first().getAttribute('aria-label')).toBe('Thing type Villains');
    expect(await list.getByRole('listitem', { name: 'Thing type Villains' }).textContent()).toContain('with 1 thing');
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('trash-page.png') });
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('trash-page-dark.png') });
    await page.emulateMedia({ colorScheme: 'light' });

    const deadEnd = list.getByRole('listitem', { name: 'Arc A Dead End' });
    await deadEnd.getByRole('button', { name: 'Erase now' }).click();
    const erase = page.getByRole('dialog', { name: 'Erase “A Dead End” for good?' });
    expect(await erase.textContent()).toContain('cannot be undone');
    await erase.getByRole('button', { name: 'Erase for good' }).click();
    await deadEnd.waitFor({ state: 'detached' });

    await hideout.getByRole('button', { name: 'Restore' }).click();
    const restored = page.getByRole('status').filter({ hasText: 'Restored arc' });
    await restored.waitFor();
    await hideout.waitFor({ state: 'detached' });
    expect(await list.getByRole('listitem').count()).toBe(1);
    // Back in the sidebar, and its page opens from the message.
    await page.getByRole('navigation', { name: 'Arcs' }).getByRole('link', { name: 'The Redbrand Hideout' }).waitFor();
    await restored.getByRole('link', { name: 'The Redbrand Hideout' }).click();
    await page.getByRole('heading', { level: 1, name: 'The Redbrand Hideout', exact: true }).getByRole('textbox', { name: 'Name' }).waitFor();
    // Players see neither the History nor the Trash (they would get 403).
    expect(await page.getByRole('button', { name: 'History', exact: true }).count()).toBe(1);
    await page.getByRole('button', { name: 'View as player' }).click();
    await page.getByRole('heading', { level: 1, name: 'The Redbrand Hideout' }).waitFor();
    expect(await page.getByRole('button', { name: 'History', exact: true }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Trash', exact: true }).count()).toBe(0);
    await page.getByRole('button', { name: 'View as player' }).click();
    await page.getByRole('link', { name: 'Trash', exact: true }).waitFor();
    expectNoPageErrors(journey.browser);
  });

  it('a deleted campaign waits on the campaigns page and comes back from there', async () => {
    const page = journey.browser.page;
    await page.goto(`${journey.server.base}/campaigns`);
    const slug = await createCampaign(page, 'Short-lived');
    await page.getByRole('button', { name: 'Delete campaign' }).click();
    await page.getByRole('dialog', { name: 'Delete Short-lived?' }).getByRole('button', { name: 'Delete the campaign' }).click();
    await page.getByRole('status').filter({ hasText: 'Campaign “Short-lived” moved to the trash.' }).waitFor();
    await page.getByRole('button', { name: 'Dismiss' }).click();
    expect(await statusOf(page, `/api/campaigns/${slug}`)).toBe(404);
    const deleted = page.getByRole('region', { name: 'Deleted campaigns' });
    await deleted.getByRole('listitem', { name: 'Short-lived' }).getByRole('button', { name: 'Restore' }).click();
    await page.waitForURL((url) => url.pathname === `/campaigns/${slug}`);
    await page.getByRole('heading', { level: 1, name: 'Short-lived' }).waitFor();
    expectNoPageErrors(journey.browser);
  });
});

async function writeDescription(page: Page, lines: string[]): Promise<void> {
  const editor = page.getByRole('textbox', { name: 'Description', exact: true });
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  for (const [i, line] of lines.entries()) {
    if (i > 0) await page.keyboard.press('Enter');
    await page.keyboard.type(line);
  }
  await saved(page);
  // The writer looks elsewhere: the caret leaves the text.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
}

/** The description the page shows (a game master's: in its editor). */
async function renderedDescription(page: Page): Promise<string> {
  const editor = page.getByRole('textbox', { name: 'Description', exact: true });
  await editor.waitFor();
  return (await editor.textContent()) ?? '';
}

describe('history', () => {
  it('names a revision, copies a removed paragraph back, and restores the older revision', async () => {
    const page = journey.browser.page;
    await page.goto(`${journey.server.base}/campaigns/${journey.campaign}`);
    await createThing(page, 'Gundren Rockseeker');
    await writeDescription(page, ['Gundren hired the party.', 'He owns a map to Wave Echo Cave.']);

    await page.getByRole('button', { name: 'History' }).click();
    const panel = page.getByRole('region', { name: 'History' });
    const revisions = panel.getByRole('list', { name: 'Revisions, newest first' });
    await revisions.getByRole('button').first().click();
    // Named, it is kept for ever, and the next change starts a revision of its own.
    await panel.getByRole('textbox', { name: 'Revision name' }).fill('Before the ambush');
    await panel.getByRole('button', { name: 'Name it' }).click();
    await panel.getByRole('status').filter({ hasText: 'kept for ever' }).waitFor();
    await revisions.getByRole('button', { name: /Before the ambush/ }).waitFor();
    await page.getByRole('button', { name: 'History' }).click();

    await writeDescription(page, ['Gundren hired the party in Neverwinter.']);
    await page.getByRole('button', { name: 'History' }).click();
    await expect.poll(() => revisions.getByRole('button').count()).toBe(2);
    await revisions.getByRole('button', { name: /Before the ambush/ }).click();
    const diff = panel.getByRole('region', { name: 'Description: changes' });
    const removed = diff.locator('.diff-block.removed');
    await removed.waitFor();
    expect(await removed.locator('del').textContent()).toBe('He owns a map to Wave Echo Cave.');
    expect(await diff.locator('.diff-block.changed ins').textContent()).toContain('in Neverwinter');
    expect(await axeViolations(page)).toEqual([]);
    await panel.screenshot({ path: screenshotPath('history-panel.png') });
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await axeViolations(page)).toEqual([]);
    await panel.screenshot({ path: screenshotPath('history-panel-dark.png') });
    await page.emulateMedia({ colorScheme: 'light' });
    // Side by side: this revision left, the current text right.
    await panel.getByRole('radio', { name: 'side by side' }).check();
    const columns = diff.locator('.diff-row').filter({ has: page.locator('.diff-block.changed') }).locator('.diff-cell');
    expect(await columns.nth(0).locator('del').count()).toBe(0);
    expect(await columns.nth(1).locator('ins').textContent()).toContain('in Neverwinter');
    expect(await axeViolations(page)).toEqual([]);
    await panel.screenshot({ path: screenshotPath('history-side-by-side.png') });
    await panel.getByRole('radio', { name: 'inline' }).check();

    // One paragraph back into the current text, saved like typing.
    await removed.getByRole('button', { name: 'Copy this block back' }).click();
    await panel.getByRole('status').filter({ hasText: 'Copied into Description' }).waitFor();
    await saved(page);
    await expect.poll(() => renderedDescription(page)).toContain('He owns a map to Wave Echo Cave.');
    expect(await renderedDescription(page)).toContain('Gundren hired the party in Neverwinter.');

    // Someone else renames it meanwhile: restoring changes nothing and says so, and the page takes their version.
    await revisions.getByRole('button', { name: /Before the ambush/ }).click();
    const apiPath = `/api/campaigns/${journey.campaign}/things/gundren-rockseeker`;
    expect(
      await page.evaluate(async (path) => {
        const etag = (await fetch(path)).headers.get('etag') ?? '';
        const body = JSON.stringify({ updatedThing: { name: 'Gundren the Dwarf' } });
        return (await fetch(path, { method: 'PUT', headers: { 'content-type': 'application/json', 'if-match': etag }, body })).status;
      }, apiPath),
    ).toBe(200);
    await panel.getByRole('button', { name: 'Restore this revision' }).click();
    await panel.getByRole('alert').filter({ hasText: 'Someone changed this record meanwhile' }).waitFor();
    await page.getByRole('heading', { level: 1, name: 'Gundren the Dwarf', exact: true }).getByRole('textbox', { name: 'Name' }).waitFor();

    // The whole older revision, as a new change: its name and text.
    await panel.getByRole('button', { name: 'Restore this revision' }).click();
    await panel.getByRole('status').filter({ hasText: 'Restored' }).waitFor();
    await page.getByRole('heading', { level: 1, name: 'Gundren Rockseeker', exact: true }).getByRole('textbox', { name: 'Name' }).waitFor();
    await expect.poll(() => renderedDescription(page)).not.toContain('Neverwinter');
    expect(await renderedDescription(page)).toContain('Gundren hired the party.');
    expect(await renderedDescription(page)).toContain('He owns a map to Wave Echo Cave.');
    await page.reload();
    expect(await renderedDescription(page)).not.toContain('Neverwinter');
    expectNoPageErrors(journey.browser);
  });

  it('an arc and the campaign have their History too', async () => {
    const page = journey.browser.page;
    await page.goto(`${journey.server.base}/campaigns/${journey.campaign}`);
    await createArc(page, 'Wave Echo Cave');
    await page.getByRole('button', { name: 'Write the hook…' }).click();
    await page.getByRole('textbox', { name: 'Hook', exact: true }).click();
    await page.keyboard.type('The Forge of Spells waits below.');
    await saved(page);
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.getByRole('button', { name: 'History', exact: true }).click();
    const panel = page.getByRole('region', { name: 'History' });
    await panel.getByRole('list', { name: 'Revisions, newest first' }).getByRole('button').first().click();
    // Compared with the revision before it (none: everything in it was added).
    await panel.getByRole('radio', { name: 'the revision before with this one' }).check();
    const hook = panel.getByRole('region', { name: 'Hook: changes' });
    expect(await hook.locator('ins').textContent()).toBe('The Forge of Spells waits below.');

    await page.getByRole('link', { name: 'Undoing', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Undoing' }).waitFor();
    await page.getByRole('button', { name: 'History', exact: true }).click();
    await panel.getByRole('list', { name: 'Revisions, newest first' }).getByRole('button').first().click();
    await panel.getByRole('region', { name: 'Campaign description: changes' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    expectNoPageErrors(journey.browser);
  });
});
