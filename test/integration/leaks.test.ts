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

  const visible = await create('things', { name: 'Sildar Hallwinter', description: [p(t('A knight of the Lords’ Alliance.'))] });
  const hiddenThing = await create('things', {
    name: `Lich ${MARKERS.gmThingName}`,
    visibility: 'gm',
    description: [p(t(`The true name is ${MARKERS.gmThingText}.`)), p(t(`Serves `), mention('thing', visible.id, 'Sildar'), t(` ${MARKERS.gmThingBacklinkSource}`))],
  });
  const hiddenArc = await create('arcs', { name: `Plot ${MARKERS.gmArcName}`, visibility: 'gm', hook: [p(t(`Twist: ${MARKERS.gmArcText}`))] });
  const visibleArc = await create('arcs', {
    name: 'Goblin Arrows',
    parentArcId: hiddenArc.id,
    hook: [p(t('Ambush on the road; the villain is '), mention('thing', hiddenThing.id, 'someone'), t('.')), secret(t(`Really: ${MARKERS.secretInArc}`))],
    notes: [p(t('See '), mention('arc', hiddenArc.id, 'the plot'), t('.'))],
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
  return {
    slug: campaign.slug,
    base,
    params: { campaignSlug: campaign.slug, thingSlug: visible.slug, arcSlug: visibleArc.slug, thingTypeId: String(typeId), userId: player.id, id: '1' },
    hiddenThing: hiddenThing.slug,
    hiddenArc: hiddenArc.slug,
    typeIds: types.map((type) => type.id),
    markers: Object.values(MARKERS),
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
  if (url.endsWith('/things')) return ['', 'count=1', 'count=1000', 'fetchAll=true', 'fetchAll=false&count=2', ...fixture.typeIds.map((id) => `typeId=${id}`)];
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
          expect(hidden.statusCode, `${name}: ${route.url} with a GM-only ${param}`).toBe(404);
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
    console.log(`leak test (${dialect}): ${routeKeys.size} GET routes × ${fixture.markers.length} marker words × ${Object.keys(VIEWERS).length} player views: ${checked} checks`);
  });

  it('shows players what the contract says they see: stripped mentions, top-level arcs, visible links', async () => {
    const fixture = await seedLeakCampaign();
    const arc = json<{ parentArcId: number | null; parentArc: unknown; things: { slug: string }[]; hook: { children: Record<string, unknown>[] }[]; notes: unknown }>(
      await send(player, 'GET', `${fixture.base}/arcs/${fixture.params.arcSlug}`),
    );
    expect(arc.parentArcId).toBeNull();
    expect(arc.parentArc).toBeNull();
    expect(arc.things.map((thing) => thing.slug).sort()).toEqual([fixture.params.thingSlug, 'phandalin'].sort());
    // One block left of the hook; its mention of the GM-only thing keeps its text, loses its target.
    expect(arc.hook).toHaveLength(1);
    expect(arc.hook[0]!.children[1]).toEqual({ type: 'mention', children: [{ text: 'someone' }] });
    const markdown = json<{ fields: { hook: string } }>(await send(player, 'GET', `${fixture.base}/arcs/${fixture.params.arcSlug}/rendered?format=markdown`));
    expect(markdown.fields.hook).toContain('someone');
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

// Random campaigns: things and arcs with random visibility, random blocks (secret or not) and
// random mentions between them, then random edits. After each step every read route is called as a
// player: no word the model says is hidden may appear.
describe(`random documents, visibilities and edits, on ${dialect}`, () => {
  interface Block {
    secret: boolean;
    word: string;
    /** Index of a record this block mentions by id, if any. */
    mentions?: number;
  }
  interface RecordModel {
    kind: 'thing' | 'arc';
    gmOnly: boolean;
    nameWord: string;
    blocks: Block[];
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
    blocks: fc.array(fc.record({ secret: fc.boolean(), mentions: fc.option(fc.nat(5), { nil: undefined }) }), { minLength: 1, maxLength: 3 }),
  });
  const editArb = fc.oneof(
    fc.record({ op: fc.constant<'visibility'>('visibility'), index: fc.nat(5) }),
    fc.record({ op: fc.constant<'secret'>('secret'), index: fc.nat(5), block: fc.nat(2) }),
    fc.record({ op: fc.constant<'rewrite'>('rewrite'), index: fc.nat(5) }),
  );

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
          blocks: spec.blocks.map((b) => ({ secret: b.secret, word: uniqueWord(), ...(b.mentions === undefined ? {} : { mentions: b.mentions }) })),
        }));
        const ids: { id: number; slug: string }[] = [];
        const textOf = (model: RecordModel) =>
          model.blocks.map((block) => {
            const target = block.mentions === undefined ? undefined : models[block.mentions % models.length];
            const targetId = block.mentions === undefined ? undefined : ids[block.mentions % models.length];
            const children: unknown[] = [t(`${block.word} `)];
            if (target && targetId) children.push(mention(target.kind, targetId.id, 'someone'), t(' '));
            return block.secret ? secret(...children) : p(...children);
          });
        const write = async (i: number, first: boolean) => {
          const model = models[i]!;
          const visibility = model.gmOnly ? 'gm' : 'all';
          if (model.kind === 'thing') {
            const body = { name: `Name ${model.nameWord}`, description: textOf(model), visibility };
            if (first) ids[i] = json(await send(owner, 'POST', `${base}/things`, { newThing: { ...body, typeId } }));
            else await send(owner, 'PUT', `${base}/things/${ids[i]!.slug}`, { updatedThing: body });
          } else {
            const body = { name: `Name ${model.nameWord}`, hook: textOf(model), notes: textOf(model), visibility };
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
          const hidden = models.flatMap((model) => (model.gmOnly ? [model.nameWord, ...model.blocks.map((b) => b.word)] : model.blocks.filter((b) => b.secret).map((b) => b.word)));
          const visibleWords = models.filter((m) => !m.gmOnly).flatMap((m) => [m.nameWord, ...m.blocks.filter((b) => !b.secret).map((b) => b.word)]);
          const urls = [base, `${base}/things?fetchAll=true`, `${base}/things?count=1`, `${base}/arcs`, `${base}/rendered`, `${base}/rendered?format=markdown`];
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
          } else {
            model.nameWord = uniqueWord();
            for (const block of model.blocks) block.word = uniqueWord();
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
