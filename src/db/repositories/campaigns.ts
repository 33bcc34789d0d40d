import type { Database, Db } from '../database.js';
import { classifyDatabaseError } from '../errors.js';
import { indexCampaignMentions } from '../indexes/mentions.js';
import { queueReindex } from '../indexes/search-queue.js';
import type { Insertable } from 'kysely';
import type { CampaignRow, CampaignsTable, Role } from '../schema.js';
import { errors } from '../../domain/errors.js';
import { randomSlugSuffix, slugifyName, withSuffix } from '../../domain/slugs.js';
import { nowIso } from '../../domain/time.js';
import type { ExpectedVersion } from '../../domain/versions.js';
import { checkActorAtCommit, checkExpected, lockCampaignWrites } from './common.js';
import { addCampaignMember } from './members.js';
import { playersUpdatedAt } from './players-updated.js';
import { insertThingTypes } from './thing-types.js';
import { playersSeeChange } from '../../access/players-see.js';
import { campaignSnapshot } from '../../history/snapshots.js';
import { keepRevision, revisionAuthor } from './revisions.js';
import type { UpdateOptions } from './things.js';

export const DEFAULT_THING_TYPES = ['NPCs', 'Locations', 'Items'] as const;

/** Every campaign the user is a member of, with their role in it, most recently updated first. */
export function listCampaignsByMember(db: Db, userId: string): Promise<(CampaignRow & { role: Role })[]> {
  return db
    .selectFrom('campaign_members as m')
    .innerJoin('campaigns', 'campaigns.id', 'm.campaign_id')
    .selectAll('campaigns')
    .select('m.role')
    .where('m.user_id', '=', userId)
    .where('campaigns.deleted_at', 'is', null)
    .orderBy('campaigns.updated_at', 'desc')
    .orderBy('campaigns.id', 'desc')
    .execute();
}

/** Inserts a campaign row (in the caller's transaction). */
export function insertCampaign(db: Db, row: Insertable<CampaignsTable>): Promise<CampaignRow> {
  return db.insertInto('campaigns').values(row).returningAll().executeTakeFirstOrThrow();
}

/** Whether a campaign (live or in the trash) has this slug. */
export async function campaignSlugTaken(db: Db, slug: string): Promise<boolean> {
  return (await db.selectFrom('campaigns').select('id').where('slug', '=', slug).executeTakeFirst()) !== undefined;
}

/** Sets a campaign's description as written by an import (no new version: nobody has seen the campaign yet). */
export function setImportedCampaignDescription(db: Db, campaignId: number, description: string | null): Promise<CampaignRow> {
  return db.updateTable('campaigns').set({ description }).where('id', '=', campaignId).returningAll().executeTakeFirstOrThrow();
}

function isUniqueViolation(error: unknown): boolean {
  return classifyDatabaseError(error) === 'unique';
}

/** Creates a campaign and its three default thing types in one transaction. */
export async function createCampaign(
  database: Database,
  userId: string,
  input: { name: string; description: string | null },
): Promise<CampaignRow> {
  const base = slugifyName(input.name) || 'campaign';
  // Campaign slugs are unique across the service; on a clash take a short random suffix and retry.
  for (let attempt = 0; ; attempt++) {
    const slug = attempt === 0 ? base : withSuffix(base, randomSlugSuffix());
    const now = nowIso();
    try {
      return await database.write(async (trx) => {
        const campaign = await insertCampaign(trx, { slug, name: input.name, description: input.description, user_id: userId, version: 1, created_at: now, updated_at: now });
        await addCampaignMember(trx, { campaign_id: campaign.id, user_id: userId, role: 'owner', joined_at: now });
        // One statement, ids ascending in the listed order.
        await insertThingTypes(
          trx,
          DEFAULT_THING_TYPES.map((name) => ({ campaign_id: campaign.id, name, name_key: name.toLowerCase(), version: 1, created_at: now, updated_at: now })),
        );
        await queueReindex(trx, campaign.id, 'campaign', campaign.id);
        await indexCampaignMentions(trx, campaign, true);
        await keepRevision(trx, { campaignId: campaign.id, kind: 'campaign', recordId: campaign.id, snapshot: campaignSnapshot(campaign), authorId: userId });
        return campaign;
      });
    } catch (error) {
      if (!isUniqueViolation(error) || attempt >= 8) throw error;
    }
  }
}

export interface CampaignChanges {
  slug?: string;
  name?: string;
  description?: string;
  default_visibility?: 'all' | 'gm';
}

/**
 * Applies a partial update; 412 when `expected` does not admit the record, 409 on a taken slug (a
 * restore, options.keepCurrentWhenGone, keeps the current slug instead). Keeps a revision of the
 * campaign in the same transaction.
 */
export async function updateCampaign(
  database: Database,
  campaign: CampaignRow,
  requested: CampaignChanges,
  expected?: ExpectedVersion,
  options: UpdateOptions = {},
): Promise<CampaignRow> {
  // Each attempt starts again from what was asked (a deadlock re-runs the transaction: Database.write).
  let changes: CampaignChanges = requested;
  try {
    return await database.write(async (trx) => {
      // Alone among the campaign's writes (common.ts WriteMode): it locks the campaign row first.
      await lockCampaignWrites(trx, campaign.id);
      changes = { ...requested };
      const current = await trx.selectFrom('campaigns').selectAll().where('id', '=', campaign.id).executeTakeFirst();
      // Gone, or moved to the trash while this request was in flight.
      if (!current || current.deleted_at !== null) throw errors.campaignNotFound(campaign.slug);
      checkExpected(expected, 'campaign', current);
      if (changes.slug !== undefined && changes.slug !== current.slug) {
        const taken = await trx.selectFrom('campaigns').select('id').where('slug', '=', changes.slug).executeTakeFirst();
        if (taken && !options.keepCurrentWhenGone) throw errors.slugTaken('campaign', changes.slug);
        if (taken) delete changes.slug;
      }
      const playersSeeIt = playersSeeChange(current, { ...current, ...changes }, Object.keys(changes).filter((key) => key !== 'description'), ['description']);
      // With an expected version, the version check in the UPDATE itself makes the comparison atomic
      // even if another writer commits between our read and write; without one the last write wins.
      let update = trx
        .updateTable('campaigns')
        // content_version too, as every write in the campaign: the changes feed orders by it.
        .set((eb) => ({
          ...changes,
          version: eb('version', '+', 1),
          content_version: eb('content_version', '+', 1),
          updated_at: nowIso(),
          players_updated_at: playersUpdatedAt(playersSeeIt),
        }))
        .where('id', '=', current.id)
        .where('deleted_at', 'is', null);
      if (expected) update = update.where('version', '=', current.version);
      const updated = await update.returningAll().executeTakeFirst();
      // As every other campaign write's opening does (common.ts): the caller, as the membership is at commit,
      // may still make it. Before a 412 too: a caller removed meanwhile learns nothing of the
      // campaign's version.
      await checkActorAtCommit(trx, campaign.id);
      if (!updated) {
        // Without an expected version the only way to miss the row is that it was deleted meanwhile.
        if (!expected) throw errors.campaignNotFound(campaign.slug);
        throw errors.preconditionFailed('campaign');
      }
      if (changes.description !== undefined) {
        await queueReindex(trx, updated.id, 'campaign', updated.id);
        await indexCampaignMentions(trx, updated, false, current);
      }
      await keepRevision(trx, {
        campaignId: updated.id,
        kind: 'campaign',
        recordId: updated.id,
        snapshot: campaignSnapshot(updated),
        authorId: revisionAuthor(),
        before: { snapshot: campaignSnapshot(current), updatedAt: current.updated_at },
        merge: options.newRevision !== true,
      });
      return updated;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw errors.slugTaken('campaign', changes.slug ?? '');
    throw error;
  }
}
