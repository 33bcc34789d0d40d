// A campaign of 1,200 NPCs (and a few locations), as a game master uses it: the sidebar counts
// from the types list and lists an opened type a page at a time; pages never download every thing's
// or arc's text; a type's page reaches its last thing; both lists sort by name and by last change;
// the arc's "Add a thing" finds a thing by typing; the quick switcher offers the pages opened last
// before anything is typed.
import type { Page, Request } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectNoPageErrors, gmJourney } from './browser.js';

const NPCS = 1200;
const LOCATIONS = 3;
const journey = gmJourney('Large campaign');
const npc = (n: number) => `NPC ${String(n).padStart(4, '0')}`;

let npcType: number;
let locationType: number;

/** Creates things through the API with the page's session, eight requests in flight. */
async function createThings(page: Page, campaign: string, names: string[], typeId: number): Promise<void> {
  await page.evaluate(
    async ({ campaign, names, typeId }) => {
      let next = 0;
      const worker = async () => {
        while (next < names.length) {
          const name = names[next++]!;
          const description = [{ type: 'paragraph', children: [{ text: `${name} keeps a ledger of debts owed by half the harbour, and a second one nobody has seen.` }] }];
          const response = await fetch(`/api/campaigns/${campaign}/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ newThing: { name, typeId, description } }) });
          if (response.status !== 201) throw new Error(`${name}: ${response.status} ${await response.text()}`);
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
    },
    { campaign, names, typeId },
  );
}

async function apiJson<T>(page: Page, method: string, path: string, body?: unknown): Promise<T> {
  return page.evaluate<T, { method: string; path: string; body: unknown }>(
    async ({ method, path, body }) => {
      const response = await fetch(path, { method, cache: 'no-store', headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as T;
    },
    { method, path, body },
  );
}

beforeAll(async () => {
  const { page } = journey.browser;
  const types = await apiJson<{ id: number; name: string }[]>(page, 'GET', `/api/campaigns/${journey.campaign}/thing-types`);
  npcType = types.find((t) => t.name === 'NPCs')!.id;
  locationType = types.find((t) => t.name === 'Locations')!.id;
  await createThings(page, journey.campaign, Array.from({ length: NPCS }, (_, i) => npc(i + 1)), npcType);
  await createThings(page, journey.campaign, ['Harbour', 'Lighthouse', 'Old Mill'], locationType);
  await apiJson(page, 'POST', `/api/campaigns/${journey.campaign}/arcs`, { newArc: { name: 'The Heist' } });
  await apiJson(page, 'POST', `/api/campaigns/${journey.campaign}/things/npc-0001/arcs`, { arcSlug: 'the-heist' });
  // Changed last of all: first when the last changed come first, 500th by name.
  await apiJson(page, 'PUT', `/api/campaigns/${journey.campaign}/things/npc-0500`, { updatedThing: { tags: ['informant'] } });
}, 180_000);

/** Every API request the page makes from now on. */
function recordRequests(page: Page): Request[] {
  const requests: Request[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/api/')) requests.push(request);
  });
  return requests;
}

/** The list reads that would carry every thing's or arc's text: the things list without `fields=summary`, the arcs list without `things=none`. */
function fullListReads(requests: Request[], campaign: string): string[] {
  return requests
    .map((request) => new URL(request.url()))
    .filter(
      (url) =>
        (url.pathname === `/api/campaigns/${campaign}/things` && url.searchParams.get('fields') !== 'summary') ||
        (url.pathname === `/api/campaigns/${campaign}/arcs` && url.searchParams.get('things') !== 'none'),
    )
    .map((url) => url.pathname + url.search);
}

const sidebar = (page: Page) => page.getByRole('navigation', { name: 'Things' });
const sidebarList = (page: Page, type: string) => page.getByRole('list', { name: `${type}: things` });

describe('a campaign of 1,200 things', () => {
  it('counts each type from the types list and reads no full list to open a thing, expand a type or open an arc', async () => {
    const { page } = journey.browser;
    const requests = recordRequests(page);
    await page.goto(`${journey.server.base}/campaigns/${journey.campaign}/things/npc-0042`);
    await page.getByRole('heading', { level: 1, name: npc(42) }).or(page.getByRole('textbox', { name: 'Name' }).and(page.locator(`[value="${npc(42)}"]`))).first().waitFor();
    await expect.poll(() => sidebar(page).getByLabel(`${NPCS} things`).count()).toBe(1);
    await expect.poll(() => sidebar(page).getByLabel(`${LOCATIONS} things`).count()).toBe(1);
    await sidebar(page).getByRole('button', { name: 'Show NPCs' }).click();
    await sidebarList(page, 'NPCs').getByRole('link', { name: npc(1), exact: true }).waitFor();
    await page.getByRole('navigation', { name: 'Arcs' }).getByRole('link', { name: 'The Heist' }).click();
    await page.getByRole('heading', { name: 'Things in this arc' }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(fullListReads(requests, journey.campaign)).toEqual([]);
    // The opened type lists a page, not 1,200 links.
    expect(await sidebarList(page, 'NPCs').getByRole('link').count()).toBe(25);
    expectNoPageErrors(journey.browser);
  });

  it('lists an opened type in the sidebar by name or last changed first, a page more at a time', async () => {
    const { page } = journey.browser;
    const list = sidebarList(page, 'NPCs');
    await list.getByRole('link').first().waitFor();
    expect(await list.getByRole('link').first().textContent()).toBe(npc(1));
    await sidebar(page).getByRole('combobox', { name: 'Sort NPCs' }).selectOption({ label: 'Last changed first' });
    await expect.poll(() => list.getByRole('link').first().textContent()).toBe(npc(500));
    await sidebar(page).getByRole('combobox', { name: 'Sort NPCs' }).selectOption({ label: 'By name' });
    await expect.poll(() => list.getByRole('link').first().textContent()).toBe(npc(1));
    await sidebar(page).getByRole('button', { name: /^Show more NPCs/ }).click();
    await expect.poll(() => list.getByRole('link').count()).toBe(50);
    expect(await list.getByRole('link').nth(49).textContent()).toBe(npc(50));
    // The order is kept for the tab: a reload opens the type in the same order.
    await page.reload();
    await sidebar(page).getByRole('button', { name: 'Show NPCs' }).click();
    await expect.poll(() => sidebarList(page, 'NPCs').getByRole('link').first().textContent()).toBe(npc(1));
    expectNoPageErrors(journey.browser);
  });

  it('lists a type on its page a hundred at a time up to its 1,200th thing, in either order', async () => {
    const { page } = journey.browser;
    await page.goto(`${journey.server.base}/campaigns/${journey.campaign}/types/${npcType}`);
    const list = page.getByRole('main').getByRole('list', { name: 'NPCs' });
    await list.getByRole('link').first().waitFor();
    expect(await list.getByRole('link').count()).toBe(100);
    expect(await list.getByRole('link').first().textContent()).toBe(npc(500));
    await page.getByRole('status').filter({ hasText: `100 of ${NPCS} shown` }).waitFor();
    await page.getByLabel('Order', { exact: true }).selectOption({ label: 'By name' });
    await expect.poll(() => list.getByRole('link').first().textContent()).toBe(npc(1));
    expect(new URL(page.url()).searchParams.get('sort')).toBe('name');
    for (let shown = 100; shown < NPCS; shown += 100) {
      await page.getByRole('button', { name: 'Show 100 more' }).click();
      await expect.poll(() => list.getByRole('link').count()).toBe(shown + 100);
    }
    expect(await list.getByRole('link').last().textContent()).toBe(npc(NPCS));
    await page.getByRole('status').filter({ hasText: new RegExp(`^${NPCS} shown$`) }).waitFor();
    expect(await page.getByRole('button', { name: 'Show 100 more' }).count()).toBe(0);
    expectNoPageErrors(journey.browser);
  });

  it('adds a thing to an arc by typing part of its name, and never offers one already in it', async () => {
    const { page } = journey.browser;
    await page.goto(`${journey.server.base}/campaigns/${journey.campaign}/arcs/the-heist`);
    const linked = page.getByRole('region', { name: 'Things in this arc' });
    await linked.getByRole('link', { name: npc(1) }).waitFor();
    const picker = page.getByRole('combobox', { name: 'Add a thing' });
    const matches = page.getByRole('listbox', { name: 'Add a thing: matches' });
    await picker.fill('0001');
    await matches.getByText('Nothing matches “0001”.').waitFor();
    expect(await matches.getByRole('option').count()).toBe(0);
    await picker.fill('0777');
    const posted = page.waitForResponse((response) => response.request().method() === 'POST' && response.url().endsWith('/things/npc-0777/arcs'));
    await matches.getByRole('option', { name: npc(777), exact: true }).click();
    // The pick is sent and accepted.
    expect((await posted).status()).toBe(200);
    // The arc page shows it at once and after a reload (the arc's ETag moves with its links, so the
    // browser's cached arc is not confirmed), the server holds the link, and the thing's page lists the arc.
    // If it is not shown, say what the page shows instead (this step failed once in CI and never since).
    await linked
      .getByRole('link', { name: npc(777) })
      .waitFor()
      .catch(async (failure: unknown) => {
        const seen = await page.evaluate(() => ({
          dialogs: [...document.querySelectorAll('[role="dialog"], [role="alertdialog"]')].map((d) => d.textContent?.slice(0, 200)),
          alerts: [...document.querySelectorAll('[role="alert"], .error')].map((a) => a.textContent),
          listed: [...document.querySelectorAll('main a')].map((a) => a.textContent),
        }));
        throw new Error(`NPC 0777 not shown in the arc: ${JSON.stringify(seen)}`, { cause: failure });
      });
    await page.reload();
    await linked.getByRole('link', { name: npc(777) }).waitFor();
    expect(await linked.getByRole('link', { name: npc(1) }).count()).toBe(1);
    await expect.poll(async () => (await apiJson<{ things: { name: string }[] }>(page, 'GET', `/api/campaigns/${journey.campaign}/arcs/the-heist`)).things.map((t) => t.name)).toEqual([npc(1), npc(777)]);
    await page.goto(`${journey.server.base}/campaigns/${journey.campaign}/things/npc-0777`);
    await page.getByRole('main').getByRole('link', { name: 'The Heist' }).waitFor();
    expectNoPageErrors(journey.browser);
  });

  it('offers the pages opened last in the quick switcher before anything is typed', async () => {
    const { page } = journey.browser;
    await page.goto(`${journey.server.base}/campaigns/${journey.campaign}/things/npc-0123`);
    await sidebar(page).getByLabel(`${NPCS} things`).waitFor();
    await page.getByRole('heading', { level: 1, name: npc(123) }).or(page.getByRole('textbox', { name: 'Name' }).and(page.locator(`[value="${npc(123)}"]`))).first().waitFor();
    await page.getByRole('link', { name: 'Locations', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Locations' }).waitFor();
    await page.getByRole('link', { name: 'Harbour' }).click();
    await page.getByRole('heading', { level: 1, name: 'Harbour' }).or(page.getByRole('textbox', { name: 'Name' }).and(page.locator('[value="Harbour"]'))).first().waitFor();
    const openSwitcher = () => page.getByRole('button', { name: /^Quick switch/ }).click();
    await openSwitcher();
    const dialog = page.getByRole('dialog', { name: 'Go to…' });
    await dialog.waitFor();
    // Latest first; the page open now (Harbour) is not offered.
    const offered = dialog.getByRole('option');
    await expect.poll(() => offered.allTextContents()).toEqual(['Locations (type)', `${npc(123)} (thing)`, `${npc(777)} (thing)`, 'The Heist (arc)', 'NPCs (type)', `${npc(42)} (thing)`]);
    expect(await dialog.getByText('Recent pages').count()).toBe(1);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/campaigns/${journey.campaign}/things/npc-0123`);
    // Typing searches as before.
    await openSwitcher();
    await dialog.getByRole('combobox').fill('Lighthouse');
    await expect.poll(() => dialog.getByRole('option').first().textContent()).toMatch(/^Lighthouse \(thing\)/);
    expect(await dialog.getByText('Recent pages').count()).toBe(0);
    await page.keyboard.press('Escape');
    expectNoPageErrors(journey.browser);
  });
});
