// The second half of the editor's property test (web/src/editor/secrecy.property.test.ts): the
// documents that random sequences of the editor's own commands leave (secret blocks at every depth
// the editor produces, mentions as it inserts them, with no name) are stored through the API and
// read as a player in every form: JSON of each record, the lists, rendered HTML and Markdown,
// search, backlinks. No secret word may appear (CONTRACT "Secrets that hold").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { joinCampaign } from '../support/sharing.js';
import { dialect } from '../support/test-db.js';

interface EditorModel {
  sampleEditedDocuments(seed: number, count: number): unknown[][];
  SECRET_WORDS: readonly string[];
  MODEL_THING_IDS: readonly number[];
}

// The web editor's own code (Slate with our plugin), loaded at run time: the server's type check
// does not take in the web app (it has its own), and vitest resolves it as the web project does.
const MODEL_PATH = '../../web/src/editor/secrecy-model.ts';

/** Secret text in the model is written in these capitals only; visible text in lower case. */
const SECRET_LETTER = /[QXZJ]/;
const DOCUMENTS = 24;
const SEED = 2323;

let ctx: TestContext;
let gm: TestUser;
let player: TestUser;
let model: EditorModel;

beforeAll(async () => {
  model = (await import(/* @vite-ignore */ MODEL_PATH)) as EditorModel;
  ctx = await createTestContext();
  gm = await ctx.createUser();
  player = await ctx.createUser();
});
afterAll(async () => {
  await ctx.close();
});

async function send(user: TestUser, method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, headers: Record<string, string> = {}) {
  const res = await ctx.app.inject({ method, url, headers: { ...user.headers, ...headers }, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
  if (res.statusCode >= 400) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res;
}

/** The mentions of the model (things 1 to 3) pointed at real records. */
function withTargets(nodes: unknown, ids: ReadonlyMap<number, number>): unknown {
  if (Array.isArray(nodes)) return nodes.map((node) => withTargets(node, ids));
  if (typeof nodes !== 'object' || nodes === null) return nodes;
  const node = { ...(nodes as Record<string, unknown>) };
  if (node.type === 'mention' && typeof node.targetId === 'number') node.targetId = ids.get(node.targetId) ?? node.targetId;
  if (Array.isArray(node.children)) node.children = withTargets(node.children, ids);
  return node;
}

// Keys whose values are not text anyone wrote (timestamps end in a capital Z).
const NOT_TEXT = new Set(['createdAt', 'updatedAt', 'deletedAt', 'expiresAt', 'version', 'etag', 'cursor', 'next']);

/** Every string of a JSON answer that holds written text, with where it is. */
function textsOf(value: unknown, where = '$', out: [string, string][] = []): [string, string][] {
  if (typeof value === 'string') out.push([where, value]);
  else if (Array.isArray(value)) value.forEach((item, i) => textsOf(item, `${where}[${i}]`, out));
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) if (!NOT_TEXT.has(key)) textsOf(item, `${where}.${key}`, out);
  }
  return out;
}

/** The places in an answer where a secret letter shows. */
function leaksIn(label: string, value: unknown): string[] {
  return textsOf(value)
    .filter(([, text]) => SECRET_LETTER.test(text))
    .map(([where, text]) => `${label} ${where}: ${JSON.stringify(text.slice(0, 80))}`);
}

describe(`documents the editor produces keep their secrets through the API, on ${dialect}`, () => {
  it('shows a player no secret word of them in any form', async () => {
    const documents = model.sampleEditedDocuments(SEED, DOCUMENTS);
    const campaign = json<{ slug: string }>(await send(gm, 'POST', '/api/campaigns', { newCampaign: { name: 'Edited in the editor' } }));
    const base = `/api/campaigns/${campaign.slug}`;
    await joinCampaign(ctx.app, gm, campaign.slug, player, 'player');
    const typeId = json<{ id: number }[]>(await send(gm, 'GET', `${base}/thing-types`))[0]!.id;
    const newThing = async (body: Record<string, unknown>) => json<{ id: number; slug: string }>(await send(gm, 'POST', `${base}/things`, { newThing: { typeId, ...body } }));

    // The model's mentions name two visible things and a GM-only one whose name is secret too.
    const targets = [await newThing({ name: 'sildar' }), await newThing({ name: 'phandalin' }), await newThing({ name: 'lich ZZQXJ', visibility: 'gm' })];
    const ids = new Map(model.MODEL_THING_IDS.map((modelId, i) => [modelId, targets[i]!.id]));

    const records: { slug: string }[] = [];
    let secretDocuments = 0;
    for (const [i, document] of documents.entries()) {
      if (SECRET_LETTER.test(JSON.stringify(document))) secretDocuments += 1;
      records.push(await newThing({ name: `edited ${i}`, description: withTargets(document, ids) }));
    }
    // The campaign's description and an arc's fields take the same documents.
    await send(gm, 'PUT', base, { updatedCampaign: { description: withTargets(documents[0], ids) } });
    const arc = json<{ slug: string }>(await send(gm, 'POST', `${base}/arcs`, { newArc: { name: 'edited arc', hook: withTargets(documents[1], ids), notes: withTargets(documents[2], ids) } }));
    expect(secretDocuments).toBeGreaterThan(DOCUMENTS / 2);

    const leaks: string[] = [];
    let reads = 0;
    const read = async (label: string, url: string, viewer: { user: TestUser; headers: Record<string, string> }) => {
      const res = await send(viewer.user, 'GET', url, undefined, viewer.headers);
      reads += 1;
      leaks.push(...leaksIn(`${label}: GET ${url}`, json(res)));
    };
    for (const [label, viewer] of [
      ['player', { user: player, headers: {} }],
      ['gm as player', { user: gm, headers: { 'loreforge-view': 'player' } }],
    ] as const) {
      for (const record of records) {
        await read(label, `${base}/things/${record.slug}`, viewer);
        for (const format of ['html', 'markdown']) await read(label, `${base}/things/${record.slug}/rendered?format=${format}`, viewer);
      }
      await read(label, `${base}/things?fetchAll=true`, viewer);
      await read(label, base, viewer);
      await read(label, `${base}/arcs`, viewer);
      await read(label, `${base}/arcs/${arc.slug}`, viewer);
      for (const format of ['html', 'markdown']) {
        await read(label, `${base}/rendered?format=${format}`, viewer);
        await read(label, `${base}/arcs/${arc.slug}/rendered?format=${format}`, viewer);
      }
      for (const target of targets.slice(0, 2)) await read(label, `${base}/things/${target.slug}/backlinks`, viewer);
      for (const word of [...model.SECRET_WORDS, 'zzqxj', 'lich']) {
        const res = await send(viewer.user, 'GET', `${base}/search?q=${word.toLowerCase()}&limit=100`, undefined, viewer.headers);
        reads += 1;
        const results = json<{ results: { name: string; excerpt: string }[] }>(res).results;
        leaks.push(...leaksIn(`${label}: search ${word}`, results));
        // A secret word is found in no record a player reads (its visible words are lower case).
        if (word !== 'lich' && results.length > 0) leaks.push(`${label}: search ${word} finds ${results.map((r) => r.name).join(', ')}`);
      }
    }
    console.info(`editor secrets through the API on ${dialect}: ${documents.length} documents (${secretDocuments} with secrets), ${reads} reads, ${leaks.length} leaks`);
    expect(leaks).toEqual([]);

    // The game master does read the secret words: they are real.
    const gmView = json<{ description: unknown }[]>(await send(gm, 'GET', `${base}/things?fetchAll=true`));
    expect(leaksIn('gm', gmView).length).toBeGreaterThan(0);
  });
});
