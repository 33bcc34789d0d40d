import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { joinCampaign } from '../support/sharing.js';
import { dialect } from '../support/test-db.js';

// No player reads a game master's secret by any route (CONTRACT "Members and roles"). A campaign
// is seeded with GM-only records and secret blocks whose text carries marker words found nowhere
// else; then every GET route of the route table is called as a player (and as a game master viewing
// as a player), with every query option, following every Link: no marker may appear in any body or
// header. A property test does the same with random documents, visibilities and edits, and the
// response cache is checked to keep the two views' bytes and ETags apart.

let ctx: TestContext;
let owner: TestUser;
let gm: TestUser;
let player: TestUser;

beforeAll(async () => {
  ctx = await createTestContext();
  owner = await ctx.createUser();
  gm = await ctx.createUser();
  player = await ctx.createUser();
});
afterAll(async () => {
  await ctx.close();
});

const t = (text: string) => ({ text });
const p = (...children: unknown[]) => ({ type: 'paragraph', children });
const secret = (...children: unknown[]) => ({ type: 'paragraph', isSecret: true, children });
const mention = (targetType: 'thing' | 'arc', targetId: number, label: string) => ({ type: 'mention', targetType, targetId, children: [t(label)] });

async function send(user: TestUser, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = {}) {
  const res = await ctx.app.inject({ method, url, headers: { ...user.headers, ...headers }, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
  if (res.statusCode >= 400 && method !== 'GET') throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res;
}

/** Every place a response could carry text: the body and every header value. */
function wireText(res: LightMyRequestResponse): string {
  return `${JSON.stringify(res.headers)}\n${res.body}`.toLowerCase();
}

const VIEWERS = {
  player: () => ({ user: player, headers: {} as Record<string, string> }),
  'gm as player': () => ({ user: gm, headers: { 'loreforge-view': 'player' } }),
};

interface Fixture {
  slug: string;
  base: string;
  /** Path values of records players may see. */
  params: Record<string, string>;
  /** Slugs of GM-only records (their routes must answer as for a record that does not exist). */
  hiddenThing: string;
  hiddenArc: string;
  typeIds: number[];
  markers: string[];
  /** `kind:id` of every GM-only record: no player's answer may link to one (a link property or a mention). */
  hiddenTargets: Set<string>;
}

/** The first link `{targetType, targetId}` to a hidden record anywhere in a JSON value, or undefined. */
function linkToHidden(value: unknown, hidden: ReadonlySet<string>): string | undefined {
  if (Array.isArray(value)) return value.map((item) => linkToHidden(item, hidden)).find((found) => found !== undefined);
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.targetType === 'string' && typeof record.targetId === 'number' && hidden.has(`${record.targetType}:${record.targetId}`)) return JSON.stringify(record);
  return Object.values(record).map((item) => linkToHidden(item, hidden)).find((found) => found !== undefined);
}

// Marker words: lowercase letters only, so a slug made from one keeps it whole.
const MARKERS = {
  gmThingName: 'zorvexnightcaller',
  gmThingText: 'quillowmarrowgate',
  gmArcName: 'vantablissquarry',
  gmArcText: 'obsidraffleshade',
  secretInThing: 'crimsonwhisperling',
  secretInArc: 'hollowtidebrand',
  secretInCampaign: 'ashenveilmotto',
  secretImage: 'gloomlanternmap',
  secretSlugLink: 'driftmoorcipher',
  gmThingBacklinkSource: 'velvetgallowsink',
  // Records with structure: GM-only properties (key and value), a link property to a GM-only thing,
  // a GM-only thing's tag and alias, a GM-only arc's tag.
  gmPropertyInThing: 'mirelanternoath',
  gmPropertyKeyInThing: 'grimwardtallykey',
  gmPropertyInArc: 'sablecrestdebt',
  gmLinkPropertyKey: 'thornwickrelation',
  linkedGmThingName: 'cinderhollowwarden',
  gmThingTag: 'blightmarrowtag',
  gmThingAlias: 'umbervastalias',
  gmArcTag: 'frostgildplot',
  // A visible property linking to a GM-only thing that then went to the trash: the key never shows.
  goneLinkPropertyKey: 'duskhollowpatron',
};

async function seedLeakCampaign(): Promise<Fixture> {
  const campaign = json<{ slug: string }>(await send(owner, 'POST', '/api/campaigns', { newCampaign: { name: 'Leak Test' } }));
  const base = `/api/campaigns/${campaign.slug}`;
  await joinCampaign(ctx.app, owner, campaign.slug, gm, 'gm');
  await joinCampaign(ctx.app, owner, campaign.slug, player, 'player');
  const types = json<{ id: number }[]>(await send(owner, 'GET', `${base}/thing-types`));
  const typeId = types[0]!.id;
  const create = async (what: 'things' | 'arcs', body: Record<string, unknown>) =>
    json<{ id: number; slug: string }>(await send(gm, 'POST', `${base}/${what}`, what === 'things' ? { newThing: { typeId, ...body } } : { newArc: body }));

  const goneGmThing = await create('things', { name: 'Vanished one', visibility: 'gm' });
  const linkedGmThing = await create('things', { name: `Warden ${MARKERS.linkedGmThingName}`, visibility: 'gm', tags: [MARKERS.gmThingTag], aliases: [`The ${MARKERS.gmThingAlias}`] });
  const visible = await create('things', {
    name: 'Sildar Hallwinter',
    description: [p(t('A knight of the Lords’ Alliance.'))],
    tags: ['knight'],
    aliases: ['Sildar'],
    properties: [
      { key: 'order', value: 'Lords’ Alliance' },
      { key: 'motive', value: `Hunts the ${MARKERS.gmPropertyInThing}`, gmOnly: true },
      { key: MARKERS.gmPropertyKeyInThing, value: 3, gmOnly: true },
      { key: 'answers to', value: { targetType: 'thing', targetId: linkedGmThing.id } },
      { key: 'allies', value: ['Gundren', { targetType: 'thing', targetId: linkedGmThing.id }] },
      { key: MARKERS.goneLinkPropertyKey, value: { targetType: 'thing', targetId: goneGmThing.id } },
    ],
  });
  // A GM-only link property of a visible thing, named with a marker: no backlink field for players.
  await send(gm, 'PUT', `${base}/things/${visible.slug}`, {
    updatedThing: {
      properties: [
        ...json<{ properties: unknown[] }>(await send(gm, 'GET', `${base}/things/${visible.slug}`)).properties,
        { key: MARKERS.gmLinkPropertyKey, value: { targetType: 'thing', targetId: visible.id }, gmOnly: true },
      ],
    },
  });
  const hiddenThing = await create('things', {
    name: `Lich ${MARKERS.gmThingName}`,
    visibility: 'gm',
    description: [p(t(`The true name is ${MARKERS.gmThingText}.`)), p(t(`Serves `), mention('thing', visible.id, 'Sildar'), t(` ${MARKERS.gmThingBacklinkSource}`))],
  });
  const hiddenArc = await create('arcs', { name: `Plot ${MARKERS.gmArcName}`, visibility: 'gm', hook: [p(t(`Twist: ${MARKERS.gmArcText}`))], tags: [MARKERS.gmArcTag] });
  const visibleArc = await create('arcs', {
    name: 'Goblin Arrows',
    parentArcId: hiddenArc.id,
    hook: [p(t('Ambush on the road; the villain is '), mention('thing', hiddenThing.id, 'someone'), t('.')), secret(t(`Really: ${MARKERS.secretInArc}`))],
    notes: [p(t('See '), mention('arc', hiddenArc.id, 'the plot'), t('.'))],
    tags: ['main'],
    properties: [
      { key: 'stakes', value: 'the road' },
      { key: 'cost', value: `a ${MARKERS.gmPropertyInArc}`, gmOnly: true },
      { key: 'behind it', value: { targetType: 'arc', targetId: hiddenArc.id } },
      { key: 'villain', value: { targetType: 'thing', targetId: linkedGmThing.id } },
    ],
  });
  const sidebar = await create('things', {
    name: 'Phandalin',
    description: [
      p(t('A frontier town. '), mention('thing', visible.id, 'Sildar'), t(' lives here.')),
      secret(t(`${MARKERS.secretInThing} `), mention('thing', hiddenThing.id, 'the lich')),
      secret(t(`![${MARKERS.secretImage}](https://maps.example.test/${MARKERS.secretImage}.png)`)),
      secret(t(`Mentions [[thing#${hiddenThing.slug}]] and [[arc#${hiddenArc.slug}]] ${MARKERS.secretSlugLink}`)),
    ],
  });
  await send(gm, 'PUT', base, { updatedCampaign: { description: [p(t('Welcome to the Sword Coast.')), secret(t(`GM motto: ${MARKERS.secretInCampaign}`))] } });
  // Links: the visible arc has the hidden thing and a visible one; the hidden arc the visible thing.
  await send(gm, 'POST', `${base}/things/${hiddenThing.slug}/arcs`, { arcSlug: visibleArc.slug });
  await send(gm, 'POST', `${base}/things/${visible.slug}/arcs`, { arcSlug: visibleArc.slug });
  await send(gm, 'POST', `${base}/things/${visible.slug}/arcs`, { arcSlug: hiddenArc.slug });
  await send(gm, 'POST', `${base}/things/${sidebar.slug}/arcs`, { arcSlug: visibleArc.slug });
  // Gone to the trash: still hidden from players, the link to it with its key (gone_gm_only).
  await send(gm, 'DELETE', `${base}/things/${goneGmThing.slug}`);
  // The game master's import of the whole campaign, in the background: its job (GET /api/imports/:importId)
  // names the new campaign, which the game master owns and a player may not see.
  const exported = await send(gm, 'GET', `${base}/export?format=json`);
  const started = await send(gm, 'POST', '/api/campaigns/import', exported.body, { 'content-type': 'application/json', prefer: 'respond-async' });
  const importId = json<{ id: string }>(started).id;
  for (let polls = 0; json<{ status: string }>(await send(gm, 'GET', `/api/imports/${importId}`)).status !== 'done'; polls++) {
    if (polls > 500) throw new Error('the import job did not end');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    slug: campaign.slug,
    base,
    params: { campaignSlug: campaign.slug, thingSlug: visible.slug, arcSlug: visibleArc.slug, thingTypeId: String(typeId), userId: player.id, id: '1', importId },
    hiddenThing: hiddenThing.slug,
    hiddenArc: hiddenArc.slug,
    typeIds: types.map((type) => type.id),
    markers: Object.values(MARKERS),
    hiddenTargets: new Set([`thing:${hiddenThing.id}`, `thing:${linkedGmThing.id}`, `thing:${goneGmThing.id}`, `arc:${hiddenArc.id}`]),
  };
}

/** Every way to ask each GET route: its query options, for records players may see. */
function queriesFor(url: string, fixture: Fixture): string[] {
  const searches = fixture.markers.flatMap((marker) => [
    `q=${marker}`,
    `q=${marker.slice(0, 6)}`,
    // One typo.
    `q=${marker.slice(0, 3)}x${marker.slice(4)}`,
    ...['thing', 'arc', 'any'].map((type) => `q=${marker}&type=${type}`),
  ]);
  if (url.endsWith('/things')) {
    return [
      '',
      'count=1',
      'count=1000',
      'fetchAll=true',
      'fetchAll=false&count=2',
      ...fixture.typeIds.map((id) => `typeId=${id}`),
      'sort=name',
      'sort=name&count=1',
      'tag=knight',
      `tag=${MARKERS.gmThingTag}&count=1`,
      `tag=${MARKERS.gmThingTag.toUpperCase()}`,
      'fields=summary&fetchAll=true',
      'fields=summary&count=1',
      'fields=summary&sort=name&count=1',
      `fields=summary&tag=${MARKERS.gmThingTag}`,
    ];
  }
  if (url.endsWith(':campaignSlug/arcs')) return ['', 'things=none', 'things=all'];
  if (url.endsWith('/search')) return [...searches, 'q=sildar', 'q=goblin', 'q=lich', 'q=phandalin&limit=100'];
  if (url.endsWith('/rendered')) return ['', 'format=html', 'format=markdown'];
  return [''];
}

function pathOf(url: string, values: Record<string, string>): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(values[name] ?? '1'));
}

/** GETs `url` as the viewer and every page its Link headers lead to; returns the responses. */
async function getAllPages(viewer: { user: TestUser; headers: Record<string, string> }, url: string): Promise<LightMyRequestResponse[]> {
  const out: LightMyRequestResponse[] = [];
  let next: string | undefined = url;
  while (next !== undefined && out.length < 50) {
    const res = await send(viewer.user, 'GET', next, undefined, viewer.headers);
    out.push(res);
    const link = res.headers.link;
    next = typeof link === 'string' ? /<([^>]+)>; rel="next"/.exec(link)?.[1] : undefined;
  }
  return out;
}

describe(`no player reads a GM’s secret, on ${dialect}`, () => {
  it('sees no marker word in any answer of any GET route, with every query option, as a player or a GM viewing as one', async () => {
    const fixture = await seedLeakCampaign();
    const routes = ctx.app.routeTable.filter((route) => route.method === 'GET' && route.auth !== 'none');
    expect(routes.length).toBeGreaterThanOrEqual(20);
    let checked = 0;
    const routeKeys = new Set<string>();
    for (const [name, viewerOf] of Object.entries(VIEWERS)) {
      const viewer = viewerOf();
      for (const route of routes) {
        routeKeys.add(route.url);
        for (const query of queriesFor(route.url, fixture)) {
          const path = pathOf(route.url, fixture.params);
          for (const res of await getAllPages(viewer, query ? `${path}?${query}` : path)) {
            const text = wireText(res);
            for (const marker of fixture.markers) {
              expect(text.includes(marker), `${name}: GET ${path}?${query} (${res.statusCode}) shows "${marker}"`).toBe(false);
              checked += 1;
            }
            if (String(res.headers['content-type']).startsWith('application/json')) {
              expect(linkToHidden(JSON.parse(res.body), fixture.hiddenTargets), `${name}: GET ${path}?${query} (${res.statusCode}) links to a GM-only record`).toBeUndefined();
              checked += 1;
            }
          }
        }
        // A GM-only record's routes answer exactly as for a record that does not exist.
        for (const [param, slug] of [
          ['thingSlug', fixture.hiddenThing],
          ['arcSlug', fixture.hiddenArc],
        ] as const) {
          if (!route.url.includes(`:${param}`)) continue;
          const missing = 'q'.repeat(slug.length);
          const hidden = await send(viewer.user, 'GET', pathOf(route.url, { ...fixture.params, [param]: slug }), undefined, viewer.headers);
          const absent = await send(viewer.user, 'GET', pathOf(route.url, { ...fixture.params, [param]: missing }), undefined, viewer.headers);
          // A route only game masters may call (history) refuses a player whatever the record: 403.
          expect(hidden.statusCode, `${name}: ${route.url} with a GM-only ${param}`).toBe(route.role === 'gm' ? 403 : 404);
          expect(hidden.body.replaceAll(slug, missing)).toBe(absent.body);
        }
      }
    }
    // And the game master does see them: the markers are real.
    const gmView = [
      await send(gm, 'GET', `${fixture.base}/things?fetchAll=true`),
      await send(gm, 'GET', `${fixture.base}/arcs`),
      await send(gm, 'GET', `${fixture.base}/things/${fixture.params.thingSlug}/backlinks`),
      await send(gm, 'GET', fixture.base),
      await send(gm, 'GET', `${fixture.base}/search?q=${MARKERS.secretInThing}`),
    ]
      .map(wireText)
      .join('\n');
    for (const marker of fixture.markers) expect(gmView.includes(marker), `the GM does not see "${marker}"`).toBe(true);
    const gmThings = JSON.parse((await send(gm, 'GET', `${fixture.base}/things?fetchAll=true`)).body) as unknown;
    expect(linkToHidden(gmThings, fixture.hiddenTargets), 'the GM sees the links to GM-only records').toBeDefined();
    console.log(`leak test (${dialect}): ${routeKeys.size} GET routes × ${fixture.markers.length} marker words × ${Object.keys(VIEWERS).length} player views: ${checked} checks`);
  });

  it('shows players what the contract says they see: hidden mentions removed whole, top-level arcs, visible links', async () => {
    const fixture = await seedLeakCampaign();
    const arc = json<{ parentArcId: number | null; parentArc: unknown; things: { slug: string }[]; hook: { children: Record<string, unknown>[] }[]; notes: unknown }>(
      await send(player, 'GET', `${fixture.base}/arcs/${fixture.params.arcSlug}`),
    );
    expect(arc.parentArcId).toBeNull();
    expect(arc.parentArc).toBeNull();
    expect(arc.things.map((thing) => thing.slug).sort()).toEqual([fixture.params.thingSlug, 'phandalin'].sort());
    // One block left of the hook; its mention of the GM-only thing is removed whole, label included.
    expect(arc.hook).toHaveLength(1);
    expect(arc.hook[0]!.children).toEqual([{ text: 'Ambush on the road; the villain is ' }, { text: '.' }]);
    const markdown = json<{ fields: { hook: string } }>(await send(player, 'GET', `${fixture.base}/arcs/${fixture.params.arcSlug}/rendered?format=markdown`));
    expect(markdown.fields.hook).toBe('Ambush on the road; the villain is .\n');
    const gmArc = json<{ parentArc: { slug: string } }>(await send(gm, 'GET', `${fixture.base}/arcs/${fixture.params.arcSlug}`));
    expect(gmArc.parentArc.slug).toBe(fixture.hiddenArc);
    // The thing a GM-only record mentions has no backlink from it for a player.
    const backlinks = json<{ slug: string }[]>(await send(player, 'GET', `${fixture.base}/things/${fixture.params.thingSlug}/backlinks`));
    expect(backlinks.map((b) => b.slug)).not.toContain(fixture.hiddenThing);
    expect(backlinks.map((b) => b.slug)).toContain('phandalin');
  });

  it('keeps the response cache, ETags and 304s apart per view', async () => {
    const fixture = await seedLeakCampaign();
    const urls = [
      fixture.base,
      `${fixture.base}/things`,
      `${fixture.base}/things/phandalin`,
      `${fixture.base}/things/phandalin/rendered`,
      `${fixture.base}/arcs`,
      `${fixture.base}/arcs/${fixture.params.arcSlug}`,
      `${fixture.base}/things/${fixture.params.thingSlug}/backlinks`,
      `${fixture.base}/search?q=${MARKERS.secretInThing}`,
      `${fixture.base}/thing-types`,
    ];
    for (const url of urls) {
      // Alternating, so each view's answer is served from the cache the second time.
      const seen: Record<string, { etag: string; body: string }> = {};
      for (let round = 0; round < 2; round++) {
        for (const [name, viewer] of [
          ['gm', { user: gm, headers: {} }],
          ['player', VIEWERS.player()],
          ['gm as player', VIEWERS['gm as player']()],
        ] as const) {
          const res = await send(viewer.user, 'GET', url, undefined, viewer.headers);
          expect(res.statusCode, `${name} ${url}`).toBe(200);
          const etag = String(res.headers.etag);
          if (seen[name]) expect({ etag, body: res.body }, `${name} ${url}: a second read differs`).toEqual(seen[name]);
          seen[name] = { etag, body: res.body };
        }
      }
      const player = seen.player!;
      const master = seen.gm!;
      // The player's view and the GM's as a player are the same view.
      expect(seen['gm as player']).toEqual(player);
      expect(player.etag, url).not.toBe(master.etag);
      // A player presenting the GM's ETag gets the player's bytes, never a 304; and the reverse.
      const crossed = await send(player === seen.player ? VIEWERS.player().user : gm, 'GET', url, undefined, { 'if-none-match': master.etag });
      expect(crossed.statusCode, url).toBe(200);
      expect(crossed.body).toBe(player.body);
      const back = await send(gm, 'GET', url, undefined, { 'if-none-match': player.etag });
      expect(back.statusCode, url).toBe(200);
      expect(back.body).toBe(master.body);
      // Each view's own ETag is a 304.
      expect((await send(VIEWERS.player().user, 'GET', url, undefined, { 'if-none-match': player.etag })).statusCode, url).toBe(304);
      expect((await send(gm, 'GET', url, undefined, { 'if-none-match': master.etag })).statusCode, url).toBe(304);
      for (const marker of fixture.markers) expect(player.body.toLowerCase()).not.toContain(marker);
    }
  });
});

// What the real editor writes (CONTRACT "Secrets that hold"): mentions with no name
// (`children: [{text: ""}]`) and with a label, and secrets at every depth the editor produces — a
// secret list item, a paragraph inside a list item, a nested list, a table cell, a quote in a list
// item, an inline link. Every GET route, read as a player, shows none of their marker words.
const EDITOR_MARKERS = {
  hiddenName: 'nezznarspiderling',
  hiddenLabel: 'blackwebmatron',
  secretListItem: 'quenchlanternfen',
  secretParagraphInItem: 'mirewhistlegrove',
  secretNestedList: 'cinderhollowvault',
  secretCell: 'gravemarrowledger',
  secretQuoteInItem: 'saltwyrmoracle',
  secretLinkText: 'duskharrowsignal',
  secretLinkUrl: 'thornveilbeacon',
  secretInArcItem: 'emberfangcovenant',
  secretInCampaignCell: 'frostgildtreaty',
  secretCalloutTitle: 'gloomspirecaption',
  calloutTitleInSecret: 'wraithmoorheading',
  secretTaskText: 'hexbanechore',
};

const item = (...children: unknown[]) => ({ type: 'list-item', children });
const list = (...items: unknown[]) => ({ type: 'bulleted-list', children: items });
const asSecret = <T extends object>(node: T) => ({ ...node, isSecret: true });
const cell = (...children: unknown[]) => ({ type: 'table-cell', children });
const row = (...cells: unknown[]) => ({ type: 'table-row', children: cells });
const table = (...rows: unknown[]) => ({ type: 'table', children: rows });
const quote = (...children: unknown[]) => ({ type: 'block-quote', children });
const link = (url: string, ...children: unknown[]) => ({ type: 'link', url, children });
const callout = (fields: { kind: string; title?: string }, ...children: unknown[]) => ({ type: 'callout', ...fields, children });
/** A mention as the editor inserts it: no name. */
const bareMention = (targetType: 'thing' | 'arc', targetId: number) => ({ type: 'mention', targetType, targetId, children: [t('')] });

interface EditorFixture {
  base: string;
  slug: string;
  visible: { id: number; slug: string };
  hidden: { id: number; slug: string };
  onlyInSecret: { id: number; slug: string };
  sidebar: { id: number; slug: string };
  arc: { id: number; slug: string };
}

async function seedEditorCampaign(): Promise<EditorFixture> {
  const campaign = json<{ slug: string }>(await send(owner, 'POST', '/api/campaigns', { newCampaign: { name: 'Editor Leak Test' } }));
  const base = `/api/campaigns/${campaign.slug}`;
  await joinCampaign(ctx.app, owner, campaign.slug, gm, 'gm');
  await joinCampaign(ctx.app, owner, campaign.slug, player, 'player');
  const typeId = json<{ id: number }[]>(await send(owner, 'GET', `${base}/thing-types`))[0]!.id;
  const thing = async (body: Record<string, unknown>) => json<{ id: number; slug: string }>(await send(gm, 'POST', `${base}/things`, { newThing: { typeId, ...body } }));
  const M = EDITOR_MARKERS;
  const visible = await thing({ name: 'Sildar Hallwinter' });
  const onlyInSecret = await thing({ name: 'Gundren Rockseeker' });
  const hidden = await thing({ name: `Nezznar ${M.hiddenName}`, visibility: 'gm' });
  const sidebar = await thing({
    name: 'Phandalin',
    description: [
      p(t('Allies: '), bareMention('thing', visible.id), t(' and the villain '), bareMention('thing', hidden.id), t('.')),
      // A label that shares a word with visible text: a player's search reaches the passage.
      p(mention('thing', hidden.id, `Beware the ${M.hiddenLabel}`), t(' Beware of it.')),
      // What the old editor stored: the target's name as the children.
      p(t('Also '), mention('thing', hidden.id, `Nezznar ${M.hiddenName}`), t('.')),
      list(item(p(t('The inn.'))), asSecret(item(p(t(`The ${M.secretListItem}.`))))),
      list(item(p(t('The mine.')), asSecret(p(t(`Under it: ${M.secretParagraphInItem}.`))))),
      list(item(p(t('The manor.')), asSecret(list(item(p(t(`Cellar: ${M.secretNestedList}.`)), p(bareMention('thing', onlyInSecret.id))))))),
      table(row(cell(p(t('Who'))), cell(p(t('What')))), row(cell(p(t('Sildar'))), asSecret(cell(p(t(`Spy: ${M.secretCell}`)))))),
      list(item(p(t('The shrine.')), asSecret(quote(p(t(`Oracle: ${M.secretQuoteInItem}`)))))),
      p(t('See '), asSecret(link(`https://example.test/${M.secretLinkUrl}`, t(M.secretLinkText))), t(' for more.')),
      // A callout's title is text: a secret callout's, and a callout's inside a secret block.
      asSecret(callout({ kind: 'warning', title: `Beware the ${M.secretCalloutTitle}` }, p(t('The ambush.')))),
      quote(p(t('Rumours.')), asSecret(callout({ kind: 'note', title: M.calloutTitleInSecret }, p(t('Told by the innkeeper.'))))),
      list({ ...item(t('Open chore')), checked: false }, asSecret({ ...item(t(`Chore: ${M.secretTaskText}`)), checked: true })),
    ],
  });
  const arc = json<{ id: number; slug: string }>(
    await send(gm, 'POST', `${base}/arcs`, {
      newArc: { name: 'Redbrand Ruffians', hook: [p(t('Thugs. Led by '), bareMention('thing', hidden.id)), list(item(p(t('Tresendar'))), asSecret(item(p(t(M.secretInArcItem)))))] },
    }),
  );
  await send(gm, 'PUT', base, {
    updatedCampaign: {
      description: [p(t('Welcome, '), bareMention('thing', visible.id), t('.')), table(row(cell(p(t('Faction')))), row(asSecret(cell(p(t(M.secretInCampaignCell))))))],
    },
  });
  await send(gm, 'POST', `${base}/things/${sidebar.slug}/arcs`, { arcSlug: arc.slug });
  return { base, slug: campaign.slug, visible, hidden, onlyInSecret, sidebar, arc };
}

describe(`no player reads a secret the real editor wrote, on ${dialect}`, () => {
  it('sees no marker of a secret at any depth nor of a hidden record’s mention, in any answer of any GET route', async () => {
    const fixture = await seedEditorCampaign();
    const markers = Object.values(EDITOR_MARKERS);
    const routes = ctx.app.routeTable.filter((route) => route.method === 'GET' && route.auth !== 'none');
    const params = { campaignSlug: fixture.slug, thingSlug: fixture.sidebar.slug, arcSlug: fixture.arc.slug, thingTypeId: '1', userId: player.id, id: '1' };
    let checked = 0;
    for (const [name, viewerOf] of Object.entries(VIEWERS)) {
      const viewer = viewerOf();
      for (const route of routes) {
        const path = pathOf(route.url, params);
        const queries = route.url.endsWith('/search')
          ? [...markers.flatMap((marker) => [`q=${marker}`, `q=${marker.slice(0, 6)}`, `q=${marker.slice(0, 3)}x${marker.slice(4)}`]), 'q=phandalin', 'q=redbrand', 'q=welcome', 'q=sildar', 'q=beware', 'q=allies', 'q=thugs']
          : route.url.endsWith('/rendered')
            ? ['format=html', 'format=markdown']
            : route.url.endsWith('/things')
              ? ['fetchAll=true', 'fields=summary&fetchAll=true']
              : route.url.endsWith(':campaignSlug/arcs')
                ? ['', 'things=none']
                : [''];
        for (const query of queries) {
          for (const res of await getAllPages(viewer, query ? `${path}?${query}` : path)) {
            const text = wireText(res);
            for (const marker of markers) {
              expect(text.includes(marker), `${name}: GET ${path}?${query} (${res.statusCode}) shows "${marker}"`).toBe(false);
              checked += 1;
            }
          }
        }
      }
      // Backlinks from the other side: a mention inside a secret element is no backlink.
      const backlinks = json<{ slug: string }[]>(await send(viewer.user, 'GET', `${fixture.base}/things/${fixture.onlyInSecret.slug}/backlinks`, undefined, viewer.headers));
      expect(backlinks, `${name}: a mention inside a secret nested list is a backlink`).toEqual([]);
    }
    // The game master sees every marker: they are real.
    const gmView = [
      await send(gm, 'GET', `${fixture.base}/things/${fixture.sidebar.slug}`),
      await send(gm, 'GET', `${fixture.base}/things/${fixture.sidebar.slug}/rendered?format=html`),
      await send(gm, 'GET', `${fixture.base}/arcs/${fixture.arc.slug}`),
      await send(gm, 'GET', fixture.base),
    ]
      .map(wireText)
      .join('\n');
    for (const marker of markers) expect(gmView.includes(marker), `the GM does not see "${marker}"`).toBe(true);
    // The excerpts checked above are real: a player's search reaches the text around the hidden mentions.
    const found = json<{ results: { slug: string; excerpt: string }[] }>(await send(player, 'GET', `${fixture.base}/search?q=beware`)).results;
    expect(found.map((r) => r.slug)).toEqual([fixture.sidebar.slug]);
    expect(found[0]!.excerpt).toContain('Beware');
    const gmBacklinks = json<{ slug: string }[]>(await send(gm, 'GET', `${fixture.base}/things/${fixture.onlyInSecret.slug}/backlinks`));
    expect(gmBacklinks.map((b) => b.slug)).toEqual([fixture.sidebar.slug]);
    console.log(`editor-shaped leak test (${dialect}): ${routes.length} GET routes × ${markers.length} marker words × ${Object.keys(VIEWERS).length} player views: ${checked} checks`);
  });

  it('removes a hidden record’s mention whole for a player and keeps the rest of the document’s shape', async () => {
    const fixture = await seedEditorCampaign();
    const thing = json<{ description: { type?: string; children: Record<string, unknown>[] }[] }>(await send(player, 'GET', `${fixture.base}/things/${fixture.sidebar.slug}`));
    // The mention of the hidden record is gone with its (empty) children; the visible one is kept as stored.
    expect(thing.description[0]!.children).toEqual([t('Allies: '), bareMention('thing', fixture.visible.id), t(' and the villain '), t('.')]);
    expect(thing.description[1]!.children).toEqual([t(' Beware of it.')]);
    // The list keeps its visible item; the secret item is gone; an emptied table cell stays under its header.
    expect(thing.description[3]).toEqual(list(item(p(t('The inn.')))));
    expect(thing.description[4]).toEqual(list(item(p(t('The mine.')))));
    expect(thing.description[6]).toEqual(table(row(cell(p(t('Who'))), cell(p(t('What')))), row(cell(p(t('Sildar'))), cell(t('')))));
    expect(thing.description[8]!.children).toEqual([t('See '), t(' for more.')]);
  });

  it('renders a mention without a name as the target’s current name, a label as the label, and marks secrets where they sit for a GM', async () => {
    const fixture = await seedEditorCampaign();
    await send(gm, 'PUT', `${fixture.base}/things/${fixture.visible.slug}`, { updatedThing: { name: 'Sildar the Renamed' } });
    const rendered = async (user: TestUser, format: 'html' | 'markdown') =>
      json<{ fields: { description: string } }>(await send(user, 'GET', `${fixture.base}/things/${fixture.sidebar.slug}/rendered?format=${format}`)).fields.description;
    const playerHtml = await rendered(player, 'html');
    expect(playerHtml).toContain(`<a class="mention" data-type="thing" data-id="${fixture.visible.id}" href="/campaigns/${fixture.slug}/things/${fixture.visible.slug}">Sildar the Renamed</a>`);
    expect(playerHtml).not.toContain('mention missing');
    expect(playerHtml).not.toContain('class="secret"');
    const gmHtml = await rendered(gm, 'html');
    expect(gmHtml).toContain(`href="/campaigns/${fixture.slug}/things/${fixture.hidden.slug}">Beware the ${EDITOR_MARKERS.hiddenLabel}</a>`);
    expect(gmHtml).toContain(`<li class="secret">`);
    expect(gmHtml).toContain(`<td class="secret">`);
    expect(gmHtml).toContain(`<section class="secret"><p>Under it: ${EDITOR_MARKERS.secretParagraphInItem}.</p></section>`);
    expect(gmHtml).toMatch(/<span class="secret"><a href="https:\/\/example\.test\/thornveilbeacon"[^>]*>duskharrowsignal<\/a><\/span>/);
    const gmMarkdown = await rendered(gm, 'markdown');
    expect(gmMarkdown).toContain(`> [!secret]\n  > Under it: ${EDITOR_MARKERS.secretParagraphInItem}.`);
    expect(gmMarkdown).toContain('[Sildar the Renamed](');
    const playerMarkdown = await rendered(player, 'markdown');
    expect(playerMarkdown).toContain('[Sildar the Renamed](');
    expect(playerMarkdown).not.toContain('[!secret]');
  });
});

// Random campaigns: things and arcs with random visibility, random blocks (secret or not) and
// random mentions between them, then random edits. After each step every read route is called as a
// player: no word the model says is hidden may appear.
describe(`random documents, visibilities and edits, on ${dialect}`, () => {
  interface Block {
    secret: boolean;
    /** Where the block's word sits, as the editor can write it (see shaped()). */
    shape: number;
    /** Whether its mention carries a label naming the target (the old editor's), else none. */
    labelled: boolean;
    word: string;
    /** Index of a record this block mentions by id, if any. */
    mentions?: number;
  }
  interface PropertyModel {
    gmOnly: boolean;
    /** 0: a text value; 1: a link; 2: a list of a text and a link; 3: a number (the key is the only word). */
    shape: number;
    keyWord: string;
    valueWord: string;
    /** Index of the record a link names. */
    target: number;
  }
  interface RecordModel {
    kind: 'thing' | 'arc';
    gmOnly: boolean;
    nameWord: string;
    blocks: Block[];
    properties: PropertyModel[];
  }
  let wordCounter = 0;
  // Unique, letters only, never a prefix of another (fixed length), never found in any other text.
  const uniqueWord = () => {
    wordCounter += 1;
    let n = wordCounter;
    let s = '';
    for (let i = 0; i < 6; i++) {
      s += String.fromCharCode(97 + (n % 26));
      n = Math.floor(n / 26);
    }
    return `zz${s}qv`;
  };

  const recordArb = fc.record({
    kind: fc.constantFrom<'thing' | 'arc'>('thing', 'arc'),
    gmOnly: fc.boolean(),
    blocks: fc.array(fc.record({ secret: fc.boolean(), shape: fc.nat(6), labelled: fc.boolean(), mentions: fc.option(fc.nat(5), { nil: undefined }) }), { minLength: 1, maxLength: 3 }),
    properties: fc.array(fc.record({ gmOnly: fc.boolean(), shape: fc.nat(3), target: fc.nat(5) }), { minLength: 1, maxLength: 3 }),
  });
  const editArb = fc.oneof(
    fc.record({ op: fc.constant<'visibility'>('visibility'), index: fc.nat(5) }),
    fc.record({ op: fc.constant<'secret'>('secret'), index: fc.nat(5), block: fc.nat(2) }),
    fc.record({ op: fc.constant<'rewrite'>('rewrite'), index: fc.nat(5) }),
    fc.record({ op: fc.constant<'property'>('property'), index: fc.nat(5), property: fc.nat(2) }),
  );

  /** The block's phrasing at a place the editor can put it, the element holding it secret or not. */
  const shaped = (shape: number, isSecret: boolean, inner: unknown[]): unknown => {
    const mark = <T extends object>(node: T) => (isSecret ? asSecret(node) : node);
    switch (shape) {
      case 1: // a list item
        return list(item(p(t('first'))), mark(item(p(...inner))));
      case 2: // a paragraph inside a list item
        return list(item(p(t('first')), mark(p(...inner))));
      case 3: // a nested list
        return list(item(p(t('first')), mark(list(item(p(...inner))))));
      case 4: // a table cell
        return table(row(cell(p(t('head')))), row(mark(cell(p(...inner)))));
      case 5: // a quote in a list item
        return list(item(p(t('first')), mark(quote(p(...inner)))));
      case 6: // an inline link
        return p(t('see '), mark(link('https://example.test/', ...inner)), t('.'));
      default: // a top-level paragraph
        return mark(p(...inner));
    }
  };

  it('never shows a player a hidden word, whatever the documents and edits', async () => {
    let campaigns = 0;
    let checks = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(recordArb, { minLength: 1, maxLength: 5 }), fc.array(editArb, { maxLength: 4 }), async (specs, edits) => {
        campaigns += 1;
        const created = json<{ slug: string }>(await send(owner, 'POST', '/api/campaigns', { newCampaign: { name: `Random ${campaigns}` } }));
        const base = `/api/campaigns/${created.slug}`;
        await joinCampaign(ctx.app, owner, created.slug, player, 'player');
        const typeId = json<{ id: number }[]>(await send(owner, 'GET', `${base}/thing-types`))[0]!.id;
        const models: RecordModel[] = specs.map((spec) => ({
          kind: spec.kind,
          gmOnly: spec.gmOnly,
          nameWord: uniqueWord(),
          blocks: spec.blocks.map((b) => ({ secret: b.secret, shape: b.shape, labelled: b.labelled, word: uniqueWord(), ...(b.mentions === undefined ? {} : { mentions: b.mentions }) })),
          properties: spec.properties.map((pr) => ({ ...pr, keyWord: uniqueWord(), valueWord: uniqueWord() })),
        }));
        const ids: { id: number; slug: string }[] = [];
        const textOf = (model: RecordModel) =>
          model.blocks.map((block) => {
            const target = block.mentions === undefined ? undefined : models[block.mentions % models.length];
            const targetId = block.mentions === undefined ? undefined : ids[block.mentions % models.length];
            const children: unknown[] = [t(`${block.word} `)];
            // As the editor inserts it (no name), or labelled with the target's name (the old editor's).
            if (target && targetId) children.push(block.labelled ? mention(target.kind, targetId.id, `the ${target.nameWord}`) : bareMention(target.kind, targetId.id), t(' '));
            return shaped(block.shape, block.secret, children);
          });
        // Properties with random GM-only flags and links to random records (hidden ones included).
        const propertiesOf = (model: RecordModel) =>
          model.properties.map((pr) => {
            const target = models[pr.target % models.length]!;
            const linked = { targetType: target.kind, targetId: ids[pr.target % models.length]!.id };
            const value = [`says ${pr.valueWord}`, linked, [`says ${pr.valueWord}`, linked], 7][pr.shape % 4];
            return { key: `key ${pr.keyWord}`, value, gmOnly: pr.gmOnly };
          });
        const write = async (i: number, first: boolean) => {
          const model = models[i]!;
          const visibility = model.gmOnly ? 'gm' : 'all';
          // Created without properties (their links need every record's id), then written with them.
          const structure = first ? {} : { properties: propertiesOf(model) };
          if (model.kind === 'thing') {
            const body = { name: `Name ${model.nameWord}`, description: textOf(model), visibility, ...structure };
            if (first) ids[i] = json(await send(owner, 'POST', `${base}/things`, { newThing: { ...body, typeId } }));
            else await send(owner, 'PUT', `${base}/things/${ids[i]!.slug}`, { updatedThing: body });
          } else {
            const body = { name: `Name ${model.nameWord}`, hook: textOf(model), notes: textOf(model), visibility, ...structure };
            if (first) ids[i] = json(await send(owner, 'POST', `${base}/arcs`, { newArc: body }));
            else await send(owner, 'PUT', `${base}/arcs/${ids[i]!.slug}`, { updatedArc: body });
          }
        };
        // Created first, then written again so mentions can name any record.
        for (let i = 0; i < models.length; i++) await write(i, true);
        for (let i = 0; i < models.length; i++) await write(i, false);
        for (let i = 0; i < models.length; i++) {
          if (i % 2 === 0) await send(owner, 'POST', `${base}/things/${ids[models.findIndex((m) => m.kind === 'thing')]?.slug ?? 'none'}/arcs`, { arcSlug: ids[i]!.slug }).catch(() => undefined);
        }

        const check = async () => {
          const propertyWords = (pr: PropertyModel) => [pr.keyWord, ...(pr.shape % 4 === 0 || pr.shape % 4 === 2 ? [pr.valueWord] : [])];
          const hidden = models.flatMap((model) =>
            model.gmOnly
              ? [model.nameWord, ...model.blocks.map((b) => b.word), ...model.properties.flatMap(propertyWords)]
              : [...model.blocks.filter((b) => b.secret).map((b) => b.word), ...model.properties.filter((pr) => pr.gmOnly).flatMap(propertyWords)],
          );
          // No answer may hold a link (a link property or a mention) to a hidden record.
          const hiddenTargets = new Set(models.flatMap((model, i) => (model.gmOnly ? [`${model.kind}:${ids[i]!.id}`] : [])));
          const linksToHidden = (value: unknown) => linkToHidden(value, hiddenTargets);
          const visibleWords = models.filter((m) => !m.gmOnly).flatMap((m) => [m.nameWord, ...m.blocks.filter((b) => !b.secret).map((b) => b.word)]);
          const urls = [base, `${base}/things?fetchAll=true`, `${base}/things?count=1`, `${base}/arcs`, `${base}/rendered`, `${base}/rendered?format=markdown`, `${base}/tags`, `${base}/thing-types`, `${base}/things?sort=name&count=2`, `${base}/things?fields=summary&fetchAll=true`, `${base}/arcs?things=none`];
          const hiddenPaths: string[] = [];
          models.forEach((model, i) => {
            const path = `${base}/${model.kind}s/${ids[i]!.slug}`;
            const paths = [path, `${path}/rendered`, `${path}/rendered?format=markdown`, `${path}/backlinks`, ...(model.kind === 'thing' ? [`${path}/arcs`] : [])];
            // A GM-only record's own routes echo the slug asked for in their 404: checked apart.
            (model.gmOnly ? hiddenPaths : urls).push(...paths);
          });
          for (const path of hiddenPaths) {
            const slug = /\/(?:things|arcs)\/([^/?]+)/.exec(path)![1]!;
            const missing = 'q'.repeat(slug.length);
            const hiddenRes = await send(player, 'GET', path);
            const absentRes = await send(player, 'GET', path.replace(`/${slug}`, `/${missing}`));
            checks += 1;
            if (hiddenRes.statusCode !== 404 || hiddenRes.body.replaceAll(slug, missing) !== absentRes.body) {
              throw new Error(`GET ${path} answers a player otherwise than for a record that does not exist: ${hiddenRes.statusCode} ${hiddenRes.body.slice(0, 300)}`);
            }
          }
          for (const word of [...hidden, ...visibleWords]) urls.push(`${base}/search?q=${word}`, `${base}/search?q=${word.slice(0, 6)}`);
          for (const url of urls) {
            for (const res of await getAllPages({ user: player, headers: {} }, url)) {
              const text = wireText(res);
              for (const word of hidden) {
                checks += 1;
                if (text.includes(word)) throw new Error(`GET ${url} (${res.statusCode}) shows the hidden word ${word}: ${res.body.slice(0, 500)}`);
              }
              if (String(res.headers['content-type']).startsWith('application/json')) {
                const found = linksToHidden(JSON.parse(res.body));
                checks += 1;
                if (found !== undefined) throw new Error(`GET ${url} (${res.statusCode}) links to a hidden record: ${found}`);
              }
            }
          }
          // And what is visible is found: the check can fail.
          for (const word of visibleWords) {
            const found = await send(player, 'GET', `${base}/search?q=${word}`);
            if (!found.body.includes(word)) throw new Error(`a player's search does not find the visible word ${word}`);
          }
        };
        await check();
        for (const edit of edits) {
          const i = edit.index % models.length;
          const model = models[i]!;
          if (edit.op === 'visibility') model.gmOnly = !model.gmOnly;
          else if (edit.op === 'secret') {
            const block = model.blocks[edit.block % model.blocks.length]!;
            block.secret = !block.secret;
          } else if (edit.op === 'property') {
            const property = model.properties[edit.property % Math.max(1, model.properties.length)];
            if (property) property.gmOnly = !property.gmOnly;
          } else {
            model.nameWord = uniqueWord();
            for (const block of model.blocks) block.word = uniqueWord();
            for (const property of model.properties) [property.keyWord, property.valueWord] = [uniqueWord(), uniqueWord()];
          }
          await write(i, false);
          await check();
        }
      }),
      { numRuns: 12 },
    );
    console.log(`leak property test (${dialect}): ${campaigns} random campaigns, ${checks} word checks`);
  });
});
