// "A write's cost is bounded by its size" (CONTRACT, Phase 3), structurally: indexing a text adds
// a bounded number of index rows per distinct word, whatever the words. The typo index used to
// store up to 29 rows per word (deletion variants): a 256 KiB description of distinct words grew
// the database 125 times its size and held the writer for seconds. Time is measured by
// `npm run bench:search -- --write`, not here.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type TestContext, type TestUser } from '../support/app.js';
import { contextWithUsers, newCampaign, sendAs } from '../support/fixtures.js';
import { dialect } from '../support/test-db.js';

let ctx: TestContext;
let owner: TestUser;
beforeAll(async () => ({ ctx, owner } = await contextWithUsers()));
afterAll(() => ctx.close());

/** Distinct made-up words of 4–10 letters, about `bytes` of them in JSON. */
function distinctWords(bytes: number, seed: number): string[] {
  // mulberry32: exact in 32-bit integer arithmetic.
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const seen = new Set<string>();
  let size = 64;
  while (size < bytes) {
    const length = 4 + Math.floor(next() * 7);
    let word = '';
    for (let i = 0; i < length; i++) word += String.fromCharCode(97 + Math.floor(next() * 26));
    if (seen.has(word)) continue;
    if (size + word.length + 1 > bytes) break;
    seen.add(word);
    size += word.length + 1;
  }
  return [...seen];
}

const paragraph = (words: string[]) => [{ type: 'paragraph', children: [{ text: words.join(' ') }] }];

/** Rows of every search index table (whatever tables the index has) for one campaign. */
async function indexRows(campaignId: number): Promise<number> {
  const tables =
    dialect === 'postgres'
      ? await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_name like 'search\\_%'`.execute(ctx.database.kysely)
      : await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name like 'search\\_%' escape '\\'`.execute(ctx.database.kysely);
  let rows = 0;
  for (const { name } of tables.rows) {
    const result = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(name)} where campaign_id = ${campaignId}`.execute(ctx.database.kysely);
    rows += Number(result.rows[0]!.n);
  }
  return rows;
}

describe(`index rows per word on ${dialect}`, () => {
  it('a description of distinct words is stored, indexed and found, with at most two index rows per word', async () => {
    const c = await newCampaign(ctx.app, owner);
    const before = await indexRows(c.id);
    const words = distinctWords(32 * 1024, 7);
    expect(words.length).toBeGreaterThan(3_500);
    const created = json<{ slug: string }>(
      await sendAs(ctx.app, owner, 'POST', `${c.base}/things`, { newThing: { name: 'Large', typeId: c.typeId, description: paragraph(words) } }),
    );
    // One document, one posting per word (the name's "large" too), one vocabulary row per new word (its typo keys on it).
    expect(await indexRows(c.id)).toBeLessThanOrEqual(before + 1 + 2 * (words.length + 1));

    // Replacing it with other distinct words adds rows only for the new words.
    const first = new Set(words);
    const others = distinctWords(32 * 1024, 8).filter((word) => !first.has(word));
    await sendAs(ctx.app, owner, 'PUT', `${c.base}/things/${created.slug}`, { updatedThing: { description: paragraph(others) } });
    expect(await indexRows(c.id)).toBeLessThanOrEqual(before + 1 + 2 * (others.length + 1) + words.length);

    // Still found as written, by prefix and with a typo (two neighbours swapped).
    const word = others[Math.floor(others.length / 2)]!;
    const typo = word.slice(0, 1) + word[2]! + word[1]! + word.slice(3);
    for (const q of [word, word.slice(0, 4), typo]) {
      const res = await ctx.app.inject({ method: 'GET', url: `${c.base}/search?q=${q}`, headers: owner.headers });
      expect(json<{ results: { name: string }[] }>(res).results.map((r) => r.name), q).toEqual(['Large']);
    }
  });
});
