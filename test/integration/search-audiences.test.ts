// "Search is blind to what the caller may not see" (CONTRACT, Phase 3): a player's results — which
// records, their order, excerpts, highlights and scores — are exactly those of a copy of the
// campaign in which the GM-only records, secret blocks and GM-only properties never existed. The vocabulary that
// expands a query (prefixes, typos) and the statistics that rank it are the player's own.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type TestContext, type TestUser } from '../support/app.js';
import { contextWithUsers, newCampaign, sendAs, type TestCampaign } from '../support/fixtures.js';
import { joinCampaign } from '../support/sharing.js';
import { dialect } from '../support/test-db.js';

let ctx: TestContext;
let owner: TestUser;
let player: TestUser;
beforeAll(async () => ({ ctx, owner, stranger: player } = await contextWithUsers()));
afterAll(() => ctx.close());

interface Paragraph {
  words: string[];
  secret: boolean;
}
interface Thing {
  name: string;
  paragraphs: Paragraph[];
  gmOnly: boolean;
  /** Properties (issue 25): each a text value, GM-only when `secret`. */
  properties?: Paragraph[];
  aliases?: string[];
}
interface Model {
  description: Paragraph[];
  things: Thing[];
}

// An empty rich-text value is not accepted: no paragraphs, no description.
const richText = (paragraphs: Paragraph[]) =>
  paragraphs.length === 0
    ? undefined
    : paragraphs.map((p) => ({ type: 'paragraph', ...(p.secret ? { isSecret: true } : {}), children: [{ text: `${p.words.join(' ')}.` }] }));

interface Result {
  type: string;
  name: string;
  excerpt: string;
  highlights: string[];
  score: number;
}

async function playerSearch(c: TestCampaign, q: string): Promise<Result[]> {
  const res = await ctx.app.inject({ method: 'GET', url: `${c.base}/search?q=${encodeURIComponent(q)}&limit=100`, headers: player.headers });
  expect(res.statusCode, res.body).toBe(200);
  // Campaigns differ by name only; records are compared by what a player reads of them.
  return json<{ results: Result[] }>(res).results.map(({ type, name, excerpt, highlights, score }) => ({
    type,
    name: type === 'campaign' ? '(campaign)' : name,
    excerpt,
    highlights,
    score,
  }));
}

/** Creates the campaign of the model through the API, with the player as a member; `visibleOnly`: without its hidden content. */
async function build(model: Model, visibleOnly: boolean): Promise<TestCampaign> {
  const visible = (paragraphs: Paragraph[]) => (visibleOnly ? paragraphs.filter((p) => !p.secret) : paragraphs);
  const description = richText(visible(model.description));
  const c = await newCampaign(ctx.app, owner, undefined, description ? { description } : {});
  await joinCampaign(ctx.app, owner, c.slug, player, 'player');
  for (const thing of model.things) {
    if (visibleOnly && thing.gmOnly) continue;
    const text = richText(visible(thing.paragraphs));
    // Keys as in the whole model, so that excerpts (`key: value`) read the same in the copy.
    const properties = (thing.properties ?? [])
      .map((p, i) => ({ key: `p${i}`, value: p.words.join(' '), gmOnly: p.secret }))
      .filter((p) => !(visibleOnly && p.gmOnly));
    const res = await sendAs(ctx.app, owner, 'POST', `${c.base}/things`, {
      newThing: {
        name: thing.name,
        typeId: c.typeId,
        visibility: thing.gmOnly ? 'gm' : 'all',
        ...(text ? { description: text } : {}),
        properties,
        aliases: thing.aliases ?? [],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
  }
  return c;
}

// Words that complete, misspell and crowd one another: the secret "nezznar" and the visible "nizzy"
// are two typos apart; "goblin", "golbin", "goblet" and "gobble" share prefixes and typo keys.
const WORDS = ['nezznar', 'nezzar', 'nizzy', 'goblin', 'golbin', 'goblet', 'gobble', 'dragon', 'wagon', 'spider', 'spire', 'sildar', 'tower', 'towering', 'the', 'black'];
const QUERIES = [
  ...WORDS,
  ...WORDS.map((w) => w.slice(0, 4)),
  ...['nezz', 'nizz', 'gob', 'golbni', 'nezznr', 'sildra', 'sildra tower', 'the black', 'spidre', 'drgaon', 'wagn', 'towr', 'blak'],
];

const paragraph = fc.record({ words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 }), secret: fc.boolean() });
const model: fc.Arbitrary<Model> = fc.record({
  description: fc.array(paragraph, { maxLength: 3 }),
  things: fc.array(
    fc.record({
      name: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }).map((words) => words.join(' ')),
      paragraphs: fc.array(paragraph, { maxLength: 4 }),
      gmOnly: fc.boolean(),
      properties: fc.array(paragraph, { maxLength: 3 }),
      aliases: fc.uniqueArray(fc.constantFrom(...WORDS), { maxLength: 2 }),
    }),
    { minLength: 1, maxLength: 6 },
  ),
});

describe(`search blind to hidden content on ${dialect}`, () => {
  it('a player searching for "nezz" finds the visible "Nizzy" whatever secret word "Nezznar" exists', async () => {
    const base: Model = { description: [], things: [{ name: 'Nizzy', paragraphs: [{ words: ['a', 'cat'], secret: false }], gmOnly: false }] };
    const gmOnlyRecord: Model = { ...base, things: [...base.things, { name: 'Nezznar the Black Spider', paragraphs: [], gmOnly: true }] };
    const secretBlock: Model = {
      ...base,
      things: [{ name: 'Nizzy', paragraphs: [{ words: ['a', 'cat'], secret: false }, { words: ['serves', 'nezznar'], secret: true }], gmOnly: false }],
    };
    const without = await playerSearch(await build(base, false), 'nezz');
    expect(without.map((r) => r.name)).toEqual(['Nizzy']);
    expect(await playerSearch(await build(gmOnlyRecord, false), 'nezz')).toEqual(without);
    expect(await playerSearch(await build(secretBlock, false), 'nezz')).toEqual(without);
    const gmOnlyProperty: Model = { ...base, things: [{ ...base.things[0]!, properties: [{ words: ['nezznar'], secret: true }] }] };
    expect(await playerSearch(await build(gmOnlyProperty, false), 'nezz')).toEqual(without);
  });

  it('a player prefix search is not crowded out by hidden completions', async () => {
    // More hidden completions of "gob" than a search keeps (16): the visible one must still be found.
    const hidden = Array.from({ length: 20 }, (_, i) => `gob${String.fromCharCode(97 + i)}`);
    const m: Model = {
      description: [],
      things: [
        { name: 'Hidden', paragraphs: [{ words: hidden, secret: false }], gmOnly: true },
        { name: 'Seen', paragraphs: [{ words: ['gobzzzzzz'], secret: false }], gmOnly: false },
      ],
    };
    expect((await playerSearch(await build(m, false), 'gob')).map((r) => r.name)).toEqual(['Seen']);
  });

  it('a player’s results equal those of a copy of the campaign without its hidden content', async () => {
    await fc.assert(
      fc.asyncProperty(model, fc.subarray(QUERIES, { minLength: 1, maxLength: 16 }), async (m, queries) => {
        const original = await build(m, false);
        const copy = await build(m, true);
        for (const q of queries) expect(await playerSearch(original, q), q).toEqual(await playerSearch(copy, q));
      }),
      { numRuns: 40 },
    );
  });
});
