// Rendered answers with properties (CONTRACT "Records: properties, tags, aliases": "Rendered answers
// gain `properties` (HTML: a `<dl>`; Markdown: a list)"): every kind of value, links with their
// target's current name, GM-only properties marked for game masters and absent for players, links to
// hidden records absent for players.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type TestContext, type TestUser } from '../support/app.js';
import { contextWithUsers, createThing, newCampaign, type TestCampaign } from '../support/fixtures.js';
import { joinCampaign } from '../support/sharing.js';
import { dialect } from '../support/test-db.js';

let ctx: TestContext;
let owner: TestUser;
let player: TestUser;
let c: TestCampaign;

beforeAll(async () => {
  ({ ctx, owner, stranger: player } = await contextWithUsers());
  c = await newCampaign(ctx.app, owner, 'Sunless Citadel');
  await joinCampaign(ctx.app, owner, c.slug, player, 'player');
});
afterAll(async () => {
  await ctx.close();
});

interface Rendered {
  format: string;
  fields: Record<string, string>;
  properties: string;
}

async function send(method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, user: TestUser = owner, headers: Record<string, string> = {}) {
  const res = await ctx.app.inject({ method, url, headers: { ...user.headers, ...headers }, ...(payload === undefined ? {} : { payload: payload as object }) });
  expect(res.statusCode, res.body).toBe(method === 'POST' ? 201 : 200);
  return json<Rendered & { id: number; slug: string }>(res);
}

describe(`rendered properties on ${dialect}`, () => {
  it('renders every kind of value as a <dl> and as a Markdown list, links with the target’s current name', async () => {
    const queen = await createThing(ctx.app, owner, c, 'Yusdrayl');
    const arc = await send('POST', `${c.base}/arcs`, { newArc: { name: 'The Citadel' } });
    const meepo = await createThing(ctx.app, owner, c, 'Meepo', {
      properties: [
        { key: 'Serves', value: { targetType: 'thing', targetId: queen.id } },
        { key: 'Level', value: 1.5 },
        { key: 'Alive', value: true },
        { key: 'Hostile', value: false },
        { key: 'Nothing', value: null },
        { key: 'Notes <b>', value: 'Keeps *the* dragon\n<script>x</script>' },
        { key: 'Seen in', value: [{ targetType: 'arc', targetId: arc.id }, 'the kitchen', 3] },
      ],
    });
    const thingHref = `/campaigns/${c.slug}/things/yusdrayl`;
    const arcHref = `/campaigns/${c.slug}/arcs/the-citadel`;
    const html = await send('GET', `${c.base}/things/${meepo.slug}/rendered`);
    expect(html.fields.description).toBe('<p></p>');
    expect(html.properties).toBe(
      '<dl class="properties">' +
        `<dt>Serves</dt><dd><a class="mention" data-type="thing" data-id="${queen.id}" href="${thingHref}">Yusdrayl</a></dd>` +
        '<dt>Level</dt><dd>1.5</dd>' +
        '<dt>Alive</dt><dd>yes</dd>' +
        '<dt>Hostile</dt><dd>no</dd>' +
        '<dt>Nothing</dt><dd></dd>' +
        '<dt>Notes &#x3C;b></dt><dd>Keeps *the* dragon<br>&#x3C;script>x&#x3C;/script></dd>' +
        `<dt>Seen in</dt><dd><ul><li><a class="mention" data-type="arc" data-id="${arc.id}" href="${arcHref}">The Citadel</a></li><li>the kitchen</li><li>3</li></ul></dd>` +
        '</dl>',
    );
    const markdown = await send('GET', `${c.base}/things/${meepo.slug}/rendered?format=markdown`);
    expect(markdown.properties).toBe(
      [
        `- **Serves**: [Yusdrayl](${thingHref})`,
        '- **Level**: 1.5',
        '- **Alive**: yes',
        '- **Hostile**: no',
        '- **Nothing**:',
        '- **Notes \\<b>**: Keeps \\*the\\* dragon\\',
        '  \\<script>x\\</script>',
        `- **Seen in**: [The Citadel](${arcHref}), the kitchen, 3`,
        '',
      ].join('\n'),
    );

    // A rename shows at once: the link is by id.
    await send('PUT', `${c.base}/things/${queen.slug}`, { updatedThing: { name: 'Queen Yusdrayl' } });
    expect((await send('GET', `${c.base}/things/${meepo.slug}/rendered`)).properties).toContain(`href="${thingHref}">Queen Yusdrayl</a>`);
  });

  it('renders an arc’s properties; none is the empty string', async () => {
    const arc = await send('POST', `${c.base}/arcs`, { newArc: { name: 'Goblin warren', properties: [{ key: 'Session', value: 4 }] } });
    expect((await send('GET', `${c.base}/arcs/${arc.slug}/rendered`)).properties).toBe('<dl class="properties"><dt>Session</dt><dd>4</dd></dl>');
    expect((await send('GET', `${c.base}/arcs/${arc.slug}/rendered?format=markdown`)).properties).toBe('- **Session**: 4\n');
    const bare = await send('POST', `${c.base}/arcs`, { newArc: { name: 'Bare' } });
    expect((await send('GET', `${c.base}/arcs/${bare.slug}/rendered`)).properties).toBe('');
  });

  it('marks GM-only properties for game masters; players get neither them nor links to hidden records', async () => {
    const hidden = await createThing(ctx.app, owner, c, 'Belak the Outcast', { visibility: 'gm' });
    const shown = await createThing(ctx.app, owner, c, 'Sharwyn');
    const thing = await createThing(ctx.app, owner, c, 'Twig blight', {
      properties: [
        { key: 'Made by', value: { targetType: 'thing', targetId: hidden.id } },
        { key: 'Weakness', value: 'fire', gmOnly: true },
        { key: 'Near', value: [{ targetType: 'thing', targetId: hidden.id }, { targetType: 'thing', targetId: shown.id }] },
        { key: 'Kind', value: 'plant' },
      ],
    });
    const url = `${c.base}/things/${thing.slug}/rendered`;
    const gm = await send('GET', url);
    expect(gm.properties).toContain('<dt class="secret">Weakness</dt><dd class="secret">fire</dd>');
    expect(gm.properties).toContain('>Belak the Outcast</a>');
    const gmMarkdown = await send('GET', `${url}?format=markdown`);
    expect(gmMarkdown.properties).toContain('- <span class="secret">**Weakness**: fire</span>\n');

    const expected = `<dl class="properties"><dt>Near</dt><dd><ul><li><a class="mention" data-type="thing" data-id="${shown.id}" href="/campaigns/${c.slug}/things/sharwyn">Sharwyn</a></li></ul></dd><dt>Kind</dt><dd>plant</dd></dl>`;
    for (const [who, user, headers] of [
      ['player', player, {}],
      ['gm as player', owner, { 'loreforge-view': 'player' }],
    ] as const) {
      const seen = await send('GET', url, undefined, user, headers);
      expect(seen.properties, who).toBe(expected);
      const markdown = await send('GET', `${url}?format=markdown`, undefined, user, headers);
      expect(markdown.properties, who).toBe(`- **Near**: [Sharwyn](/campaigns/${c.slug}/things/sharwyn)\n- **Kind**: plant\n`);
      expect(`${seen.properties}${markdown.properties}`, who).not.toMatch(/Belak|Weakness|fire|Made by/);
    }
  });
});
