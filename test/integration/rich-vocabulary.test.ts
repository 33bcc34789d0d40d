// Callouts, highlights and tasks through the API (CONTRACT "Import from elsewhere", "Rich
// content"): stored as sent, checked with a pointer when malformed, rendered as HTML and Markdown,
// a callout's title searchable, and hidden with its secret block from players everywhere.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type TestContext, type TestUser } from '../support/app.js';
import { contextWithUsers, createThing, errorPathsOf, newCampaign, problemOf, type TestCampaign } from '../support/fixtures.js';
import { joinCampaign } from '../support/sharing.js';
import { dialect } from '../support/test-db.js';
import { p, t } from '../fixtures/rich-text.js';

let ctx: TestContext;
let owner: TestUser;
let player: TestUser;

beforeAll(async () => {
  ({ ctx, owner, stranger: player } = await contextWithUsers());
});
afterAll(async () => {
  await ctx.close();
});

const callout = (fields: Record<string, unknown>, ...children: unknown[]) => ({ type: 'callout', ...fields, children });
const task = (checked: boolean, text: string) => ({ type: 'list-item', checked, children: [t(text)] });
const item = (text: string) => ({ type: 'list-item', children: [t(text)] });

// As an Obsidian vault writes them, and as the editor writes them.
const DESCRIPTION = [
  callout({ kind: 'warning', title: 'The bridge is out' }, p(t('Take the '), t('ford', { highlight: true }), t(' instead.'))),
  p(t('Strahd is '), t('awake', { highlight: true, bold: true }), t('.')),
  { type: 'bulleted-list', children: [task(false, 'Buy rope'), task(true, 'Find the map'), item('Not a task')] },
  callout({ kind: 'note' }, p(t('No title here.'))),
];

const get = (user: TestUser, url: string) => ctx.app.inject({ method: 'GET', url, headers: user.headers });
async function ok<T>(user: TestUser, url: string): Promise<T> {
  const res = await get(user, url);
  expect(res.statusCode, res.body).toBe(200);
  return json<T>(res);
}
const rendered = async (user: TestUser, c: TestCampaign, slug: string, format: 'html' | 'markdown') =>
  (await ok<{ fields: { description: string } }>(user, `${c.base}/things/${slug}/rendered?format=${format}`)).fields.description;

describe(`callouts, highlights and tasks through the API on ${dialect}`, () => {
  it('stores them as sent and renders them as HTML and Markdown', async () => {
    const c = await newCampaign(ctx.app, owner);
    const thing = await createThing(ctx.app, owner, c, 'Barovia', { description: DESCRIPTION });
    expect((await ok<{ description: unknown }>(owner, `${c.base}/things/${thing.slug}`)).description).toEqual(DESCRIPTION);
    expect(await rendered(owner, c, thing.slug, 'html')).toBe(
      '<aside class="callout" data-type="warning"><p class="callout-title">The bridge is out</p><p>Take the <mark>ford</mark> instead.</p></aside>' +
        '<p>Strahd is <strong><mark>awake</mark></strong>.</p>' +
        '<ul><li class="task">☐ Buy rope</li><li class="task done">☑ Find the map</li><li>Not a task</li></ul>' +
        '<aside class="callout" data-type="note"><p>No title here.</p></aside>',
    );
    expect(await rendered(owner, c, thing.slug, 'markdown')).toBe(
      '> [!warning] The bridge is out\n>\n> Take the ==ford== instead.\n\nStrahd is **==awake==**.\n\n- [ ] Buy rope\n- [x] Find the map\n- Not a task\n\n> [!note]\n>\n> No title here.\n',
    );
  });

  it('refuses a malformed callout, highlight or task with 400 and a pointer at each, and creates nothing', async () => {
    const c = await newCampaign(ctx.app, owner);
    const res = await ctx.app.inject({
      method: 'POST',
      url: `${c.base}/things`,
      headers: owner.headers,
      payload: {
        newThing: {
          typeId: c.typeId,
          name: 'Broken',
          description: [
            callout({ kind: '' }, p(t('x'))),
            callout({ kind: 'note', title: 7 }),
            p(t('x', { highlight: 'yes' } as unknown as Record<string, boolean>)),
            { type: 'bulleted-list', children: [{ type: 'list-item', checked: 'done', children: [t('x')] }] },
            { type: 'paragraph', checked: true, children: [t('x')] },
          ],
        },
      },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(problemOf(res).code).toBe('validation_failed');
    expect(errorPathsOf(res)).toEqual([
      '/newThing/description/0/kind',
      '/newThing/description/1/title',
      '/newThing/description/2/children/0/highlight',
      '/newThing/description/3/children/0/checked',
      '/newThing/description/4/checked',
    ]);
    expect(await ok<unknown[]>(owner, `${c.base}/things`)).toEqual([]);
  });

  it('finds a callout’s title in a game master’s search with an excerpt, and a player never finds a secret one', async () => {
    const c = await newCampaign(ctx.app, owner);
    await joinCampaign(ctx.app, owner, c.slug, player, 'player');
    const open = await createThing(ctx.app, owner, c, 'Vallaki', { description: [callout({ kind: 'tip', title: 'Burgomaster festival' }, p(t('Every week.')))] });
    const hidden = await createThing(ctx.app, owner, c, 'Krezk', {
      description: [p(t('An abbey town.')), callout({ kind: 'danger', title: 'Abbot zarovichmarker', isSecret: true }, p(t('He is a deva.')))],
    });
    const search = (user: TestUser, q: string) => ok<{ results: { slug: string; excerpt: string }[] }>(user, `${c.base}/search?q=${q}`);
    expect((await search(owner, 'festival')).results).toEqual([expect.objectContaining({ slug: open.slug, excerpt: expect.stringContaining('Burgomaster festival') })]);
    expect((await search(player, 'festival')).results.map((r) => r.slug)).toEqual([open.slug]);
    expect((await search(owner, 'zarovichmarker')).results).toEqual([expect.objectContaining({ slug: hidden.slug, excerpt: expect.stringContaining('zarovichmarker') })]);
    expect((await search(player, 'zarovichmarker')).results).toEqual([]);
    const abbey = (await search(player, 'abbey')).results;
    expect(abbey.map((r) => r.slug)).toEqual([hidden.slug]);
    expect(abbey[0]!.excerpt).not.toContain('zarovich');
    for (const format of ['html', 'markdown'] as const) expect(await rendered(player, c, hidden.slug, format)).not.toContain('zarovich');
    expect(JSON.stringify(await ok<unknown>(player, `${c.base}/things/${hidden.slug}`))).not.toContain('zarovich');
  });
});
