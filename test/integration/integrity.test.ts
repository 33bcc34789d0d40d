import type { Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../../src/db/schema.js';
import { createTestContext, type TestContext, type TestUser } from '../support/app.js';
import { integrityProblems } from '../support/integrity.js';
import { indexAllPending } from '../../src/db/indexes/search-queue.js';
import { seedCampaign, type Seed } from '../support/seed.js';

// The whole-database checks that the crash, race, shutdown and fuzz tests end with
// (test/support/integrity.ts) must see what they look for: each case breaks the database in one
// way, inside a transaction that is rolled back, and expects the checks to name it.

let ctx: TestContext;
let owner: TestUser;
let seed: Seed;

beforeAll(async () => {
  ctx = await createTestContext();
  owner = await ctx.createUser();
  seed = await seedCampaign(ctx.app, ctx.database, owner.id, owner.headers);
  // What the writes queued for search indexing, indexed: the checks skip a queued record.
  await indexAllPending(ctx.database);
});
afterAll(() => ctx.close());

const ROLLBACK = new Error('rollback');

/** What the checks find after `corrupt`, which is then undone. */
async function problemsAfter(corrupt: (trx: Transaction<DB>) => Promise<unknown>): Promise<string[]> {
  let found: string[] = [];
  await ctx.database.kysely
    .transaction()
    .execute(async (trx) => {
      await corrupt(trx);
      found = await integrityProblems(trx, ctx.database.dialect);
      throw ROLLBACK;
    })
    .catch((error: unknown) => {
      if (error !== ROLLBACK) throw error;
    });
  return found;
}

function thingId(trx: Transaction<DB>): Promise<number> {
  return trx
    .selectFrom('things')
    .select('id')
    .where('campaign_id', '=', seed.campaignId)
    .where('slug', '=', seed.params.thingSlug!)
    .executeTakeFirstOrThrow()
    .then((row) => row.id);
}

describe('the integrity checks', () => {
  it('find nothing wrong with a database written through the API', async () => {
    expect(await integrityProblems(ctx.database.kysely, ctx.database.dialect)).toEqual([]);
  });

  it('see a record whose text changed without its search index', async () => {
    const problems = await problemsAfter(async (trx) =>
      trx
        .updateTable('things')
        .set({ description: JSON.stringify([{ type: 'paragraph', children: [{ text: 'words the index never saw' }] }]) })
        .where('id', '=', await thingId(trx))
        .execute(),
    );
    expect(problems).toEqual([expect.stringMatching(/^search index: record 1:\d+:\d+:3 has a stale document/)]);
  });

  it('skip a record queued for indexing, and see it once it is no longer queued', async () => {
    let queued: number | undefined;
    const problems = await problemsAfter(async (trx) => {
      const id = await thingId(trx);
      await trx.updateTable('things').set({ description: JSON.stringify([{ type: 'paragraph', children: [{ text: 'words not indexed yet' }] }]) }).where('id', '=', id).execute();
      await trx.insertInto('search_pending').values({ campaign_id: seed.campaignId, kind: 1, record_id: id }).execute();
      queued = (await integrityProblems(trx, ctx.database.dialect)).length;
      await trx.deleteFrom('search_pending').where('record_id', '=', id).execute();
    });
    expect(queued).toBe(0);
    expect(problems).toEqual([expect.stringMatching(/^search index: record 1:\d+:\d+:3 has a stale document/)]);
  });

  it('see a lost posting, a lost document and a word missing from the vocabulary', async () => {
    const lostPosting = await problemsAfter(async (trx) => {
      const id = await thingId(trx);
      const doc = await trx.selectFrom('search_documents').select('id').where('thing_id', '=', id).executeTakeFirstOrThrow();
      await trx.deleteFrom('search_postings').where('doc_id', '=', doc.id).where('term', '=', 'dwarf').execute();
    });
    expect(lostPosting).toEqual([expect.stringMatching(/has stale postings \(\d+ stored, \d+ expected\)$/)]);

    const lostDocument = await problemsAfter(async (trx) => trx.deleteFrom('search_documents').where('thing_id', '=', await thingId(trx)).execute());
    expect(lostDocument).toEqual([expect.stringMatching(/^search index: record 1:\d+:\d+:3 is not indexed$/)]);

    const lostWord = await problemsAfter((trx) => trx.deleteFrom('search_terms').where('term', '=', 'dwarf').execute());
    expect(lostWord).toEqual(['posting whose word is not in the vocabulary: 1']);
  });

  it('see an asset whose image is queued for deletion', async () => {
    const problems = await problemsAfter(async (trx) => {
      const now = new Date().toISOString();
      const imageId = 'f'.repeat(32);
      await trx
        .insertInto('assets')
        .values({
          campaign_id: seed.campaignId,
          user_id: owner.id,
          image_id: imageId,
          label: 'map',
          storage_key: 'local',
          url: `http://127.0.0.1/images/${imageId}`,
          content_type: 'image/png',
          byte_size: 1,
          created_at: now,
        })
        .execute();
      await trx.insertInto('image_removals').values({ campaign_id: seed.campaignId, image_id: imageId, queued_at: now }).execute();
    });
    expect(problems).toEqual(['asset whose image is queued for removal: 1']);
  });
});
