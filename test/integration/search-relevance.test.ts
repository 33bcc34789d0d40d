import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { dialect } from '../support/test-db.js';

// The relevance table: a fixed corpus, queries covering every tolerance, and the result expected
// first or among the first three. The whole ordered result list of every query is also compared
// with one snapshot shared by both dialects, so SQLite and PostgreSQL must agree to the last place.

const text = (...paragraphs: string[]) => paragraphs.map((p) => ({ type: 'paragraph', children: [{ text: p }] }));

const THINGS: [type: string, name: string, description: string][] = [
  ['NPCs', 'Nezznar the Black Spider', 'A drow wizard who seeks the Forge of Spells in Wave Echo Cave. He commands the Cragmaw goblins through King Grol.'],
  ['NPCs', 'Gundren Rockseeker', 'A dwarf prospector who hired the party to escort a wagon of supplies to Phandalin. He and his brothers found the lost mine.'],
  ['NPCs', 'Sildar Hallwinter', "A human warrior of the Lords' Alliance, captured by goblins on the Triboar Trail."],
  ['NPCs', 'Glasstaff', 'Iarno Albrek, a wizard who leads the Redbrand ruffians from beneath Tresendar Manor.'],
  ['NPCs', 'Klarg', "A bugbear who rules the goblin hideout at Cragmaw Hideout. Klarg's cave reeks of wolves."],
  ['NPCs', 'Agatha', 'A banshee haunting the ruins near Conyberry.'],
  ['NPCs', 'Venomfang', 'A young green dragon lairing in the tower of Thundertree.'],
  ['NPCs', 'Qelline Alderleaf', 'A halfling farmer in Phandalin, wise and kind.'],
  ['NPCs', 'Halia Thornton', "Agent of the Zhentarim who runs the miners' exchange."],
  ['Factions', 'The Harpers', 'A network of spies who oppose tyranny. Sister Garaele is a harper agent.'],
  ['Factions', 'Zhentarim', 'The Black Network: mercenaries and smugglers.'],
  ['Factions', 'Redbrand Ruffians', 'Thugs wearing scarlet cloaks who terrorize Phandalin.'],
  ['Locations', 'Phandalin', 'A frontier town built on the ruins of an older settlement.'],
  ['Locations', 'Cragmaw Hideout', 'A cave hideout of the Cragmaw goblins.'],
  ['Locations', 'Cragmaw Castle', 'A ruined castle, seat of King Grol.'],
  ['Locations', 'Tresendar Manor', 'A ruined manor; the Redbrand hideout is in its cellars.'],
  ['Locations', 'Wave Echo Cave', "The lost mine of the Phandelver's Pact."],
  ['Locations', 'Thundertree', 'A ruined village overrun by twig blights.'],
  ['Items', 'Spider Staff', 'A black staff topped with a spider, carried by Nezznar.'],
  ['Items', 'Lightbringer', 'A mace made for Aldith Tresendar.'],
  ['NPCs', 'Das Mädchen im Wald', 'Ein Märchen aus dem Schwarzwald.'],
  ['Locations', 'Alte Muhle', 'Die Muhle am Fluss.'],
  ['NPCs', '東京の竜', '大きな竜が東京の空を飛ぶ。'],
  ['NPCs', 'Дракон Смауг', 'Огромный красный дракон.'],
  ['NPCs', 'Ἀθηνᾶ Παλλάς', 'Θεά της σοφίας.'],
  ['Items', '🐉 Egg', 'A dragon egg, still warm.'],
  ['NPCs', 'Éloise Dufrène', 'A bard from Waterdeep.'],
  ['NPCs', 'Goblin', 'A small, vicious humanoid.'],
];

const ARCS: { name: string; [field: string]: string }[] = [
  { name: 'Goblin Arrows', hook: 'Goblins ambush the party on the Triboar Trail.', antagonist: 'Klarg and the Cragmaw goblins.', outcome: 'Sildar is rescued.' },
  { name: "The Spider's Web", hook: 'Nezznar the Black Spider hunts for Wave Echo Cave.', key: 'Find the map Gundren carried.' },
  { name: 'Redbrand Hideout', hook: 'The Redbrands terrorize Phandalin.', problem: 'Glasstaff hides in the cellars of Tresendar Manor.' },
  { name: 'Dragon of Thundertree', hook: 'Reidoth the druid knows where Cragmaw Castle lies.', antagonist: 'Venomfang.' },
  { name: "Banshee's Bargain", notes: 'Agatha answers one question for a gift.' },
];

interface Case {
  q: string;
  type?: 'thing' | 'arc' | 'any';
  /** Expected first result (name). */
  first?: string;
  /** Expected among the first three. */
  top3?: string[];
  /** Expected nowhere in the results. */
  absent?: string[];
  covers: string;
}

const CASES: Case[] = [
  { q: 'nezz', first: 'Nezznar the Black Spider', covers: 'prefix' },
  { q: 'Nezznar the Black Spider', first: 'Nezznar the Black Spider', covers: 'exact name' },
  { q: 'nezznar, the black-spider!', first: 'Nezznar the Black Spider', covers: 'exact name, punctuation ignored' },
  { q: 'NEZZNAR', first: 'Nezznar the Black Spider', covers: 'case' },
  { q: 'harper', first: 'The Harpers', covers: 'word form (plural)' },
  { q: 'harpers', first: 'The Harpers', covers: 'word form' },
  { q: 'ruffian', first: 'Redbrand Ruffians', covers: 'word form' },
  { q: 'banshee', first: "Banshee's Bargain", top3: ['Agatha'], covers: 'possessive form in a name, then text' },
  { q: 'madchen', first: 'Das Mädchen im Wald', covers: 'diacritics folded (query without)' },
  { q: 'Mühle', first: 'Alte Muhle', covers: 'diacritics folded (text without)' },
  { q: 'eloise', first: 'Éloise Dufrène', covers: 'diacritics folded' },
  { q: 'golbin', first: 'Goblin', top3: ['Goblin Arrows'], covers: 'typo (transposition)' },
  { q: 'glastaff', first: 'Glasstaff', covers: 'typo (deletion)' },
  { q: 'sildra', first: 'Sildar Hallwinter', covers: 'typo (transposition)' },
  { q: 'gundern rokseeker', first: 'Gundren Rockseeker', covers: 'typos in two words' },
  { q: 'venomfnag', first: 'Venomfang', covers: 'typo' },
  { q: 'phandelinn', first: 'Phandalin', covers: 'two typos' },
  { q: 'triboar trial', top3: ['Goblin Arrows', 'Sildar Hallwinter'], covers: 'typo in a five-letter word, text match' },
  { q: 'thundertre', first: 'Thundertree', top3: ['Dragon of Thundertree'], covers: 'prefix, shorter name first' },
  { q: 'zhent', first: 'Zhentarim', top3: ['Halia Thornton'], covers: 'prefix in name, then in text' },
  { q: '東京', first: '東京の竜', covers: 'CJK bigram' },
  { q: '竜', first: '東京の竜', covers: 'CJK single character' },
  { q: 'дракон', first: 'Дракон Смауг', covers: 'Cyrillic, case folded' },
  { q: 'СМАУГ', first: 'Дракон Смауг', covers: 'Cyrillic upper case' },
  { q: 'αθηνα', first: 'Ἀθηνᾶ Παλλάς', covers: 'Greek, accents and breathings folded' },
  { q: '🐉', first: '🐉 Egg', covers: 'emoji' },
  { q: 'cragmaw castle', first: 'Cragmaw Castle', top3: ['Cragmaw Hideout'], covers: 'exact name before name words' },
  { q: 'redbrand hideout', first: 'Redbrand Hideout', top3: ['Tresendar Manor'], covers: 'exact name, then text with both words' },
  { q: 'wave echo', first: 'Wave Echo Cave', covers: 'name prefix' },
  { q: "klarg's cave", first: 'Klarg', covers: 'more query words matched first' },
  { q: 'dragon', first: 'Dragon of Thundertree', top3: ['🐉 Egg', 'Venomfang'], covers: 'name word, then text' },
  { q: 'spider', top3: ['Spider Staff', 'Nezznar the Black Spider', "The Spider's Web"], covers: 'name words (and word forms) before text' },
  { q: 'spider staff', first: 'Spider Staff', top3: ['Nezznar the Black Spider'], covers: 'exact name, then a name and text with both words' },
  { q: 'bugbear', first: 'Klarg', covers: 'text only' },
  { q: 'twig blights', first: 'Thundertree', covers: 'text, word form' },
  { q: 'sword coast', first: 'Lost Mine of Phandelver', covers: 'campaign description' },
  { q: 'sword coast', type: 'thing', absent: ['Lost Mine of Phandelver'], covers: 'type filter excludes the campaign' },
  { q: 'goblin', type: 'arc', first: 'Goblin Arrows', absent: ['Goblin'], covers: 'type filter' },
];

let ctx: TestContext;
let owner: TestUser;
let base: string;

beforeAll(async () => {
  ctx = await createTestContext();
  owner = await ctx.createUser();
  const campaign = json(
    await ctx.app.inject({
      method: 'POST',
      url: '/api/campaigns',
      headers: owner.headers,
      payload: { newCampaign: { name: 'Lost Mine of Phandelver', description: text('Adventures along the Sword Coast, south of Neverwinter.') } },
    }),
  );
  base = `/api/campaigns/${campaign.slug}`;
  const types = new Map<string, number>(
    json<{ id: number; name: string }[]>(await ctx.app.inject({ method: 'GET', url: `${base}/thing-types`, headers: owner.headers })).map((t) => [t.name, t.id]),
  );
  const factions = await ctx.app.inject({ method: 'POST', url: `${base}/thing-types`, headers: owner.headers, payload: { newThingType: { name: 'Factions' } } });
  types.set('Factions', json(factions).id);
  for (const [type, name, description] of THINGS) {
    const res = await ctx.app.inject({
      method: 'POST',
      url: `${base}/things`,
      headers: owner.headers,
      payload: { newThing: { name, typeId: types.get(type), description: text(description) } },
    });
    expect(res.statusCode).toBe(201);
  }
  for (const { name, ...fields } of ARCS) {
    const texts = Object.fromEntries(Object.entries(fields).map(([field, value]) => [field, text(value)]));
    const res = await ctx.app.inject({ method: 'POST', url: `${base}/arcs`, headers: owner.headers, payload: { newArc: { name, ...texts } } });
    expect(res.statusCode).toBe(201);
  }
});
afterAll(() => ctx.close());

async function search(q: string, type?: string) {
  const params = new URLSearchParams({ q, limit: '10', ...(type ? { type } : {}) });
  const res = await ctx.app.inject({ method: 'GET', url: `${base}/search?${params.toString()}`, headers: owner.headers });
  expect(res.statusCode, res.body).toBe(200);
  return json<{ results: { type: string; name: string; score: number; excerpt: string; highlights: string[] }[] }>(res).results;
}

describe(`search relevance on ${dialect}`, () => {
  it(`has at least 25 cases covering every tolerance (${CASES.length})`, () => {
    expect(CASES.length).toBeGreaterThanOrEqual(25);
  });

  it.each(CASES)('$q ($covers)', async ({ q, type, first, top3, absent }) => {
    const names = (await search(q, type)).map((r) => r.name);
    if (first !== undefined) expect(names[0], JSON.stringify(names)).toBe(first);
    for (const name of top3 ?? []) expect(names.slice(0, 3), JSON.stringify(names)).toContain(name);
    for (const name of absent ?? []) expect(names).not.toContain(name);
  });

  it('orders every query identically on both databases (shared snapshot)', async () => {
    const lines: string[] = [];
    for (const { q, type } of CASES) {
      const results = await search(q, type);
      lines.push(`${q}${type ? ` [${type}]` : ''} → ${results.map((r) => `${r.type}:${r.name} ${r.score}`).join(' | ')}`);
    }
    await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot('__snapshots__/search-relevance.orders.txt');
  });

  it('returns scores in descending order with the tier as integer part', async () => {
    for (const { q, type } of CASES) {
      const scores = (await search(q, type)).map((r) => r.score);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
      for (const score of scores) expect(score >= 1 && score < 4).toBe(true);
    }
    expect(Math.floor((await search('Zhentarim'))[0]!.score)).toBe(3);
    expect(Math.floor((await search('zhent'))[0]!.score)).toBe(2);
    expect(Math.floor((await search('bugbear'))[0]!.score)).toBe(1);
  });

  it('gives an excerpt around the match and the matched words as written', async () => {
    const [klarg] = await search('wolves');
    expect(klarg).toMatchObject({ name: 'Klarg', highlights: ['wolves'] });
    expect(klarg!.excerpt).toContain('wolves');
    const [harpers] = await search('harper');
    expect(harpers!.highlights).toEqual(['Harpers', 'harper']);
    const [madchen] = await search('MADCHEN');
    expect(madchen!.highlights).toContain('Mädchen');
    const [dragon] = await search('竜');
    expect(dragon!.highlights).toEqual(['竜']);
  });
});
