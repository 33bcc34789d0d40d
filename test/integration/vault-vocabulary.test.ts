// Our own vault keeps callouts, highlights and tasks (CONTRACT "Import from elsewhere": "Markdown
// back to the same callout"; issue 26): a campaign holding them, exported as a Markdown vault
// (`> [!kind] Title`, `==text==`, `- [ ]` / `- [x]`) and imported again, has the same rich text.
// The vault reader's side of this is src/portability/vault/convert.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { premiumUser } from '../fixtures/image-app.js';
import { sendAs } from '../support/fixtures.js';
import { dialect } from '../support/test-db.js';
import { multipartFile, unzip } from '../support/zip.js';
import { p, t } from '../fixtures/rich-text.js';

let ctx: TestContext;
let owner: TestUser;

beforeAll(async () => {
  ctx = await createTestContext();
  owner = await premiumUser(ctx);
});
afterAll(async () => {
  await ctx.close();
});

const send = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) => sendAs(ctx.app, owner, method, url, payload);
const callout = (fields: { kind: string; title?: string }, ...children: unknown[]) => ({ type: 'callout', ...fields, children });
const task = (checked: boolean, ...children: unknown[]) => ({ type: 'list-item', checked, children });
const item = (...children: unknown[]) => ({ type: 'list-item', children });

// In the shapes the reader gives every block (a list item of one paragraph holds its text).
const DESCRIPTION = [
  callout({ kind: 'warning', title: 'The bridge is out' }, p(t('Take the '), t('ford', { highlight: true }), t(' instead.'))),
  p(t('Strahd is '), t('awake', { highlight: true }), t(', and '), t('hungry', { highlight: true, bold: true }), t('.')),
  { type: 'bulleted-list', children: [task(false, t('Buy rope')), task(true, t('Find the map')), item(t('Not a task'))] },
  { type: 'numbered-list', children: [task(true, t('First')), task(false, t('Second'))] },
  callout({ kind: 'note' }, p(t('No title here.'))),
  callout({ kind: 'tip', title: 'Outer' }, p(t('Outside.')), callout({ kind: 'danger', title: 'Inner' }, p(t('Deep inside.')))),
];
const HOOK = [callout({ kind: 'quote', title: 'Read aloud' }, p(t('The mists part.'))), { type: 'bulleted-list', children: [task(false, t('Light the '), t('lantern', { highlight: true }))] }];

describe(`callouts, highlights and tasks through our own vault on ${dialect}`, () => {
  it('exports them as Obsidian writes them and imports them back to the same rich text', async () => {
    const campaign = json<{ slug: string }>(await send('POST', '/api/campaigns', { newCampaign: { name: 'Curse of Strahd', description: DESCRIPTION } }));
    const base = `/api/campaigns/${campaign.slug}`;
    const typeId = json<{ id: number }[]>(await send('GET', `${base}/thing-types`))[0]!.id;
    const thing = json<{ slug: string }>(await send('POST', `${base}/things`, { newThing: { name: 'Barovia', typeId, description: DESCRIPTION } }));
    const arc = json<{ slug: string }>(await send('POST', `${base}/arcs`, { newArc: { name: 'Into the Mists', hook: HOOK } }));

    const vault = (await send('GET', `${base}/export?format=markdown`)).rawPayload;
    const files = await unzip(vault);
    const note = [...files.entries()].find(([name]) => name.endsWith(`/${thing.slug}.md`))![1].toString('utf8');
    expect(note).toContain('> [!warning] The bridge is out\n>\n> Take the ==ford== instead.\n');
    expect(note).toContain('- [ ] Buy rope\n- [x] Find the map\n- Not a task\n');

    const form = multipartFile(vault, 'vault.zip');
    const res = await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...owner.headers, ...form.headers }, payload: form.payload });
    expect(res.statusCode, res.body).toBe(201);
    const copy = `/api/campaigns/${json<{ slug: string }>(res).slug}`;
    expect(json<{ description: unknown }>(await send('GET', `${copy}/things/${thing.slug}`)).description).toEqual(DESCRIPTION);
    expect(json<{ hook: unknown }>(await send('GET', `${copy}/arcs/${arc.slug}`)).hook).toEqual(HOOK);
    expect(json<{ description: unknown }>(await send('GET', copy)).description).toEqual(DESCRIPTION);
  });
});
