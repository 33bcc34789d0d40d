// An import plan as the rows the writer inserts (write-plan.ts), pure: every record gets the new id
// reserved for it beforehand, and its texts and link properties name the new ids (mentions,
// images, asset URLs, parents), so each row is inserted once, as it will stay.
import type { InsertObject } from 'kysely';
import type { DB } from '../db/schema.js';
import { ARC_TEXT_FIELDS } from '../domain/arc-fields.js';
import { isPropertyLink, structureColumns, type Property, type PropertyScalar } from '../domain/properties.js';
import { RICH_TEXT_MAX_BYTES, type RichText } from '../domain/rich-text.js';
import { importProblems, type ImportPlan, type PlannedArc } from './plan.js';

export interface IdMaps {
  types: Map<number, number>;
  things: Map<number, number>;
  arcs: Map<number, number>;
  assets: Map<number, { id: number; url: string }>;
  /** Old asset URL → new URL. */
  urls: Map<string, string>;
}

type Node = Record<string, unknown>;

/** The text with mentions, image blocks and asset URLs moved to the new ids (a copy). */
export function remapRichText(text: RichText, maps: Pick<IdMaps, 'things' | 'arcs' | 'assets' | 'urls'>): RichText {
  const walk = (node: Node): Node => {
    if (typeof node.text === 'string') {
      if (maps.urls.size === 0) return node;
      let value = node.text;
      for (const [from, to] of maps.urls) if (value.includes(from)) value = value.replaceAll(from, to);
      return value === node.text ? node : { ...node, text: value };
    }
    const copy: Node = { ...node };
    if (node.type === 'mention' && typeof node.targetId === 'number') {
      const map = node.targetType === 'arc' ? maps.arcs : node.targetType === 'thing' ? maps.things : undefined;
      // A target the file did not hold would otherwise name whatever record got its old id here.
      if (map) copy.targetId = map.get(node.targetId) ?? 0;
    }
    if (node.type === 'image') {
      const asset = typeof node.assetId === 'number' ? maps.assets.get(node.assetId) : undefined;
      if (asset) {
        copy.assetId = asset.id;
        copy.url = asset.url;
      } else {
        delete copy.assetId;
        if (typeof node.url === 'string' && maps.urls.has(node.url)) copy.url = maps.urls.get(node.url);
      }
    }
    if (Array.isArray(node.children)) copy.children = (node.children as Node[]).map(walk);
    return copy;
  };
  return text.map((block) => walk(block as Node)) as RichText;
}

/**
 * Properties with their links moved to the new ids, as mentions are. A link to a record the file
 * did not hold (its target was deleted before the export) names nothing here: it is left out (a
 * list loses the item, a property whose value was that link keeps the key with the value null).
 */
export function remapProperties(properties: readonly Property[], maps: Pick<IdMaps, 'things' | 'arcs'>): Property[] {
  const one = (value: PropertyScalar): PropertyScalar | undefined => {
    if (!isPropertyLink(value)) return value;
    const id = (value.targetType === 'arc' ? maps.arcs : maps.things).get(value.targetId);
    return id === undefined ? undefined : { targetType: value.targetType, targetId: id };
  };
  return properties.map((property) => {
    if (Array.isArray(property.value)) return { ...property, value: property.value.map(one).filter((item): item is PropertyScalar => item !== undefined) };
    return { ...property, value: one(property.value) ?? null };
  });
}

type Origin = { entry: string; path: string } | undefined;

/**
 * The text as stored. Imported text passes the limits text sent to the API does, after its asset
 * URLs were rewritten too (a new URL may be longer than the old, and a text may name it many times):
 * past RICH_TEXT_MAX_BYTES it is 400 invalid_import naming the entry, and nothing is created.
 */
export function storedText(text: RichText, origin: Origin, field?: string): string | null {
  if (text.length === 0) return null;
  const json = JSON.stringify(text);
  if (json.length * 3 > RICH_TEXT_MAX_BYTES && Buffer.byteLength(json, 'utf8') > RICH_TEXT_MAX_BYTES) {
    const where = origin ?? { entry: 'the file', path: '' };
    const path = field === undefined ? where.path : `${where.path}/${field}`;
    throw importProblems(where.entry, [{ path, message: `must be at most ${RICH_TEXT_MAX_BYTES} bytes of JSON once its image URLs are rewritten to this service's` }]);
  }
  return json;
}

/** The arcs with every parent before its children (the plan has no loops: arcCycle), otherwise in plan order. */
export function parentsFirst(arcs: readonly PlannedArc[]): PlannedArc[] {
  const byKey = new Map(arcs.map((a) => [a.key, a]));
  const placed = new Set<number>();
  const out: PlannedArc[] = [];
  const place = (arc: PlannedArc) => {
    // Climb to the first ancestor not yet placed, then place the chain top-down.
    const chain: PlannedArc[] = [];
    for (let at: PlannedArc | undefined = arc; at && !placed.has(at.key); at = at.parentKey === null ? undefined : byKey.get(at.parentKey)) {
      chain.push(at);
      placed.add(at.key);
    }
    out.push(...chain.reverse());
  };
  arcs.forEach(place);
  return out;
}

export type ThingInsert = InsertObject<DB, 'things'> & { id: number; campaign_id: number; name: string; description: string | null; visibility: 'all' | 'gm'; properties: string; tags: string; aliases: string };
export type ArcInsert = InsertObject<DB, 'arcs'> & { id: number; campaign_id: number; name: string; visibility: 'all' | 'gm'; properties: string; tags: string; aliases: string } & Record<(typeof ARC_TEXT_FIELDS)[number], string | null>;

/** The things' rows, in plan order. */
export function thingRows(plan: ImportPlan, campaignId: number, maps: IdMaps): ThingInsert[] {
  return plan.things.map((t) => {
    const structure = structureColumns({ properties: remapProperties(t.properties, maps), tags: t.tags, aliases: t.aliases });
    return {
      id: maps.things.get(t.key)!,
      campaign_id: campaignId,
      type_id: maps.types.get(t.typeKey)!,
      slug: t.slug,
      name: t.name,
      description: storedText(remapRichText(t.description, maps), t.origin),
      properties: structure.properties!,
      tags: structure.tags!,
      tag_keys: structure.tag_keys!,
      aliases: structure.aliases!,
      visibility: t.visibility,
      version: 1,
      created_at: t.createdAt,
      updated_at: t.updatedAt,
    };
  });
}

/** The arcs' rows, every parent before its children. */
export function arcRows(plan: ImportPlan, campaignId: number, maps: IdMaps): ArcInsert[] {
  return parentsFirst(plan.arcs).map((a) => {
    const structure = structureColumns({ properties: remapProperties(a.properties, maps), tags: a.tags, aliases: a.aliases });
    const texts = Object.fromEntries(ARC_TEXT_FIELDS.map((field) => [field, storedText(remapRichText(a.fields[field], maps), a.origin, field)])) as Record<(typeof ARC_TEXT_FIELDS)[number], string | null>;
    return {
      id: maps.arcs.get(a.key)!,
      campaign_id: campaignId,
      parent_arc_id: a.parentKey === null ? null : maps.arcs.get(a.parentKey)!,
      slug: a.slug,
      name: a.name,
      ...texts,
      properties: structure.properties!,
      tags: structure.tags!,
      tag_keys: structure.tag_keys!,
      aliases: structure.aliases!,
      visibility: a.visibility,
      version: 1,
      created_at: a.createdAt,
      updated_at: a.updatedAt,
    };
  });
}
