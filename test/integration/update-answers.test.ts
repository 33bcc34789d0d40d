// A PUT of a thing or an arc answers with the record as stored. On PostgreSQL, in a request, a save
// that keeps the slug sends its UPDATE with the write's last statement and builds the row it answers with
// (src/db/repositories/common.ts heldRecordUpdate), where the UPDATE's RETURNING answered before: for
// random sequences of PUTs, each changing some of the fields a game master writes (with and
// without If-Match), the answer and its ETag must be what a GET reads right after, for the game
// master; and the players' view must be what it would be (their updatedAt moves only with what
// they see). Runs on both databases (SQLite sends the UPDATE as before: the same answers).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type TestContext, type TestUser } from '../support/app.js';
import { contextWithUsers, newCampaign, sendAs, type TestCampaign } from '../support/fixtures.js';
import { joinCampaign } from '../support/sharing.js';
import { dialect } from '../support/test-db.js';

let ctx: TestContext;
let owner: TestUser;
let player: TestUser;

beforeAll(async () => {
  ({ ctx, owner, stranger: player } = await contextWithUsers());
});
afterAll(() => ctx.close());

const paragraph = (text: string, secret = false) => ({ type: 'paragraph', ...(secret ? { secret: true } : {}), children: [{ text }] });

const word = fc.constantFrom('goblin', 'Ärger', 'cave', 'dragon', 'ŝip', 'lantern', '龍', 'well');
const text = fc.array(word, { minLength: 1, maxLength: 6 }).map((words) => words.join(' '));

/** One PUT's changes: any of the fields a save of the thing page writes, the slug kept. */
const change = fc.record(
  {
    name: text,
    description: fc.array(fc.tuple(text, fc.boolean()), { minLength: 1, maxLength: 3 }).map((blocks) => blocks.map(([t, secret]) => paragraph(t, secret))),
    visibility: fc.constantFrom('all', 'gm'),
    type: fc.nat(2),
    properties: fc.array(fc.tuple(fc.constantFrom('species', 'level', 'home'), fc.oneof(text, fc.integer({ min: -5, max: 50 }), fc.boolean()), fc.boolean()), { maxLength: 3 }),
    tags: fc.uniqueArray(fc.constantFrom('ally', 'Kobold', 'villain', 'lost'), { maxLength: 3 }),
    aliases: fc.uniqueArray(fc.constantFrom('the Keeper', 'Old One', 'Mira'), { maxLength: 2 }),
    ifMatch: fc.boolean(),
  },
  { requiredKeys: ['ifMatch'] },
);

type Step = typeof change extends fc.Arbitrary<infer T> ? T : never;

function body(c: TestCampaign, step: Step): Record<string, unknown> {
  const updatedThing: Record<string, unknown> = {};
  for (const key of ['name', 'description', 'visibility', 'tags', 'aliases'] as const) if (step[key] !== undefined) updatedThing[key] = step[key];
  if (step.type !== undefined) updatedThing.typeId = c.types[step.type]!.id;
  if (step.properties !== undefined) {
    // One entry per key (a thing's keys are unique).
    const byKey = new Map(step.properties.map(([key, value, gmOnly]) => [key, { key, value, gmOnly }]));
    updatedThing.properties = [...byKey.values()];
  }
  return { updatedThing };
}

/** One PUT of an arc: any of the fields its page writes, the slug kept. */
const arcChange = fc.record(
  {
    name: text,
    hook: fc.array(fc.tuple(text, fc.boolean()), { minLength: 1, maxLength: 2 }).map((blocks) => blocks.map(([t, secret]) => paragraph(t, secret))),
    outcome: text.map((t) => [paragraph(t)]),
    visibility: fc.constantFrom('all', 'gm'),
    parent: fc.option(fc.nat(1)),
    tags: fc.uniqueArray(fc.constantFrom('act one', 'Heist', 'side'), { maxLength: 2 }),
    ifMatch: fc.boolean(),
  },
  { requiredKeys: ['ifMatch'] },
);

type ArcStep = typeof arcChange extends fc.Arbitrary<infer T> ? T : never;

function arcBody(parents: readonly number[], step: ArcStep): Record<string, unknown> {
  const updatedArc: Record<string, unknown> = {};
  for (const key of ['name', 'hook', 'outcome', 'visibility', 'tags'] as const) if (step[key] !== undefined) updatedArc[key] = step[key];
  if (step.parent !== undefined) updatedArc.parentArcId = step.parent === null ? null : parents[step.parent];
  return { updatedArc };
}

/** The answer is what a GET reads next, ETag included; players see the record with their updatedAt, or not at all when it is GM-only. */
async function expectAnswerStored(put: Awaited<ReturnType<typeof ctx.app.inject>>, url: string, playersSaw: { updatedAt: string } | undefined): Promise<{ updatedAt: string } | undefined> {
  expect(put.statusCode, put.body).toBe(200);
  const read = await ctx.app.inject({ method: 'GET', url, headers: owner.headers });
  expect(json(put)).toEqual(json(read));
  expect(put.headers.etag).toBe(read.headers.etag);
  const record = json<{ visibility: string; updatedAt: string }>(read);
  const asPlayer = await ctx.app.inject({ method: 'GET', url, headers: player.headers });
  if (record.visibility === 'gm') {
    expect(asPlayer.statusCode).toBe(404);
    return playersSaw;
  }
  expect(asPlayer.statusCode, asPlayer.body).toBe(200);
  const seen = json<{ updatedAt: string }>(asPlayer);
  // Players' updatedAt is the write's own time, or what they saw before when the write changed nothing of theirs.
  expect([record.updatedAt, playersSaw?.updatedAt]).toContain(seen.updatedAt);
  return seen;
}

/**
 * For random sequences of changes (`changes`): a new record made by `create` (answering its address),
 * then one PUT a change (`payload`), with If-Match when the change asks, each answer checked.
 */
async function checkPutSequences<Step extends { ifMatch: boolean }>(changes: fc.Arbitrary<Step>, create: (run: number) => Promise<string>, payload: (step: Step) => Record<string, unknown>): Promise<void> {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(changes, { minLength: 1, maxLength: 6 }), async (steps) => {
      run += 1;
      const url = await create(run);
      let etag = (await ctx.app.inject({ method: 'GET', url, headers: owner.headers })).headers.etag as string;
      let playersSaw: { updatedAt: string } | undefined = json<{ updatedAt: string }>(await ctx.app.inject({ method: 'GET', url, headers: player.headers }));
      for (const step of steps) {
        const headers = { ...owner.headers, ...(step.ifMatch ? { 'if-match': etag } : {}) };
        const put = await ctx.app.inject({ method: 'PUT', url, headers, payload: payload(step) });
        playersSaw = await expectAnswerStored(put, url, playersSaw);
        etag = put.headers.etag as string;
      }
    }),
    { numRuns: 25, seed: Number(process.env.FC_SEED ?? Date.now() % 2 ** 31) },
  );
}

describe(`a PUT of a thing or an arc answers with what is stored, on ${dialect}`, () => {
  it('a thing: the answer and its ETag are what a GET reads next, and players see what they would', async () => {
    const c = await newCampaign(ctx.app, owner, 'Answers as stored');
    await joinCampaign(ctx.app, owner, c.slug, player, 'player');
    await checkPutSequences(
      change,
      async (run) => `${c.base}/things/${json<{ slug: string }>(await sendAs(ctx.app, owner, 'POST', `${c.base}/things`, { newThing: { name: `Subject ${run}`, typeId: c.typeId } })).slug}`,
      (step) => body(c, step),
    );
  });

  it('an arc: the same, parent moves included', async () => {
    const c = await newCampaign(ctx.app, owner, 'Arc answers as stored');
    await joinCampaign(ctx.app, owner, c.slug, player, 'player');
    const parents: number[] = [];
    for (const name of ['Act One', 'Act Two']) parents.push(json<{ id: number }>(await sendAs(ctx.app, owner, 'POST', `${c.base}/arcs`, { newArc: { name } })).id);
    await checkPutSequences(
      arcChange,
      async (run) => `${c.base}/arcs/${json<{ slug: string }>(await sendAs(ctx.app, owner, 'POST', `${c.base}/arcs`, { newArc: { name: `Scene ${run}` } })).slug}`,
      (step) => arcBody(parents, step),
    );
  });
});
