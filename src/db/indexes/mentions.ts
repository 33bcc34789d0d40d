// The mentions index's write side: which field of which record mentions which thing or arc (the
// read side is db/repositories/mentions.ts; what a field mentions is src/render/references.ts,
// pure). Kept the way the search index is (see indexes/search.ts): every write that changes rich
// text calls index*Mentions in its own transaction, deletes cascade, and rebuildMentionsIndex
// recomputes it (`npm run cli -- search reindex`, and after the migration that created it).
import type { Database, Db } from '../database.js';
import { campaignHousekeeping } from '../repositories/common.js';
import { ARC_TEXT_FIELDS } from '../schema.js';
import { queueReindex } from './search-queue.js';
import { playersUpdatedAt } from '../repositories/players-updated.js';
import { AppError } from '../../domain/errors.js';
import { parseStoredRichText, serializeRichText } from '../../domain/rich-text.js';
import { nowIso } from '../../domain/time.js';
import { mentionsOf, rewriteMentionSlugs, storedMayMention } from '../../render/index.js';
import { parseStoredProperties, propertyLinks } from '../../domain/properties.js';

export const SOURCE_CODES = { thing: 1, arc: 2, campaign: 3 } as const;
export const TARGET_CODES = { thing: 1, arc: 2 } as const;
export type SourceKind = keyof typeof SOURCE_CODES;
export type TargetKind = keyof typeof TARGET_CODES;

const ROWS_PER_INSERT = 500;
const RECORDS_PER_BATCH = 500;

/** A record's rich-text fields as stored (JSON text, or null for never written). */
export interface MentionSource {
  kind: SourceKind;
  id: number;
  campaignId: number;
  fields: Record<string, string | null>;
  /** Stored properties: each link is a relation, indexed under the field `properties.<key>`. */
  properties?: string | null | undefined;
}

const thingSource = (thing: { id: number; campaign_id: number; description: string | null; properties?: string | undefined }): MentionSource => ({
  kind: 'thing',
  id: thing.id,
  campaignId: thing.campaign_id,
  fields: { description: thing.description },
  properties: thing.properties,
});

const arcSource = (arc: { id: number; campaign_id: number; properties?: string | undefined } & Record<(typeof ARC_TEXT_FIELDS)[number], string | null>): MentionSource => ({
  kind: 'arc',
  id: arc.id,
  campaignId: arc.campaign_id,
  fields: Object.fromEntries(ARC_TEXT_FIELDS.map((field) => [field, arc[field]])),
  properties: arc.properties,
});

const campaignSource = (campaign: { id: number; description: string | null }): MentionSource => ({
  kind: 'campaign',
  id: campaign.id,
  campaignId: campaign.id,
  fields: { description: campaign.description },
});

function rowsOf(source: MentionSource) {
  const rows = [];
  const record = { campaign_id: source.campaignId, source_kind: SOURCE_CODES[source.kind], thing_id: source.kind === 'thing' ? source.id : null, arc_id: source.kind === 'arc' ? source.id : null };
  // A link property is a relation: one row read both ways (backlinks), secret when the property is GM-only.
  for (const { key, gmOnly, link } of propertyLinks(parseStoredProperties(source.properties))) {
    rows.push({ ...record, field: `properties.${key}`, target_kind: TARGET_CODES[link.targetType], target_id: link.targetId, target_slug: null, secret: gmOnly ? 1 : 0 });
  }
  for (const [field, stored] of Object.entries(source.fields)) {
    if (stored === null || !storedMayMention(stored)) continue;
    for (const mention of mentionsOf(parseStoredRichText(stored))) {
      rows.push({
        campaign_id: source.campaignId,
        source_kind: SOURCE_CODES[source.kind],
        thing_id: source.kind === 'thing' ? source.id : null,
        arc_id: source.kind === 'arc' ? source.id : null,
        field,
        target_kind: TARGET_CODES[mention.target],
        target_id: mention.id ?? null,
        target_slug: mention.slug ?? null,
        secret: mention.secret ? 1 : 0,
      });
    }
  }
  return rows;
}

/** Whether two states of a record give the same rows for certain: every field and the properties stored alike. */
function sameStored(a: MentionSource, b: MentionSource): boolean {
  if (a.properties !== b.properties) return false;
  for (const field of Object.keys(a.fields)) if (a.fields[field] !== b.fields[field]) return false;
  return Object.keys(a.fields).length === Object.keys(b.fields).length;
}

async function insertRows(db: Db, sources: readonly MentionSource[]): Promise<number> {
  const rows = sources.flatMap(rowsOf);
  await insertRowList(db, rows);
  return rows.length;
}

async function insertRowList(db: Db, rows: ReturnType<typeof rowsOf>): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) await db.insertInto('mentions').values(rows.slice(i, i + ROWS_PER_INSERT)).execute();
}

/**
 * The record's rows replace those it had. With the record as it was before the change (`before`, read
 * in the same transaction), nothing is written when its rows are the same as before: the index holds
 * a record's rows as its stored text gives them (every write of that text re-indexes it in its own
 * transaction, and the rows depend on nothing else), so an edit that leaves the mentions as they were
 * (most edits of a text) costs no statement.
 */
async function reindex(db: Db, source: MentionSource, created: boolean, before?: MentionSource): Promise<void> {
  if (!created && before !== undefined && sameStored(before, source)) return;
  const rows = rowsOf(source);
  if (created) {
    await insertRowList(db, rows);
    return;
  }
  if (before !== undefined && sameRows(rowsOf(before), rows)) return;
  let remove = db.deleteFrom('mentions').where('campaign_id', '=', source.campaignId).where('source_kind', '=', SOURCE_CODES[source.kind]);
  if (source.kind === 'thing') remove = remove.where('thing_id', '=', source.id);
  if (source.kind === 'arc') remove = remove.where('arc_id', '=', source.id);
  await remove.execute();
  await insertRowList(db, rows);
}

function sameRows(a: ReturnType<typeof rowsOf>, b: ReturnType<typeof rowsOf>): boolean {
  return a.length === b.length && JSON.stringify(a) === JSON.stringify(b);
}

type ThingMentionSource = Parameters<typeof thingSource>[0];
type ArcMentionSource = Parameters<typeof arcSource>[0];

/**
 * (Re)indexes a thing's mentions: in the transaction that created it (`created`) or changed its
 * description or properties (with `before`, the thing as it was: nothing is written if its mentions
 * did not change).
 */
export function indexThingMentions(db: Db, thing: ThingMentionSource, created = false, before?: ThingMentionSource): Promise<void> {
  return reindex(db, thingSource(thing), created, before && thingSource(before));
}

/** (Re)indexes an arc's mentions: in the transaction that created it (`created`) or changed a text field (`before` as for things). */
export function indexArcMentions(db: Db, arc: ArcMentionSource, created = false, before?: ArcMentionSource): Promise<void> {
  return reindex(db, arcSource(arc), created, before && arcSource(before));
}

/** (Re)indexes the mentions of a campaign's description: in the transaction that created or changed it (`before` as for things). */
export function indexCampaignMentions(db: Db, campaign: Parameters<typeof campaignSource>[0], created = false, before?: Parameters<typeof campaignSource>[0]): Promise<void> {
  return reindex(db, campaignSource(campaign), created, before && campaignSource(before));
}

/**
 * After an explicit slug change of a thing or arc: every `[[kind#from]]` text link of the campaign
 * now reads `[[kind#to]]`. Each rewritten record gets a new version and updatedAt, and its search
 * and mentions index entries are renewed. Call after beginCampaignWrite, in the transaction that
 * changed the slug. Returns how many records were rewritten.
 *
 * When the target is GM-only (`targetHidden`), its new slug is written only where players do not
 * read: in GM-only records, and inside secret elements of the others (CONTRACT "Secrets that
 * hold"). Elsewhere the text stays as typed, and the link keeps resolving through the previous slug.
 */
export async function rewriteSlugLinks(db: Db, campaignId: number, kind: TargetKind, from: string, to: string, targetHidden = false): Promise<number> {
  // The records that link to the old slug, found through the index: one statement per table.
  const linking = (source: SourceKind) =>
    db
      .selectFrom('mentions')
      .where('campaign_id', '=', campaignId)
      .where('source_kind', '=', SOURCE_CODES[source])
      .where('target_kind', '=', TARGET_CODES[kind])
      .where('target_slug', '=', from);
  const things = await db.selectFrom('things').selectAll().where('campaign_id', '=', campaignId).where('id', 'in', linking('thing').select('thing_id').where('thing_id', 'is not', null)).execute();
  const arcs = await db.selectFrom('arcs').selectAll().where('campaign_id', '=', campaignId).where('id', 'in', linking('arc').select('arc_id').where('arc_id', 'is not', null)).execute();
  const campaigns = await db.selectFrom('campaigns').selectAll().where('id', '=', campaignId).where((eb) => eb.exists(linking('campaign').select('id'))).execute();

  const rewrite = (stored: string | null, sourceHidden = false): string | undefined => {
    if (stored === null) return undefined;
    const rewritten = rewriteMentionSlugs(parseStoredRichText(stored), kind, from, to, { onlyInSecret: targetHidden && !sourceHidden });
    return rewritten && serializeRichText(rewritten);
  };
  const now = nowIso();
  // A GM-only target's new slug is written only where players do not read: they see no change.
  const players_updated_at = playersUpdatedAt(!targetHidden);
  let rewrittenRecords = 0;
  for (const thing of things) {
    const description = rewrite(thing.description, thing.visibility === 'gm');
    if (description === undefined) continue;
    const updated = await db.updateTable('things').set((eb) => ({ description, version: eb('version', '+', 1), updated_at: now, players_updated_at })).where('id', '=', thing.id).returningAll().executeTakeFirstOrThrow();
    await queueReindex(db, updated.campaign_id, 'thing', updated.id);
    await indexThingMentions(db, updated);
    rewrittenRecords += 1;
  }
  for (const arc of arcs) {
    const set: Partial<Record<(typeof ARC_TEXT_FIELDS)[number], string>> = {};
    for (const field of ARC_TEXT_FIELDS) {
      const value = rewrite(arc[field], arc.visibility === 'gm');
      if (value !== undefined) set[field] = value;
    }
    if (Object.keys(set).length === 0) continue;
    const updated = await db.updateTable('arcs').set((eb) => ({ ...set, version: eb('version', '+', 1), updated_at: now, players_updated_at })).where('id', '=', arc.id).returningAll().executeTakeFirstOrThrow();
    await queueReindex(db, updated.campaign_id, 'arc', updated.id);
    await indexArcMentions(db, updated);
    rewrittenRecords += 1;
  }
  for (const campaign of campaigns) {
    const description = rewrite(campaign.description);
    if (description === undefined) continue;
    const updated = await db.updateTable('campaigns').set((eb) => ({ description, version: eb('version', '+', 1), updated_at: now, players_updated_at })).where('id', '=', campaign.id).returningAll().executeTakeFirstOrThrow();
    await queueReindex(db, updated.id, 'campaign', updated.id);
    await indexCampaignMentions(db, updated);
    rewrittenRecords += 1;
  }
  return rewrittenRecords;
}

/** Rebuilds one campaign's mentions from its records, in keyset pages; runs in the caller's transaction. */
export async function rebuildCampaignMentions(db: Db, campaignId: number): Promise<number> {
  await db.deleteFrom('mentions').where('campaign_id', '=', campaignId).execute();
  const campaign = await db.selectFrom('campaigns').select(['id', 'description']).where('id', '=', campaignId).executeTakeFirst();
  if (!campaign) return 0;
  let rows = await insertRows(db, [campaignSource(campaign)]);
  for (let after = 0; ; ) {
    const things = await db.selectFrom('things').select(['id', 'campaign_id', 'description', 'properties']).where('campaign_id', '=', campaignId).where('id', '>', after).orderBy('id').limit(RECORDS_PER_BATCH).execute();
    rows += await insertRows(db, things.map(thingSource));
    if (things.length < RECORDS_PER_BATCH) break;
    after = things.at(-1)!.id;
  }
  for (let after = 0; ; ) {
    const arcs = await db.selectFrom('arcs').select(['id', 'campaign_id', 'properties', ...ARC_TEXT_FIELDS]).where('campaign_id', '=', campaignId).where('id', '>', after).orderBy('id').limit(RECORDS_PER_BATCH).execute();
    rows += await insertRows(db, arcs.map(arcSource));
    if (arcs.length < RECORDS_PER_BATCH) break;
    after = arcs.at(-1)!.id;
  }
  return rows;
}

/** Rebuilds every campaign's mentions, one transaction per campaign holding its write lock. */
export async function rebuildMentionsIndex(database: Database): Promise<{ campaigns: number; mentions: number }> {
  const campaigns = await database.kysely.selectFrom('campaigns').select('id').orderBy('id').execute();
  let rebuilt = 0;
  let mentions = 0;
  for (const { id } of campaigns) {
    try {
      mentions += await campaignHousekeeping(database, id, (trx) => rebuildCampaignMentions(trx, id));
      rebuilt += 1;
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'campaign_not_found')) throw error;
    }
  }
  return { campaigns: rebuilt, mentions };
}

/** Indexes the mentions of records put back by a restore from the trash (their rows went with them), in one go. */
export async function indexRestoredMentions(
  db: Db,
  things: readonly Parameters<typeof thingSource>[0][],
  arcs: readonly Parameters<typeof arcSource>[0][],
): Promise<void> {
  await insertRows(db, [...things.map(thingSource), ...arcs.map(arcSource)]);
}
