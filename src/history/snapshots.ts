// What a revision holds (CONTRACT "# Phase 3" › "History and trash"): the record's fields as its GET
// answers them to a game master, built here from the stored row, never through the HTTP presenters.
// A snapshot is a flat object of named fields, so the fields of later issues (properties, tags,
// aliases) are one more key each: a revision written before a field existed lacks its key, and a
// restore leaves a field the snapshot lacks as it is.
import { createHash } from 'node:crypto';
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

type ThingSnapshotRow = Pick<ThingRow, 'name' | 'slug' | 'type_id' | 'visibility' | 'description' | 'properties' | 'tags' | 'aliases'>;

export function thingSnapshot(row: ThingSnapshotRow): ThingSnapshot {
  return thingSnapshotWith(row, parseStoredRichText(row.description));
}

function thingSnapshotWith(row: ThingSnapshotRow, description: RichText): ThingSnapshot {
  return { name: row.name, slug: row.slug, typeId: row.type_id, visibility: row.visibility, description, ...structureSnapshot(row) };
}

/** A snapshot serialized already (serializeWithDigests), for keepRevision. */
export class SerializedSnapshot {
  constructor(
    readonly json: string,
    readonly digests: FieldDigests,
  ) {}
}

/**
 * serializeWithDigests(thingSnapshot(row)) without parsing the description and serializing it
 * again, for a row whose description a write has just stored as serializeRichText wrote it: JSON
 * that JSON.stringify wrote of a value JSON.parse read is its own serialization once read back.
 */
export function serializeWrittenThing(row: ThingSnapshotRow & { description: string }): SerializedSnapshot {
  const { json, digests } = serializeWithDigests(thingSnapshotWith(row, []), { description: row.description });
  return new SerializedSnapshot(json, digests);
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

// The stored form: a header byte, then the snapshot's JSON as UTF-8 (PLAIN) or deflated (DEFLATED).
// Deflate is kept only when it makes the bytes smaller: short snapshots are stored as they are.
const PLAIN = 0;
const DEFLATED = 1;

/** Whether snapshots are compressed when that makes them smaller (the benchmark turns it off to compare). */
export const snapshotCoding = { compress: true };

export function encodeSnapshot(snapshot: Snapshot): Buffer {
  return encodeSnapshotJson(JSON.stringify(snapshot));
}

/**
 * The stored form of a snapshot's JSON text (encodeSnapshot of the snapshot it is); `compress` false
 * keeps it plain (a record's latest revision, rewritten by every save of a burst: see
 * db/repositories/revisions.ts).
 */
export function encodeSnapshotJson(text: string, compress = snapshotCoding.compress): Buffer {
  const json = Buffer.from(text, 'utf8');
  return (compress && deflated(json)) || Buffer.concat([Buffer.from([PLAIN]), json]);
}

/** The stored form of these JSON bytes deflated; undefined when deflating does not make them smaller. */
function deflated(json: Uint8Array): Buffer | undefined {
  const bytes = deflateRawSync(json);
  return bytes.length < json.length ? Buffer.concat([Buffer.from([DEFLATED]), bytes]) : undefined;
}

/** A plain stored snapshot deflated (when that makes it smaller); undefined when it is stored deflated already or deflating does not pay. */
export function deflateStored(stored: Uint8Array): Buffer | undefined {
  if (stored[0] !== PLAIN || !snapshotCoding.compress) return undefined;
  return deflated(stored.subarray(1));
}

export function decodeSnapshot<T extends Snapshot = Snapshot>(stored: Uint8Array): T {
  const bytes = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  const header = bytes[0];
  const body = bytes.subarray(1);
  if (header === PLAIN) return JSON.parse(body.toString('utf8')) as T;
  if (header === DEFLATED) return JSON.parse(inflateRawSync(body).toString('utf8')) as T;
  throw new Error(`a revision snapshot with an unknown header byte ${String(header)}`);
}

/**
 * A snapshot's fields as digests, for telling which fields two snapshots differ in without keeping
 * either snapshot at hand: each field (but the derived ones) maps to its JSON text when that is at
 * most DIGEST_VERBATIM_MAX characters, or to `#` and a 128-bit hash of it (no JSON text starts with
 * `#`), in the snapshot's key order. Two fields have the same digest exactly when their JSON texts
 * are the same (but for a hash collision).
 */
export type FieldDigests = Record<string, string>;

const DIGEST_VERBATIM_MAX = 32;

function digestOf(json: string): string {
  return json.length <= DIGEST_VERBATIM_MAX ? json : `#${createHash('sha256').update(json).digest('base64').slice(0, 22)}`;
}

/** The digests of a snapshot's fields (FieldDigests). */
export function fieldDigests(snapshot: Snapshot): FieldDigests {
  return serializeWithDigests(snapshot).digests;
}

/**
 * A snapshot's JSON (as JSON.stringify writes it: keys in order, those whose value is undefined
 * left out) and its fields' digests, each field serialized once for both. encodeSnapshotJson turns
 * the JSON into the stored form.
 */
export function serializeWithDigests(snapshot: Snapshot, given: Readonly<Record<string, string>> = {}): { json: string; digests: FieldDigests } {
  const record = snapshot as unknown as Record<string, unknown>;
  const digests: FieldDigests = {};
  const parts: string[] = [];
  for (const key of Object.keys(record)) {
    // A field whose JSON the caller has (serializeWrittenThing) is taken as it is.
    const json = Object.hasOwn(given, key) ? given[key] : (JSON.stringify(record[key]) as string | undefined);
    if (json === undefined) continue;
    parts.push(`${JSON.stringify(key)}:${json}`);
    if (!DERIVED_KEYS.has(key)) digests[key] = digestOf(json);
  }
  return { json: `{${parts.join(',')}}`, digests };
}

const absentDigests = new Map(Object.entries(ABSENT_MEANS).map(([key, value]) => [key, digestOf(JSON.stringify(value))]));

/**
 * The names of the fields whose values differ between two snapshots, told by their digests (a field
 * a snapshot lacks counts as its ABSENT_MEANS value; derived fields are never a change): all of
 * `next`'s when there is no revision before, in `next`'s key order. Empty: the same revision.
 */
export function changedDigests(previous: FieldDigests | undefined, next: FieldDigests): string[] {
  const keys = Object.keys(next);
  if (previous === undefined) return keys;
  for (const key of Object.keys(previous)) if (!Object.hasOwn(next, key)) keys.push(key);
  const value = (digests: FieldDigests, key: string) => (Object.hasOwn(digests, key) ? digests[key] : absentDigests.get(key));
  return keys.filter((key) => value(previous, key) !== value(next, key));
}
