// The editor's commands in Chromium, with real key presses: the mention picker opens at the caret
// (the caret stays in the text), keeps its highlight on the record it is on when its list refreshes,
// finds a record by an alias and creates a thing that does not exist yet (GM-only when typed inside
// a secret: players never see its name); Enter leaves an empty quote line; the arrows pass a
// mention in one step; a selection dragged onto a mention takes it whole; Ctrl+K in the text is a
// link (and the quick switcher elsewhere); a tab closed right after typing keeps every word
// (issues 23 and 27).
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { caretInEditor, createThing, expectNoPageErrors, gmJourney, saved } from './browser.js';

const journey = gmJourney('Editor commands', async (page) => {
  for (const name of ['Harbor Master', 'Harbor Ghost', 'Harbor Tavern', 'Gundren Rockseeker']) await createThing(page, name);
});

/** A new thing, from the campaign's page (whatever the test before left open); answers its API path. */
async function freshThing(page: Page, name: string): Promise<string> {
  await page.goto(`${journey.server.base}/campaigns/${journey.campaign}`);
  await page.getByRole('heading', { level: 1, name: 'Editor commands' }).waitFor();
  await createThing(page, name);
  return `/api/campaigns/${journey.campaign}/things/${new URL(page.url()).pathname.split('/').pop()!}`;
}

/** The description's editor, focused (opened first where the page has an edit mode). */
async function editDescription(page: Page): Promise<Locator> {
  const edit = page.getByRole('button', { name: 'Edit description' });
  if (await edit.count()) await edit.click();
  const editor = page.getByRole('textbox', { name: 'Description', exact: true });
  await editor.click();
  // The text is shown as read until this click: the editor's own commands (the picker on `@`) wait for it to be there.
  await caretInEditor(page);
  return editor;
}

/** The description as the server holds it, read with the page's session. */
async function serverDescription(page: Page, path: string): Promise<{ type: string; children: Record<string, unknown>[] }[]> {
  return page.evaluate(async (path) => ((await (await fetch(path)).json()) as { description: never }).description, path);
}

/** The picker's options once its list answers what is typed (not an older text). */
async function answeredOptions(page: Page): Promise<Locator> {
  await page.locator('[data-testid="mention-picker"] [role="listbox"]:not([aria-busy="true"])').waitFor();
  return page.getByTestId('mention-picker').getByRole('option');
}

/** Types `text` ending in `@query` and mentions the picker's first answer, the picker closed after. */
async function typeMention(page: Page, text: string): Promise<void> {
  await page.keyboard.type(text);
  await answeredOptions(page);
  await page.keyboard.press('Enter');
  await page.getByTestId('mention-picker').waitFor({ state: 'detached' });
}

const highlighted = (page: Page) => page.getByTestId('mention-picker').locator('[role="option"][aria-selected="true"]');

describe('the editor in the browser', () => {
  it('opens the picker at the caret and inserts the record it highlights, after its list refreshes', async () => {
    const { page } = journey.browser;
    const path = await freshThing(page, 'Picker notes');
    const editor = await editDescription(page);
    await page.keyboard.type('Meet @harbor');
    let options = await answeredOptions(page);
    await expect.poll(() => options.count()).toBeGreaterThanOrEqual(3);
    // At the caret: just below the line typed, starting at the `@`, and the caret stays in the text.
    const caret = await page.evaluate(() => {
      const rect = getSelection()!.getRangeAt(0).getBoundingClientRect();
      return { x: rect.x, bottom: rect.bottom };
    });
    const box = (await page.getByTestId('mention-picker').boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(caret.bottom);
    expect(box.y - caret.bottom).toBeLessThan(12);
    expect(caret.x - box.x).toBeGreaterThan(0);
    expect(caret.x - box.x).toBeLessThan(100);
    expect(await editor.evaluate((e) => e === document.activeElement)).toBe(true);
    expect(await editor.getAttribute('aria-activedescendant')).toBe(await highlighted(page).getAttribute('id'));
    // The user moves the highlight down, then the text changes and the list is asked again.
    await page.keyboard.press('ArrowDown');
    const chosen = (await highlighted(page).locator('.name').textContent())!;
    expect(chosen).toBe(await options.nth(1).locator('.name').textContent());
    await page.keyboard.press('Backspace');
    await expect.poll(async () => (await page.getByTestId('mention-picker').getByRole('option').first().textContent()) ?? '').toContain('Harbor');
    options = await answeredOptions(page);
    expect(await highlighted(page).locator('.name').textContent()).toBe(chosen);
    await page.keyboard.press('Enter');
    await page.getByTestId('mention-picker').waitFor({ state: 'detached' });
    await page.keyboard.type('at noon.');
    await editor.locator('.mention', { hasText: `@${chosen}` }).waitFor();
    await saved(page);
    const [paragraph] = await serverDescription(page, path);
    expect(paragraph!.children).toEqual([{ text: 'Meet ' }, { type: 'mention', targetType: 'thing', targetId: expect.any(Number), children: [{ text: '' }] }, { text: ' at noon.' }]);
    expectNoPageErrors(journey.browser);
  });

  it('finds a record by an alias, and creates a thing that does not exist and mentions it', async () => {
    const { page } = journey.browser;
    const gundren = `/api/campaigns/${journey.campaign}/things/gundren-rockseeker`;
    const status = await page.evaluate(
      async (path) => (await fetch(path, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ updatedThing: { aliases: ['The Dwarf Boss'] } }) })).status,
      gundren,
    );
    expect(status).toBe(200);
    const path = await freshThing(page, 'Alias notes');
    await editDescription(page);
    await page.keyboard.type('Ask @dwarf boss');
    await answeredOptions(page);
    await highlighted(page).filter({ hasText: 'Gundren Rockseeker alias: The Dwarf Boss' }).waitFor();
    await page.keyboard.press('Tab');
    await page.getByTestId('mention-picker').waitFor({ state: 'detached' });
    await page.keyboard.type('and @Sildar Hallwinter');
    const options = await answeredOptions(page);
    const create = options.filter({ hasText: 'Create “Sildar Hallwinter”…' });
    await create.waitFor();
    await create.click();
    // The types of the campaign, the first highlighted.
    await page.getByRole('listbox', { name: 'Type of “Sildar Hallwinter”' }).waitFor();
    await page.keyboard.press('Enter');
    await page.getByTestId('mention-picker').waitFor({ state: 'detached' });
    await caretInEditor(page);
    await page.keyboard.type('today.');
    await saved(page);
    await page.reload();
    const [paragraph] = await serverDescription(page, path);
    const ids = paragraph!.children.filter((c) => c.type === 'mention').map((c) => c.targetId);
    expect(paragraph!.children.map((c) => (c.type === 'mention' ? '@' : c.text)).join('')).toBe('Ask @ and @ today.');
    const sildar = await page.evaluate(async (path) => (await (await fetch(path)).json()) as { id: number; name: string }, `/api/campaigns/${journey.campaign}/things/sildar-hallwinter`);
    expect(sildar.name).toBe('Sildar Hallwinter');
    expect(ids[1]).toBe(sildar.id);
    expectNoPageErrors(journey.browser);
  });

  it('creates a thing typed inside a secret GM-only, so players never see its name', async () => {
    const { page } = journey.browser;
    const path = await freshThing(page, 'Secret notes');
    await editDescription(page);
    await page.getByRole('button', { name: 'GM only (hidden from players)' }).click();
    await caretInEditor(page);
    await page.keyboard.type('The traitor is @Traitor Sildar');
    const create = (await answeredOptions(page)).filter({ hasText: 'Create “Traitor Sildar”…' });
    await create.waitFor();
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => highlighted(page).textContent()).toContain('Create');
    await page.keyboard.press('Enter');
    await page.getByRole('listbox', { name: 'Type of “Traitor Sildar”' }).waitFor();
    // The visibility is shown, GM-only by default inside a secret; Alt+G changes it (and back).
    const gmOnly = page.getByTestId('mention-picker').getByRole('checkbox', { name: /GM only/ });
    expect(await gmOnly.isChecked()).toBe(true);
    await page.keyboard.press('Alt+g');
    await expect.poll(() => gmOnly.isChecked()).toBe(false);
    await page.keyboard.press('Alt+g');
    await expect.poll(() => gmOnly.isChecked()).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByTestId('mention-picker').waitFor({ state: 'detached' });
    await caretInEditor(page);
    await page.keyboard.type('.');
    await saved(page);
    const [paragraph] = await serverDescription(page, path);
    expect((paragraph as { isSecret?: boolean }).isSecret).toBe(true);
    const traitor = await page.evaluate(async (path) => (await (await fetch(path)).json()) as { id: number; visibility: string }, `/api/campaigns/${journey.campaign}/things/traitor-sildar`);
    expect(traitor.visibility).toBe('gm');
    expect(paragraph!.children.find((c) => c.type === 'mention')?.targetId).toBe(traitor.id);

    // A player of the campaign, with their own session: the thing is not in their list.
    const gm = journey.browser.context.request;
    const invitation = (await (await gm.post(`${journey.server.base}/api/campaigns/${journey.campaign}/invitations`, { data: { role: 'player' } })).json()) as { token: string };
    const player = await journey.browser.context.browser()!.newContext();
    try {
      const email = `player-${process.pid}-${Date.now()}@example.com`;
      expect((await player.request.post(`${journey.server.base}/api/auth/register`, { data: { email, password: 'correct horse battery staple', name: 'Pip' } })).status()).toBeLessThan(300);
      expect((await player.request.post(`${journey.server.base}/api/invitations/accept`, { data: { token: invitation.token } })).status()).toBeLessThan(300);
      const listed = await player.request.get(`${journey.server.base}/api/campaigns/${journey.campaign}/things?fields=summary`);
      expect(listed.status()).toBe(200);
      const text = await listed.text();
      expect(text).toContain('Harbor Master');
      expect(text).not.toContain('Traitor');
    } finally {
      await player.close();
    }
    expectNoPageErrors(journey.browser);
  });

  it('leaves a quote on Enter in its empty line, and passes mentions with the arrows in one step', async () => {
    const { page } = journey.browser;
    const path = await freshThing(page, 'Quote notes');
    const editor = await editDescription(page);
    await page.keyboard.type('> Said the king');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await typeMention(page, 'A @gundren');
    // "A ", the mention, " ": from the line's start, three steps right are past the mention.
    await page.keyboard.press('Home');
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
    await page.keyboard.type('X');
    // Back over X and over the mention: right after "A ".
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.type('Y');
    await saved(page);
    const description = await serverDescription(page, path);
    expect(description.map((block) => block.type)).toEqual(['block-quote', 'paragraph']);
    expect(description[1]!.children.map((c) => (c.type === 'mention' ? '@' : c.text)).join('')).toBe('A Y@X ');
    // Backspace right after the mention takes it whole.
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Backspace');
    await saved(page);
    expect((await serverDescription(page, path))[1]!.children).toEqual([{ text: 'A YX ' }]);
    // A mention stays a link: Ctrl+click opens its record in a new tab.
    await page.keyboard.type('and @gundren');
    await answeredOptions(page);
    await page.keyboard.press('Enter');
    const [opened] = await Promise.all([page.context().waitForEvent('page'), editor.locator('.mention').click({ modifiers: ['Control'] })]);
    await opened.waitForURL(/\/things\/gundren-rockseeker$/);
    await opened.close();
    expectNoPageErrors(journey.browser);
  });

  it('Ctrl+K in the text makes the selected words a link; elsewhere it opens the quick switcher', async () => {
    const { page } = journey.browser;
    const path = await freshThing(page, 'Link notes');
    await editDescription(page);
    await page.keyboard.type('Read the map');
    for (let i = 0; i < 3; i++) await page.keyboard.press('Shift+ArrowLeft');
    await page.keyboard.press('Control+k');
    const dialog = page.getByRole('dialog', { name: 'Insert link' });
    await dialog.getByLabel('Address (https://…, mailto:… or /path)').fill('javascript:alert(1)');
    await dialog.getByRole('button', { name: 'Apply' }).click();
    await dialog.getByText('Use an address starting with https://').waitFor();
    await dialog.getByLabel('Address (https://…, mailto:… or /path)').fill('maps.example.test/sword-coast');
    await dialog.getByRole('button', { name: 'Apply' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await page.getByRole('dialog', { name: 'Go to…' }).count()).toBe(0);
    await saved(page);
    const [paragraph] = await serverDescription(page, path);
    expect(paragraph!.children).toEqual([{ text: 'Read the ' }, { type: 'link', url: 'https://maps.example.test/sword-coast', children: [{ text: 'map' }] }, { text: '' }]);
    // Out of the text: Ctrl+K is the quick switcher's.
    await page.evaluate(() => (document.activeElement as HTMLElement).blur());
    await page.keyboard.press('Control+k');
    await page.getByRole('dialog', { name: 'Go to…' }).waitFor();
    await page.keyboard.press('Escape');
    expectNoPageErrors(journey.browser);
  });

  it('Enter over a selection dragged onto a mention in a list takes the mention with it, and the editor goes on', async () => {
    const { page } = journey.browser;
    const path = await freshThing(page, 'Selection notes');
    const editor = await editDescription(page);
    await page.keyboard.type('Opening line');
    await page.keyboard.press('Enter');
    await typeMention(page, '- ask @gundren');
    await page.keyboard.type('then the rest');
    await saved(page);
    // A drag from the start of the text that ends on the mention: the selection ends inside it.
    const from = (await editor.locator('p').first().boundingBox())!;
    const to = (await editor.locator('.mention').boundingBox())!;
    await page.mouse.move(from.x + 1, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 8 });
    await page.mouse.up();
    expect(await page.evaluate(() => getSelection()!.focusNode?.parentElement?.closest('.mention') !== null)).toBe(true);
    await page.keyboard.press('Enter');
    await page.keyboard.type('Fresh');
    await saved(page);
    expect(await serverDescription(page, path)).toEqual([
      { type: 'paragraph', children: [{ text: '' }] },
      { type: 'paragraph', children: [{ text: 'Fresh then the rest' }] },
    ]);
    expectNoPageErrors(journey.browser);
  });

  it('Tab and Shift+Tab nest list items and take them out, Enter goes on at their level, and the page shows the nesting', async () => {
    const { page } = journey.browser;
    const path = await freshThing(page, 'Nested notes');
    await editDescription(page);
    await page.keyboard.type('- Barovia');
    await page.keyboard.press('Enter');
    await page.keyboard.type('Vallaki');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.keyboard.type('Krezk');
    await page.keyboard.press('Enter');
    await page.keyboard.type('Ravenloft');
    await page.keyboard.press('Shift+Tab');
    await saved(page);
    const item = (text: string) => ({ type: 'list-item', children: [{ text }] });
    expect(await serverDescription(page, path)).toEqual([
      { type: 'bulleted-list', children: [{ type: 'list-item', children: [{ type: 'paragraph', children: [{ text: 'Barovia' }] }, { type: 'bulleted-list', children: [item('Vallaki'), item('Krezk')] }] }, item('Ravenloft')] },
    ]);
    // The focus stayed in the text all along, also where nothing can move: Shift+Tab on an item at
    // the top and Tab on the first item keep it, so words typed on stay in the text (not on the GM
    // button before it, or the tags after it). Escape, then Tab, moves on.
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
    expect(await focused()).toBe('Description');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.type(' Castle');
    expect(await focused()).toBe('Description');
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Description');
    await saved(page);
    expect((await serverDescription(page, path))[0]!.children.at(-1)).toEqual(item('Ravenloft Castle'));
    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    expect(await focused()).not.toBe('Description');
    // Back into the text by the keyboard, the caret in the list: Tab passes it by until you write or click there.
    await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe('Description');
    await page.keyboard.press('Tab');
    expect(await focused()).not.toBe('Description');
    // As read, the list is nested.
    await page.reload();
    const standin = page.locator('.record-text-standin').first();
    await standin.locator('ul ul li', { hasText: 'Krezk' }).waitFor();
    expect(await standin.locator('ul > li').evaluateAll((items) => items.map((li) => li.firstChild?.textContent))).toEqual(['Barovia', 'Vallaki', 'Krezk', 'Ravenloft Castle']);
    expectNoPageErrors(journey.browser);
  });

  it('keeps what was typed into a tab closed at once, before any idle moment, while the server is away', async () => {
    const page = journey.browser.page;
    await freshThing(page, 'Closed at once');
    const url = page.url();
    await editDescription(page);
    journey.server.server.kill('SIGKILL');
    await journey.server.server.exited;
    const tab = await journey.browser.newPage();
    await page.keyboard.type('Typed, and the tab closed at once.');
    await page.close({ runBeforeUnload: true });
    await journey.server.restart();
    await tab.goto(url);
    const offer = tab.getByRole('alert').filter({ hasText: 'were not saved yet' });
    await offer.waitFor();
    await offer.getByRole('button', { name: 'Restore my changes' }).click();
    await saved(tab);
    const [paragraph] = await serverDescription(tab, `/api/campaigns/${journey.campaign}/things/closed-at-once`);
    expect(paragraph!.children).toEqual([{ text: 'Typed, and the tab closed at once.' }]);
    journey.browser.page = tab;
  }, 120_000);
});
