// Images carry their dimensions (CONTRACT "The web app, phase 3"): an image a game master uploads
// in the editor is shown with its width and height, in the rendered page and in the editor, so the
// browser reserves its box before the bytes arrive and nothing below it moves.
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pngSized } from '../fixtures/images.js';
import { type Browser, createCampaign, createThing, type E2eServer, expectNoPageErrors, launchBrowser, playerView, saved, signUp, startE2eServer } from './browser.js';

let server: E2eServer;
let browser: Browser;

beforeAll(async () => {
  server = await startE2eServer({ EVERYONE_PREMIUM: 'true' });
  browser = await launchBrowser();
  await signUp(browser.page, server.base);
  await createCampaign(browser.page, 'Sized images');
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const size = (img: Locator) => img.evaluate((el: HTMLImageElement) => [el.getAttribute('width'), el.getAttribute('height')]);

describe('an uploaded image', () => {
  it('carries its width and height in the rendered page and in the editor', async () => {
    const page = browser.page;
    await createThing(page, 'Cragmaw Castle');
    // The text is written where it is read: no edit mode to open.
    await page.getByRole('textbox', { name: 'Description' }).click();
    await page.keyboard.type('The castle from the road.');
    await page.getByRole('button', { name: 'Image', exact: true }).click();
    const upload = page.getByRole('dialog', { name: 'Insert an image' }).getByRole('form', { name: 'Upload an image' });
    await upload.getByLabel('Image file (PNG, JPEG, GIF or WebP)').setInputFiles({ name: 'castle.png', mimeType: 'image/png', buffer: pngSized(400, 300) });
    await upload.getByLabel('Label (its alt text and caption)').fill('Cragmaw Castle from the road');
    await upload.getByRole('button', { name: 'Upload and insert' }).click();
    await page.getByRole('dialog', { name: 'Insert an image' }).waitFor({ state: 'detached' });
    await saved(page);

    // The rendered page, as the players read it.
    await page.reload();
    await playerView(page, true);
    const rendered = page.getByRole('region', { name: 'Description (rendered)' }).locator('img');
    await rendered.waitFor();
    expect(await size(rendered)).toEqual(['400', '300']);

    await playerView(page, false);
    const inEditor = page.getByRole('textbox', { name: 'Description' }).locator('img');
    await inEditor.waitFor();
    await expect.poll(() => size(inEditor)).toEqual(['400', '300']);
    expectNoPageErrors(browser);
  });
});
