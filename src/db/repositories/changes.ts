// The changes feed's read side and its housekeeping (the table is kept by database triggers: see
// migrations/2026-11-23-0010-changes.ts). A page is one statement whatever the campaign's size:
// the feed rows after the cursor with the records they name, and the campaign's floor (the newest
// pruned tombstone); the arcs on the page then take two more for their neighbours and things.
import { sql } from 'kysely';
import type { Db, Dialect } from '../database.js';
import type { ArcRow, AssetRow, ThingRow, ThingTypeRow } from '../schema.js';
import { CHANGE_KIND_CODES, type ChangePosition } from '../../domain/changes.js';

export interface ChangeRow {
  position: ChangePosition;
  deleted: boolean;
  thing?: ThingRow;
  arc?: ArcRow;
  thingType?: ThingTypeRow;
  asset?: AssetRow;
  linkCreatedAt?: string;
}

export interface ChangesPage {
  rows: ChangeRow[];
  more: boolean;
  /** The version of the newest pruned tombstone, or -1: a cursor below it may have missed a deletion. */
  floor: number;
}

type Raw = Record<string, unknown>;

function pick<T>(row: Raw, prefix: string, columns: readonly string[]): T {
  return Object.fromEntries(columns.map((column) => [column, row[`${prefix}${column}`]])) as T;
}

// Properties, tags and aliases too: the feed presents records as every other answer does.
const STRUCTURE_COLUMNS = ['properties', 'tags', 'aliases'] as const;
const THING_COLUMNS = ['id', 'campaign_id', 'type_id', 'slug', 'name', 'description', 'visibility', ...STRUCTURE_COLUMNS, 'version', 'created_at', 'updated_at'] as const;
const ARC_COLUMNS = ['id', 'campaign_id', 'parent_arc_id', 'slug', 'name', 'hook', 'protagonist', 'antagonist', 'problem', 'key', 'outcome', 'notes', 'visibility', ...STRUCTURE_COLUMNS, 'version', 'created_at', 'updated_at'] as const;
const TYPE_COLUMNS = ['id', 'campaign_id', 'name', 'name_key', 'fields', 'version', 'created_at', 'updated_at'] as const;
const ASSET_COLUMNS = ['id', 'campaign_id', 'user_id', 'image_id', 'label', 'storage_key', 'url', 'content_type', 'byte_size', 'width', 'height', 'has_variants', 'created_at'] as const;

const cols = (alias: string, columns: readonly string[]) => sql.raw(columns.map((column) => `${alias}.${column} as ${alias}_${column}`).join(', '));

/** Up to `limit` changes of the campaign after `after`, in feed order, with the records they name. */
export async function readChanges(db: Db, campaignId: number, after: ChangePosition, limit: number): Promise<ChangesPage> {
  const k = CHANGE_KIND_CODES;
  const result = await sql<Raw>`
    with f as (select coalesce(max(version), -1) as floor from change_floors where campaign_id = ${campaignId}),
    page as (
      select * from changes ch
      where ch.campaign_id = ${campaignId}
        and (ch.version, ch.kind, ch.record_id, ch.other_id) > (${after.version}, ${after.kind}, ${after.recordId}, ${after.otherId})
      order by ch.version, ch.kind, ch.record_id, ch.other_id
      limit ${limit + 1}
    )
    select f.floor, p.version as ch_version, p.kind as ch_kind, p.record_id as ch_record_id, p.other_id as ch_other_id, p.deleted as ch_deleted,
      ${cols('t', THING_COLUMNS)}, ${cols('a', ARC_COLUMNS)}, ${cols('y', TYPE_COLUMNS)}, ${cols('s', ASSET_COLUMNS)}, l.created_at as l_created_at
    from f
    left join page p on true
    left join things t on p.kind = ${k.thing} and p.deleted = 0 and t.campaign_id = p.campaign_id and t.id = p.record_id
    left join arcs a on p.kind = ${k.arc} and p.deleted = 0 and a.campaign_id = p.campaign_id and a.id = p.record_id
    left join thing_types y on p.kind = ${k['thing-type']} and p.deleted = 0 and y.campaign_id = p.campaign_id and y.id = p.record_id
    left join assets s on p.kind = ${k.asset} and p.deleted = 0 and s.campaign_id = p.campaign_id and s.id = p.record_id
    left join arc_things l on p.kind = ${k.link} and p.deleted = 0 and l.campaign_id = p.campaign_id and l.thing_id = p.record_id and l.arc_id = p.other_id
    order by p.version, p.kind, p.record_id, p.other_id`.execute(db);
  const floor = Number(result.rows[0]?.floor ?? -1);
  const rows: ChangeRow[] = [];
  for (const raw of result.rows) {
    if (raw.ch_version === null || raw.ch_version === undefined) continue;
    const position = { version: Number(raw.ch_version), kind: Number(raw.ch_kind), recordId: Number(raw.ch_record_id), otherId: Number(raw.ch_other_id) };
    const row: ChangeRow = { position, deleted: Number(raw.ch_deleted) === 1 };
    if (raw.t_id !== null) row.thing = pick<ThingRow>(raw, 't_', THING_COLUMNS);
    if (raw.a_id !== null) row.arc = pick<ArcRow>(raw, 'a_', ARC_COLUMNS);
    if (raw.y_id !== null) row.thingType = pick<ThingTypeRow>(raw, 'y_', TYPE_COLUMNS);
    if (raw.s_id !== null) row.asset = pick<AssetRow>(raw, 's_', ASSET_COLUMNS);
    if (typeof raw.l_created_at === 'string') row.linkCreatedAt = raw.l_created_at;
    rows.push(row);
  }
  const more = rows.length > limit;
  if (more) rows.length = limit;
  return { rows, more, floor };
}

/**
 * Prunes tombstones older than `cutoff` (ISO), raising each campaign's floor to the newest it
 * pruned, in one transaction. Idempotent: any number of instances may run it at once.
 */
export async function pruneTombstones(db: Db, dialect: Dialect, cutoff: string): Promise<number> {
  const greatest = dialect === 'sqlite' ? sql.raw('max') : sql.raw('greatest');
  await sql`
    insert into change_floors (campaign_id, version)
    select campaign_id, max(version) from changes where deleted = 1 and changed_at < ${cutoff} group by campaign_id
    on conflict (campaign_id) do update set version = ${greatest}(change_floors.version, excluded.version)`.execute(db);
  const removed = await db.deleteFrom('changes').where('deleted', '=', 1).where('changed_at', '<', cutoff).executeTakeFirst();
  return Number(removed.numDeletedRows);
}

/** The feed of a campaign being deleted goes with it (the table has no foreign key: see the migration). */
export async function deleteCampaignChanges(db: Db, campaignId: number): Promise<void> {
  await db.deleteFrom('changes').where('campaign_id', '=', campaignId).execute();
  await db.deleteFrom('change_floors').where('campaign_id', '=', campaignId).execute();
}
