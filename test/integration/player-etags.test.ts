// A player's answers do not move when only hidden content changes (CONTRACT "Secrets that hold"):
// on every campaign GET route a player may call, the body and the ETag stay the same, and the old
// ETag is still a 304, while a game master edits GM-only records and secret blocks; a visible
// edit moves them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type TestContext, type TestUser } from '../support/app.js';
import { contextWithUsers, createThing, newCampaign, type TestCampaign } from '../support/fixtures.js';
import { joinCampaign } from '../support/sharing.js';
import { dialect } from '../support/test-db.js';
import { mention, p, t } from '../fixtures/rich-text.js';

let ctx: TestContext;
let owner: TestUser;
let player: TestUser;
let c: TestCampaign;

const secret = (...children: unknown[]) => ({ type: 'paragraph', isSecret: true, children });

beforeAll(async () => {
  ({ ctx, owner } = await contextWithUsers());
  player = await ctx.createUser();
});
afterAll(async () => {
  await ctx.close();
});

async function send(method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) {
  const res = await ctx.app.inject({ method, url, headers: owner.headers, ...(payload ? { payload } : {}) });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res.body === '' ? undefined : json<{ id: number; slug: string }>(res);
}

interface Seen {
  etag: string;
  body: string;
}

describe(`players’ ETags on ${dialect}`, () => {
  let urls: string[];
  const viewers = () => [
    { name: 'player', headers: player.headers },
    { name: 'gm as player', headers: { ...owner.headers, 'loreforge-view': 'player' } },
  ];

  async function snapshot(): Promise<Map<string, Seen>> {
    const out = new Map<string, Seen>();
    for (const viewer of viewers()) {
      for (const url of urls) {
        const res = await ctx.app.inject({ method: 'GET', url, headers: viewer.headers });
        expect(res.statusCode, `${viewer.name} ${url}`).toBe(200);
        out.set(`${viewer.name} ${url}`, { etag: String(res.headers.etag), body: res.body });
      }
    }
    return out;
  }

  async function expectUnchanged(before: Map<string, Seen>, what: string) {
    const after = await snapshot();
    for (const [key, seen] of before) {
      expect(after.get(key), `${what}: ${key}`).toEqual(seen);
    }
    for (const viewer of viewers()) {
      for (const url of urls) {
        const res = await ctx.app.inject({ method: 'GET', url, headers: { ...viewer.headers, 'if-none-match': before.get(`${viewer.name} ${url}`)!.etag } });
        expect(res.statusCode, `${what}: ${viewer.name} ${url} with If-None-Match`).toBe(304);
        expect(res.body).toBe('');
      }
    }
  }

  let visibleThing: { id: number; slug: string };
  let hiddenThing: { id: number; slug: string };
  let visibleArc: { id: number; slug: string };
  let hiddenArc: { id: number; slug: string };

  beforeAll(async () => {
    c = await newCampaign(ctx.app, owner, 'Quiet Edits');
    await joinCampaign(ctx.app, owner, c.slug, player, 'player');
    hiddenThing = await createThing(ctx.app, owner, c, 'Nezznar', { visibility: 'gm', description: [p(t('the spider'))] });
    visibleThing = await createThing(ctx.app, owner, c, 'Sildar', {
      description: [p(t('A knight. Ask the tavern.')), secret(t('Secretly a spy'), mention('thing', hiddenThing.id))],
    });
    const other = await createThing(ctx.app, owner, c, 'Tavern', { description: [p(t('Where '), mention('thing', visibleThing.id), t(' drinks'))] });
    visibleArc = (await send('POST', `${c.base}/arcs`, { newArc: { name: 'Rescue', hook: [p(t('Find the tavern')), secret(t('trap'))], notes: [p(t('Notes')), secret(t('plan'))] } }))!;
    hiddenArc = (await send('POST', `${c.base}/arcs`, { newArc: { name: 'Betrayal', visibility: 'gm', hook: [p(t('the tavern burns'))] } }))!;
    await send('POST', `${c.base}/things/${visibleThing.slug}/arcs`, { arcSlug: visibleArc.slug });
    await send('PUT', c.base, { updatedCampaign: { description: [p(t('Welcome')), secret(t('the twist'))] } });
    const typeId = c.typeId;
    urls = [
      c.base,
      `${c.base}/rendered`,
      `${c.base}/rendered?format=markdown`,
      `${c.base}/things`,
      `${c.base}/things?count=1`,
      `${c.base}/arcs`,
      `${c.base}/thing-types`,
      `${c.base}/thing-types/${typeId}`,
      `${c.base}/search?q=tavern`,
      ...[visibleThing, other].flatMap((thing) => {
        const path = `${c.base}/things/${thing.slug}`;
        return [path, `${path}/rendered`, `${path}/rendered?format=markdown`, `${path}/backlinks`, `${path}/arcs`];
      }),
      `${c.base}/arcs/${visibleArc.slug}`,
      `${c.base}/arcs/${visibleArc.slug}/rendered`,
      `${c.base}/arcs/${visibleArc.slug}/backlinks`,
    ];
  });

  it('stay the same while a game master edits GM-only records and secret blocks, and move with a visible edit', async () => {
    const before = await snapshot();

    await send('PUT', `${c.base}/things/${hiddenThing.slug}`, { updatedThing: { name: 'Nezznar the Black Spider', description: [p(t('the tavern is his'))] } });
    await expectUnchanged(before, 'a GM-only thing changed');
    await send('PUT', `${c.base}/arcs/${hiddenArc.slug}`, { updatedArc: { name: 'The Betrayal', notes: [p(t('tavern'))] } });
    await expectUnchanged(before, 'a GM-only arc changed');
    const added = (await send('POST', `${c.base}/things`, { newThing: { name: 'Hidden Tavern Keeper', typeId: c.typeId, visibility: 'gm', description: [p(t('tavern'))] } }))!;
    await send('DELETE', `${c.base}/things/${added.slug}`);
    await expectUnchanged(before, 'a GM-only thing created and deleted');
    await send('PUT', `${c.base}/things/${hiddenThing.slug}`, { updatedThing: { slug: 'black-spider' } });
    await expectUnchanged(before, 'a GM-only thing’s slug changed');

    await send('PUT', `${c.base}/things/${visibleThing.slug}`, {
      updatedThing: { description: [p(t('A knight. Ask the tavern.')), secret(t('Secretly a tavern spy for '), mention('thing', hiddenThing.id))] },
    });
    await expectUnchanged(before, 'a secret block of a visible thing changed');
    await send('PUT', `${c.base}/things/${visibleThing.slug}`, {
      updatedThing: {
        description: [
          p(t('A knight. Ask the tavern.')),
          secret(t('Secretly a tavern spy for '), mention('thing', hiddenThing.id)),
          { type: 'bulleted-list', children: [{ type: 'list-item', isSecret: true, children: [p(t('a nested tavern secret'))] }] },
          { type: 'block-quote', children: [{ type: 'paragraph', isSecret: true, children: [t('quoted '), mention('arc', hiddenArc.id)] }] },
        ],
      },
    });
    await expectUnchanged(before, 'secret elements nested in a list and a quote of a visible thing changed');
    await send('PUT', `${c.base}/arcs/${visibleArc.slug}`, { updatedArc: { hook: [p(t('Find the tavern')), secret(t('a tavern trap'))], notes: [p(t('Notes')), secret(t('more plans'))], protagonist: [secret(t('the mole'))] } });
    await expectUnchanged(before, 'secret blocks of a visible arc changed');
    await send('PUT', c.base, { updatedCampaign: { description: [p(t('Welcome')), secret(t('the tavern twist'))] } });
    await expectUnchanged(before, 'a secret block of the campaign changed');

    // A visible edit moves the record's answers (and the lists and renderings that show it).
    await send('PUT', `${c.base}/things/${visibleThing.slug}`, { updatedThing: { name: 'Sildar Hallwinter' } });
    const after = await snapshot();
    for (const url of [`${c.base}/things/${visibleThing.slug}`, `${c.base}/things`, `${c.base}/things/tavern/rendered`, `${c.base}/arcs/${visibleArc.slug}`]) {
      const was = before.get(`player ${url}`)!;
      const now = after.get(`player ${url}`)!;
      expect(now.body, url).not.toBe(was.body);
      expect(now.etag, url).not.toBe(was.etag);
      const res = await ctx.app.inject({ method: 'GET', url, headers: { ...player.headers, 'if-none-match': was.etag } });
      expect(res.statusCode, url).toBe(200);
    }
  });
});
