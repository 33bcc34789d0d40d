// Restoring a revision (CONTRACT "# Phase 3" › "History and trash"): the snapshot's fields applied
// as a new change through the record's own update, so it is checked, indexed and kept as a revision
// like any other save, and If-Match is compared with the record as it is now. What the snapshot
// names but no longer exists keeps the record's current value: a slug another record has taken
// since, a thing type or a parent arc that is gone (or a parent that would now close a loop).
import type { Database } from '../db/database.js';
import { updateArc, findArcBySlug, type ArcChanges, type ArcDetail } from '../db/repositories/arcs.js';
import { updateCampaign, type CampaignChanges } from '../db/repositories/campaigns.js';
import { findRevision } from '../db/repositories/revisions.js';
import { findThingBySlug, updateThing, type ThingChanges } from '../db/repositories/things.js';
import type { CampaignRow, ThingRow } from '../db/schema.js';
import { ARC_TEXT_FIELDS } from '../domain/arc-fields.js';
import { errors } from '../domain/errors.js';
import { serializeRichText } from '../domain/rich-text.js';
import type { ExpectedVersion } from '../domain/versions.js';
import type { ArcSnapshot, CampaignSnapshot, StructureSnapshot, ThingSnapshot } from './snapshots.js';

const RESTORE = { keepCurrentWhenGone: true, newRevision: true } as const;

/** The changes that give a thing the snapshot's fields (those it has: older snapshots may lack later ones). */
export function thingChangesOf(record: Partial<ThingSnapshot>): ThingChanges {
  const changes: ThingChanges = {};
  if (record.name !== undefined) changes.name = record.name;
  if (record.slug !== undefined) changes.slug = record.slug;
  if (record.typeId !== undefined) changes.typeId = record.typeId;
  if (record.visibility !== undefined) changes.visibility = record.visibility;
  if (record.description !== undefined) changes.description = serializeRichText(record.description);
  return { ...changes, ...structureChangesOf(record) };
}

/** Properties, tags and aliases of a snapshot that has them (older ones do not: those stay as they are). */
function structureChangesOf(record: StructureSnapshot) {
  const changes: StructureSnapshot = {};
  if (record.properties !== undefined) changes.properties = record.properties;
  if (record.tags !== undefined) changes.tags = record.tags;
  if (record.aliases !== undefined) changes.aliases = record.aliases;
  return changes;
}

export function arcChangesOf(record: Partial<ArcSnapshot>): ArcChanges {
  const changes: ArcChanges = {};
  if (record.name !== undefined) changes.name = record.name;
  if (record.slug !== undefined) changes.slug = record.slug;
  if (record.parentArcId !== undefined) changes.parentArcId = record.parentArcId;
  if (record.visibility !== undefined) changes.visibility = record.visibility;
  for (const field of ARC_TEXT_FIELDS) {
    const value = record[field];
    if (value !== undefined) changes[field] = serializeRichText(value);
  }
  return { ...changes, ...structureChangesOf(record) };
}

export function campaignChangesOf(record: Partial<CampaignSnapshot>): CampaignChanges {
  const changes: CampaignChanges = {};
  if (record.name !== undefined) changes.name = record.name;
  if (record.slug !== undefined) changes.slug = record.slug;
  if (record.description !== undefined) changes.description = serializeRichText(record.description);
  if (record.defaultVisibility !== undefined) changes.default_visibility = record.defaultVisibility;
  return changes;
}

export async function restoreThingRevision(database: Database, campaignId: number, thingSlug: string, revisionId: number, expected?: ExpectedVersion): Promise<ThingRow> {
  const thing = await findThingBySlug(database.kysely, campaignId, thingSlug);
  if (!thing) throw errors.thingNotFound(thingSlug);
  const revision = await findRevision<ThingSnapshot>(database.kysely, { campaignId, kind: 'thing', recordId: thing.id }, revisionId);
  if (!revision) throw errors.revisionNotFound(revisionId);
  return updateThing(database, campaignId, thingSlug, thingChangesOf(revision.record), expected, RESTORE);
}

export async function restoreArcRevision(database: Database, campaignId: number, arcSlug: string, revisionId: number, expected?: ExpectedVersion): Promise<ArcDetail> {
  const arc = await findArcBySlug(database.kysely, campaignId, arcSlug);
  if (!arc) throw errors.arcNotFound(arcSlug);
  const revision = await findRevision<ArcSnapshot>(database.kysely, { campaignId, kind: 'arc', recordId: arc.id }, revisionId);
  if (!revision) throw errors.revisionNotFound(revisionId);
  return updateArc(database, campaignId, arcSlug, arcChangesOf(revision.record), expected, RESTORE);
}

export async function restoreCampaignRevision(database: Database, campaign: CampaignRow, revisionId: number, expected?: ExpectedVersion): Promise<CampaignRow> {
  const revision = await findRevision<CampaignSnapshot>(database.kysely, { campaignId: campaign.id, kind: 'campaign', recordId: campaign.id }, revisionId);
  if (!revision) throw errors.revisionNotFound(revisionId);
  return updateCampaign(database, campaign, campaignChangesOf(revision.record), expected, RESTORE);
}
