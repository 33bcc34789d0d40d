import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { newCampaign } from '../support/fixtures.js';
import { dialect } from '../support/test-db.js';

// Found by exploring the History panel in Chromium (issue 24): a restore is "a new change (a new
// revision)" (CONTRACT "History and trash"), and the panel says "the History keeps what it
// replaced". Restoring within REVISION_MERGE_SECONDS of the author's own latest unnamed revision
// merges the restore into that revision instead, so the text the restore replaced is in neither the
// record nor its history: the one thing a game master restores by mistake is then lost for good.

let ctx: TestContext;
let gm: TestUser;

beforeAll(async () => {
  ctx = await createTestContext();
  gm = await ctx.createUser();
});
afterAll(() => ctx.close());

const p = (text: string) => ({ type: 'paragraph', children: [{ text }] });

async function ok<T = any>(res: Promise<LightMyRequestResponse>, status = 200): Promise<T> {
  const r = await res;
  expect(r.statusCode, r.body).toBe(status);
  return json<T>(r);
}

const send = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
  ctx.app.inject({ method, url, headers: gm.headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });

describe(`restoring a revision, on ${dialect}`, () => {
  it('keeps the text it replaced in the history when the same author restores within the merge window', async () => {
    const campaign = await newCampaign(ctx.app, gm);
    const thing = await ok<{ slug: string }>(send('POST', `${campaign.base}/things`, { newThing: { name: 'Gundren', typeId: campaign.typeId, description: [p('Hired the party.')] } }), 201);
    const url = `${campaign.base}/things/${thing.slug}`;
    const [first] = await ok<{ id: number }[]>(send('GET', `${url}/revisions`));
    await ok(send('PUT', `${url}/revisions/${first!.id}`, { name: 'Before edits' }));
    // Work written after naming it: its own (unnamed) revision.
    await ok(send('PUT', url, { updatedThing: { description: [p('Hired the party in Neverwinter; an hour of notes.')] } }));
    // Restored a moment later (the History panel's "Restore this revision").
    await ok(send('POST', `${url}/revisions/${first!.id}/restore`));

    const list = await ok<{ id: number }[]>(send('GET', `${url}/revisions`));
    const snapshots = await Promise.all(list.map(async (r) => JSON.stringify((await ok<{ record: unknown }>(send('GET', `${url}/revisions/${r.id}`))).record)));
    expect(snapshots.some((s) => s.includes('an hour of notes'))).toBe(true);
    // And the restore is a revision of its own on top.
    expect(list.length).toBeGreaterThanOrEqual(3);
  });
});
