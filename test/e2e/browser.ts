// What the browser journeys share: Debian's Chromium driven by playwright-core (headless, a fresh
// profile each time), the built server started on its own data, and a few steps every journey
// takes. Every page error and Content-Security-Policy violation is collected, and a journey that
// caused one fails (see expectNoPageErrors).
import fs from 'node:fs';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type BrowserContext, type Page, type Route } from 'playwright-core';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { startServer, stopServer, tempDir, type ServerProcess } from '../../toolkit/server.js';
import { createTestDatabase, dialect, type TestDatabase } from '../support/test-db.js';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium.js';


declare module 'vitest' {
  export interface ProvidedContext {
    /** Provided by test/e2e/setup.ts to the browser projects. */
    e2e: { entry: string; webRoot: string };
  }
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Page errors, console errors other than failed requests, and CSP violations, as they happened. */
  problems: string[];
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

export async function launchBrowser(options: { width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {}): Promise<Browser> {
  const profile = tempDir('loreforge-chromium-');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: options.width ?? 1280, height: options.height ?? 860 },
    colorScheme: options.colorScheme ?? 'light',
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const problems: string[] = [];
  const watch = (page: Page) => {
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      const text = message.text();
      // A failed request is logged as a console error too; the API's 4xx answers are part of the
      // journeys (401 before signing in, 409 for a taken slug) and are checked where they happen.
      if (message.type() === 'error' && !text.startsWith('Failed to load resource')) problems.push(`console error: ${text}`);
    });
  };
  context.on('page', watch);
  const page = context.pages()[0] ?? (await context.newPage());
  watch(page);
  return {
    context,
    page,
    problems,
    newPage: () => context.newPage(),
    close: () => context.close(),
  };
}

export function expectNoPageErrors(browser: Browser): void {
  expect(browser.problems).toEqual([]);
}

export interface E2eServer {
  server: ServerProcess;
  base: string;
  env: Record<string, string>;
  database: TestDatabase | undefined;
  /** Starts it again on the same port and data (after a kill). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** The production build on fresh data: SQLite in a temp folder, or a fresh PostgreSQL database on the postgres project. */
export async function startE2eServer(extraEnv: Record<string, string> = {}): Promise<E2eServer> {
  const { entry, webRoot } = inject('e2e');
  const dataDir = tempDir('loreforge-e2e-data-');
  const database = dialect === 'postgres' ? await createTestDatabase() : undefined;
  const env: Record<string, string> = { DATA_DIR: dataDir, WEB_ROOT: webRoot, LOG_LEVEL: 'warn', ...(database ? { DATABASE_URL: database.url! } : {}), ...extraEnv };
  let server = await startServer({ entry, env });
  const handle: E2eServer = {
    server,
    base: server.base,
    env,
    database,
    async restart() {
      server = await startServer({ entry, env, port: server.port });
      handle.server = server;
    },
    async stop() {
      await stopServer(server);
      await database?.close();
    },
  };
  return handle;
}

let counter = 0;

/** Signs a new game master up through the app; answers their email. */
export async function signUp(page: Page, base: string, name = 'Gia the GM'): Promise<string> {
  counter += 1;
  const email = `gm-${process.pid}-${Date.now()}-${counter}@example.com`;
  await page.goto(`${base}/sign-up`);
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('correct horse battery staple');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Your campaigns' }).waitFor();
  return email;
}

export async function createCampaign(page: Page, name: string): Promise<string> {
  await page.getByLabel('Campaign name').fill(name);
  await page.getByRole('button', { name: 'Create campaign' }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
  return new URL(page.url()).pathname.split('/')[2]!;
}

export async function createThing(page: Page, name: string, type?: string): Promise<void> {
  await page.getByRole('button', { name: 'New thing' }).click();
  const dialog = page.getByRole('dialog', { name: 'New thing' });
  await dialog.getByLabel('Name').fill(name);
  if (type) await dialog.getByLabel('Type').selectOption({ label: type });
  await dialog.getByRole('button', { name: 'Create' }).click();
  await page.getByRole('heading', { level: 1, name, exact: true }).getByRole('textbox', { name: 'Name' }).waitFor();
}

export async function createArc(page: Page, name: string): Promise<void> {
  await page.getByRole('button', { name: 'New arc' }).click();
  const dialog = page.getByRole('dialog', { name: 'New arc' });
  await dialog.getByLabel('Name').fill(name);
  await dialog.getByRole('button', { name: 'Create' }).click();
  await page.getByText('Arc', { exact: true }).first().waitFor();
  await page.getByRole('heading', { level: 1, name, exact: true }).getByRole('textbox', { name: 'Name' }).waitFor();
}

/** Opens a record page's details panel (type, visibility, address), if it is closed. */
export async function openDetails(page: Page): Promise<void> {
  const details = page.locator('details.record-details');
  if (!(await details.evaluate((element) => (element as HTMLDetailsElement).open))) await details.locator('summary').click();
}

/** Turns the game master's "View as player" on or off on a record page, and waits for the page it shows. */
export async function playerView(page: Page, on: boolean): Promise<void> {
  const button = page.getByRole('button', { name: 'View as player' });
  if ((await button.getAttribute('aria-pressed')) !== String(on)) await button.click();
  if (on) await page.getByRole('status').filter({ hasText: 'You are seeing the campaign as its players do' }).waitFor();
  else await page.getByRole('heading', { level: 1 }).getByRole('textbox', { name: 'Name' }).waitFor();
}

/** Waits until the page says every change is saved. */
export async function saved(page: Page): Promise<void> {
  await page.getByRole('status').filter({ hasText: 'All changes saved' }).waitFor({ timeout: 15_000 });
}

export const SCREENSHOTS = path.resolve(import.meta.dirname, '../../docs/screenshots');
export function screenshotPath(name: string): string {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  return path.join(SCREENSHOTS, name);
}

/** The serious and critical accessibility violations axe finds on the page. */
export async function axeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact})`);
}

export interface GmJourney {
  server: E2eServer;
  browser: Browser;
  campaign: string;
}

/**
 * A journey file's fixture: the built server, one game master's browser signed up, and a new
 * campaign (plus whatever `prepare` adds), started before the file's tests and stopped after them.
 * Read its fields inside the tests (they are set once the file's tests begin).
 */
export function gmJourney(campaignName: string, prepare?: (page: Page) => Promise<void>): GmJourney {
  const journey = {} as GmJourney;
  beforeAll(async () => {
    journey.server = await startE2eServer();
    journey.browser = await launchBrowser();
    await signUp(journey.browser.page, journey.server.base);
    journey.campaign = await createCampaign(journey.browser.page, campaignName);
    await prepare?.(journey.browser.page);
  }, 120_000);
  afterAll(async () => {
    await journey.browser?.close();
    await journey.server?.stop();
  });
  return journey;
}

/** Waits until the caret is in a rich-text editor, as a person does before typing on after a dialog. */
export async function caretInEditor(page: Page): Promise<void> {
  await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('contenteditable'))).toBe('true');
}

/**
 * Holds back a page's reads of a record (as a slow network would) until released: what the page
 * types meanwhile is typed on the version it shows, whatever another tab saved.
 */
export async function holdReads(page: Page, path: string): Promise<() => Promise<void>> {
  return holdGets(page, (url) => url.pathname === path);
}

/** Holds back a page's GETs of the addresses `matches` picks until released (a slow network). */
export async function holdGets(page: Page, matches: (url: URL) => boolean): Promise<() => Promise<void>> {
  const held: Route[] = [];
  let holding = true;
  const handler = (route: Route) => (holding && route.request().method() === 'GET' ? void held.push(route) : route.continue());
  await page.route(matches, handler);
  return async () => {
    holding = false;
    for (const route of held.splice(0)) await route.continue();
    await page.unroute(matches, handler);
  };
}
