// Importing a vault in the browser (CONTRACT "Import from elsewhere"): a small Obsidian-style vault
// with a file that is neither Markdown nor an image is checked first (the dry run's report and its
// warning, nothing created), then imported in the background (a job read until done), and the new
// campaign opened; the page shows the job again when the user comes back to it. With "Make
// everything GM-only" every imported record is GM-only. A refused file is said, with the focus on
// the message.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zipOf } from '../support/zip.js';
import { axeViolations, expectNoPageErrors, launchBrowser, screenshotPath, signUp, startE2eServer, type Browser, type E2eServer } from './browser.js';

let server: E2eServer;
let gm: Browser;

beforeAll(async () => {
  server = await startE2eServer();
  gm = await launchBrowser();
  await signUp(gm.page, server.base, 'Vera the Vault Keeper');
}, 120_000);
afterAll(async () => {
  await gm?.close();
  await server?.stop();
});

/** A vault as Obsidian users zip it: one folder, notes in folders, wikilinks, its app folder, and a PDF among the notes. */
const vault = (name: string) =>
  zipOf([
    { name: `${name}/.obsidian/app.json`, data: '{}' },
    { name: `${name}/NPCs/Sildar Hallwinter.md`, data: '---\ntags: [ally]\n---\nA knight of the Lords’ Alliance, last seen on the road to [[Phandalin|the town]].\n' },
    { name: `${name}/Places/Phandalin.md`, data: 'A frontier town under the Redbrands’ thumb. See [[Sildar Hallwinter]].\n' },
    { name: `${name}/NPCs/Letter to Sildar.pdf`, data: '%PDF-1.4 not really a PDF' },
  ]);

interface Job {
  status: string;
  progress: { done: number; total: number };
}

/** Every answer of GET /api/imports/{id} the page reads, in order. */
function watchJobs(page: Page): Job[] {
  const jobs: Job[] = [];
  page.on('response', (response) => {
    if (response.request().method() === 'GET' && /\/api\/imports\/[^/?]+$/.test(new URL(response.url()).pathname) && response.ok()) {
      void response.json().then((job: Job) => jobs.push(job), () => undefined);
    }
  });
  return jobs;
}

async function campaignNames(page: Page): Promise<string[]> {
  const response = await page.request.get(`${server.base}/api/campaigns`);
  expect(response.status()).toBe(200);
  return ((await response.json()) as { name: string }[]).map((campaign) => campaign.name).sort();
}

const focusedText = (page: Page) => page.evaluate(() => document.activeElement?.textContent ?? '');

describe('importing a vault in the browser', () => {
  it('checks the vault (report and warning, nothing created), imports it in the background to done, and opens the campaign', async () => {
    const page = gm.page;
    const jobs = watchJobs(page);
    await page.goto(`${server.base}/`);
    await page.getByRole('link', { name: 'import a campaign' }).click();
    await page.getByRole('heading', { level: 1, name: 'Import a campaign' }).waitFor();

    await page.getByLabel('File to import').setInputFiles({ name: 'sword-coast.zip', mimeType: 'application/zip', buffer: await vault('Sword Coast') });
    await page.getByRole('button', { name: 'Check' }).click();
    const ready = page.getByRole('heading', { level: 2, name: 'Ready to import sword-coast.zip' });
    await ready.waitFor();
    await expect.poll(() => focusedText(page)).toBe('Ready to import sword-coast.zip');
    const preview = page.locator('section.import-report');
    expect(await preview.locator('.import-counts li').allTextContents()).toEqual(['2 thing types', '2 things', '0 story arcs', '0 links between things and arcs', '0 images']);
    expect(await preview.getByRole('heading', { level: 3 }).textContent()).toBe('1 warning');
    // The warning's words are the server's; the page shows the entry and them, every one.
    const warning = /^Sword Coast\/NPCs\/Letter to Sildar\.pdf: .*not imported/;
    expect(await preview.locator('.import-warnings li').allTextContents()).toEqual([expect.stringMatching(warning)]);
    // The check created nothing.
    expect(await campaignNames(page)).toEqual([]);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('import-preview.png'), fullPage: true });

    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const imported = page.getByRole('heading', { level: 2, name: 'Imported Sword Coast' });
    await imported.waitFor({ timeout: 30_000 });
    await expect.poll(() => focusedText(page)).toBe('Imported Sword Coast');
    expect(new URL(page.url()).searchParams.get('job')).toMatch(/.+/);
    expect(await page.locator('.import-job [role="status"]').textContent()).toBe('Import done.');
    // The page read the job until it was done, its progress complete.
    await expect.poll(() => jobs.at(-1)?.status).toBe('done');
    const last = jobs.at(-1)!;
    expect(last.progress.total).toBeGreaterThan(0);
    expect(last.progress.done).toBe(last.progress.total);
    expect(jobs.every((job, i) => i === 0 || job.progress.done >= jobs[i - 1]!.progress.done)).toBe(true);
    expect(await page.locator('.import-job .import-counts li').allTextContents()).toEqual(['2 thing types', '2 things', '0 story arcs', '0 links between things and arcs', '0 images']);
    expect(await page.locator('.import-job .import-warnings li').allTextContents()).toEqual([expect.stringMatching(warning)]);
    expect(await campaignNames(page)).toEqual(['Sword Coast']);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('import-done.png'), fullPage: true });

    // Back on the page later (its address holds the job): the same outcome, and only one campaign.
    await page.reload();
    await imported.waitFor();
    expect(await campaignNames(page)).toEqual(['Sword Coast']);

    await page.getByRole('link', { name: 'Open Sword Coast' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sword Coast' }).waitFor();
    const things = page.getByRole('navigation', { name: 'Things' });
    await expect.poll(() => things.textContent()).toMatch(/NPCs1/);
    expect(await things.textContent()).toMatch(/Places1/);
    expectNoPageErrors(gm);
  }, 180_000);

  it('makes everything GM-only when asked, and says why a file is refused with the focus on the message', async () => {
    const page = await gm.newPage();
    await page.goto(`${server.base}/import`);
    await page.getByRole('heading', { level: 1, name: 'Import a campaign' }).waitFor();

    // A damaged zip: refused by the check, the message focused.
    await page.getByLabel('File to import').setInputFiles({ name: 'broken.zip', mimeType: 'application/zip', buffer: Buffer.from('PK\u0003\u0004 not really a zip') });
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByRole('heading', { level: 2, name: 'This file cannot be imported' }).waitFor();
    const alert = page.getByRole('alert');
    expect(await alert.textContent()).toMatch(/^broken\.zip: /);
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('alert');
    expect(await axeViolations(page)).toEqual([]);

    await page.getByLabel('File to import').setInputFiles({ name: 'secret-coast.zip', mimeType: 'application/zip', buffer: await vault('Secret Coast') });
    await page.getByRole('checkbox', { name: 'Make everything GM-only' }).check();
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByRole('heading', { level: 2, name: 'Ready to import secret-coast.zip' }).waitFor();
    expect(await page.locator('section.import-report').textContent()).toContain('Every thing and arc in it will be GM-only');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('heading', { level: 2, name: 'Imported Secret Coast' }).waitFor({ timeout: 30_000 });
    const href = await page.getByRole('link', { name: 'Open Secret Coast' }).getAttribute('href');
    const slug = href!.split('/')[2]!;
    const response = await page.request.get(`${server.base}/api/campaigns/${slug}/things`);
    const things = (await response.json()) as { name: string; visibility: string }[];
    expect(things.map((thing) => [thing.name, thing.visibility]).sort()).toEqual([
      ['Phandalin', 'gm'],
      ['Sildar Hallwinter', 'gm'],
    ]);
    await page.close();
    expectNoPageErrors(gm);
  }, 180_000);
});
