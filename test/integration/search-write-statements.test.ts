// Statements per write (issue 28, "Writes cost what changed"): a PUT of a thing with a realistic
// 2 KB description runs a fixed number of statements whatever the campaign's size and the text's
// length, none of them on the index (it queues the thing: db/indexes/search-queue.ts); its
// re-indexing after the commit runs fewer when little changed (db/indexes/search-diff.ts): one read
// of what the index holds of the thing, then one statement per kind of change (on PostgreSQL one
// statement for them all).
import net from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rebuildCampaignIndex } from '../../src/db/indexes/search.js';
import { indexAllPending } from '../../src/db/indexes/search-queue.js';
import { json, type TestContext, type TestUser } from '../support/app.js';
import { contextWithUsers, createThing, newCampaign, sendAs, type TestCampaign } from '../support/fixtures.js';
import { dialect } from '../support/test-db.js';

let ctx: TestContext;
let owner: TestUser;
beforeAll(async () => ({ ctx, owner } = await contextWithUsers({ RESPONSE_CACHE_MB: '0' })));
afterAll(() => ctx.close());

// A vocabulary of 400 made-up words, drawn with repeats like prose (mulberry32: exact in 32-bit arithmetic).
function prose(bytes: number, seed: number): string {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const syllables = ['ka', 'ro', 'nel', 'dur', 'ith', 'va', 'mor', 'shen', 'tal', 'qua', 'ber', 'lo', 'zim', 'fen'];
  const vocabulary = Array.from({ length: 400 }, (_, i) => syllables[i % 14]! + syllables[Math.floor(i / 14) % 14]! + (i >= 196 ? syllables[(i * 7) % 14]! : ''));
  const common = ['the', 'of', 'and', 'a', 'to', 'in'];
  let text = '';
  while (text.length < bytes) text += `${next() < 0.4 ? common[Math.floor(next() * common.length)]! : vocabulary[Math.floor(next() ** 2 * vocabulary.length)]!} `;
  return text.trim();
}

const description = (text: string) =>
  text.match(/.{1,400}(\s|$)/g)!.map((chunk, i) => ({ type: 'paragraph', ...(i === 2 ? { isSecret: true } : {}), children: [{ text: chunk.trim() }] }));

interface Counts {
  /** Statements of the write. */
  all: number;
  /** Of those, statements on the index's tables. */
  index: number;
  /** Statements on the index's tables of the indexer's pass after the write. */
  pass: number;
  /** Writes to the pool's connections during the write (none on SQLite). */
  writes: number;
}

// Each call of a socket's _write or _writev is one write to the kernel: the statements and
// messages written between a cork and its uncork go out in one (db/pipeline.ts). Under app.inject
// the only sockets are the database's: the pool's, and the listening connection's, whose
// announcements and barriers are not counted (it is found by its port on the server's side).
let socketWrites = 0;
let listenerPort: number | undefined;
const socket = net.Socket.prototype as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
const unpatched = { _write: socket._write, _writev: socket._writev };
beforeAll(async () => {
  if (dialect === 'postgres') {
    const { rows } = await sql<{ port: number }>`select client_port as port from pg_stat_activity where application_name = 'loreforge-listener' and datname = current_database()`.execute(ctx.database.kysely);
    expect(rows).toHaveLength(1);
    listenerPort = rows[0]!.port;
  }
  for (const method of ['_write', '_writev'] as const) {
    socket[method] = function (this: net.Socket, ...args: unknown[]) {
      if (this.localPort !== listenerPort) socketWrites += 1;
      return unpatched[method].apply(this, args);
    };
  }
});
afterAll(() => Object.assign(socket, unpatched));

const onIndex = (queries: string[]) => queries.filter((q) => /search_(documents|postings|terms)/.test(q)).length;

async function put(c: TestCampaign, slug: string, body: object): Promise<Counts> {
  ctx.queries.length = 0;
  const writesBefore = socketWrites;
  const res = await sendAs(ctx.app, owner, 'PUT', `${c.base}/things/${slug}`, { updatedThing: body });
  const writes = socketWrites - writesBefore;
  expect(res.statusCode, res.body).toBe(200);
  const write = [...ctx.queries];
  ctx.queries.length = 0;
  await indexAllPending(ctx.database);
  return { all: write.length, index: onIndex(write), pass: onIndex(ctx.queries), writes };
}

async function campaignOf(things: number): Promise<TestCampaign> {
  const c = await newCampaign(ctx.app, owner);
  const now = new Date().toISOString();
  const text = JSON.stringify(description(prose(2048, 99)));
  for (let start = 0; start < things; start += 200) {
    await ctx.database.kysely
      .insertInto('things')
      .values(
        Array.from({ length: Math.min(200, things - start) }, (_, k) => ({
          campaign_id: c.id,
          type_id: c.typeId,
          slug: `filler-${start + k}`,
          name: `Filler ${start + k}`,
          description: text,
          version: 1,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
  }
  await ctx.database.kysely.transaction().execute((trx) => rebuildCampaignIndex(trx, c.id));
  await indexAllPending(ctx.database);
  return c;
}

/** The statements of a thing's saves, from its first one with a `bytes` description. */
async function saves(c: TestCampaign, bytes: number): Promise<Record<string, Counts>> {
  const first = prose(bytes, 1);
  const thing = await createThing(ctx.app, owner, c, `Counted ${bytes}`, { description: description(first) });
  // The first save keeps the state before as a revision; the counts below are of later saves.
  await put(c, thing.slug, { description: description(prose(bytes, 2)) });
  const rewritten = await put(c, thing.slug, { description: description(prose(bytes, 3)) });
  const same = await put(c, thing.slug, { description: description(prose(bytes, 3)) });
  const oneWord = await put(c, thing.slug, { description: description(`${prose(bytes, 3)} dragonfly`) });
  const typeOnly = await put(c, thing.slug, { typeId: c.types[1]!.id });
  return { rewritten, same, oneWord, typeOnly };
}

describe(`statements per PUT /things/{slug} on ${dialect}`, () => {
  it('are fixed whatever the campaign size and text length, and fewer when little changed', async () => {
    const small = await campaignOf(0);
    const large = await campaignOf(1_000);
    const a = await saves(small, 2048);
    const b = await saves(large, 2048);
    const c = await saves(large, 8192);
    console.log(`statements per PUT (all / index), small 2 KB, large 2 KB, large 8 KB: ${JSON.stringify([a, b, c])}`);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    // The write touches no index table, whatever it changed.
    for (const counts of Object.values(a)) expect(counts.index).toBe(0);
    // The pass after a new text: one read, the document's lengths, postings removed, postings
    // written, new words (on PostgreSQL those four changes are one statement: search-rows.ts runBatch).
    expect(a.rewritten!.pass).toBe(dialect === 'postgres' ? 2 : 5);
    // One word added: read, the document's exact length, the postings written (its own, and the
    // others' only if their lossy length moved), the new word; none removed.
    expect(a.oneWord!.pass).toBe(dialect === 'postgres' ? 2 : 4);
    expect(a.same!.pass).toBe(1);
    // A change of type queues nothing: no pass.
    expect(a.typeOnly!.pass).toBe(0);
    // PostgreSQL: begin, the write lock and the caller's role, the thing read and locked, the latest
    // revisions read (written with the thing's read), the mark with the thing's update, the search queue and the revision's merge
    // (common.ts campaignWrite, common.ts heldRecordUpdate), commit; then the version's read and announcement, one statement on the
    // listening connection shared by the writes committed meanwhile (announcements.ts), not counted
    // here. SQLite: the caller's lookup, begin, the
    // campaign's version, the role, the thing read, its update, the queue, the revisions, commit.
    // No mentions statement: the text's mentions did not change (indexes/mentions.ts).
    expect(a.rewritten!.all).toBe(dialect === 'postgres' ? 6 : 10);
    // PostgreSQL: those 6 in 2 writes: BEGIN, the write lock and the caller's role (held for the next
    // statement: db/pipeline.ts SentWithNext), the thing's read and the latest revisions' read
    // (FollowedBy) in the first; the mark and COMMIT in the second. A change of type takes one more
    // statement and write: the new type is read to check it is the campaign's (things.ts updateThing).
    expect(a.rewritten!.writes).toBe(dialect === 'postgres' ? 2 : 0);
    expect(a.typeOnly!.writes).toBe(dialect === 'postgres' ? 3 : 0);
    // And the index is what it was made for: the new word is found.
    const found = json<{ results: { name: string }[] }>(await sendAs(ctx.app, owner, 'GET', `${small.base}/search?q=dragonfly`));
    expect(found.results.map((r) => r.name)).toEqual(['Counted 2048']);
  });
});
