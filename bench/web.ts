// The web app's figures against its targets (issue 12): `npm run bench:web`.
//
// Builds the production server and web app, seeds a campaign of 1,000 things (bench/seed.ts, as
// `npm run bench` does) plus one thing whose description is 5,000 words, and drives Debian's
// Chromium (test/e2e/chromium.ts) headless on this machine:
//   - initial JavaScript and CSS, gzipped (target ≤ 250 KB);
//   - the campaign shell from a cold load (a fresh browser profile, nothing cached) until the
//     sidebar lists the types with their counts (target ≤ 500 ms);
//   - a thing page from a click on a link in the app until its rendered description is visible
//     (target ≤ 300 ms);
//   - typing into the 5,000-word description: per keystroke, from the key event to the next frame
//     after the editor has handled it (target < 16 ms).
// Each timing is taken BENCH_WEB_ROUNDS times (default 7); the median is compared with the target.
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../test/e2e/chromium.js';
import { Api, createAccount } from '../toolkit/http.js';
import { buildServer, startServer, stopServer, tempDir } from '../toolkit/server.js';
import { description } from './lib/content.js';
import { table } from './lib/format.js';
import { seedCampaign } from './seed.js';

const ROUNDS = Number(process.env.BENCH_WEB_ROUNDS ?? 7);
const PASSWORD = 'correct horse battery staple';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))]!;

function bundleBytes(webRoot: string): number {
  const html = fs.readFileSync(path.join(webRoot, 'index.html'), 'utf8');
  return [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].reduce((sum, m) => sum + gzipSync(fs.readFileSync(path.join(webRoot, m[1]!)), { level: 9 }).length, 0);
}

/** The words of rich text (its text leaves, split on white space). */
function wordsOf(value: unknown): number {
  const texts: string[] = [];
  const walk = (node: unknown) => {
    if (typeof node !== 'object' || node === null) return;
    const n = node as { text?: unknown; children?: unknown };
    if (typeof n.text === 'string') texts.push(n.text);
    if (Array.isArray(n.children)) n.children.forEach(walk);
  };
  (value as unknown[]).forEach(walk);
  return texts.join(' ').split(/\s+/).filter(Boolean).length;
}

/** A description of at least `words` words, from the seed's paragraphs. */
function longDescription(words: number): unknown[] {
  const blocks: unknown[] = [];
  for (let seed = 1; wordsOf(blocks) < words; seed++) blocks.push(...description(seed));
  return blocks;
}

async function launch() {
  return chromium.launchPersistentContext(tempDir('loreforge-bench-web-'), { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 860 } });
}

async function signIn(page: Page, base: string, email: string) {
  await page.goto(`${base}/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Your campaigns' }).waitFor();
}

const webRoot = tempDir('loreforge-bench-web-build-');
console.log('building the server and the web app…');
const entry = await buildServer({ web: webRoot });
const server = await startServer({ entry, env: { DATA_DIR: tempDir('loreforge-bench-web-data-'), WEB_ROOT: webRoot, LOG_LEVEL: 'warn' } });
try {
  const account = await createAccount(server.base, 'bench-web');
  const api = new Api(server.base).withToken(account.token);
  console.log('seeding 1,000 things, 100 arcs, 1,000 links…');
  const campaign = await seedCampaign(api, 'Web bench', { things: 1000, arcs: 100, linksPerArc: 10 }, 16);
  const chronicle = longDescription(5000);
  const long = await api.expect<{ slug: string }>(201, 'POST', `/api/campaigns/${campaign.slug}/things`, {
    newThing: { name: 'The long chronicle', typeId: campaign.typeIds[0], description: chronicle },
  });
  const campaignUrl = `${server.base}/campaigns/${campaign.slug}`;

  // The shell, cold: a new profile each round.
  const shell: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const context = await launch();
    const page = context.pages()[0] ?? (await context.newPage());
    await signIn(page, server.base, account.email);
    await context.clearCookies();
    await context.close();
    const cold = await launch();
    const coldPage = cold.pages()[0] ?? (await cold.newPage());
    await signIn(coldPage, server.base, account.email);
    // Signing in warmed nothing of the campaign's; the cache of the page's files is cleared too.
    const session = await cold.newCDPSession(coldPage);
    await session.send('Network.clearBrowserCache');
    const started = Date.now();
    await coldPage.goto(campaignUrl);
    await coldPage.getByRole('navigation', { name: 'Things' }).locator('.count').first().waitFor();
    await coldPage.getByRole('navigation', { name: 'Things' }).getByText('200', { exact: true }).first().waitFor();
    shell.push(Date.now() - started);
    await cold.close();
  }

  const context = await launch();
  const page = context.pages()[0] ?? (await context.newPage());
  await signIn(page, server.base, account.email);

  // A thing page from a click in the app.
  const thingPage: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    await page.goto(campaignUrl);
    const link = page.getByRole('region', { name: 'Recently updated things' }).or(page.locator('section', { has: page.getByRole('heading', { name: 'Recently updated things' }) })).getByRole('link').nth(round + 1);
    await link.waitFor();
    const started = Date.now();
    await link.click();
    await page.getByRole('region', { name: 'Description (rendered)' }).locator('p').first().waitFor();
    thingPage.push(Date.now() - started);
  }

  // Typing into the 5,000-word description.
  await page.goto(`${campaignUrl}/things/${long.slug}`);
  await page.getByRole('button', { name: 'Edit description' }).click();
  const editor = page.getByRole('textbox', { name: 'Description' });
  await editor.waitFor();
  await editor.click();
  await page.keyboard.press('Control+End');
  // In the page (a string: this file is typed for Node, not the DOM).
  await page.evaluate(`
    window.__latencies = [];
    document.addEventListener('keydown', () => {
      const started = performance.now();
      requestAnimationFrame(() => setTimeout(() => window.__latencies.push(performance.now() - started), 0));
    }, true);
  `);
  const sample = 'The party rests at the inn while the rain keeps falling over Phandalin. ';
  for (let round = 0; round < ROUNDS; round++) await page.keyboard.type(sample, { delay: 30 });
  await page.waitForTimeout(200);
  const keystrokes = await page.evaluate<number[]>('window.__latencies');
  await context.close();

  const words = wordsOf(chronicle);
  const rows = [
    ['initial JavaScript and CSS, gzipped', `${(bundleBytes(webRoot) / 1000).toFixed(1)} KB`, '≤ 250 KB', bundleBytes(webRoot) <= 250_000 ? 'met' : 'not met'],
    ['campaign shell, cold load (median)', `${median(shell)} ms`, '≤ 500 ms', median(shell) <= 500 ? 'met' : 'not met'],
    ['thing page after a click (median)', `${median(thingPage)} ms`, '≤ 300 ms', median(thingPage) <= 300 ? 'met' : 'not met'],
    [
      `keystroke in a ${words.toLocaleString('en')}-word description (p50 / p95 / max of ${keystrokes.length})`,
      `${percentile(keystrokes, 50).toFixed(1)} / ${percentile(keystrokes, 95).toFixed(1)} / ${Math.max(...keystrokes).toFixed(1)} ms`,
      '< 16 ms',
      percentile(keystrokes, 50) < 16 ? 'met (p50)' : 'not met',
    ],
  ];
  console.log(`\nWeb app on SQLite, 1,000 things (+1 of 5,000 words), Chromium headless, ${ROUNDS} rounds each\n`);
  console.log(table(['measure', 'measured', 'target', ''], rows, ['l', 'r', 'r', 'l']));
  console.log(`\nshell rounds: ${shell.join(', ')} ms; thing page rounds: ${thingPage.join(', ')} ms`);
} finally {
  await stopServer(server);
}
