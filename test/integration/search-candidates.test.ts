// Search ranks a bounded candidate set (repositories/search-rank.ts, issue 28): per matched word the
// CANDIDATES_PER_TERM postings of most impact, plus the exact-name documents. Checked here against
// the ranking it replaced, kept below as the reference: score every matching posting. Whenever no
// word has more matches than that, the two give the same results — records, order, keys, excerpts —
// for game masters and players, with type and tag filters; beyond it, the results are those of the
// reference among the candidates.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchCampaign, type SearchHit } from '../../src/db/repositories/search.js';
import { rankCandidates, type Ranker } from '../../src/db/repositories/search-rank.js';
import { scoreEveryMatch } from '../support/reference-ranking.js';
import { loadHiddenRecords } from '../../src/db/repositories/visible.js';
import { fullView, makeView, type View } from '../../src/access/view.js';
import { AUDIENCE } from '../../src/search/document.js';
import { CANDIDATES_PER_TERM } from '../../src/search/ranking.js';
import type { SearchType } from '../../src/search/params.js';
import type { TestContext, TestUser } from '../support/app.js';
import { contextWithUsers, newCampaign, sendAs, type TestCampaign } from '../support/fixtures.js';
import { dialect } from '../support/test-db.js';

let ctx: TestContext;
let owner: TestUser;
beforeAll(async () => ({ ctx, owner } = await contextWithUsers()));
afterAll(() => ctx.close());


interface Options {
  text: string;
  type: SearchType;
  limit: number;
  tags: string[];
}

async function views(c: TestCampaign): Promise<View[]> {
  const row = await ctx.database.kysely.selectFrom('campaigns').selectAll().where('id', '=', c.id).executeTakeFirstOrThrow();
  const player = makeView(row, 'player', false);
  player.hidden = await loadHiddenRecords(ctx.database.kysely, c.id);
  return [fullView(row), player];
}

async function search(c: TestCampaign, view: View, options: Options, ranker: Ranker) {
  const row = await ctx.database.kysely.selectFrom('campaigns').selectAll().where('id', '=', c.id).executeTakeFirstOrThrow();
  return searchCampaign(ctx.database, row, view, options, ranker);
}

const richText = (words: string[]) => [{ type: 'paragraph', children: [{ text: `${words.join(' ')}.` }] }];

async function addThing(c: TestCampaign, thing: { name: string; words: string[]; secret?: string[]; gmOnly?: boolean; tags?: string[]; typeId?: number }) {
  const description = [...richText(thing.words), ...(thing.secret?.length ? [{ ...richText(thing.secret)[0]!, isSecret: true }] : [])];
  const res = await sendAs(ctx.app, owner, 'POST', `${c.base}/things`, {
    newThing: { name: thing.name, typeId: thing.typeId ?? c.typeId, visibility: thing.gmOnly ? 'gm' : 'all', description, tags: thing.tags ?? [] },
  });
  expect(res.statusCode, res.body).toBe(201);
}

const WORDS = ['goblin', 'golbin', 'goblet', 'gobble', 'dragon', 'dragons', 'wagon', 'tower', 'towering', 'the', 'black', 'spider', 'sildar', 'nezznar'];
const QUERIES = [...WORDS, 'gob', 'drag', 'tow', 'golbni', 'drgaon', 'the black', 'black spider', 'goblin tower the', 'nezznar the black spider'];
const TAGS = ['Cave', 'Town', 'Boss'];

const words = (max: number) => fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: max });
const campaignModel = fc.record({
  description: fc.option(words(6), { nil: undefined }),
  things: fc.array(
    fc.record({
      name: words(4).map((w) => w.join(' ')),
      words: words(10),
      secret: fc.array(fc.constantFrom(...WORDS), { maxLength: 3 }),
      gmOnly: fc.boolean(),
      tags: fc.uniqueArray(fc.constantFrom(...TAGS), { maxLength: 2 }),
      second: fc.boolean(),
    }),
    { minLength: 1, maxLength: 12 },
  ),
});
const searchModel = fc.record({
  text: fc.constantFrom(...QUERIES),
  type: fc.constantFrom<SearchType>('any', 'thing', 'arc'),
  limit: fc.constantFrom(1, 3, 20, 100),
  tags: fc.uniqueArray(fc.constantFrom(...TAGS, 'cave'), { maxLength: 2 }),
});

const comparable = (hits: SearchHit[]) => hits.map((h) => ({ kind: h.kind, id: h.id, name: h.name, texts: h.texts, keys: h.keys }));

describe(`search from a bounded candidate set on ${dialect}`, () => {
  it('equals scoring every match when no word matches more than CANDIDATES_PER_TERM records', async () => {
    await fc.assert(
      fc.asyncProperty(campaignModel, fc.array(searchModel, { minLength: 6, maxLength: 6 }), async (model, searches) => {
        const c = await newCampaign(ctx.app, owner, undefined, model.description ? { description: richText(model.description) } : {});
        for (const thing of model.things) await addThing(c, { ...thing, typeId: thing.second ? c.types[1]!.id : c.typeId });
        for (const view of await views(c)) {
          for (const options of searches) {
            const expected = await search(c, view, options, scoreEveryMatch);
            const actual = await search(c, view, options, rankCandidates);
            expect(comparable(actual.hits), `${options.text} ${view.players ? 'player' : 'gm'}`).toEqual(comparable(expected.hits));
          }
        }
      }),
      { numRuns: 12 },
    );
  });

  describe(`a word in more than CANDIDATES_PER_TERM records`, () => {
    let c: TestCampaign;
    const EXTRA = 40;
    beforeAll(async () => {
      c = await newCampaign(ctx.app, owner);
      // In order of creation: 10 things with "lore" in the name; long texts with "lore" twice, then
      // once; then short texts with "lore" once, which BM25 ranks above the long ones, but which come
      // after CANDIDATES_PER_TERM others by impact (name, occurrences, then age). Every 15th is GM-only;
      // "keeper" is in a few records of each kind.
      const filler = Array.from({ length: 40 }, (_, i) => `word${i % 7}`);
      for (let i = 0; i < CANDIDATES_PER_TERM + EXTRA; i++) {
        const name = i < 10 ? `Lore ${i}` : `Record ${i}`;
        const twice = i >= 10 && i < 60;
        const short = i >= CANDIDATES_PER_TERM;
        const text = short ? ['lore'] : [...filler, 'lore', ...(twice ? ['lore'] : [])];
        if (i % 37 === 5) text.push('keeper');
        await addThing(c, { name, words: text, gmOnly: i % 15 === 14, tags: i % 2 === 0 ? ['Even'] : [] });
      }
    }, 300_000);

    /** The candidates of a one-word query: its postings of most impact, computed here from the postings themselves. */
    async function candidates(view: View, term: string, even: boolean): Promise<Set<number>> {
      const audience = view.players ? AUDIENCE.players : AUDIENCE.gms;
      const rows = await ctx.database.kysely
        .selectFrom('search_postings as p')
        .innerJoin('things as t', (j) => j.onRef('t.id', '=', 'p.record_id').onRef('t.campaign_id', '=', 'p.campaign_id'))
        .select(['p.record_id', 'p.name_tf', 'p.text_tf', 't.tags', 'p.audience'])
        .where('p.campaign_id', '=', c.id)
        .where('p.term', '=', term)
        .execute();
      const kept = rows.filter((r) => (Number(r.audience) & audience) !== 0 && (!even || (r.tags ?? '').includes('Even')));
      kept.sort((a, b) => b.name_tf - a.name_tf || b.text_tf - a.text_tf || a.record_id - b.record_id);
      return new Set(kept.slice(0, CANDIDATES_PER_TERM).map((r) => r.record_id));
    }

    it('returns the records that scoring every match ranks first among the candidates, in the same order with the same keys', async () => {
      for (const view of await views(c)) {
        for (const tags of [[], ['even']]) {
          const all = await search(c, view, { text: 'lore', type: 'any', limit: 10_000, tags }, scoreEveryMatch);
          const inSet = await candidates(view, 'lore', tags.length > 0);
          const expected = comparable(all.hits.filter((h) => inSet.has(h.id))).slice(0, 100);
          const actual = comparable((await search(c, view, { text: 'lore', type: 'any', limit: 100, tags }, rankCandidates)).hits);
          expect(actual).toEqual(expected);
          // What can differ: short texts created last, which BM25 ranks above many candidates. With
          // the tag, fewer than CANDIDATES_PER_TERM records match: the results are the same.
          if (tags.length === 0) expect(all.hits.slice(0, 100).some((h) => !inSet.has(h.id))).toBe(true);
          else expect(actual).toEqual(comparable(all.hits.slice(0, 100)));
          expect(actual.slice(0, 10).map((h) => h.name)).toEqual(all.hits.slice(0, 10).map((h) => h.name));
          // The campaign holds only things: `type=thing` reads the same candidates.
          const things = await search(c, view, { text: 'lore', type: 'thing', limit: 100, tags }, rankCandidates);
          expect(comparable(things.hits)).toEqual(actual);
          expect((await search(c, view, { text: 'lore', type: 'arc', limit: 100, tags }, rankCandidates)).hits).toEqual([]);
          if (view.players) expect(actual.some((h) => /^Record (\d+)$/.test(h.name) && Number(h.name.slice(7)) % 15 === 14)).toBe(false);
        }
      }
    });

    it('ranks first every record holding all the query words when one of them is rare', async () => {
      for (const view of await views(c)) {
        const all = await search(c, view, { text: 'lore keeper', type: 'any', limit: 10_000, tags: [] }, scoreEveryMatch);
        const both = all.hits.filter((h) => h.keys.coverage === 2);
        expect(both.length).toBeGreaterThan(3);
        const actual = await search(c, view, { text: 'lore keeper', type: 'any', limit: 20, tags: [] }, rankCandidates);
        expect(comparable(actual.hits.slice(0, both.length))).toEqual(comparable(both));
      }
    });
  });
});
