import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actingAs } from '../../src/access/acting.js';
import { authorizeWriteAtCommit, ROLES, type Actor, type Role } from '../../src/access/policy.js';
import { campaignWrite, heldRecordUpdate, type WriteMode } from '../../src/db/repositories/common.js';
import { findThingBySlug } from '../../src/db/repositories/things.js';
import { inWriteScope } from '../../src/db/write-scope.js';
import { errors } from '../../src/domain/errors.js';
import { sendAs } from '../support/fixtures.js';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { dialect } from '../support/test-db.js';

// CONTRACT "Authorization holds for the whole request", where every request's campaign write opens
// (repositories/common.ts campaignWrite). On PostgreSQL the opening (the write lock and the caller's
// role as it is at commit) is not waited for: it is written with the write's next statement
// (db/pipeline.ts SentWithNext), so PostgreSQL itself refuses the caller before that statement runs
// (migration 0036). On SQLite the instance checks the role it read. Over every combination of the
// caller's role at commit, the route's least role, the player view, the campaign of the route, and
// what the write sends after its opening, both must decide exactly as access/policy.ts
// authorizeWriteAtCommit does, keep nothing of a refused write and all of an allowed one.

let ctx: TestContext;
let owner: TestUser;
let member: TestUser;

beforeAll(async () => {
  ctx = await createTestContext();
  owner = await ctx.createUser();
  member = await ctx.createUser();
});
afterAll(() => ctx.close());

let counter = 0;
async function newCampaign() {
  const campaign = json<{ slug: string; id: number }>(await sendAs(ctx.app, owner, 'POST', '/api/campaigns', { newCampaign: { name: `Opening ${++counter}` } }));
  const types = json<{ id: number }[]>(await sendAs(ctx.app, owner, 'GET', `/api/campaigns/${campaign.slug}/thing-types`));
  const thing = json<{ slug: string; id: number }>(await sendAs(ctx.app, owner, 'POST', `/api/campaigns/${campaign.slug}/things`, { newThing: { name: 'Start', typeId: types[0]!.id } }));
  return { id: campaign.id, thing };
}

/** Makes `member`'s membership of the campaign `role`, or none. */
async function setMembership(campaignId: number, role: Exclude<Role, 'owner'> | undefined) {
  const kysely = ctx.database.kysely;
  await kysely.deleteFrom('campaign_members').where('campaign_id', '=', campaignId).where('user_id', '=', member.id).execute();
  if (role !== undefined) await kysely.insertInto('campaign_members').values({ campaign_id: campaignId, user_id: member.id, role, joined_at: new Date().toISOString() }).execute();
}

const state = async (campaignId: number, thingId: number) => {
  const kysely = ctx.database.kysely;
  const thing = await kysely.selectFrom('things').select(['name', 'version']).where('id', '=', thingId).executeTakeFirstOrThrow();
  const campaign = await kysely.selectFrom('campaigns').select('content_version').where('id', '=', campaignId).executeTakeFirstOrThrow();
  return { name: thing.name, version: Number(thing.version), contentVersion: Number(campaign.content_version) };
};

/** What a write sends after its opening; 'fails first' throws an error of its own before any statement. */
type Shape = 'update' | 'save' | 'nothing' | 'concurrent update' | 'fails first';
const SHAPES: readonly Shape[] = ['update', 'save', 'nothing', 'concurrent update', 'fails first'];

function write(campaignId: number, thing: { slug: string; id: number }, shape: Shape, name: string) {
  const mode: WriteMode = shape === 'concurrent update' ? 'concurrent' : 'exclusive';
  return campaignWrite(
    ctx.database,
    campaignId,
    async (trx) => {
      if (shape === 'fails first') throw errors.unknownParentArc(Number.MAX_SAFE_INTEGER, 'parentArcId');
      if (shape === 'update' || shape === 'concurrent update') await trx.updateTable('things').set({ name }).where('id', '=', thing.id).execute();
      if (shape === 'save') {
        const current = (await findThingBySlug(trx, campaignId, thing.slug, { forUpdate: true }))!;
        if (dialect === 'postgres') heldRecordUpdate(trx, 'things', current, { name }, true, new Date().toISOString());
        else await trx.updateTable('things').set({ name }).where('id', '=', thing.id).execute();
      }
      return 'written';
    },
    mode,
  );
}

/** The error authorizeWriteAtCommit throws for this caller and role, or undefined when it allows the write. */
function policyAnswer(actor: Actor, campaignId: number, role: Role | undefined) {
  try {
    authorizeWriteAtCommit(actor, campaignId, role);
    return undefined;
  } catch (error) {
    return error as { code: string; message: string };
  }
}

describe(`a request's campaign write as its caller's role is at commit, on ${dialect}`, () => {
  it('commits exactly what access/policy.ts allows, and keeps nothing of what it refuses', async () => {
    const c = await newCampaign();
    const scope = { committed: () => {}, unannounced: () => {} };
    let checked = 0;
    for (const role of [...ROLES, undefined] as const) {
      // The owner is the owner; another user takes each other role, or none.
      if (role !== 'owner') await setMembership(c.id, role);
      const userId = role === 'owner' ? owner.id : member.id;
      for (const least of ROLES) {
        for (const asPlayer of [false, true]) {
          for (const routeCampaign of [c.id, c.id + 1_000_000]) {
            const actor: Actor = { userId, campaignId: routeCampaign, least, asPlayer };
            const refusal = policyAnswer(actor, c.id, role);
            const ownError = errors.unknownParentArc(Number.MAX_SAFE_INTEGER, 'parentArcId');
            for (const shape of SHAPES) {
              const name = `Write ${++checked}`;
              const before = await state(c.id, c.thing.id);
              const attempt = actingAs(actor, () => inWriteScope(scope, () => write(c.id, c.thing, shape, name)));
              const after = async () => state(c.id, c.thing.id);
              const label = `${String(role)} least ${least} asPlayer ${asPlayer} ${routeCampaign === c.id ? 'same' : 'other'} campaign, ${shape}`;
              if (refusal === undefined && shape === 'fails first') {
                // The write's own error, once the caller is found allowed.
                await expect(attempt, label).rejects.toMatchObject({ code: ownError.code, message: ownError.message });
                expect(await after(), label).toEqual(before);
              } else if (refusal === undefined) {
                await expect(attempt, label).resolves.toBe('written');
                const now = await after();
                expect(now.contentVersion, label).toBeGreaterThan(before.contentVersion);
                if (shape !== 'nothing') expect(now.name, label).toBe(name);
              } else {
                await expect(attempt, label).rejects.toMatchObject({ code: refusal.code, message: refusal.message });
                expect(await after(), label).toEqual(before);
              }
            }
          }
        }
      }
    }
    expect(checked).toBe(4 * 3 * 2 * 2 * SHAPES.length);
  });

  it('answers 404 and keeps nothing when the campaign is in the trash, whatever the write sends', async () => {
    const c = await newCampaign();
    await setMembership(c.id, 'gm');
    await ctx.database.kysely.updateTable('campaigns').set({ deleted_at: new Date().toISOString() }).where('id', '=', c.id).execute();
    const scope = { committed: () => {}, unannounced: () => {} };
    for (const shape of SHAPES) {
      const before = await state(c.id, c.thing.id);
      const actor: Actor = { userId: member.id, campaignId: c.id, least: 'gm', asPlayer: false };
      // Also for a write failing on its own before any statement: the campaign's absence comes first.
      await expect(actingAs(actor, () => inWriteScope(scope, () => write(c.id, c.thing, shape, `Trashed ${shape}`))), shape).rejects.toMatchObject({ code: 'campaign_not_found' });
      expect(await state(c.id, c.thing.id), shape).toEqual(before);
    }
  });
});
