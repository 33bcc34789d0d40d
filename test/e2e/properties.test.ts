// Records with structure in the browser (issue 25): on a thing's page, a text property, a tag and a
// link property to another thing, added by mouse and then by keyboard only; all kept through a
// reload, the link showing its target's current name, a GM-only property marked and absent from the
// player view; the type's declared fields as a form; the tag filter of a type page; axe, the dark
// theme and 375 px.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, createArc, createThing, expectNoPageErrors, gmJourney, launchBrowser, saved, screenshotPath } from './browser.js';

const journey = gmJourney('Structured Saga');

/** A thing as the server holds it now, read with the page's session. */
async function serverThing(page: Page, slug: string): Promise<{ properties: { key: string; value: unknown; gmOnly: boolean }[]; tags: string[]; aliases: string[]; id: number }> {
  return page.evaluate(
    async ({ campaign, slug }) => (await (await fetch(`/api/campaigns/${campaign}/things/${slug}`)).json()) as never,
    { campaign: journey.campaign, slug },
  );
}

const panel = (page: Page) => page.getByRole('region', { name: 'Properties' });
const thingSlug = (page: Page) => new URL(page.url()).pathname.split('/').at(-1)!;

async function addPropertyByMouse(page: Page, key: string, kind: string) {
  await panel(page).getByRole('textbox', { name: 'New property' }).click();
  await panel(page).getByRole('textbox', { name: 'New property' }).fill(key);
  await panel(page).getByRole('combobox', { name: 'Kind', exact: true }).selectOption({ label: kind });
  await panel(page).getByRole('button', { name: 'Add property' }).click();
}

async function focusedName(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el) return '';
    const labelled = el.getAttribute('aria-label');
    if (labelled) return labelled;
    const id = el.id;
    return (id ? document.querySelector(`label[for="${CSS.escape(id)}"]`)?.textContent : el.textContent) ?? '';
  });
}

describe('properties, tags and links on a thing page', () => {
  it('adds a text property, a tag and a link property by mouse; they are kept through a reload', async () => {
    const page = journey.browser.page;
    await createThing(page, 'Yusdrayl');
    await createThing(page, 'Meepo');
    const meepo = thingSlug(page);

    await addPropertyByMouse(page, 'Species', 'Text');
    await panel(page).getByRole('textbox', { name: 'Species', exact: true }).fill('Kobold');

    await page.getByRole('combobox', { name: 'Add a tag' }).click();
    await page.getByRole('combobox', { name: 'Add a tag' }).fill('dragon-cult');
    // Leaving the field adds what was typed.
    await page.getByRole('heading', { name: 'Properties' }).click();
    await page.getByRole('list', { name: 'Tags' }).getByText('dragon-cult').waitFor();

    await addPropertyByMouse(page, 'Serves', 'Link to a record');
    await panel(page).getByRole('combobox', { name: 'Serves: a thing or an arc' }).fill('yusd');
    await panel(page).getByRole('option', { name: /Yusdrayl/ }).click();
    await panel(page).getByRole('link', { name: 'Yusdrayl' }).waitFor();
    await saved(page);

    await page.reload();
    await expect.poll(() => panel(page).getByRole('textbox', { name: 'Species', exact: true }).inputValue()).toBe('Kobold');
    await panel(page).getByRole('link', { name: 'Yusdrayl' }).waitFor();
    await page.getByRole('list', { name: 'Tags' }).getByText('dragon-cult').waitFor();
    const held = await serverThing(page, meepo);
    const yusdrayl = await serverThing(page, 'yusdrayl');
    expect(held.properties).toEqual([
      { key: 'Species', value: 'Kobold', gmOnly: false },
      { key: 'Serves', value: { targetType: 'thing', targetId: yusdrayl.id }, gmOnly: false },
    ]);
    expect(held.tags).toEqual(['dragon-cult']);
    // The link is a relation: Yusdrayl's backlinks name it.
    await panel(page).getByRole('link', { name: 'Yusdrayl' }).click();
    await page.getByRole('region', { name: 'Mentioned in' }).or(page.locator('section', { has: page.getByRole('heading', { name: 'Mentioned in' }) })).getByRole('link', { name: 'Meepo' }).waitFor();
    expectNoPageErrors(journey.browser);
  });

  it('does the same by keyboard only, marks a property GM-only and reorders; the link follows a rename', async () => {
    const page = journey.browser.page;
    await createThing(page, 'Calcryx');
    const calcryx = thingSlug(page);

    // A text property: name, kind, Add, then the value (the focus moves there).
    await panel(page).getByRole('textbox', { name: 'New property' }).focus();
    await page.keyboard.type('Mood');
    await page.keyboard.press('Tab');
    expect(await focusedName(page)).toBe('Kind');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => focusedName(page)).toBe('Mood');
    await page.keyboard.type('Hungry');

    // A link property: the picker has the focus once it is added.
    await panel(page).getByRole('textbox', { name: 'New property' }).focus();
    await page.keyboard.type('Rival');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Link');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => focusedName(page)).toBe('Rival: a thing or an arc');
    await page.keyboard.type('meepo');
    await panel(page).getByRole('option', { name: /Meepo/ }).waitFor();
    await page.keyboard.press('Enter');
    await panel(page).getByRole('link', { name: 'Meepo' }).waitFor();

    // A tag: Enter adds it; Backspace in the empty field removes the last one.
    await page.getByRole('combobox', { name: 'Add a tag' }).focus();
    await page.keyboard.type('white-dragon');
    await page.keyboard.press('Enter');
    await page.keyboard.type('oops');
    await page.keyboard.press('Enter');
    await page.getByRole('list', { name: 'Tags' }).getByText('oops').waitFor();
    await page.keyboard.press('Backspace');
    await expect.poll(() => page.getByRole('list', { name: 'Tags' }).getByRole('listitem').allTextContents()).toEqual(['white-dragon×']);
    // An alias, by keyboard too.
    await page.getByRole('textbox', { name: 'Add an alias' }).focus();
    await page.keyboard.type('The Ice Wyrmling');
    await page.keyboard.press('Enter');
    await page.getByRole('list', { name: 'Also known as' }).getByText('The Ice Wyrmling').waitFor();

    // Mood becomes GM-only (Space on its checkbox) and moves below Rival (the focus stays on the move buttons).
    await panel(page).getByRole('checkbox', { name: 'GM only (Mood)' }).focus();
    await page.keyboard.press('Space');
    await panel(page).locator('.property.gm-only').getByText('GM only', { exact: true }).waitFor();
    await panel(page).getByRole('button', { name: 'Move Mood down' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => focusedName(page)).toBe('Move Mood up');
    await saved(page);
    await page.screenshot({ path: screenshotPath('properties-panel.png'), fullPage: true });

    await page.reload();
    await panel(page).getByRole('link', { name: 'Meepo' }).waitFor();
    expect(await panel(page).getByRole('textbox', { name: 'Mood', exact: true }).inputValue()).toBe('Hungry');
    const held = await serverThing(page, calcryx);
    const meepo = await serverThing(page, 'meepo');
    expect(held.properties).toEqual([
      { key: 'Rival', value: { targetType: 'thing', targetId: meepo.id }, gmOnly: false },
      { key: 'Mood', value: 'Hungry', gmOnly: true },
    ]);
    expect(held.tags).toEqual(['white-dragon']);
    expect(held.aliases).toEqual(['The Ice Wyrmling']);
    expect(await axeViolations(page)).toEqual([]);

    // Meepo renamed: the link shows the new name.
    await panel(page).getByRole('link', { name: 'Meepo' }).click();
    await page.getByRole('heading', { level: 1, name: 'Meepo', exact: true }).getByRole('textbox', { name: 'Name' }).fill('Meepo the Keeper');
    await saved(page);
    await page.goBack();
    await panel(page).getByRole('link', { name: 'Meepo the Keeper' }).waitFor();

    // The player view shows the properties as text, without the GM-only one.
    await page.getByRole('button', { name: 'View as player' }).click();
    await page.getByRole('heading', { level: 1, name: 'Calcryx' }).waitFor();
    const facts = page.getByRole('region', { name: 'Properties (rendered)' });
    await facts.getByRole('link', { name: 'Meepo the Keeper' }).waitFor();
    expect(await facts.textContent()).not.toContain('Mood');
    expect(await axeViolations(page)).toEqual([]);
    expect(await page.content()).not.toContain('Hungry');
    await page.screenshot({ path: screenshotPath('properties-player-view.png') });
    await page.getByRole('button', { name: 'View as player' }).click();
    await panel(page).getByRole('textbox', { name: 'Mood', exact: true }).waitFor();
    expectNoPageErrors(journey.browser);
  });

  it('a type declares fields that things show as a form; a type page filters by tag and keeps it in its address', async () => {
    const page = journey.browser.page;
    const things = page.getByRole('navigation', { name: 'Things' });
    // The sidebar counts come with the types: neither it nor a type page reads every thing.
    const everyThing: string[] = [];
    const watch = (request: { url(): string }) => {
      if (request.url().includes('fetchAll')) everyThing.push(request.url());
    };
    page.on('request', watch);
    // (The search page: the campaign's home has the description's editor, which reads the names its mentions show.)
    await page.goto(`${journey.server.base}/campaigns/${journey.campaign}/search`);
    await expect.poll(() => things.getByLabel('3 things').count()).toBe(1);
    await things.getByRole('button', { name: 'Show NPCs' }).click();
    await expect.poll(() => things.getByRole('list', { name: 'NPCs: things' }).getByRole('link').allTextContents()).toEqual(['Calcryx', 'Meepo the Keeper', 'Yusdrayl']);
    await things.getByRole('link', { name: 'NPCs' }).click();
    await page.getByRole('heading', { level: 1, name: 'NPCs' }).waitFor();
    const editor = page.getByRole('form', { name: 'Fields' });
    await editor.getByRole('button', { name: 'Add field' }).click();
    await editor.getByRole('textbox', { name: 'Field 1: name' }).fill('Level');
    await editor.getByRole('combobox', { name: 'Field 1: kind' }).selectOption({ label: 'Number' });
    await editor.getByRole('button', { name: 'Add field' }).click();
    await expect.poll(() => focusedName(page)).toBe('Field 2: name');
    await page.keyboard.type('Species');
    await editor.getByRole('button', { name: 'Move Species up' }).click();
    // The button is disabled while the save is on its way too: what the server holds is read once it answered.
    const answered = page.waitForResponse((response) => response.request().method() === 'PUT' && response.url().includes('/thing-types/'));
    await editor.getByRole('button', { name: 'Save fields' }).click();
    expect((await answered).status()).toBe(200);
    await expect.poll(() => editor.getByRole('button', { name: 'Save fields' }).isDisabled()).toBe(true);
    const type = await page.evaluate(async (campaign) => ((await (await fetch(`/api/campaigns/${campaign}/thing-types`)).json()) as { name: string; fields: unknown }[]).find((t) => t.name === 'NPCs'), journey.campaign);
    expect(type?.fields).toEqual([
      { key: 'Species', kind: 'text' },
      { key: 'Level', kind: 'number' },
    ]);

    // The tag filter: only Meepo has dragon-cult; the address keeps it through a reload.
    await page.getByRole('combobox', { name: 'Only with the tag' }).selectOption({ label: 'dragon-cult (1)' });
    await expect.poll(() => new URL(page.url()).searchParams.getAll('tag')).toEqual(['dragon-cult']);
    const list = page.getByRole('list', { name: 'NPCs tagged dragon-cult' });
    await expect.poll(() => list.getByRole('link').allTextContents()).toEqual(['Meepo the Keeper']);
    await page.getByRole('combobox', { name: 'Order' }).selectOption({ label: 'By name' });
    await expect.poll(() => new URL(page.url()).searchParams.get('sort')).toBe('name');
    await page.reload();
    await expect.poll(() => list.getByRole('link').allTextContents()).toEqual(['Meepo the Keeper']);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('type-fields-and-tag-filter.png'), fullPage: true });
    await page.getByRole('button', { name: 'Stop filtering by dragon-cult' }).click();
    await expect.poll(() => page.getByRole('list', { name: 'NPCs' }).getByRole('link').allTextContents()).toEqual(['Calcryx', 'Meepo the Keeper', 'Yusdrayl']);
    page.off('request', watch);
    expect(everyThing).toEqual([]);

    // The search page filters by tag with the search route's own `tag`, kept in the address.
    await page.goto(`${journey.server.base}/campaigns/${journey.campaign}/search?q=meepo`);
    await page.getByRole('status').filter({ hasText: /results? for “meepo”$/ }).waitFor();
    await page.getByRole('combobox', { name: 'Only with the tag' }).selectOption({ label: 'white-dragon (1)' });
    await page.getByRole('status').filter({ hasText: /for “meepo” tagged white-dragon/ }).waitFor();
    expect(new URL(page.url()).searchParams.getAll('tag')).toEqual(['white-dragon']);
    await page.getByRole('button', { name: 'Stop filtering by white-dragon' }).click();
    await page.getByRole('combobox', { name: 'Only with the tag' }).selectOption({ label: 'dragon-cult (1)' });
    await expect.poll(() => new URL(page.url()).searchParams.getAll('tag')).toEqual(['dragon-cult']);
    await page.reload();
    await expect.poll(() => page.getByRole('main').getByRole('status').textContent()).toBe('1 result for “meepo” tagged dragon-cult');
    await page.getByRole('main').getByRole('listitem').getByRole('link', { name: 'Meepo the Keeper' }).click();

    // Meepo's page: the declared fields as a form in the type's order (Species kept, Level empty), the rest below.
    const fields = panel(page).getByRole('group', { name: 'Fields of the type' });
    expect(await fields.getByRole('textbox', { name: 'Species', exact: true }).inputValue()).toBe('Kobold');
    await fields.getByRole('textbox', { name: 'Level', exact: true }).fill('3');
    await panel(page).getByRole('list', { name: 'Other properties' }).getByRole('link', { name: 'Yusdrayl' }).waitFor();
    await saved(page);
    const held = await serverThing(page, 'meepo');
    expect(held.properties.map((p) => [p.key, p.value])).toEqual([
      ['Species', 'Kobold'],
      ['Serves', { targetType: 'thing', targetId: (await serverThing(page, 'yusdrayl')).id }],
      ['Level', 3],
    ]);
    // A value that is not a number is not sent; the field says so.
    await fields.getByRole('textbox', { name: 'Level', exact: true }).fill('three');
    await fields.getByRole('alert').filter({ hasText: 'Level must be a number' }).waitFor();
    await fields.getByRole('textbox', { name: 'Level', exact: true }).fill('4');
    await saved(page);
    expect((await serverThing(page, 'meepo')).properties.find((p) => p.key === 'Level')?.value).toBe(4);
    expectNoPageErrors(journey.browser);
  });

  it('an arc has the panel too: a date, a checkbox and a list holding text and a link, kept through a reload', async () => {
    const page = journey.browser.page;
    await createArc(page, 'The Sunless Citadel');
    await addPropertyByMouse(page, 'First session', 'Date');
    await panel(page).getByLabel('First session', { exact: true }).fill('2026-11-24');
    await addPropertyByMouse(page, 'Finished', 'Checkbox');
    await panel(page).getByRole('checkbox', { name: 'Finished', exact: true }).check();
    await addPropertyByMouse(page, 'Factions', 'List');
    const factions = panel(page).getByRole('textbox', { name: 'Factions', exact: true });
    await factions.fill('Kobolds');
    await factions.press('Enter');
    await factions.fill('Goblins');
    await factions.press('Enter');
    await panel(page).getByRole('button', { name: 'Remove Goblins from Factions' }).click();
    await panel(page).getByRole('button', { name: 'Add a link' }).click();
    await panel(page).getByRole('combobox', { name: 'Factions: add a thing or an arc' }).fill('yusd');
    await panel(page).getByRole('option', { name: /Yusdrayl/ }).click();
    await panel(page).getByRole('list', { name: 'Factions: items' }).getByRole('link', { name: 'Yusdrayl' }).waitFor();
    await saved(page);
    await page.reload();
    await panel(page).getByRole('list', { name: 'Factions: items' }).getByRole('link', { name: 'Yusdrayl' }).waitFor();
    expect(await panel(page).getByLabel('First session', { exact: true }).inputValue()).toBe('2026-11-24');
    expect(await panel(page).getByRole('checkbox', { name: 'Finished', exact: true }).isChecked()).toBe(true);
    const arc = await page.evaluate(async (campaign) => (await (await fetch(`/api/campaigns/${campaign}/arcs/the-sunless-citadel`)).json()) as { properties: unknown }, journey.campaign);
    const yusdrayl = await serverThing(page, 'yusdrayl');
    expect(arc.properties).toEqual([
      { key: 'First session', value: '2026-11-24', gmOnly: false },
      { key: 'Finished', value: true, gmOnly: false },
      { key: 'Factions', value: ['Kobolds', { targetType: 'thing', targetId: yusdrayl.id }], gmOnly: false },
    ]);
    expect(await axeViolations(page)).toEqual([]);
    expectNoPageErrors(journey.browser);
  });

  it('looks right in the dark theme and fits 375 px', async () => {
    const url = `${journey.server.base}/campaigns/${journey.campaign}/things/calcryx`;
    const cookies = (await journey.browser.context.storageState()).cookies;
    for (const options of [{ colorScheme: 'dark' as const }, { width: 375, height: 740 }]) {
      const other = await launchBrowser(options);
      try {
        await other.context.addCookies(cookies);
        await other.page.goto(url);
        await panel(other.page).getByRole('link', { name: 'Meepo the Keeper' }).waitFor();
        if ('colorScheme' in options) {
          expect(await axeViolations(other.page)).toEqual([]);
          await other.page.screenshot({ path: screenshotPath('properties-panel-dark.png'), fullPage: true });
        } else {
          expect(await other.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
          await other.page.screenshot({ path: screenshotPath('properties-narrow.png'), fullPage: true });
        }
        // The arc's list, and the type page with its fields and a tag filter on, in both.
        await other.page.goto(`${journey.server.base}/campaigns/${journey.campaign}/arcs/the-sunless-citadel`);
        await panel(other.page).getByRole('list', { name: 'Factions: items' }).getByRole('link', { name: 'Yusdrayl' }).waitFor();
        const npcs = await other.page.evaluate(async (campaign) => ((await (await fetch(`/api/campaigns/${campaign}/thing-types`)).json()) as { id: number; name: string }[]).find((t) => t.name === 'NPCs')!.id, journey.campaign);
        const views = [['arc', ''], ['type', `${journey.server.base}/campaigns/${journey.campaign}/types/${npcs}?tag=dragon-cult&sort=name`]] as const;
        for (const [name, address] of views) {
          if (address) {
            await other.page.goto(address);
            await other.page.getByRole('list', { name: 'NPCs tagged dragon-cult' }).getByRole('link', { name: 'Meepo the Keeper' }).waitFor();
          }
          if ('colorScheme' in options) expect(await axeViolations(other.page), name).toEqual([]);
          else expect(await other.page.evaluate(() => document.documentElement.scrollWidth), name).toBeLessThanOrEqual(375);
        }
        expectNoPageErrors(other);
      } finally {
        await other.close();
      }
    }
  });
});
