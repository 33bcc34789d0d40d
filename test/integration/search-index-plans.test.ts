import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/app.js';
import { dialect } from '../support/test-db.js';

// Re-indexing a thing deletes its search document, and the postings go with it by cascade. SQLite
// plans that cascade without statistics (no ANALYZE ever runs): the postings' primary key must lead
// with the document, or the cascade reads every posting of the campaign (see migration 0005).
// PostgreSQL plans from its own statistics, so this is SQLite's guarantee only.

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx.close();
});

async function plan(statement: string): Promise<string[]> {
  const result = await sql<{ detail: string }>`explain query plan ${sql.raw(statement)}`.execute(ctx.database.kysely);
  return result.rows.map((row) => row.detail);
}

describe.runIf(dialect === 'sqlite')('search index query plans on sqlite', () => {
  it('deleting a document reaches its postings through the key, not a scan of the campaign', async () => {
    const steps = await plan('delete from search_documents where campaign_id = 1 and thing_id = 1');
    const postings = steps.filter((step) => step.includes('search_postings'));
    expect(postings.length).toBeGreaterThan(0);
    for (const step of postings) expect(step).toMatch(/USING PRIMARY KEY \(campaign_id=\? AND doc_id=\?\)/);
  });

  it('a search reads the postings of a term from the covering index', async () => {
    const steps = await plan("select doc_id, name_tf, text_tf from search_postings where campaign_id = 1 and term in ('lantern', 'lamp')");
    expect(steps).toEqual([expect.stringMatching(/USING COVERING INDEX search_postings_term \(campaign_id=\? AND term=\?\)/)]);
  });
});
