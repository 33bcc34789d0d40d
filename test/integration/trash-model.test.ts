import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { newMention } from '../../src/vocabulary/index.js';
import { createTestContext, type TestUser } from '../support/app.js';
import { joinCampaign } from '../support/sharing.js';
import { dialect } from '../support/test-db.js';
import { everyElement, p, t } from '../fixtures/rich-text.js';
import { png } from '../fixtures/images.js';
import {
  ARC_FIELDS,
  CampaignModel,
  nextFree,
  type ArcField,
  type MentionKind,
  type ModelArc,
  type ModelThing,
  type RichText,
  mentionTargets,
  type TrashEntry,
  type Visibility,
} from '../support/trash-model.js';

// Issue 24's model-based property test of deletes (and, with the trash, restores and erases):
// random sequences of creates, edits, slug changes, links, deletes of every kind (a type's cascade
// included) run against the API through app.inject and against a model of what should exist
// (test/support/trash-model.ts). After every step the API's campaign equals the model: the types,
// things, arcs (parent, children, linked things) and assets lists; and for each thing or arc whose
// existence the step changed, search for its own word, its backlinks, the rendered mentions of it
// and a 404 for its slugs once it is gone.
//
// TRASH_MODEL_RUNS sets the runs (default 40, up to 80 commands each); TRASH_MODEL_SEED replays one
// (fast-check prints the seed and the shrunk commands of a failure).

const RUNS = Math.max(1, Number(process.env.TRASH_MODEL_RUNS ?? 40));
const SEED = process.env.TRASH_MODEL_SEED === undefined ? undefined : Number(process.env.TRASH_MODEL_SEED);
const MAX_COMMANDS = 80;
const SHRINK_BUDGET_MS = 60_000;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-trash-model-'));
// Every account premium: the asset commands upload images through the local image host.
const ctx = await createTestContext({ DATA_DIR: dataDir, EVERYONE_PREMIUM: 'true' });
const owner = await ctx.createUser();
// A player of every run's campaign: GM-only records, trashed or restored, never reach them. And a
// game master, who deletes, restores and erases as the owner does.
const player = await ctx.createUser();
const gm = await ctx.createUser();

afterAll(async () => {
  await ctx.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  body: string;
  json: any;
}

async function call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, as: TestUser = owner): Promise<Answer> {
  const res = await ctx.app.inject({ method, url, headers: as.headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
  return { status: res.statusCode, body: res.body, json: res.body === '' ? undefined : JSON.parse(res.body) };
}

/** A request whose status the model predicts; anything else fails the step with the answer. */
async function expectCall(status: number, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, as: TestUser = owner): Promise<Answer> {
  const answer = await call(method, url, payload, as);
  expect(answer.status, `${method} ${url} answered ${answer.body}`).toBe(status);
  return answer;
}

// Words of ten letters drawn from a seeded generator: two of them are never within the two typos
// search tolerates, nor a prefix of one another, so searching one finds only the record holding it.
let wordCounter = 0;
const usedWords = new Set<string>();
function freshWord(): string {
  for (;;) {
    let x = (Math.imul(++wordCounter, 2654435761) ^ 0x9e3779b9) >>> 0;
    let word = '';
    for (let i = 0; i < 10; i++) {
      x = (Math.imul(x ^ (x >>> 15), 2246822519) + 3266489917) >>> 0;
      word += i % 2 === 0 ? 'bdfgklmnprstvz'[x % 14] : 'aeiou'[x % 5];
    }
    if (!usedWords.has(word)) {
      usedWords.add(word);
      return word;
    }
  }
}

const slugOf = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

/**
 * Text with the record's word and mentions as the editor inserts them (inline, between text
 * leaves); with `everything`, the shared document of every element of the vocabulary after it
 * (headings, marks, lists, a table, an image, a secret block, an unknown element with unknown keys),
 * its mention made the editor's (no label: it shows the target's current name).
 */
function textWith(word: string, targets: { kind: MentionKind; id: number }[], prefix = 'Notes on', everything = false): RichText {
  const children: unknown[] = [t(`${prefix} ${word} `)];
  for (const target of targets) children.push(newMention(target.kind, target.id), t(' and '));
  const blocks: RichText = [p(...children)];
  const first = targets[0];
  if (everything && first !== undefined) blocks.push(...(unlabelled(everyElement(first.id), first.kind) as RichText));
  return blocks;
}

function unlabelled(value: unknown, kind: MentionKind): unknown {
  if (Array.isArray(value)) return value.map((v) => unlabelled(v, kind));
  if (typeof value !== 'object' || value === null) return value;
  const node = value as Record<string, unknown>;
  if (node.type === 'mention') return newMention(kind, node.targetId as number);
  return 'children' in node ? { ...node, children: unlabelled(node.children, kind) } : node;
}

const pickFrom = <T,>(items: readonly T[], n: number): T | undefined => (items.length === 0 ? undefined : items[n % items.length]);

/** Up to two mention targets among every thing and arc ever made (live, trashed or gone). */
function targetsOf(m: CampaignModel, picks: number[]): { kind: MentionKind; id: number }[] {
  const all = [...[...m.everThings.keys()].map((id) => ({ kind: 'thing' as const, id })), ...[...m.everArcs.keys()].map((id) => ({ kind: 'arc' as const, id }))];
  return picks.map((n) => pickFrom(all, n)).filter((x): x is { kind: MentionKind; id: number } => x !== undefined);
}

interface Run {
  base: string;
  slug: string;
  campaignId: number;
}

interface Figures {
  runs: number;
  commands: number;
  deletes: number;
  restores: number;
  refusedRestores: number;
  erases: number;
  /** Restores whose answer had a new slug, that moved children back, that brought links back, of a type. */
  slugsChanged: number;
  childrenBack: number;
  linksBack: number;
  typesBack: number;
  /** Restores whose own change merged into the newest revision and made it the one before (not kept). */
  revisionsMergedByRestore: number;
  checks: number;
  ms: number;
}
const figures: Figures = { runs: 0, commands: 0, deletes: 0, restores: 0, refusedRestores: 0, erases: 0, slugsChanged: 0, childrenBack: 0, linksBack: 0, typesBack: 0, revisionsMergedByRestore: 0, checks: 0, ms: 0 };

type Step = fc.AsyncCommand<CampaignModel, Run>;

function command(name: string, run: (m: CampaignModel, r: Run) => Promise<void>, canRun: (m: CampaignModel) => boolean = () => true): Step {
  return { check: canRun, run: async (m, r) => run(m, r), toString: () => name };
}

// ---- Expected answers -------------------------------------------------------------------------

const EMPTY: RichText = [{ type: 'paragraph', children: [{ text: '' }] }];

// The model's records have no properties, tags or aliases (properties.test.ts tests those).
const NO_STRUCTURE = { properties: [], tags: [], aliases: [] };

function expectedThing(thing: ModelThing, r: Run) {
  return { id: thing.id, slug: thing.slug, typeId: thing.typeId, name: thing.name, description: thing.description, visibility: thing.visibility, ...NO_STRUCTURE, campaignId: r.campaignId, createdAt: thing.createdAt };
}

function withoutUpdatedAt(record: Record<string, unknown>) {
  const { updatedAt: _updatedAt, ...rest } = record;
  return rest;
}

const byId = (a: { id: number }, b: { id: number }) => a.id - b.id;
const newestFirst = (a: { createdAt: string; id: number }, b: { createdAt: string; id: number }) => (a.createdAt === b.createdAt ? b.id - a.id : a.createdAt < b.createdAt ? 1 : -1);

function expectedArcRelations(m: CampaignModel, arc: ModelArc, r: Run) {
  const parent = arc.parentArcId === null ? null : m.arcs.get(arc.parentArcId)!;
  const children = [...m.arcs.values()].filter((a) => a.parentArcId === arc.id).sort((a, b) => -newestFirst(a, b));
  const things = m.links.filter((l) => l.arcId === arc.id).map((l) => expectedThing(m.things.get(l.thingId)!, r)).sort(byId);
  return {
    parentArcId: parent?.id ?? null,
    parentArc: parent === null ? null : { id: parent.id, slug: parent.slug, name: parent.name },
    childArcs: children.map((c) => ({ id: c.id, slug: c.slug, name: c.name, createdAt: c.createdAt })),
    things,
  };
}

function expectedArc(m: CampaignModel, arc: ModelArc, r: Run) {
  return { id: arc.id, slug: arc.slug, name: arc.name, ...arc.fields, visibility: arc.visibility, ...NO_STRUCTURE, campaignId: r.campaignId, ...expectedArcRelations(m, arc, r), createdAt: arc.createdAt };
}

/** An arc as the API answers it, without the version fields of the arc and of what it lists (things in id order). */
function comparableArc(arc: any) {
  return {
    ...withoutUpdatedAt(arc),
    childArcs: (arc.childArcs as Record<string, unknown>[]).map(withoutUpdatedAt),
    things: (arc.things as { id: number }[]).map((x) => withoutUpdatedAt(x as never)).sort(byId as never),
  };
}

// ---- The comparison after every step ----------------------------------------------------------

/** A thing type as a game master reads it: its declared fields (none here) and how many live things it has. */
function expectedType(m: CampaignModel, type: { id: number; name: string }, r: Run) {
  return { id: type.id, name: type.name, campaignId: r.campaignId, fields: [], thingCount: [...m.things.values()].filter((thing) => thing.typeId === type.id).length };
}

async function expectCampaignEqualsModel(m: CampaignModel, r: Run): Promise<void> {
  figures.checks++;
  const types = (await expectCall(200, 'GET', `${r.base}/thing-types`)).json;
  expect(types, 'thing types').toEqual([...m.types.values()].sort(byId).map((ty) => expectedType(m, ty, r)));

  const things = (await expectCall(200, 'GET', `${r.base}/things?fetchAll=true`)).json as { id: number; updatedAt: string }[];
  const orderedThings = [...things].sort((a, b) => (a.updatedAt === b.updatedAt ? b.id - a.id : a.updatedAt < b.updatedAt ? 1 : -1));
  expect(things.map((x) => x.id), 'things: newest change first').toEqual(orderedThings.map((x) => x.id));
  expect(things.map((x) => withoutUpdatedAt(x as never)).sort(byId as never), 'things').toEqual([...m.things.values()].sort(byId).map((x) => expectedThing(x, r)));

  const arcs = (await expectCall(200, 'GET', `${r.base}/arcs`)).json as unknown[];
  expect(arcs.map(comparableArc), 'arcs').toEqual([...m.arcs.values()].sort(newestFirst).map((a) => expectedArc(m, a, r)));

  const assets = (await expectCall(200, 'GET', `${r.base}/assets`)).json as { id: number }[];
  expect([...assets].sort(byId), 'assets').toEqual([...m.assets.values()].map((a) => a.body).sort(byId as never));

  const trash = (await expectCall(200, 'GET', `${r.base}/trash`)).json as { deletedAt: string }[];
  expect(
    trash.map(({ deletedAt: _deletedAt, ...rest }) => rest),
    'the trash, newest first',
  ).toEqual(m.trash.map((entry) => expectedTrashEntry(m, entry)));
  expect(trash.map((x) => x.deletedAt), 'the trash, newest first').toEqual(trash.map((x) => x.deletedAt).sort().reverse());

  await expectPlayerViewHolds(m, r);

  const touched = dedupe(m.touched);
  for (const { kind, id } of touched) await expectExistenceHolds(m, r, kind, id);
  // What they mention: a mention by a record that came back is a backlink again, one by a record that went is none.
  const isTouched = (x: { kind: MentionKind; id: number }) => touched.some((y) => y.kind === x.kind && y.id === x.id);
  const mentioned = dedupe(touched.flatMap(({ kind, id }) => mentionTargets(kind === 'thing' ? m.everThings.get(id)! : m.everArcs.get(id)!)));
  for (const target of mentioned.filter((x) => m.isLive(x.kind, x.id) && !isTouched(x)).slice(0, 4)) await expectBacklinks(m, r, target.kind, target.id);
}

/**
 * The changes feed read from the beginning holds exactly the live campaign: an upsert of each live
 * record and link in its current state (restored ones included) and a tombstone for every thing and
 * arc that is in the trash or erased.
 */
async function expectChangesFeedHolds(m: CampaignModel, r: Run): Promise<void> {
  const latest = new Map<string, { op: string; record?: any }>();
  let since: string | undefined;
  for (;;) {
    const page = (await expectCall(200, 'GET', `${r.base}/changes?limit=1000${since === undefined ? '' : `&since=${encodeURIComponent(since)}`}`)).json;
    for (const change of page.changes as { kind: string; id: number | string; op: string; record?: unknown }[]) latest.set(`${change.kind}:${change.id}`, change);
    if (page.more !== true) break;
    since = page.cursor as string;
  }
  const upserted = [...latest].filter(([, change]) => change.op === 'upsert').map(([key]) => key).sort();
  const expected = [
    `campaign:${r.campaignId}`,
    ...[...m.types.keys()].map((id) => `thing-type:${id}`),
    ...[...m.things.keys()].map((id) => `thing:${id}`),
    ...[...m.arcs.keys()].map((id) => `arc:${id}`),
    ...[...m.assets.keys()].map((id) => `asset:${id}`),
    ...m.links.map((l) => `link:${l.thingId}:${l.arcId}`),
  ].sort();
  expect(upserted, 'the changes feed: what it upserts').toEqual(expected);
  for (const thing of m.things.values()) expect(withoutUpdatedAt(latest.get(`thing:${thing.id}`)!.record), `the changes feed: thing ${thing.id}`).toEqual(expectedThing(thing, r));
  for (const arc of m.arcs.values()) {
    const { parentArcId, ...own } = comparableArc(latest.get(`arc:${arc.id}`)!.record) as Record<string, unknown>;
    const wanted = expectedArc(m, arc, r);
    expect({ ...own, parentArcId, parentArc: undefined, childArcs: undefined, things: undefined }, `the changes feed: arc ${arc.id}`).toEqual({ ...wanted, parentArc: undefined, childArcs: undefined, things: undefined });
  }
  for (const type of m.types.values()) expect(latest.get(`thing-type:${type.id}`)!.record, `the changes feed: thing type ${type.id}`).toEqual(expectedType(m, type, r));
  for (const id of m.everThings.keys()) if (!m.things.has(id)) expect(latest.get(`thing:${id}`)?.op, `the changes feed: thing ${id} gone`).toBe('delete');
  for (const id of m.everArcs.keys()) if (!m.arcs.has(id)) expect(latest.get(`arc:${id}`)?.op, `the changes feed: arc ${id} gone`).toBe('delete');
}

/** A player sees the live records that are for everyone (an arc under a GM-only parent as top-level), and no trash. */
async function expectPlayerViewHolds(m: CampaignModel, r: Run): Promise<void> {
  const things = (await expectCall(200, 'GET', `${r.base}/things?fetchAll=true`, undefined, player)).json as { id: number }[];
  expect(things.map((x) => x.id).sort((a, b) => a - b), "the player's things").toEqual([...m.things.values()].filter((x) => x.visibility === 'all').map((x) => x.id).sort((a, b) => a - b));
  const arcs = (await expectCall(200, 'GET', `${r.base}/arcs`, undefined, player)).json as { id: number; parentArcId: number | null }[];
  const visibleArcs = [...m.arcs.values()].filter((a) => a.visibility === 'all').sort(newestFirst);
  const parentFor = (a: ModelArc) => (a.parentArcId !== null && m.arcs.get(a.parentArcId)!.visibility === 'all' ? a.parentArcId : null);
  expect(arcs.map((a) => [a.id, a.parentArcId]), "the player's arcs and their parents").toEqual(visibleArcs.map((a) => [a.id, parentFor(a)]));
  expect((await expectCall(403, 'GET', `${r.base}/trash`, undefined, player)).json.code).toBe('role_forbidden');
}

async function expectBacklinks(m: CampaignModel, r: Run, kind: MentionKind, id: number): Promise<void> {
  const slug = kind === 'thing' ? m.things.get(id)!.slug : m.arcs.get(id)!.slug;
  const backlinks = (await expectCall(200, 'GET', `${r.base}/${collection(kind)}/${slug}/backlinks`)).json as { type: MentionKind; id: number; fields: string[] }[];
  const order = (a: { type: string; id: number }, b: { type: string; id: number }) => `${a.type}${a.id}`.localeCompare(`${b.type}${b.id}`);
  expect(backlinks.map(({ type, id: at, fields }) => ({ type, id: at, fields })).sort(order), `backlinks of ${kind} ${id}`).toEqual(m.backlinksOf(kind, id).sort(order));
}

function expectedTrashEntry(m: CampaignModel, entry: TrashEntry) {
  return {
    kind: entry.kind,
    id: entry.id,
    slug: entry.thing?.slug ?? entry.arc?.slug ?? null,
    name: entry.asset?.label ?? (entry.thing ?? entry.arc ?? entry.type)!.name,
    deletedBy: { userId: entry.deletedBy, name: 'Test User' },
    with: m.withCounts(entry),
  };
}

function dedupe(items: { kind: MentionKind; id: number }[]) {
  const seen = new Map(items.map((x) => [`${x.kind}:${x.id}`, x]));
  return [...seen.values()];
}

const collection = (kind: MentionKind) => (kind === 'thing' ? 'things' : 'arcs');

/** Search, backlinks, rendered mentions and the record's own routes agree on whether it exists. */
async function expectExistenceHolds(m: CampaignModel, r: Run, kind: MentionKind, id: number): Promise<void> {
  const record = kind === 'thing' ? m.everThings.get(id)! : m.everArcs.get(id)!;
  const live = m.isLive(kind, id);
  const found = (await expectCall(200, 'GET', `${r.base}/search?q=${record.word}&limit=100`)).json.results as { type: string; id: number }[];
  expect(found.some((x) => x.type === kind && x.id === id), `search for ${kind} ${id}'s word ${record.word} (${live ? 'live' : 'gone'})`).toBe(live);
  const playerFound = (await expectCall(200, 'GET', `${r.base}/search?q=${record.word}&limit=100`, undefined, player)).json.results as { type: string; id: number }[];
  expect(playerFound.some((x) => x.type === kind && x.id === id), `a player's search for ${kind} ${id} (${live ? record.visibility : 'gone'})`).toBe(live && record.visibility === 'all');

  if (live) {
    await expectBacklinks(m, r, kind, id);
    await expectCall(200, 'GET', `${r.base}/${collection(kind)}/${record.slug}`);
    // Its previous slugs answer again, with the way to its current one.
    for (const slug of record.previousSlugs) {
      const taken = kind === 'thing' ? m.thingSlugTaken(slug) : m.arcSlugTaken(slug);
      if (taken) continue;
      const moved = await ctx.app.inject({ method: 'GET', url: `${r.base}/${collection(kind)}/${slug}`, headers: owner.headers });
      expect([moved.statusCode, moved.headers.location], `${kind} ${id}'s previous slug ${slug}`).toEqual([308, `${r.base}/${collection(kind)}/${record.slug}`]);
    }
  } else {
    for (const slug of [record.slug, ...record.previousSlugs]) {
      if (!m.slugAnswers(kind, slug)) await expectCall(404, 'GET', `${r.base}/${collection(kind)}/${slug}`);
    }
  }
  // A live mentioner renders the mention as a link exactly while the target exists.
  // (to its page, by its current slug and with its current name: the editor's mentions carry no label)
  const anchor = live ? `<a class="mention" data-type="${kind}" data-id="${id}" href="/campaigns/${r.slug}/${collection(kind)}/${record.slug}">${record.name}</a>` : `data-type="${kind}" data-id="${id}"`;
  for (const mentioner of m.backlinksOf(kind, id).slice(0, 2)) {
    const slug = mentioner.type === 'thing' ? m.things.get(mentioner.id)!.slug : m.arcs.get(mentioner.id)!.slug;
    const rendered = (await expectCall(200, 'GET', `${r.base}/${collection(mentioner.type)}/${slug}/rendered`)).json as { fields: Record<string, string> };
    expect(Object.values(rendered.fields).join('\n').includes(anchor), `${mentioner.type} ${mentioner.id} renders its mention of ${kind} ${id} as ${live ? 'a link' : 'missing'}`).toBe(live);
  }
}

// ---- Commands ---------------------------------------------------------------------------------

const visibility = fc.constantFrom<Visibility>('all', 'all', 'gm');
const mentionPicks = fc.array(fc.nat(), { maxLength: 2 });

/** A name: a fresh one, or (`reuse`) that of a record made before, live or not, so the slug clashes. */
function nameFor(prefix: string, known: { name: string }[], reuse: number | undefined): string {
  const reused = reuse === undefined ? undefined : pickFrom(known, reuse);
  return reused?.name ?? `${prefix} ${freshWord()}`;
}

/** Is a type name held by a live type (names are unique case-insensitively)? */
const typeNameTaken = (m: CampaignModel, name: string, except?: number) => [...m.types.values()].some((ty) => ty.id !== except && ty.name.toLowerCase() === name.toLowerCase());

// A fresh name, or (`reuse`) that of a type made before: 409 while that one is live, free once it is in the trash.
const newType: fc.Arbitrary<Step> = fc.option(fc.nat(), { nil: undefined }).map((reuse) =>
  command(`new thing type ${JSON.stringify({ reuse })}`, async (m, r) => {
    const name = nameFor('Kind', [...m.everTypes.values()], reuse);
    if (typeNameTaken(m, name)) {
      expect((await expectCall(409, 'POST', `${r.base}/thing-types`, { newThingType: { name } })).json.code).toBe('name_taken');
      return;
    }
    const type = (await expectCall(201, 'POST', `${r.base}/thing-types`, { newThingType: { name } })).json;
    m.types.set(type.id, { id: type.id, name });
    m.everTypes.set(type.id, m.types.get(type.id)!);
  }),
);

const renameType: fc.Arbitrary<Step> = fc.record({ at: fc.nat(), reuse: fc.option(fc.nat(), { nil: undefined }) }).map((c) =>
  command(
    `rename thing type ${JSON.stringify(c)}`,
    async (m, r) => {
      const type = pickFrom([...m.types.values()], c.at)!;
      const name = nameFor('Kind', [...m.everTypes.values()].filter((ty) => ty.id !== type.id), c.reuse);
      if (typeNameTaken(m, name, type.id)) {
        await expectCall(409, 'PUT', `${r.base}/thing-types/${type.id}`, { updatedThingType: { name } });
        return;
      }
      const answer = (await expectCall(200, 'PUT', `${r.base}/thing-types/${type.id}`, { updatedThingType: { name } })).json;
      type.name = name;
      expect(answer).toEqual(expectedType(m, type, r));
    },
    (m) => m.types.size > 0,
  ),
);

const newThing: fc.Arbitrary<Step> = fc.record({ type: fc.nat(), visibility, mentions: mentionPicks, reuse: fc.option(fc.nat(), { nil: undefined }), everything: fc.boolean() }).map((c) =>
  command(
    `new thing ${JSON.stringify(c)}`,
    async (m, r) => {
      const typeId = pickFrom([...m.types.keys()], c.type)!;
      const name = nameFor('Thing', [...m.everThings.values()], c.reuse);
      const word = freshWord();
      const description = textWith(word, targetsOf(m, c.mentions), 'Notes on', c.everything);
      const slug = nextFree(slugOf(name), m.thingSlugTaken);
      const thing = (await expectCall(201, 'POST', `${r.base}/things`, { newThing: { name, typeId, description, visibility: c.visibility } })).json;
      const modelled: ModelThing = { id: thing.id, slug, previousSlugs: new Set(), typeId, name, description, visibility: c.visibility, createdAt: thing.createdAt, word };
      expect(withoutUpdatedAt(thing), 'the created thing').toEqual(expectedThing(modelled, r));
      m.addThing(modelled);
    },
    (m) => m.types.size > 0,
  ),
);

const editThing: fc.Arbitrary<Step> = fc.record({ at: fc.nat(), change: fc.constantFrom('name', 'description', 'visibility', 'type'), n: fc.nat(), mentions: mentionPicks, reuse: fc.option(fc.nat(), { nil: undefined }) }).map((c) =>
  command(
    `edit thing ${JSON.stringify(c)}`,
    async (m, r) => {
      const thing = pickFrom([...m.things.values()], c.at)!;
      const body: Record<string, unknown> = {};
      if (c.change === 'name') body.name = thing.name = nameFor('Thing', [...m.everThings.values()], c.reuse);
      if (c.change === 'description') body.description = thing.description = textWith(thing.word, targetsOf(m, c.mentions), `Revised ${freshWord()}`);
      if (c.change === 'visibility') body.visibility = thing.visibility = thing.visibility === 'all' ? 'gm' : 'all';
      if (c.change === 'type') body.typeId = thing.typeId = pickFrom([...m.types.keys()], c.n)!;
      const answer = (await expectCall(200, 'PUT', `${r.base}/things/${thing.slug}`, { updatedThing: body })).json;
      expect(withoutUpdatedAt(answer), 'the changed thing').toEqual(expectedThing(thing, r));
    },
    (m) => m.things.size > 0,
  ),
);

const changeSlug: fc.Arbitrary<Step> = fc.record({ kind: fc.constantFrom<MentionKind>('thing', 'arc'), at: fc.nat(), to: fc.option(fc.nat(), { nil: undefined }) }).map((c) =>
  command(
    `change a ${c.kind}'s slug ${JSON.stringify(c)}`,
    async (m, r) => {
      const live: (ModelThing | ModelArc)[] = [...(c.kind === 'thing' ? m.things : m.arcs).values()];
      const record = pickFrom(live, c.at)!;
      // Another record's slug (live: 409; trashed or gone: free at once), or a fresh one.
      const others = [...(c.kind === 'thing' ? m.everThings : m.everArcs).values()].filter((x) => x.id !== record.id && x.slug !== record.slug);
      const slug = (c.to === undefined ? undefined : pickFrom(others, c.to)?.slug) ?? `moved-${freshWord()}`;
      const taken = c.kind === 'thing' ? m.thingSlugTaken(slug) : m.arcSlugTaken(slug);
      const payload = c.kind === 'thing' ? { updatedThing: { slug } } : { updatedArc: { slug } };
      await expectCall(taken ? 409 : 200, 'PUT', `${r.base}/${collection(c.kind)}/${record.slug}`, payload);
      if (!taken) m.changeSlug(c.kind, record.id, slug);
    },
    (m) => (c.kind === 'thing' ? m.things.size : m.arcs.size) > 0,
  ),
);

const newArc: fc.Arbitrary<Step> = fc.record({ parent: fc.option(fc.nat(), { nil: undefined }), visibility, mentions: mentionPicks, reuse: fc.option(fc.nat(), { nil: undefined }) }).map((c) =>
  command(`new arc ${JSON.stringify(c)}`, async (m, r) => {
    const parentArcId = c.parent === undefined ? null : (pickFrom([...m.arcs.keys()], c.parent) ?? null);
    const name = nameFor('Arc', [...m.everArcs.values()], c.reuse);
    const word = freshWord();
    const fields = Object.fromEntries(ARC_FIELDS.map((f) => [f, EMPTY])) as Record<ArcField, RichText>;
    fields.hook = textWith(word, targetsOf(m, c.mentions));
    const slug = nextFree(slugOf(name), m.arcSlugTaken);
    const arc = (await expectCall(201, 'POST', `${r.base}/arcs`, { newArc: { name, parentArcId, visibility: c.visibility, hook: fields.hook } })).json;
    const modelled: ModelArc = { id: arc.id, slug, previousSlugs: new Set(), name, fields, visibility: c.visibility, parentArcId, createdAt: arc.createdAt, word };
    m.addArc(modelled);
    expect(comparableArc(arc), 'the created arc').toEqual(expectedArc(m, modelled, r));
  }),
);

const editArc: fc.Arbitrary<Step> = fc.record({ at: fc.nat(), change: fc.constantFrom('name', 'field', 'visibility', 'parent', 'top-level'), n: fc.nat(), mentions: mentionPicks }).map((c) =>
  command(
    `edit arc ${JSON.stringify(c)}`,
    async (m, r) => {
      const arc = pickFrom([...m.arcs.values()], c.at)!;
      const body: Record<string, unknown> = {};
      if (c.change === 'name') body.name = arc.name = `Arc ${freshWord()}`;
      if (c.change === 'field') {
        const field = ARC_FIELDS[c.n % ARC_FIELDS.length]!;
        // The hook keeps the arc's own word; another field gets text and mentions of its own.
        body[field] = arc.fields[field] = field === 'hook' ? textWith(arc.word, targetsOf(m, c.mentions), `Revised ${freshWord()}`) : textWith(freshWord(), targetsOf(m, c.mentions), 'Also');
      }
      if (c.change === 'visibility') body.visibility = arc.visibility = arc.visibility === 'all' ? 'gm' : 'all';
      if (c.change === 'top-level') body.parentArcId = null;
      if (c.change === 'parent') body.parentArcId = pickFrom([...m.arcs.keys()], c.n)!;
      if (c.change === 'parent' && m.makesCycle(arc.id, body.parentArcId as number)) {
        const refused = await expectCall(400, 'PUT', `${r.base}/arcs/${arc.slug}`, { updatedArc: body });
        expect(refused.json.code).toBe('arc_cycle');
        return;
      }
      if (c.change === 'parent' || c.change === 'top-level') arc.parentArcId = body.parentArcId as number | null;
      const answer = (await expectCall(200, 'PUT', `${r.base}/arcs/${arc.slug}`, { updatedArc: body })).json;
      expect(comparableArc(answer), 'the changed arc').toEqual(expectedArc(m, arc, r));
    },
    (m) => m.arcs.size > 0,
  ),
);

const linking: fc.Arbitrary<Step> = fc.record({ thing: fc.nat(), arc: fc.nat(), unlink: fc.boolean() }).map((c) =>
  command(
    `${c.unlink ? 'unlink' : 'link'} ${JSON.stringify(c)}`,
    async (m, r) => {
      const thing = pickFrom([...m.things.values()], c.thing)!;
      const arc = pickFrom([...m.arcs.values()], c.arc)!;
      if (c.unlink) {
        const linked = m.isLinked(thing.id, arc.id);
        const answer = await expectCall(linked ? 204 : 404, 'DELETE', `${r.base}/things/${thing.slug}/arcs/${arc.slug}`);
        if (!linked) expect(answer.json.code).toBe('link_not_found');
        m.unlink(thing.id, arc.id);
      } else {
        await expectCall(200, 'POST', `${r.base}/things/${thing.slug}/arcs`, { arcSlug: arc.slug });
        m.link(thing.id, arc.id);
      }
    },
    (m) => m.things.size > 0 && m.arcs.size > 0,
  ),
);

const upload: fc.Arbitrary<Step> = fc.constant(
  command('upload an image', async (m, r) => {
    const label = `Map ${freshWord()}`;
    const granted = (await expectCall(200, 'POST', `${r.base}/assets/upload-url`, { label })).json;
    const put = await ctx.app.inject({ method: 'PUT', url: new URL(granted.uploadURL as string).pathname, payload: png(), headers: { 'content-type': 'image/png' } });
    expect(put.statusCode, put.body).toBe(200);
    const asset = (await expectCall(200, 'POST', `${r.base}/assets/confirm-upload`, { imageId: granted.imageId, label })).json.asset;
    m.assets.set(asset.id, { id: asset.id, label, body: asset });
  }),
);

const deleteThingStep: fc.Arbitrary<Step> = fc.tuple(fc.nat(), fc.boolean()).map(([n, byGm]) =>
  command(
    `delete thing ${n}${byGm ? ' (a game master)' : ''}`,
    async (m, r) => {
      const thing = pickFrom([...m.things.values()], n)!;
      const before = (await expectCall(200, 'GET', `${r.base}/things/${thing.slug}`)).body;
      const history = await revisionList(r, 'thing', thing.slug);
      await expectCall(204, 'DELETE', `${r.base}/things/${thing.slug}`, undefined, byGm ? gm : owner);
      settleDelete(Object.assign(m.deleteThing(thing.id, before), { revisions: history.map((revision) => revision.id), newestAuthor: history[0]?.author.userId }), byGm);
    },
    (m) => m.things.size > 0,
  ),
);

const deleteArcStep: fc.Arbitrary<Step> = fc.tuple(fc.nat(), fc.boolean()).map(([n, byGm]) =>
  command(
    `delete arc ${n}${byGm ? ' (a game master)' : ''}`,
    async (m, r) => {
      const arc = pickFrom([...m.arcs.values()], n)!;
      const before = (await expectCall(200, 'GET', `${r.base}/arcs/${arc.slug}`)).body;
      const history = await revisionList(r, 'arc', arc.slug);
      await expectCall(204, 'DELETE', `${r.base}/arcs/${arc.slug}`, undefined, byGm ? gm : owner);
      settleDelete(Object.assign(m.deleteArc(arc.id, before), { revisions: history.map((revision) => revision.id), newestAuthor: history[0]?.author.userId }), byGm);
    },
    (m) => m.arcs.size > 0,
  ),
);

const deleteTypeStep: fc.Arbitrary<Step> = fc.tuple(fc.nat(), fc.boolean()).map(([n, byGm]) =>
  command(
    `delete thing type ${n} (its things go with it)${byGm ? ' (a game master)' : ''}`,
    async (m, r) => {
      const type = pickFrom([...m.types.values()], n)!;
      const before = (await expectCall(200, 'GET', `${r.base}/thing-types/${type.id}`)).body;
      await expectCall(204, 'DELETE', `${r.base}/thing-types/${type.id}`, undefined, byGm ? gm : owner);
      settleDelete(m.deleteType(type.id, before), byGm);
    },
    (m) => m.types.size > 0,
  ),
);

const deleteAssetStep: fc.Arbitrary<Step> = fc.tuple(fc.nat(), fc.boolean()).map(([n, byGm]) =>
  command(
    `delete image ${n}${byGm ? ' (a game master)' : ''}`,
    async (m, r) => {
      const asset = pickFrom([...m.assets.values()], n)!;
      await expectCall(204, 'DELETE', `${r.base}/assets/${asset.id}`, undefined, byGm ? gm : owner);
      settleDelete(m.deleteAsset(asset.id, JSON.stringify(asset.body)), byGm);
    },
    (m) => m.assets.size > 0,
  ),
);

/**
 * A record as text without its version fields, an arc's children and things without theirs (the
 * things in id order): what "byte for byte, ignoring version fields" compares. `overrides` replace
 * fields in place, so the keys keep the API's order.
 */
function restoredText(record: Record<string, unknown>, overrides: Record<string, unknown> = {}): string {
  const copy = JSON.parse(JSON.stringify(record)) as Record<string, unknown>;
  for (const field of ['updatedAt', 'version']) delete copy[field];
  if (Array.isArray(copy.childArcs)) copy.childArcs = (copy.childArcs as Record<string, unknown>[]).map(withoutUpdatedAt);
  if (Array.isArray(copy.things)) copy.things = (copy.things as { id: number }[]).map((x) => withoutUpdatedAt(x as never)).sort(byId as never);
  return JSON.stringify(Object.assign(copy, overrides));
}

/** The restored record as its GET answered before the delete, with what had to change since: the slug, a type's name, an arc's relations. */
function expectedRestoredText(m: CampaignModel, entry: TrashEntry, r: Run): string {
  const before = JSON.parse(entry.before) as Record<string, unknown>;
  switch (entry.kind) {
    case 'thing':
      return restoredText(before, { slug: entry.thing!.slug });
    case 'arc':
      return restoredText(before, { slug: entry.arc!.slug, ...expectedArcRelations(m, entry.arc!, r) });
    case 'thing-type':
      return restoredText(before, { name: entry.type!.name });
    case 'asset':
      return restoredText(before);
  }
}

async function revisionList(r: Run, kind: MentionKind, slug: string): Promise<{ id: number; author: { userId: string } }[]> {
  return (await expectCall(200, 'GET', `${r.base}/${collection(kind)}/${slug}/revisions`)).json as { id: number; author: { userId: string } }[];
}

async function revisionIds(r: Run, kind: MentionKind, slug: string): Promise<number[]> {
  return ((await expectCall(200, 'GET', `${r.base}/${collection(kind)}/${slug}/revisions`)).json as { id: number }[]).map((revision) => revision.id);
}

async function expectImageServed(entry: TrashEntry, status: 200 | 404): Promise<void> {
  const image = await ctx.app.inject({ method: 'GET', url: new URL(entry.asset!.body.url as string).pathname });
  expect(image.statusCode, `asset ${entry.id}'s image`).toBe(status);
}

const restoreStep: fc.Arbitrary<Step> = fc.tuple(fc.nat(), fc.boolean()).map(([n, byGm]) =>
  command(
    `restore trash entry ${n}${byGm ? ' (a game master)' : ''}`,
    async (m, r) => {
      const entry = pickFrom(m.trash, n)!;
      const url = `${r.base}/trash/${entry.kind}/${entry.id}/restore`;
      const blocked = m.restoreBlocked(entry);
      if (blocked !== undefined) {
        expect((await expectCall(409, 'POST', url, undefined, byGm ? gm : owner)).json.code).toBe(blocked);
        figures.refusedRestores++;
        return;
      }
      const slugBefore = entry.thing?.slug ?? entry.arc?.slug ?? null;
      const outcome = m.restore(entry);
      const answer = (await expectCall(200, 'POST', url, undefined, byGm ? gm : owner)).json;
      figures.restores++;
      if (answer.slugChanged === true) figures.slugsChanged++;
      figures.childrenBack += outcome.restored.arcs;
      figures.linksBack += outcome.restored.links;
      if (entry.kind === 'thing-type') figures.typesBack++;
      const slug = entry.kind === 'thing' || entry.kind === 'arc' ? outcome.slug : null;
      expect({ kind: answer.kind, slug: answer.slug, slugChanged: answer.slugChanged, restored: answer.restored }, 'the restore').toEqual({
        kind: entry.kind,
        slug,
        slugChanged: slug !== slugBefore,
        restored: outcome.restored,
      });
      expect(restoredText(answer.record), 'the restored record, as its GET answered before the delete').toBe(expectedRestoredText(m, entry, r));
      if (entry.kind === 'asset') await expectImageServed(entry, 200);
      // Its history is there again: every revision it had before the delete. The newest may have
      // taken the restore's own change (its parent moved back: CONTRACT "Revisions", the same author
      // within REVISION_MERGE_SECONDS updates the latest unnamed revision) and, made identical to
      // the one before it, not be kept; only when the restorer wrote it, and the history is then
      // back at the revision before it (found by a CI seed: a GM's restore, delete and restore again).
      if (entry.revisions !== undefined) {
        const kind = entry.kind === 'thing' ? 'thing' : 'arc';
        const after = await revisionIds(r, kind, outcome.slug);
        const [newest, ...older] = entry.revisions;
        expect(after, `${kind} ${entry.id}'s revisions after its restore`).toEqual(expect.arrayContaining(older));
        if (newest !== undefined && !after.includes(newest)) {
          expect(entry.newestAuthor, `${kind} ${entry.id}'s newest revision gone after its restore, though the restorer did not write it`).toBe((byGm ? gm : owner).id);
          expect(after[0], `${kind} ${entry.id}'s history after its newest revision merged away`).toBe(older[0]);
          figures.revisionsMergedByRestore++;
        }
      }
    },
    (m) => m.trash.length > 0,
  ),
);

const eraseStep: fc.Arbitrary<Step> = fc.tuple(fc.nat(), fc.boolean()).map(([n, byGm]) =>
  command(
    `erase trash entry ${n}${byGm ? ' (a game master)' : ''}`,
    async (m, r) => {
      const entry = pickFrom(m.trash, n)!;
      await expectCall(204, 'DELETE', `${r.base}/trash/${entry.kind}/${entry.id}`, undefined, byGm ? gm : owner);
      m.erase(entry);
      figures.erases++;
      // An erased asset's stored image is gone with it.
      if (entry.kind === 'asset') await expectImageServed(entry, 404);
      expect((await expectCall(404, 'POST', `${r.base}/trash/${entry.kind}/${entry.id}/restore`)).json.code).toBe('trash_entry_not_found');
    },
    (m) => m.trash.length > 0,
  ),
);

// Creates, edits and links weigh more than deletes, so runs build campaigns worth deleting from.
const steps: fc.Arbitrary<Step>[] = [
  ...[newType, renameType, editThing, changeSlug, upload],
  ...[newThing, newThing, newThing, newArc, newArc, newArc, editArc, editArc, linking, linking, linking, linking, linking],
  ...[deleteThingStep, deleteThingStep, deleteArcStep, deleteArcStep, deleteTypeStep, deleteAssetStep],
  ...[restoreStep, restoreStep, restoreStep, restoreStep, eraseStep],
];

function settleDelete(entry: TrashEntry, byGm: boolean): void {
  entry.deletedBy = (byGm ? gm : owner).id;
  figures.deletes++;
}

describe(`trash and restore against a model, on ${dialect}`, () => {
  it(`keeps the API's campaign equal to the model after every step (fast-check commands, ${RUNS} runs of up to ${MAX_COMMANDS})`, async () => {
    const started = performance.now();
    let firstFailureAt: number | undefined;
    await fc.assert(
      fc.asyncProperty(fc.commands(steps, { maxCommands: MAX_COMMANDS, size: 'max' }), async (commands) => {
        // Shrinking replays whole runs against the API: after SHRINK_BUDGET_MS the smaller candidates
        // are let pass, so fast-check reports the smallest failing sequence found by then.
        if (firstFailureAt !== undefined && performance.now() - firstFailureAt > SHRINK_BUDGET_MS) return;
        figures.runs++;
        const campaign = (await expectCall(201, 'POST', '/api/campaigns', { newCampaign: { name: `Trash model ${figures.runs}` } })).json;
        const run: Run = { base: `/api/campaigns/${campaign.slug}`, slug: campaign.slug, campaignId: campaign.id };
        await joinCampaign(ctx.app, owner, campaign.slug, player, 'player');
        await joinCampaign(ctx.app, owner, campaign.slug, gm, 'gm');
        const model = new CampaignModel();
        for (const type of (await expectCall(200, 'GET', `${run.base}/thing-types`)).json as { id: number; name: string }[]) {
          model.types.set(type.id, { id: type.id, name: type.name });
          model.everTypes.set(type.id, model.types.get(type.id)!);
        }
        const checked = [...commands].map((step) => ({
          check: step.check.bind(step),
          toString: step.toString.bind(step),
          async run(m: CampaignModel, r: Run) {
            m.touched = [];
            figures.commands++;
            await step.run(m, r);
            await expectCampaignEqualsModel(m, r);
          },
        }));
        try {
          await fc.asyncModelRun(() => ({ model, real: run }), checked);
          await expectChangesFeedHolds(model, run);
        } catch (error) {
          firstFailureAt ??= performance.now();
          throw error;
        }
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
    figures.ms = Math.round(performance.now() - started);
    console.info(`trash model (${dialect}): ${JSON.stringify(figures)}`);
  }, 180_000);
});
