import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type TestUser } from '../support/app.js';
import { contextWithUsers, sendAs } from '../support/fixtures.js';
import { joinCampaign } from '../support/sharing.js';
import { dialect } from '../support/test-db.js';
import { multipartFile, zipOf } from '../support/zip.js';
import { premiumUser } from '../fixtures/image-app.js';
import { png } from '../fixtures/images.js';
import { mention, p, t } from '../fixtures/rich-text.js';
import type { TestContext } from '../support/app.js';

// A vault made elsewhere, with GM secrets in Obsidian and HTML comments (CONTRACT "Import from
// elsewhere"): imported, the comments are secret blocks and inline secrets; a player finds none of
// their words by search and reads none of them in the record or its rendered page; the GM does.

let ctx: TestContext;
let gm: TestUser;
let player: TestUser;
beforeAll(async () => {
  ({ ctx, owner: gm, stranger: player } = await contextWithUsers());
});
afterAll(() => ctx.close());

const DUKE = `# Duke Ulbrin

The duke rules the harbour ward. %% He is a doppelganger wearing the duke's face. #secret %%

%%
The real duke is held in the *vaults* below the keep.

He is fed fortnightly.
%%

<!-- GM: the portcullis code is sunflower -->

> [!warning] Guards
> Twelve guards at the gate, ==always armed==.

- [x] Meet the duke
- [ ] Find the cellar ^task-1

He trusts [[Drewid 'Geoff' Barrymore|Rosie]], who is:
![[Drewid 'Geoff' Barrymore]]
`;

const DREWID = `Drewid runs the tavern. %% Unclosed: his tavern hides the thieves' guild.

Everything from here on is hidden, as Obsidian hides it.
`;

async function importVault(): Promise<string> {
  const vault = await zipOf([
    { name: 'Harbour/NPCs/Duke Ulbrin.md', data: DUKE },
    { name: "Harbour/NPCs/Drewid 'Geoff' Barrymore.md", data: DREWID },
  ]);
  const form = multipartFile(vault, 'harbour.zip');
  const res = await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...gm.headers, ...form.headers }, payload: form.payload });
  expect(res.statusCode, res.body).toBe(201);
  const slug = json<{ slug: string }>(res).slug;
  await joinCampaign(ctx.app, gm, slug, player, 'player');
  return slug;
}

const SECRET_WORDS = ['doppelganger', 'fortnightly', 'sunflower', 'portcullis', 'thieves', 'everything'];

describe(`a vault's comments on ${dialect}`, () => {
  it('become secret blocks and inline secrets: a player neither finds nor reads a word of them, the GM does', async () => {
    const slug = await importVault();
    const base = `/api/campaigns/${slug}`;
    const things = json<{ id: number; slug: string; name: string }[]>(await sendAs(ctx.app, gm, 'GET', `${base}/things?fetchAll=true`));
    const id = (name: string) => things.find((x) => x.name === name)!.id;
    const duke = things.find((x) => x.name === 'Duke Ulbrin')!;
    const drewid = things.find((x) => x.name === "Drewid 'Geoff' Barrymore")!;

    // What the GM reads: exactly the note, its comments as secrets.
    const description = json<{ description: unknown[] }>(await sendAs(ctx.app, gm, 'GET', `${base}/things/${duke.slug}`)).description;
    expect(description).toEqual([
      p(t('The duke rules the harbour ward. '), { type: 'span', isSecret: true, children: [t("He is a doppelganger wearing the duke's face. #secret")] }),
      { type: 'paragraph', isSecret: true, children: [t('The real duke is held in the '), t('vaults', { italic: true }), t(' below the keep.')] },
      { type: 'paragraph', isSecret: true, children: [t('He is fed fortnightly.')] },
      { type: 'paragraph', isSecret: true, children: [t('GM: the portcullis code is sunflower')] },
      { type: 'callout', kind: 'warning', title: 'Guards', children: [p(t('Twelve guards at the gate, '), t('always armed', { highlight: true }), t('.'))] },
      {
        type: 'bulleted-list',
        children: [
          { type: 'list-item', checked: true, children: [t('Meet the duke')] },
          { type: 'list-item', checked: false, children: [t('Find the cellar')] },
        ],
      },
      p(t('He trusts '), mention('thing', id("Drewid 'Geoff' Barrymore"), 'Rosie'), t(', who is:')),
      p(mention('thing', id("Drewid 'Geoff' Barrymore"))),
    ]);

    for (const word of SECRET_WORDS) {
      const asPlayer = await sendAs(ctx.app, player, 'GET', `${base}/search?q=${word}&limit=100`);
      expect(asPlayer.statusCode).toBe(200);
      expect(json<{ results: unknown[] }>(asPlayer).results, `${word}: ${asPlayer.body}`).toEqual([]);
      const asGm = json<{ results: { name: string }[] }>(await sendAs(ctx.app, gm, 'GET', `${base}/search?q=${word}&limit=100`)).results;
      expect(asGm.length, word).toBeGreaterThan(0);
    }

    for (const thing of [duke, drewid]) {
      const record = await sendAs(ctx.app, player, 'GET', `${base}/things/${thing.slug}`);
      const html = await sendAs(ctx.app, player, 'GET', `${base}/things/${thing.slug}/rendered?format=html`);
      const markdown = await sendAs(ctx.app, player, 'GET', `${base}/things/${thing.slug}/rendered?format=markdown`);
      const gmHtml = await sendAs(ctx.app, gm, 'GET', `${base}/things/${thing.slug}/rendered?format=html`);
      for (const res of [record, html, markdown, gmHtml]) expect(res.statusCode, res.body).toBe(200);
      for (const word of SECRET_WORDS) {
        expect(record.body).not.toContain(word);
        expect(html.body).not.toContain(word);
        expect(markdown.body).not.toContain(word);
      }
      expect(gmHtml.body).toContain(thing === duke ? 'doppelganger' : 'thieves');
    }
    // The label is what the page shows of the mention; the embed alone on its line shows the name.
    const html = json<{ fields: { description: string } }>(await sendAs(ctx.app, player, 'GET', `${base}/things/${duke.slug}/rendered?format=html`)).fields.description;
    expect(html).toContain(`data-id="${drewid.id}" href="/campaigns/${slug}/things/${drewid.slug}">Rosie</a>`);
    expect(html).toContain(`<p><a class="mention" data-type="thing" data-id="${drewid.id}" href="/campaigns/${slug}/things/${drewid.slug}">Drewid 'Geoff' Barrymore</a></p>`);
    expect(html).toContain('The duke rules the harbour ward.');

    const drewidText = json<{ description: unknown[] }>(await sendAs(ctx.app, gm, 'GET', `${base}/things/${drewid.slug}`)).description;
    expect(drewidText).toEqual([
      p(t('Drewid runs the tavern. ')),
      { type: 'paragraph', isSecret: true, children: [t("Unclosed: his tavern hides the thieves' guild.")] },
      { type: 'paragraph', isSecret: true, children: [t('Everything from here on is hidden, as Obsidian hides it.')] },
    ]);
  });
});

describe(`images in a vault's secrets on ${dialect}`, () => {
  // Uploaded images need premium.
  let owner: TestUser;
  beforeAll(async () => {
    owner = await premiumUser(ctx);
  });

  it('an image left out of the import keeps its secrecy: a player never reads its alt text or its file name', async () => {
    const vault = await zipOf([
      { name: 'Crypt/attachments/forged.png', data: '<svg xmlns="http://www.w3.org/2000/svg"/>' },
      { name: 'Crypt/Crypt.md', data: 'The crypt is quiet.\n\n%% ![[forged.png|The duke is the killer]] %%\n\n> [!secret]\n> ![[forged.png]]\n\n| Room | Clue |\n|---|---|\n| Hall | %% ![[forged.png|The chancellor lied]] %% |\n' },
    ]);
    const form = multipartFile(vault, 'crypt.zip');
    const res = await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...owner.headers, ...form.headers }, payload: form.payload });
    expect(res.statusCode, res.body).toBe(201);
    const slug = json<{ slug: string }>(res).slug;
    await joinCampaign(ctx.app, owner, slug, player, 'player');
    const base = `/api/campaigns/${slug}`;
    const crypt = json<{ slug: string; name: string }[]>(await sendAs(ctx.app, owner, 'GET', `${base}/things?fetchAll=true`)).find((x) => x.name === 'Crypt')!;
    const gmText = JSON.stringify(json<{ description: unknown[] }>(await sendAs(ctx.app, owner, 'GET', `${base}/things/${crypt.slug}`)).description);
    expect(gmText).toContain('The duke is the killer');
    expect(gmText).toContain('forged.png');
    for (const format of ['', '/rendered?format=html', '/rendered?format=markdown']) {
      const asPlayer = await sendAs(ctx.app, player, 'GET', `${base}/things/${crypt.slug}${format}`);
      expect(asPlayer.statusCode, asPlayer.body).toBe(200);
      expect(asPlayer.body).toContain('The crypt is quiet.');
      for (const word of ['duke', 'killer', 'forged', 'chancellor']) expect(asPlayer.body, `${format}: ${word}`).not.toContain(word);
    }
    for (const word of ['duke', 'forged', 'chancellor']) {
      expect(json<{ results: unknown[] }>(await sendAs(ctx.app, player, 'GET', `${base}/search?q=${word}`)).results, word).toEqual([]);
    }
  });

  it('an alt text seen only in secrets never names the image: a player reading the note that shows it sees no word of it', async () => {
    const vault = await zipOf([
      { name: 'Places/attachments/map.png', data: png([10, 20, 30, 255]) },
      { name: 'Places/attachments/crest.png', data: png([30, 20, 10, 255]) },
      // Read first (alphabetical), so its secrets are the first alt texts seen.
      { name: 'Places/A Inn.md', data: '> [!secret]\n> ![[map.png|Lich lair under the inn]]\n\nThe <span class="secret">![Vampire crest](attachments/crest.png)</span> hangs here.\n\n%% ![[crest.png|Cult of the worm]] %%\n' },
      { name: 'Places/B Town.md', data: 'The town.\n\n![[map.png]]\n\n![[crest.png]]\n' },
    ]);
    const form = multipartFile(vault, 'places.zip');
    const res = await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...owner.headers, ...form.headers }, payload: form.payload });
    expect(res.statusCode, res.body).toBe(201);
    const slug = json<{ slug: string }>(res).slug;
    await joinCampaign(ctx.app, owner, slug, player, 'player');
    const base = `/api/campaigns/${slug}`;
    const town = json<{ slug: string; name: string }[]>(await sendAs(ctx.app, owner, 'GET', `${base}/things?fetchAll=true`)).find((x) => x.name === 'B Town')!;
    for (const format of ['html', 'markdown']) {
      const asPlayer = await sendAs(ctx.app, player, 'GET', `${base}/things/${town.slug}/rendered?format=${format}`);
      expect(asPlayer.statusCode, asPlayer.body).toBe(200);
      expect(asPlayer.body).toContain('The town.');
      for (const word of ['Lich', 'lair', 'Vampire', 'Cult', 'worm']) expect(asPlayer.body, `${format}: ${word}`).not.toContain(word);
    }
  });
});
