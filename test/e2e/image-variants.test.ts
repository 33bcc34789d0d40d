// Images for phones (issue 27): on a 375-pixel screen the thing page's first image loads a small
// WebP variant, not the uploaded original, in the rendered text and in the editor that replaces it,
// and it is asked for at once (no loading="lazy", fetchpriority="high"); a later image stays lazy.
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pngSized } from '../fixtures/images.js';
import { type Browser, createCampaign, createThing, type E2eServer, expectNoPageErrors, launchBrowser, playerView, saved, signUp, startE2eServer } from './browser.js';

let server: E2eServer;
let browser: Browser;

beforeAll(async () => {
  server = await startE2eServer({ EVERYONE_PREMIUM: 'true' });
  browser = await launchBrowser();
  await signUp(browser.page, server.base);
  await createCampaign(browser.page, 'Images on a phone');
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function uploadImage(page: Page, name: string, bytes: Buffer, label: string): Promise<void> {
  await page.getByRole('button', { name: 'Image', exact: true }).click();
  const upload = page.getByRole('dialog', { name: 'Insert an image' }).getByRole('form', { name: 'Upload an image' });
  await upload.getByLabel('Image file (PNG, JPEG, GIF or WebP)').setInputFiles({ name, mimeType: 'image/png', buffer: bytes });
  await upload.getByLabel('Label (its alt text and caption)').fill(label);
  await upload.getByRole('button', { name: 'Upload and insert' }).click();
  await page.getByRole('dialog', { name: 'Insert an image' }).waitFor({ state: 'detached' });
}

/** Sets the player view (its switch is in the sidebar, open on a wide screen), then loads the page afresh 375 pixels wide, with an empty cache. */
async function onPhone(page: Page, asPlayer: boolean): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 860 });
  await playerView(page, asPlayer);
  await page.setViewportSize({ width: 375, height: 740 });
  // A phone has not seen the wide screen's larger variants (Chromium prefers a larger one it holds).
  await (await page.context().newCDPSession(page)).send('Network.clearBrowserCache');
  await page.reload();
  await page.getByRole('textbox', { name: 'Description' }).or(page.getByRole('region', { name: 'Description (rendered)' })).first().waitFor();
}

/** What the browser made of an img: the URL it loaded, the pixels it got, how it was asked for. */
const loaded = (img: Locator) =>
  img.evaluate(async (el: HTMLImageElement) => {
    await el.decode().catch(() => {});
    // naturalWidth is the variant's width over its density (srcset w descriptors): shown, not its pixels.
    return { src: el.currentSrc, decoded: el.complete && el.naturalWidth > 0, loading: el.getAttribute('loading'), priority: el.getAttribute('fetchpriority') };
  });

describe('the thing page on a phone', () => {
  it('loads a WebP variant of its first image, asked for first, in the rendered text and in the editor', async () => {
    const page = browser.page;
    // Written on a wide screen, read on a phone.
    await createThing(page, 'Sildar Hallwinter');
    await page.getByRole('textbox', { name: 'Description' }).click();
    await page.keyboard.type('A portrait, then the map.');
    await uploadImage(page, 'sildar.png', pngSized(1200, 1600), 'Sildar, as the party met him');
    await uploadImage(page, 'map.png', pngSized(1600, 1000), 'The road to Phandalin');
    await saved(page);

    const originals: string[] = [];
    page.on('request', (request) => {
      if (/\/images\/\d+\/[0-9a-f]{32}\.png$/.test(request.url())) originals.push(request.url());
    });
    // A fresh load of the page on a phone-sized screen, as a player reads it: the server-rendered text.
    await onPhone(page, true);
    const rendered = page.getByRole('region', { name: 'Description (rendered)' }).locator('img');
    await rendered.first().waitFor();
    const first = await loaded(rendered.first());
    expect(first.src).toMatch(/\/images\/\d+\/[0-9a-f]{32}-480\.webp$/);
    expect(first.decoded).toBe(true);
    expect([first.loading, first.priority]).toEqual([null, 'high']);
    expect(await rendered.nth(1).getAttribute('loading')).toBe('lazy');

    // The editor that replaces it for the game master shows the same variant.
    await onPhone(page, false);
    const inEditor = page.getByRole('textbox', { name: 'Description' }).locator('img').first();
    await inEditor.waitFor();
    await expect.poll(async () => (await loaded(inEditor)).src).toMatch(/-480\.webp$/);
    expect(await loaded(inEditor)).toMatchObject({ decoded: true, loading: null, priority: 'high' });
    // Scrolled into view, the second image loads a variant too; no original was fetched since the reload.
    const second = page.getByRole('textbox', { name: 'Description' }).locator('img').nth(1);
    await second.scrollIntoViewIfNeeded();
    await expect.poll(async () => (await loaded(second)).src).toMatch(/-480\.webp$/);
    expect(originals).toEqual([]);
    expectNoPageErrors(browser);
  });
});
