// What a revision holds (CONTRACT "# Phase 3" › "History and trash"): the record's fields as its GET
// answers them to a game master, built here from the stored row, never through the HTTP presenters.
// A snapshot is a flat object of named fields, so the fields of later issues (properties, tags,
// aliases) are one more key each: a revision written before a field existed lacks its key, and a
// restore leaves a field the snapshot lacks as it is.
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { ArcRow, CampaignRow, ThingRow, Visibility } from '../db/schema.js';
import { ARC_TEXT_FIELDS } from '../domain/arc-fields.js';
import { parseStoredRichText, type RichText } from '../domain/rich-text.js';
import { parseStoredLabels, parseStoredProperties, type Property } from '../domain/properties.js';

export type RevisionKind = 'thing' | 'arc' | 'campaign';

export const REVISION_KIND_CODES: Record<RevisionKind, number> = { thing: 1, arc: 2, campaign: 3 };

/** Properties, tags and aliases (issue 25): absent from revisions kept before they existed. */
export interface StructureSnapshot {
  properties?: Property[];
  tags?: string[];
  aliases?: string[];
}

export interface ThingSnapshot extends StructureSnapshot {
  name: string;
  slug: string;
  typeId: number;
  visibility: Visibility;
  description: RichText;
}

export interface ArcParentRef {
  id: number;
  slug: string;
  name: string;
}

export interface ArcSnapshot extends StructureSnapshot {
  name: string;
  slug: string;
  parentArcId: number | null;
  /** The parent as the arc's GET showed it when the revision was kept. */
  parentArc: ArcParentRef | null;
  visibility: Visibility;
  hook: RichText;
  protagonist: RichText;
  antagonist: RichText;
  problem: RichText;
  key: RichText;
  outcome: RichText;
  notes: RichText;
}

export interface CampaignSnapshot {
  name: string;
  slug: string;
  description: RichText;
  defaultVisibility: 'all' | 'gm';
}

export type Snapshot = ThingSnapshot | ArcSnapshot | CampaignSnapshot;

function structureSnapshot(row: { properties: string; tags: string; aliases: string }): Required<StructureSnapshot> {
  return { properties: parseStoredProperties(row.properties), tags: parseStoredLabels(row.tags), aliases: parseStoredLabels(row.aliases) };
}

export function thingSnapshot(row: Pick<ThingRow, 'name' | 'slug' | 'type_id' | 'visibility' | 'description' | 'properties' | 'tags' | 'aliases'>): ThingSnapshot {
  return { name: row.name, slug: row.slug, typeId: row.type_id, visibility: row.visibility, description: parseStoredRichText(row.description), ...structureSnapshot(row) };
}

export function arcSnapshot(row: ArcRow, parent: ArcParentRef | null): ArcSnapshot {
  const texts = Object.fromEntries(ARC_TEXT_FIELDS.map((field) => [field, parseStoredRichText(row[field])])) as Record<(typeof ARC_TEXT_FIELDS)[number], RichText>;
  return {
    name: row.name,
    slug: row.slug,
    parentArcId: row.parent_arc_id,
    parentArc: parent === null ? null : { id: parent.id, slug: parent.slug, name: parent.name },
    visibility: row.visibility,
    ...texts,
    ...structureSnapshot(row),
  };
}

export function campaignSnapshot(row: Pick<CampaignRow, 'name' | 'slug' | 'description' | 'default_visibility'>): CampaignSnapshot {
  return { name: row.name, slug: row.slug, description: parseStoredRichText(row.description), defaultVisibility: row.default_visibility };
}

// Keys that restate another (an arc's parent is `parentArcId`; `parentArc` only shows it): they never
// count as a change of their own, so a parent's rename is no change of its children.
const DERIVED_KEYS = new Set(['parentArc']);

// A revision kept before properties, tags and aliases existed lacks their keys: the record had none.
const ABSENT_MEANS: Record<string, unknown> = { properties: [], tags: [], aliases: [] };

/**
 * The names of the fields whose values differ between two snapshots (all of `next`'s when there is
 * no revision before), in `next`'s key order. Empty: the snapshots are the same revision.
 */
export function changedFields(previous: Snapshot | undefined, next: Snapshot): string[] {
  const before = previous as Record<string, unknown> | undefined;
  const after = next as unknown as Record<string, unknown>;
  const keys = Object.keys(after).filter((key) => !DERIVED_KEYS.has(key));
  if (before === undefined) return keys;
  for (const key of Object.keys(before)) if (!DERIVED_KEYS.has(key) && !(key in after)) keys.push(key);
  const value = (snapshot: Record<string, unknown>, key: string) => (key in snapshot ? snapshot[key] : ABSENT_MEANS[key]);
  return keys.filter((key) => JSON.stringify(value(before, key)) !== JSON.stringify(value(after, key)));
}

// The stored form: a header byte, then the snapshot's JSON as UTF-8 (PLAIN) or deflated (DEFLATED).
// Deflate is kept only when it makes the bytes smaller: short snapshots are stored as they are.
const PLAIN = 0;
const DEFLATED = 1;

/** Whether snapshots are compressed when that makes them smaller (the benchmark turns it off to compare). */
export const snapshotCoding = { compress: true };

export function encodeSnapshot(snapshot: Snapshot): Buffer {
  const json = Buffer.from(JSON.stringify(snapshot), 'utf8');
  if (snapshotCoding.compress) {
    const deflated = deflateRawSync(json);
    if (deflated.length < json.length) return Buffer.concat([Buffer.from([DEFLATED]), deflated]);
  }
  return Buffer.concat([Buffer.from([PLAIN]), json]);
}

export function decodeSnapshot<T extends Snapshot = Snapshot>(stored: Uint8Array): T {
  const bytes = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  const header = bytes[0];
  const body = bytes.subarray(1);
  if (header === PLAIN) return JSON.parse(body.toString('utf8')) as T;
  if (header === DEFLATED) return JSON.parse(inflateRawSync(body).toString('utf8')) as T;
  throw new Error(`a revision snapshot with an unknown header byte ${String(header)}`);
}
