// The campaign's home (web/src/campaigns/campaign-home.tsx): the things changed last, by name and
// address, and its settings, a write whose failure is shown at the form and whose new address the
// page moves to.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, createCampaign, createThing, type E2eServer, expectNoPageErrors, launchBrowser, signUp, startE2eServer } from './browser.js';

let server: E2eServer;
let browser: Browser;

beforeAll(async () => {
  server = await startE2eServer();
  browser = await launchBrowser();
  await signUp(browser.page, server.base);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('the campaign home', () => {
  it('lists the things changed last, and saves the settings: a taken address is refused at the form, a new one is moved to', async () => {
    const page = browser.page;
    await createCampaign(page, 'Taken');
    await page.goto(server.base);
    const slug = await createCampaign(page, 'Lost Mine');
    await createThing(page, 'Gundren');
    await createThing(page, 'Sildar');
    await page.goto(`${server.base}/campaigns/${slug}`);
    const recent = page.getByRole('region', { name: 'Recently updated things' });
    await expect.poll(() => recent.getByRole('link').allTextContents()).toEqual(['Sildar', 'Gundren']);
    expect(await recent.getByRole('link', { name: 'Gundren' }).getAttribute('href')).toBe(`/campaigns/${slug}/things/gundren`);

    const settings = page.getByRole('region', { name: 'Campaign settings' });
    await settings.getByLabel('Address').fill('taken');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await settings.getByRole('alert').waitFor();
    expect(await settings.getByRole('alert').textContent()).not.toBe('');
    expect(new URL(page.url()).pathname).toBe(`/campaigns/${slug}`);

    await settings.getByLabel('Name').fill('Lost Mine of Phandelver');
    await settings.getByLabel('Address').fill('phandelver');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await page.waitForURL(`${server.base}/campaigns/phandelver`);
    await page.getByRole('heading', { level: 1, name: 'Lost Mine of Phandelver' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Lost Mine of Phandelver' }).waitFor();
    expectNoPageErrors(browser);
  });
});
