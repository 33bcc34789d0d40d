// Sharing in the browser: a game master invites a player (a second browser, a profile of its own),
// the player joins by the link and reads the campaign without the secret block and without the
// GM-only NPC, and with no control to edit anything; the game master's "View as player" shows
// exactly the same.
import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, createCampaign, createThing, expectNoPageErrors, launchBrowser, openDetails, saved, screenshotPath, signUp, startE2eServer, type Browser, type E2eServer } from './browser.js';

let server: E2eServer;
let gm: Browser;
let player: Browser;

beforeAll(async () => {
  server = await startE2eServer();
  gm = await launchBrowser();
  player = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await gm?.close();
  await player?.close();
  await server?.stop();
});

async function renderedDescription(page: Page): Promise<string> {
  const region = page.getByRole('region', { name: 'Description (rendered)' });
  await region.waitFor();
  await expect.poll(async () => (await region.textContent())?.trim() ?? '', { timeout: 10_000 }).not.toBe('');
  return (await region.textContent()) ?? '';
}

async function sidebarThings(page: Page): Promise<string> {
  const nav = page.getByRole('navigation', { name: 'Things' });
  // Each opened type's button turns from "Show …" into "Hide …".
  const show = nav.getByRole('button', { name: /^Show / });
  while ((await show.count()) > 0) await show.first().click();
  // Each opened type reads its things (the sidebar holds counts, not every thing).
  await expect.poll(() => nav.locator('[aria-busy="true"]').count()).toBe(0);
  return (await nav.textContent()) ?? '';
}

/** The description on a game master's page: in its editor. */
async function gmDescription(page: Page): Promise<string> {
  const editor = page.getByRole('textbox', { name: 'Description' });
  await editor.waitFor();
  await expect.poll(async () => (await editor.textContent())?.trim() ?? '', { timeout: 10_000 }).not.toBe('');
  return (await editor.textContent()) ?? '';
}

/** No control that changes anything: no editor, no name field, no new or delete buttons. */
async function expectReadOnly(page: Page) {
  for (const name of ['History', 'New thing', 'New arc', 'Delete thing', 'Add type']) {
    expect(await page.getByRole('button', { name }).count(), `a "${name}" button`).toBe(0);
  }
  expect(await page.getByRole('textbox', { name: 'Name' }).count()).toBe(0);
  expect(await page.getByRole('textbox', { name: 'Description' }).count()).toBe(0);
}

describe('sharing a campaign in the browser', () => {
  it('lets a player join by link and read everything but the GM’s secrets; the GM’s player view shows the same', async () => {
    const page = gm.page;
    await signUp(page, server.base, 'Gia the GM');
    const slug = await createCampaign(page, 'Shared Saga');

    // A thing with a public paragraph and a secret block.
    await createThing(page, 'Sildar Hallwinter');
    const sildarUrl = page.url();
    const editor = page.getByRole('textbox', { name: 'Description' });
    await editor.click();
    await page.keyboard.type('A knight of the Alliance.');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'GM only (hidden from players)' }).click();
    await page.keyboard.type('Secretly in the pay of the Black Spider.');
    await saved(page);
    const gmText = await gmDescription(page);
    expect(gmText).toContain('Secretly in the pay of the Black Spider.');

    // A GM-only NPC.
    await createThing(page, 'Nezznar the Black Spider');
    await openDetails(page);
    await page.getByRole('checkbox', { name: 'GM only', exact: true }).check();
    await saved(page);
    await page.getByText('GM only', { exact: true }).first().waitFor();
    await page.screenshot({ path: screenshotPath('gm-only.png') });

    // The invitation.
    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
    await page.getByLabel('Role').selectOption('player');
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    const link = await page.getByLabel(/Send this link/).inputValue();
    expect(link).toMatch(new RegExp(`^${server.base}/join#lfi_`));
    await page.getByRole('button', { name: 'Copy link' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    await page.screenshot({ path: screenshotPath('members.png') });

    // The player: signs up, opens the link, joins.
    const reader = player.page;
    await signUp(reader, server.base, 'Pip the Player');
    await reader.goto(link);
    await reader.getByRole('heading', { name: 'You are invited to a campaign' }).waitFor();
    expect(reader.url()).toBe(`${server.base}/join`);
    await reader.getByRole('button', { name: 'Join the campaign' }).click();
    await reader.getByRole('heading', { level: 1, name: 'Shared Saga' }).waitFor();
    expect(new URL(reader.url()).pathname).toBe(`/campaigns/${slug}`);
    await expectReadOnly(reader);
    const playerSidebar = await sidebarThings(reader);
    expect(playerSidebar).toContain('Sildar Hallwinter');
    expect(playerSidebar).not.toContain('Nezznar');

    await reader.goto(sildarUrl);
    await reader.getByRole('heading', { level: 1, name: 'Sildar Hallwinter' }).waitFor();
    const playerText = await renderedDescription(reader);
    expect(playerText).toContain('A knight of the Alliance.');
    expect(playerText).not.toContain('Black Spider');
    await expectReadOnly(reader);
    expect(await reader.content()).not.toContain('Nezznar');
    await reader.screenshot({ path: screenshotPath('player-view.png') });
    // Opening the GM-only NPC by its address: it does not exist for a player.
    await reader.goto(`${server.base}/campaigns/${slug}/things/nezznar-the-black-spider`);
    await reader.getByRole('heading', { name: 'This thing does not exist (any more)' }).waitFor();
    // Search finds neither the secret nor the NPC.
    await reader.goto(`${server.base}/campaigns/${slug}/search?q=spider`);
    await reader.getByText('0 results for “spider”').waitFor();

    // The GM's player view: exactly what the player saw, and nothing to edit.
    await page.goto(sildarUrl);
    await page.getByRole('button', { name: 'View as player' }).click();
    await page.getByRole('status').filter({ hasText: 'You are seeing the campaign as its players do' }).waitFor();
    await page.getByRole('heading', { level: 1, name: 'Sildar Hallwinter' }).waitFor();
    expect(await renderedDescription(page)).toBe(playerText);
    await expectReadOnly(page);
    const gmAsPlayerSidebar = await sidebarThings(page);
    expect(gmAsPlayerSidebar).not.toContain('Nezznar');
    expect(gmAsPlayerSidebar).toBe(playerSidebar);
    // And back.
    await page.getByRole('button', { name: 'View as player' }).click();
    expect(await gmDescription(page)).toContain('Secretly in the pay of the Black Spider.');
    expect(await sidebarThings(page)).toContain('Nezznar');

    // The campaign's export links download what the API exports, secrets included.
    await page.goto(`${server.base}/campaigns/${slug}`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'JSON document' }).click()]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^${slug}-\\d{4}-\\d{2}-\\d{2}\\.json$`));
    const exported = JSON.parse(fs.readFileSync(await download.path(), 'utf8')) as { things: { name: string }[] };
    expect(exported.things.map((thing) => thing.name).sort()).toEqual(['Nezznar the Black Spider', 'Sildar Hallwinter']);
    // The import page takes the download back as a new campaign, with a report of what came in.
    await page.goto(`${server.base}/`);
    await page.getByRole('link', { name: 'import a campaign' }).click();
    await page.getByRole('heading', { level: 1, name: 'Import a campaign' }).waitFor();
    // By keyboard alone: the file field opens the chooser, Tab reaches the GM-only box then Check, Enter sends.
    // Waiting for the chooser before anything else gives Playwright's interception of it a round
    // trip to be in place before the key opens it (started beside the key press, it can arrive late).
    const choosing = page.waitForEvent('filechooser');
    await page.getByLabel('File to import').focus();
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type)).toBe('file');
    await page.keyboard.press('Space');
    const chooser = await choosing;
    await chooser.setFiles({ name: 'broken.zip', mimeType: 'application/zip', buffer: Buffer.from('PK\u0003\u0004 not really a zip') });
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type)).toBe('checkbox');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Check');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 2, name: 'This file cannot be imported' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/^broken\.zip: not a zip archive, or a truncated one/);
    // The check first (the report of what would come in), then the import itself.
    await page.getByLabel('File to import').setInputFiles(await download.path());
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByRole('heading', { level: 2, name: /^Ready to import / }).waitFor();
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('heading', { level: 2, name: 'Imported Shared Saga' }).waitFor({ timeout: 30_000 });
    const report = (await page.locator('.import-report').textContent()) ?? '';
    expect(report).toContain('From a JSON document');
    expect(report).toContain('2 things');
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('import-report.png'), fullPage: true });
    await page.getByRole('link', { name: 'Open Shared Saga' }).click();
    await page.getByRole('heading', { level: 1, name: 'Shared Saga' }).waitFor();
    expect(new URL(page.url()).pathname).toMatch(new RegExp(`^/campaigns/${slug}-[a-z0-9]+$`));
    await expect.poll(() => page.getByRole('navigation', { name: 'Things' }).textContent()).toContain('NPCs2');
    // A player has no export link.
    await reader.goto(`${server.base}/campaigns/${slug}`);
    await reader.getByRole('heading', { level: 1, name: 'Shared Saga' }).waitFor();
    expect(await reader.getByRole('link', { name: 'JSON document' }).count()).toBe(0);

    expectNoPageErrors(gm);
    expectNoPageErrors(player);
  }, 180_000);

  it('starts the new-record dialogs’ GM-only switch at the campaign’s default, set on the Members page', async () => {
    const planner = await launchBrowser();
    try {
      const page = planner.page;
      await signUp(page, server.base, 'Pia the Planner');
      const slug = await createCampaign(page, 'Prepared Ahead');
      await page.getByRole('link', { name: 'Members' }).click();
      const setting = page.getByRole('checkbox', { name: 'New things and arcs start GM only' });
      expect(await setting.isChecked()).toBe(false);
      await setting.check();
      // Checked at once; enabled again once the campaign's record holds the new default.
      await expect.poll(async () => (await setting.isChecked()) && (await setting.isEnabled())).toBe(true);

      await page.getByRole('button', { name: 'New thing' }).click();
      const dialog = page.getByRole('dialog', { name: 'New thing' });
      expect(await dialog.getByRole('checkbox', { name: 'GM only' }).isChecked()).toBe(true);
      await dialog.getByLabel('Name').fill('Nezznar');
      await dialog.getByRole('button', { name: 'Create' }).click();
      await page.getByRole('heading', { level: 1, name: 'Nezznar', exact: true }).getByRole('textbox', { name: 'Name' }).waitFor();
      await openDetails(page);
      expect(await page.getByRole('checkbox', { name: 'GM only' }).isChecked()).toBe(true);

      await page.getByRole('button', { name: 'New arc' }).click();
      const arcDialog = page.getByRole('dialog', { name: 'New arc' });
      const arcSwitch = arcDialog.getByRole('checkbox', { name: 'GM only' });
      expect(await arcSwitch.isChecked()).toBe(true);
      // One record may still be for everyone.
      await arcSwitch.uncheck();
      await arcDialog.getByLabel('Name').fill('Phandalin');
      await arcDialog.getByRole('button', { name: 'Create' }).click();
      await page.getByText('Arc', { exact: true }).first().waitFor();
      await openDetails(page);
      expect(await page.getByRole('checkbox', { name: 'GM only' }).isChecked()).toBe(false);

      const records = await page.evaluate(async (campaign) => {
        const get = async (path: string) => (await fetch(`/api/campaigns/${campaign}${path}`)).json() as Promise<{ name: string; visibility: string }[]>;
        return [...(await get('/things')), ...(await get('/arcs'))].map((r) => `${r.name}:${r.visibility}`).sort();
      }, slug);
      expect(records).toEqual(['Nezznar:gm', 'Phandalin:all']);
      expect(await axeViolations(page)).toEqual([]);
      expectNoPageErrors(planner);
    } finally {
      await planner.close();
    }
  }, 120_000);
});
