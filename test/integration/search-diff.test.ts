// Writes are re-indexed after their commit, by difference (db/indexes/search-queue.ts,
// search-diff.ts): whatever the sequence of edits a game master makes through the API, indexed
// after each one or after several at once — names, descriptions with marks, secrets and mentions, visibility,
// properties (GM-only or not), tags, aliases, an arc's fields, the campaign's description — the
// index holds exactly what a rebuild from the records gives (document ids aside). The vocabulary
// only grows between rebuilds (migrations/…-0003-search.ts), so the rebuilt one is a subset of it,
// with the same typo keys.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rebuildCampaignIndex } from '../../src/db/indexes/search.js';
import { indexAllPending } from '../../src/db/indexes/search-queue.js';
import { json, type TestContext, type TestUser } from '../support/app.js';
import { contextWithUsers, createThing, newCampaign, sendAs } from '../support/fixtures.js';
import { dialect } from '../support/test-db.js';

let ctx: TestContext;
let owner: TestUser;
beforeAll(async () => ({ ctx, owner } = await contextWithUsers()));
afterAll(() => ctx.close());

interface Snapshot {
  documents: string[];
  postings: string[];
  terms: Map<string, string>;
}

async function snapshot(campaignId: number): Promise<Snapshot> {
  const db = ctx.database.kysely;
  const documents = await db.selectFrom('search_documents').selectAll().where('campaign_id', '=', campaignId).execute();
  const keyOf = new Map(documents.map((d) => [d.id, `${d.kind}:${d.thing_id ?? d.arc_id ?? 0}:${d.audience}`]));
  const postings = await db.selectFrom('search_postings').selectAll().where('campaign_id', '=', campaignId).execute();
  const terms = await db.selectFrom('search_terms').selectAll().where('campaign_id', '=', campaignId).execute();
  return {
    documents: documents.map((d) => `${keyOf.get(d.id)} ${d.name_key} ${d.name_len} ${d.text_len}`).sort(),
    postings: postings
      .map((p) => `${keyOf.get(p.doc_id)} ${p.term} ${p.kind} ${p.record_id} ${p.name_tf} ${p.text_tf} ${p.name_len} ${p.text_len} ${p.audience}`)
      .sort(),
    terms: new Map(terms.map((t) => [t.term, `${t.typo0} ${t.typo1} ${t.typo2}`])),
  };
}

// Few words, so edits keep, drop and add the same ones; up to 40 of them, so lengths pass 16.
const WORDS = ['goblin', 'cave', 'Nezznar', 'wave', 'echo', 'the', 'of', 'sword', 'Phandalin', 'café', 'rune', 'x'];
const word = fc.constantFrom(...WORDS);
// Secrets, mentions and GM-only properties now and then: without them a record has one document for everyone.
const rarely = fc.integer({ min: 0, max: 4 }).map((n) => n === 0);
const words = (max: number) => fc.array(word, { minLength: 0, maxLength: max }).map((w) => w.join(' '));
const label = fc.array(fc.constantFrom(...WORDS.map((w) => w.toLowerCase())), { minLength: 0, maxLength: 3 }).map((w) => [...new Set(w)]);
const leaf = fc.record({ text: words(6), bold: fc.boolean(), italic: fc.boolean() }).map(({ text, bold, italic }) => ({
  text,
  ...(bold ? { bold: true } : {}),
  ...(italic ? { italic: true } : {}),
}));

function richText(mentionTarget: number) {
  const inline = fc.oneof(
    { weight: 8, arbitrary: leaf },
    { weight: 1, arbitrary: words(2).map((text) => ({ type: 'mention', targetType: 'thing', targetId: mentionTarget, children: [{ text }] })) },
  );
  const block = fc.record({ children: fc.array(inline, { minLength: 1, maxLength: 5 }), secret: rarely }).map(({ children, secret }) => ({
    type: 'paragraph',
    ...(secret ? { isSecret: true } : {}),
    // Slate keeps text leaves around inline elements.
    children: [{ text: '' }, ...children, { text: '' }],
  }));
  return fc.array(block, { minLength: 1, maxLength: 4 });
}

const properties = fc.array(
  fc.record({ key: fc.constantFrom('rank', 'home', 'motto'), value: words(4), gmOnly: rarely }),
  { maxLength: 3 },
).map((list) => [...new Map(list.map((p) => [p.key, p])).values()]);

/** An edit of one to three of these fields, as an editor's save sends them. */
function edit(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<object> {
  const parts = Object.entries(fields).map(([key, arbitrary]) => arbitrary.map((value) => ({ [key]: value })));
  return fc.array(fc.oneof(...parts), { minLength: 1, maxLength: 3 }).map((chosen) => Object.assign({}, ...chosen) as object);
}

const thingEdit = (mentionTarget: number) =>
  edit({
    name: fc.array(fc.constantFrom('goblin', 'cave', 'the'), { minLength: 1, maxLength: 3 }).map((n) => n.join(' ')),
    description: richText(mentionTarget),
    visibility: fc.constantFrom('all', 'gm'),
    tags: label,
    aliases: label.map((a) => a.map((w) => `the ${w}`)),
    properties,
  });

const arcEdit = (mentionTarget: number) =>
  edit({ name: words(2).map((n) => n || 'Arc'), hook: richText(mentionTarget), notes: richText(mentionTarget), visibility: fc.constantFrom('all', 'gm'), tags: label });

const MENTIONED = 2_000_000_000;

type Step = { target: 'thing-a' | 'thing-b'; body: object } | { target: 'arc'; body: object } | { target: 'campaign'; body: object } | { target: 'index' };

describe(`re-indexing by difference on ${dialect}`, () => {
  it('leaves the index a rebuild gives, after any sequence of edits', async () => {
    // Mentions name MENTIONED, replaced by a thing of each run's campaign.
    const target = { id: MENTIONED };
    const steps = fc.array(
      fc.oneof(
        thingEdit(target.id).map((body): Step => ({ target: 'thing-a', body })),
        thingEdit(target.id).map((body): Step => ({ target: 'thing-b', body })),
        arcEdit(target.id).map((body): Step => ({ target: 'arc', body })),
        richText(target.id).map((description): Step => ({ target: 'campaign', body: { description } })),
        // The indexer's pass between two edits (else the edits so far are indexed together at the end).
        fc.constant<Step>({ target: 'index' }),
      ),
      { minLength: 1, maxLength: 10 },
    );
    await fc.assert(
      fc.asyncProperty(steps, async (edits) => {
        const c = await newCampaign(ctx.app, owner);
        const mentioned = await createThing(ctx.app, owner, c, 'Mentioned');
        const fix = (body: object) => JSON.parse(JSON.stringify(body).replaceAll(`"targetId":${target.id}`, `"targetId":${mentioned.id}`)) as object;
        const a = await createThing(ctx.app, owner, c, 'Alpha', { description: [{ type: 'paragraph', children: [{ text: 'the goblin of the cave' }] }] });
        const b = await createThing(ctx.app, owner, c, 'Beta', { visibility: 'gm' });
        const arc = json<{ slug: string }>(await sendAs(ctx.app, owner, 'POST', `${c.base}/arcs`, { newArc: { name: 'Echo' } }));
        for (const edit of edits) {
          if (edit.target === 'index') {
            await indexAllPending(ctx.database);
            continue;
          }
          const [url, key] =
            edit.target === 'thing-a' ? [`${c.base}/things/${a.slug}`, 'updatedThing']
            : edit.target === 'thing-b' ? [`${c.base}/things/${b.slug}`, 'updatedThing']
            : edit.target === 'arc' ? [`${c.base}/arcs/${arc.slug}`, 'updatedArc']
            : [c.base, 'updatedCampaign'];
          const res = await sendAs(ctx.app, owner, 'PUT', url, { [key]: fix(edit.body) });
          expect(res.statusCode, res.body).toBe(200);
        }
        await indexAllPending(ctx.database);
        const diffed = await snapshot(c.id);
        await ctx.database.kysely.transaction().execute((trx) => rebuildCampaignIndex(trx, c.id));
        const rebuilt = await snapshot(c.id);
        expect(diffed.documents).toEqual(rebuilt.documents);
        expect(diffed.postings).toEqual(rebuilt.postings);
        for (const [term, keys] of rebuilt.terms) expect(diffed.terms.get(term), term).toBe(keys);
      }),
      { numRuns: Number(process.env.RUNS ?? 40) },
    );
  });

  it('indexes a record written several times between two passes once, from what it holds then', async () => {
    const c = await newCampaign(ctx.app, owner);
    const text = (w: string) => [{ type: 'paragraph', children: [{ text: w }] }];
    const thing = await createThing(ctx.app, owner, c, 'Drafted', { description: text('the goblin of the cave') });
    await indexAllPending(ctx.database);
    for (const words of ['the dragon of the cave', 'the dragon of the deep cave', 'a dragon sleeps in the deep cave']) {
      ctx.queries.length = 0;
      const res = await sendAs(ctx.app, owner, 'PUT', `${c.base}/things/${thing.slug}`, { updatedThing: { description: text(words) } });
      expect(res.statusCode, res.body).toBe(200);
      expect(ctx.queries.filter((q) => /search_(documents|postings|terms)/.test(q)), 'the write touches no index table').toEqual([]);
    }
    const queued = await ctx.database.kysely.selectFrom('search_pending').select(['kind', 'record_id', 'seq']).where('campaign_id', '=', c.id).execute();
    expect(queued).toEqual([{ kind: 1, record_id: thing.id, seq: 3 }]);
    ctx.queries.length = 0;
    await indexAllPending(ctx.database);
    // One read of what the index holds of the thing, for the three writes.
    expect(ctx.queries.filter((q) => /from "?search_documents/.test(q))).toHaveLength(1);
    expect(await ctx.database.kysely.selectFrom('search_pending').selectAll().where('campaign_id', '=', c.id).execute()).toEqual([]);
    const diffed = await snapshot(c.id);
    await ctx.database.kysely.transaction().execute((trx) => rebuildCampaignIndex(trx, c.id));
    const rebuilt = await snapshot(c.id);
    expect(diffed.documents).toEqual(rebuilt.documents);
    expect(diffed.postings).toEqual(rebuilt.postings);
  });

  it('writes no index statement when a write changes nothing indexed, and fewer when little changed', async () => {
    const c = await newCampaign(ctx.app, owner);
    const text = (w: string) => [{ type: 'paragraph', children: [{ text: w }] }];
    const thing = await createThing(ctx.app, owner, c, 'Counted', { description: text('the goblin of the cave by the sea') });
    await indexAllPending(ctx.database);
    /** The index statements of the write and of the indexer's pass after it. */
    const indexStatements = async (body: object) => {
      ctx.queries.length = 0;
      const res = await sendAs(ctx.app, owner, 'PUT', `${c.base}/things/${thing.slug}`, { updatedThing: body });
      expect(res.statusCode, res.body).toBe(200);
      await indexAllPending(ctx.database);
      return ctx.queries.filter((q) => /search_(documents|postings|terms)/.test(q)).length;
    };
    const other = c.types[1]!.id;
    expect(await indexStatements({ typeId: other })).toBe(0);
    expect(await indexStatements({ slug: 'counted-again' })).toBe(0);
    thing.slug = 'counted-again';
    // The same text again: one read, nothing written.
    expect(await indexStatements({ description: text('the goblin of the cave by the sea') })).toBe(1);
    // One word for another (same length): read, delete a posting, write one, a new word (on
    // PostgreSQL the read, then the changes in one statement).
    expect(await indexStatements({ description: text('the dragon of the cave by the sea') })).toBe(dialect === 'postgres' ? 2 : 4);
    // Every word new, another length: and the document's lengths.
    expect(await indexStatements({ description: text('a wholly different tale told at dusk') })).toBe(dialect === 'postgres' ? 2 : 5);
  });
});
