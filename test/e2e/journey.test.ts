// A game master's evening in the browser, against the production build (SQLite; the
// `browser-postgres` project runs this journey on PostgreSQL too): sign up, a campaign, a type of
// their own, NPCs, a description written with the editor's shortcuts (a heading, a list, bold
// text, a mention and an image by address), an uploaded image once premium, arcs nested three deep, a link, search, backlinks,
// a rename that the mentioning record shows, and a reload after which everything is still there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { png } from '../fixtures/images.js';
import { dialect } from '../support/test-db.js';
import { type Browser, caretInEditor, createArc, createCampaign, createThing, type E2eServer, expectNoPageErrors, launchBrowser, openDetails, playerView, saved, screenshotPath, signUp, startE2eServer } from './browser.js';

let server: E2eServer;
let browser: Browser;

beforeAll(async () => {
  server = await startE2eServer();
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe(`a game master's evening on ${dialect}`, () => {
  it('plans a campaign and finds it all again after a reload', async () => {
    const { page } = browser;
    const base = server.base;
    const email = await signUp(page, base);
    const slug = await createCampaign(page, 'Lost Mine of Phandelver');

    // A type of their own, in the sidebar.
    await page.getByRole('textbox', { name: 'New type' }).fill('Factions');
    await page.getByRole('button', { name: 'Add type' }).click();
    await page.getByRole('navigation', { name: 'Things' }).getByRole('link', { name: 'Factions' }).waitFor();

    await createThing(page, 'Gundren Rockseeker', 'NPCs');
    await createThing(page, 'Lords Alliance', 'Factions');
    await createThing(page, 'Sildar Hallwinter', 'NPCs');

    // The description, typed with Markdown shortcuts and keyboard marks.
    const editor = page.getByRole('textbox', { name: 'Description' });
    await editor.click();
    await page.keyboard.type('# Travels ');
    await page.keyboard.type('with a dwarf');
    await page.keyboard.press('Enter');
    await page.keyboard.type('He guards the ');
    await page.keyboard.press('Control+b');
    await page.keyboard.type('wagon');
    await page.keyboard.press('Control+b');
    await page.keyboard.type(' for ');
    // The picker opens at the caret; what follows the @ is its search.
    await page.keyboard.type('@gundren');
    const picker = page.getByTestId('mention-picker');
    await picker.getByRole('option', { name: /Gundren Rockseeker/ }).click();
    await picker.waitFor({ state: 'detached' });
    await caretInEditor(page);
    await page.keyboard.press('Enter');
    await page.keyboard.type('- a sword');
    await page.keyboard.press('Enter');
    await page.keyboard.type('a shield');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Image', exact: true }).click();
    const imageDialog = page.getByRole('dialog', { name: 'Insert an image' });
    // Not premium yet: the upload is not offered, and the dialog says why.
    await imageDialog.getByText('Uploading images is for premium accounts.').waitFor();
    await imageDialog.getByLabel('Image address (https://…)').fill('https://images.example.test/sildar.png');
    await imageDialog.getByLabel('Alt text (what the image shows)').fill('Sildar in armour');
    await imageDialog.getByLabel('Caption', { exact: true }).fill('Sildar, knight of the Alliance');
    await imageDialog.getByRole('button', { name: 'Insert by address' }).click();
    // A link from the toolbar; focus is back in the editor once the dialog closes.
    await page.getByRole('button', { name: 'Link (Ctrl+K)', exact: true }).click();
    const linkDialog = page.getByRole('dialog', { name: 'Insert link' });
    await linkDialog.getByLabel('Address (https://…, mailto:… or /path)').fill('https://alliance.example.test/');
    await linkDialog.getByRole('button', { name: 'Apply' }).click();
    await linkDialog.waitFor({ state: 'detached' });
    // As a person does: type once the caret is back in the text (Slate returns the focus after it
    // has applied the link, a few milliseconds after the dialog has gone).
    await caretInEditor(page);
    await page.keyboard.type(' is their charter.');
    await saved(page);

    // As the players read it (the game master's page is the editor).
    await playerView(page, true);
    const rendered = page.getByRole('region', { name: 'Description (rendered)' });
    await rendered.locator('h1', { hasText: 'Travels with a dwarf' }).waitFor();
    await expect.poll(() => rendered.innerHTML()).toContain('<strong>wagon</strong>');
    expect(await rendered.locator('ul > li').allTextContents()).toEqual(['a sword', 'a shield']);
    expect(await rendered.locator('a.mention').getAttribute('href')).toBe(`/campaigns/${slug}/things/gundren-rockseeker`);
    expect(await rendered.locator('figure img').getAttribute('alt')).toBe('Sildar in armour');
    expect(await rendered.locator('figcaption').textContent()).toBe('Sildar, knight of the Alliance');
    const link = rendered.locator('a[href="https://alliance.example.test/"]');
    expect([await link.textContent(), await link.getAttribute('rel')]).toEqual(['https://alliance.example.test/', 'noopener noreferrer nofollow ugc']);
    expect(await rendered.textContent()).toContain('https://alliance.example.test/ is their charter.');
    await playerView(page, false);

    // Arcs three deep, by the parent picker.
    await createArc(page, 'Act One');
    await createArc(page, 'Goblin Ambush');
    await page.getByRole('combobox', { name: 'Move inside another arc' }).fill('act');
    await page.getByRole('listbox', { name: 'Move inside another arc: matches' }).getByRole('option', { name: 'Act One' }).click();
    await page.getByText('Inside: Act One').waitFor();
    await createArc(page, 'Cragmaw Hideout');
    await page.getByRole('combobox', { name: 'Move inside another arc' }).fill('goblin');
    await page.getByRole('listbox', { name: 'Move inside another arc: matches' }).getByRole('option', { name: 'Goblin Ambush' }).click();
    await page.getByText('Inside: Goblin Ambush').waitFor();
    // A cycle is refused by the server, and the app says so at the field.
    await page.getByRole('navigation', { name: 'Arcs' }).getByRole('link', { name: 'Act One' }).click();
    await page.getByRole('heading', { level: 1, name: 'Act One', exact: true }).getByRole('textbox', { name: 'Name' }).waitFor();
    await page.getByRole('combobox', { name: 'Move inside another arc' }).fill('cragmaw');
    await page.getByRole('listbox', { name: 'Move inside another arc: matches' }).getByRole('option', { name: 'Cragmaw Hideout' }).click();
    await page.getByRole('alert').filter({ hasText: /would become a loop/ }).waitFor();
    const arcsNav = page.getByRole('navigation', { name: 'Arcs' });
    await arcsNav.locator('ul ul ul').getByRole('link', { name: 'Cragmaw Hideout' }).waitFor();

    // A slug that another thing has is refused at the field.
    await page.getByRole('navigation', { name: 'Things' }).getByRole('button', { name: 'Show NPCs' }).click();
    await page.getByRole('navigation', { name: 'Things' }).getByRole('link', { name: 'Sildar Hallwinter' }).click();
    // The arc's page (with its own address field) stays until the thing's page is ready.
    await page.getByRole('heading', { level: 1, name: 'Sildar Hallwinter', exact: true }).getByRole('textbox', { name: 'Name' }).waitFor();
    await openDetails(page);
    await page.getByRole('textbox', { name: 'Address' }).fill('gundren-rockseeker');
    await page.getByRole('button', { name: 'Change address' }).click();
    await page.getByRole('alert').filter({ hasText: /taken|already/i }).waitFor();
    await page.getByRole('textbox', { name: 'Address' }).fill('sildar-hallwinter');

    // Link Sildar to the deepest arc from his page.
    await page.getByRole('combobox', { name: 'Add to an arc' }).fill('cragmaw');
    await page.getByRole('listbox', { name: 'Add to an arc: matches' }).getByRole('option', { name: 'Cragmaw Hideout' }).click();
    await page.getByRole('region', { name: 'In arcs' }).or(page.locator('section', { has: page.getByRole('heading', { name: 'In arcs' }) })).getByRole('link', { name: 'Cragmaw Hideout' }).waitFor();

    // Search from the sidebar.
    await page.getByRole('searchbox', { name: 'Search the campaign' }).fill('wagon');
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'result' }).waitFor();
    await page.getByRole('link', { name: 'Sildar Hallwinter' }).first().waitFor();
    expect(await page.locator('.excerpt mark').first().textContent()).toMatch(/wagon/i);

    // The quick switcher: Ctrl+K, a few letters, the highlighted match, Enter.
    await page.keyboard.press('Control+k');
    const switcher = page.getByRole('dialog', { name: 'Go to…' });
    await switcher.getByRole('combobox').fill('wagon');
    await switcher.getByRole('option', { name: /Sildar Hallwinter/ }).waitFor();
    expect(await switcher.locator('mark').first().textContent()).toMatch(/wagon/i);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/things\/sildar-hallwinter$/);

    // Backlinks, and a rename that the mentioning record's rendering follows.
    await page.goto(`${base}/campaigns/${slug}/things/gundren-rockseeker`);
    const mentionedIn = page.locator('section', { has: page.getByRole('heading', { name: 'Mentioned in' }) });
    await mentionedIn.getByRole('link', { name: 'Sildar Hallwinter' }).waitFor();
    const name = page.getByRole('textbox', { name: 'Name' });
    await name.fill('Gundren the Dwarf');
    await saved(page);
    await page.goto(`${base}/campaigns/${slug}/things/sildar-hallwinter`);
    await page.getByRole('textbox', { name: 'Description' }).locator('.mention', { hasText: 'Gundren the Dwarf' }).waitFor();

    // Premium (by the admin command line, on the server's database), then an uploaded image: its
    // label is its alt text and its caption.
    const status = await runCli(['user', 'premium', email, '--until', '2099-01-01'], server.env, { out: () => {}, err: () => {} });
    expect(status).toBe(0);
    await page.goto(`${base}/campaigns/${slug}/things/lords-alliance`);
    await page.getByRole('textbox', { name: 'Description' }).click();
    await page.getByRole('button', { name: 'Image', exact: true }).click();
    const upload = page.getByRole('dialog', { name: 'Insert an image' }).getByRole('form', { name: 'Upload an image' });
    await upload.getByLabel('Image file (PNG, JPEG, GIF or WebP)').setInputFiles({ name: 'banner.png', mimeType: 'image/png', buffer: png() });
    await upload.getByLabel('Label (its alt text and caption)').fill('The Alliance banner');
    await upload.getByRole('button', { name: 'Upload and insert' }).click();
    await page.getByRole('dialog', { name: 'Insert an image' }).waitFor({ state: 'detached' });
    await saved(page);
    await playerView(page, true);
    const banner = page.getByRole('region', { name: 'Description (rendered)' }).locator('figure');
    expect(await banner.locator('img').getAttribute('alt')).toBe('The Alliance banner');
    expect(await banner.locator('figcaption').textContent()).toBe('The Alliance banner');
    await expect.poll(() => banner.locator('img').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    await playerView(page, false);
    await page.goto(`${base}/campaigns/${slug}/things/sildar-hallwinter`);

    // Everything is still there after a reload.
    await page.reload();
    await page.getByRole('textbox', { name: 'Description' }).locator('h1', { hasText: 'Travels with a dwarf' }).waitFor();
    await page.locator('section', { has: page.getByRole('heading', { name: 'In arcs' }) }).getByRole('link', { name: 'Cragmaw Hideout' }).waitFor();
    if (dialect === 'sqlite') await page.screenshot({ path: screenshotPath('thing-page.png') });
    expectNoPageErrors(browser);
  }, 180_000);
});
