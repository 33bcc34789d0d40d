// Using the web app as a game master would, in Chromium, and keeping what broke fixed (issue 23,
// "no lost word, no leaked secret"): each journey here failed before its fix.
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { caretInEditor, createThing, expectNoPageErrors, gmJourney, saved } from './browser.js';

const journey = gmJourney('Explored', async (page) => {
  await createThing(page, 'Gundren Rockseeker');
});

/** A new thing with its description's editor focused. */
async function freshThing(page: Page, name: string): Promise<{ editor: Locator; path: string }> {
  await page.goto(`${journey.server.base}/campaigns/${journey.campaign}`);
  await page.getByRole('heading', { level: 1, name: 'Explored' }).waitFor();
  await createThing(page, name);
  const path = `/api/campaigns/${journey.campaign}/things/${new URL(page.url()).pathname.split('/').pop()!}`;
  const editor = page.getByRole('textbox', { name: 'Description', exact: true });
  await editor.click();
  return { editor, path };
}

/** The text of a rich-text field as the server holds it, read with the page's session. */
async function serverText(page: Page, path: string, field = 'description'): Promise<string> {
  return page.evaluate(
    async ({ path, field }) => {
      const body = (await (await fetch(path)).json()) as Record<string, unknown>;
      const parts: string[] = [];
      const walk = (nodes: unknown) => {
        for (const node of (nodes as { text?: string; children?: unknown }[]) ?? []) {
          if (typeof node.text === 'string') parts.push(node.text);
          if (node.children) walk(node.children);
        }
      };
      walk(body[field]);
      return parts.join('');
    },
    { path, field },
  );
}

describe('a game master using the editor', () => {
  it('types an email address without the mention picker taking the words after its @', async () => {
    const page = journey.browser.page;
    const { editor, path } = await freshThing(page, 'Letters');
    await page.keyboard.type('Write to gm@example.com today, please.');
    await saved(page);
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await editor.textContent()).toBe('Write to gm@example.com today, please.');
    expect(await serverText(page, path)).toBe('Write to gm@example.com today, please.');
    expectNoPageErrors(journey.browser);
  });

  it('keeps what was typed into the mention picker when it is closed without a pick', async () => {
    const page = journey.browser.page;
    const { editor, path } = await freshThing(page, 'Dismissed');
    await page.keyboard.type('Ask @');
    const picker = page.getByTestId('mention-picker');
    await picker.waitFor();
    await page.keyboard.type('nobody-here about it and [[no such page');
    await picker.getByRole('option', { name: 'Create “no such page”…' }).waitFor();
    await page.keyboard.press('Escape');
    await picker.waitFor({ state: 'detached' });
    await caretInEditor(page);
    await page.keyboard.type(' then more.');
    await saved(page);
    expect(await editor.textContent()).toBe('Ask @nobody-here about it and [[no such page then more.');
    expect(await serverText(page, path)).toBe('Ask @nobody-here about it and [[no such page then more.');
    expectNoPageErrors(journey.browser);
  });

  it('leaves a code block at the end of the text by Enter on its empty last line, and writes on after it', async () => {
    const page = journey.browser.page;
    const { path } = await freshThing(page, 'Code at the end');
    await page.keyboard.type('Intro.');
    await page.keyboard.press('Enter');
    await page.keyboard.type('```');
    await page.keyboard.press('Enter');
    await page.keyboard.type('let x = 1;');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await page.keyboard.type('After the code.');
    await saved(page);
    const description = await page.evaluate(async (path) => ((await (await fetch(path)).json()) as { description: unknown }).description, path);
    expect(description).toEqual([
      { type: 'paragraph', children: [{ text: 'Intro.' }] },
      { type: 'code-block', children: [{ text: 'let x = 1;' }] },
      { type: 'paragraph', children: [{ text: 'After the code.' }] },
    ]);
    expectNoPageErrors(journey.browser);
  });

  it('writes into a new table where it appears, and Tab moves from cell to cell without leaving the editor', async () => {
    const page = journey.browser.page;
    const { editor, path } = await freshThing(page, 'Tabled');
    await page.keyboard.type('Before the table.');
    await page.getByRole('button', { name: 'Table' }).click();
    for (const [i, cell] of ['north', 'south', 'east', 'west', 'below'].entries()) {
      if (i > 0) await page.keyboard.press('Tab');
      await page.keyboard.type(cell);
    }
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.type('-wind');
    await saved(page);
    expect(await editor.evaluate((node) => node.contains(document.activeElement))).toBe(true);
    const description = await page.evaluate(async (path) => ((await (await fetch(path)).json()) as { description: unknown }).description, path);
    const cell = (text: string) => ({ type: 'table-cell', children: [{ text }] });
    expect(description).toEqual([
      { type: 'paragraph', children: [{ text: 'Before the table.' }] },
      {
        type: 'table',
        children: [
          { type: 'table-row', children: [cell('north'), cell('south')] },
          { type: 'table-row', children: [cell('east'), cell('west-wind')] },
          { type: 'table-row', children: [cell('below'), cell('')] },
        ],
      },
      { type: 'paragraph', children: [{ text: '' }] },
    ]);
    expectNoPageErrors(journey.browser);
  });

  it('mentions the record whose name was typed right after [[ at full speed, with no stray letters left in the text', async () => {
    const page = journey.browser.page;
    const { path } = await freshThing(page, 'Fast mention');
    // No pause after the trigger: the letters are the text, and the picker's search, wherever it is.
    await page.keyboard.type('See [[Gund');
    const picker = page.getByTestId('mention-picker');
    await page.keyboard.type('r');
    await picker.locator('[role="listbox"]:not([aria-busy="true"])').waitFor({ timeout: 10_000 });
    await picker.getByRole('option', { name: /Gundren Rockseeker/ }).waitFor();
    await page.keyboard.press('Enter');
    await picker.waitFor({ state: 'detached' });
    await caretInEditor(page);
    await page.keyboard.type('today.');
    await saved(page);
    const description = await page.evaluate(async (path) => ((await (await fetch(path)).json()) as { description: { children: unknown[] }[] }).description, path);
    expect(description).toHaveLength(1);
    const [paragraph] = description;
    expect(paragraph!.children).toEqual([{ text: 'See ' }, { type: 'mention', targetType: 'thing', targetId: expect.any(Number), children: [{ text: '' }] }, { text: ' today.' }]);
    expectNoPageErrors(journey.browser);
  });

  it('says a cleared name is not saved, and keeps the last name on the server', async () => {
    const page = journey.browser.page;
    const { path } = await freshThing(page, 'Nameless');
    const name = page.getByRole('textbox', { name: 'Name' });
    await name.fill('');
    await page.getByRole('alert').filter({ hasText: 'A name is needed' }).waitFor();
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    const stored = await page.evaluate(async (path) => ((await (await fetch(path)).json()) as { name: string }).name, path);
    expect(stored).toBe('Nameless');
    await name.fill('Named again');
    await saved(page);
    expect(await page.getByRole('alert').filter({ hasText: 'A name is needed' }).count()).toBe(0);
    expect(await page.evaluate(async (path) => ((await (await fetch(path)).json()) as { name: string }).name, path)).toBe('Named again');
    expectNoPageErrors(journey.browser);
  });
});
