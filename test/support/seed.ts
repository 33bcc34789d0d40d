import { createToken } from '../../src/db/repositories/credentials.js';
import { hashSecret, newSecret } from '../../src/domain/secrets.js';
import { nowIso } from '../../src/domain/time.js';
import type { AppInstance } from '../../src/http/app-types.js';
import type { Database } from '../../src/db/database.js';
import { createTestUser, type TestUser } from './app.js';

/** A campaign with a little of everything, made through the public API, and the path values that name it. */
export interface Seed {
  campaignId: number;
  /** An API token of the owner that requests may revoke (the seed's `:id`). */
  spareTokenId: number;
  /** Path parameter values that name real records, by parameter name. */
  params: Record<string, string>;
  /** A player of the campaign (the seed's `:userId`). */
  player: TestUser;
  /** Ids and slugs of the seeded records, for generated bodies to refer to. */
  hints: { integers: number[]; strings: string[] };
}

let seedCounter = 0;

async function call(app: AppInstance, headers: Record<string, string>, method: 'POST' | 'GET', url: string, payload?: unknown) {
  // A signed-in caller of these routes: the token, never a cookie (no cross-site guard involved).
  const res = await app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
  if (res.statusCode >= 300) throw new Error(`seeding: ${method} ${url} answered ${res.statusCode}: ${res.body}`);
  return JSON.parse(res.body) as Record<string, unknown> & Record<string, any>;
}

async function remove(app: AppInstance, headers: Record<string, string>, url: string) {
  const res = await app.inject({ method: 'DELETE', url, headers });
  if (res.statusCode !== 204) throw new Error(`seeding: DELETE ${url} answered ${res.statusCode}: ${res.body}`);
}

/**
 * Seeds a fresh campaign owned by `userId` (whose API token is `headers`): thing types, two things,
 * two nested arcs, the first thing linked to both, and a spare API token of the owner (the `:id` of
 * the token routes). `params.arcSlug` names a linked arc, so the unlink route has a link to remove.
 * A player has joined by invitation (`params.userId`), and one more invitation is pending
 * (`params.invitationId`). A deleted thing is in the campaign's trash (`params.trashedThingId`) and
 * a deleted campaign in the owner's (`params.trashedCampaignId`).
 */
export async function seedCampaign(app: AppInstance, database: Database, userId: string, headers: Record<string, string>): Promise<Seed> {
  seedCounter += 1;
  const campaign = await call(app, headers, 'POST', '/api/campaigns', { newCampaign: { name: `Seed ${seedCounter} Phandelver` } });
  const base = `/api/campaigns/${campaign.slug}`;
  const types = (await call(app, headers, 'GET', `${base}/thing-types`)) as unknown as { id: number }[];
  const typeId = types[0]!.id;
  const deities = await call(app, headers, 'POST', `${base}/thing-types`, { newThingType: { name: 'Deities' } });
  const gundren = await call(app, headers, 'POST', `${base}/things`, {
    newThing: { name: 'Gundren Rockseeker', typeId, description: [{ type: 'paragraph', children: [{ text: 'A dwarf.' }] }] },
  });
  const sildar = await call(app, headers, 'POST', `${base}/things`, { newThing: { name: 'Sildar Hallwinter', typeId: deities.id } });
  const arrows = await call(app, headers, 'POST', `${base}/arcs`, { newArc: { name: 'Goblin Arrows' } });
  const hideout = await call(app, headers, 'POST', `${base}/arcs`, { newArc: { name: 'Cragmaw Hideout', parentArcId: arrows.id } });
  await call(app, headers, 'POST', `${base}/things/${gundren.slug}/arcs`, { arcSlug: arrows.slug });
  await call(app, headers, 'POST', `${base}/things/${gundren.slug}/arcs`, { arcSlug: hideout.slug });
  // In the trash: a thing deleted from this campaign, and a whole campaign of the owner's.
  const glasstaff = await call(app, headers, 'POST', `${base}/things`, { newThing: { name: 'Glasstaff', typeId } });
  await remove(app, headers, `${base}/things/${glasstaff.slug}`);
  const abandoned = await call(app, headers, 'POST', '/api/campaigns', { newCampaign: { name: `Seed ${seedCounter} Abandoned` } });
  await remove(app, headers, `/api/campaigns/${abandoned.slug}`);
  // The first revision of each record the revision routes name (`params.*RevisionId`).
  const firstRevision = async (path: string) => String(((await call(app, headers, 'GET', `${base}${path}/revisions`)) as unknown as { id: number }[]).at(-1)!.id);
  const revisions = { thingRevisionId: await firstRevision(`/things/${gundren.slug}`), arcRevisionId: await firstRevision(`/arcs/${hideout.slug}`), campaignRevisionId: await firstRevision('') };
  const player = await createTestUser(database);
  const joining = await call(app, headers, 'POST', `${base}/invitations`, { role: 'player' });
  await call(app, player.headers, 'POST', '/api/invitations/accept', { token: joining.token });
  const pending = await call(app, headers, 'POST', `${base}/invitations`, { role: 'player', maxUses: 3 });
  const spare = await createToken(database.kysely, {
    userId,
    name: 'spare',
    secretHash: hashSecret(newSecret('lf_')),
    now: nowIso(),
    expiresAt: null,
  });
  return {
    campaignId: campaign.id as number,
    params: {
      campaignSlug: campaign.slug as string,
      thingSlug: gundren.slug as string,
      arcSlug: hideout.slug as string,
      thingTypeId: String(deities.id),
      id: String(spare.id),
      userId: player.id,
      invitationId: String(pending.id),
      trashedThingId: String(glasstaff.id),
      trashedCampaignId: String(abandoned.id),
      ...revisions,
    },
    spareTokenId: spare.id,
    player,
    hints: {
      integers: [typeId, deities.id, gundren.id, sildar.id, arrows.id, hideout.id, spare.id, campaign.id].map(Number),
      strings: [campaign.slug, gundren.slug, sildar.slug, arrows.slug, hideout.slug, 'Gundren Rockseeker', 'fuzz@example.test', 'correct horse battery staple'].map(String),
    },
  };
}
