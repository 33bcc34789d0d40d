// Writing an import plan: one write transaction creates the campaign and everything in it, so an
// import is all or nothing. Records get new ids; slugs and timestamps are the file's (the campaign's
// slug gets a suffix when it is taken). Mentions, parents, links and images are remapped to the new
// ids. The search and mention indexes are built for the campaign at the end, in the same
// transaction. Images were staged at the image host beforehand (checked, but named by no record):
// here each is placed under its new image id, and if the transaction fails the placed ones are
// removed again.
import type { Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import { classifyDatabaseError } from '../db/errors.js';
import { rebuildCampaignMentions } from '../db/indexes/mentions.js';
import { rebuildCampaignIndex } from '../db/indexes/search.js';
import type { CampaignRow, DB } from '../db/schema.js';
import { ARC_TEXT_FIELDS } from '../domain/arc-fields.js';
import { isPropertyLink, structureColumns, type Property, type PropertyScalar } from '../domain/properties.js';
import { RICH_TEXT_MAX_BYTES, type RichText, type RichTextNode } from '../domain/rich-text.js';
import { randomSlugSuffix, withSuffix } from '../domain/slugs.js';
import { nowIso } from '../domain/time.js';
import { newImageId, type ImageHost, type ImageRef, type StagedImage } from '../images/image-host.js';
import type { ImportBudget } from './budget.js';
import { importProblems, type ImportPlan } from './plan.js';

const CHUNK = 200;

export interface ImportCounts {
  thingTypes: number;
  things: number;
  arcs: number;
  links: number;
  assets: number;
}

interface IdMaps {
  things: Map<number, number>;
  arcs: Map<number, number>;
  assets: Map<number, { id: number; url: string }>;
  /** Old asset URL → new URL. */
  urls: Map<string, string>;
}

type Node = Record<string, unknown>;

/** Whether the text has a mention (which needs the new ids of every thing and arc). */
function hasMentions(nodes: readonly RichTextNode[]): boolean {
  for (const node of nodes) {
    if ((node as Node).type === 'mention') return true;
    const children = (node as Node).children;
    if (Array.isArray(children) && hasMentions(children as RichTextNode[])) return true;
  }
  return false;
}

/** The text with mentions, image blocks and asset URLs moved to the new ids (a copy). */
export function remapRichText(text: RichText, maps: IdMaps): RichText {
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

const hasLinks = (properties: readonly Property[]) => properties.some((property) => (Array.isArray(property.value) ? property.value.some(isPropertyLink) : isPropertyLink(property.value)));

/**
 * Inserts records CHUNK at a time and maps each record's key to its new id. Slugs are unique in the
 * campaign: they pair each new row with its record whatever order RETURNING uses.
 */
async function insertInChunks<R extends { key: number; slug: string }>(
  records: readonly R[],
  ids: Map<number, number>,
  insert: (chunk: R[]) => Promise<{ id: number; slug: string }[]>,
): Promise<void> {
  for (let start = 0; start < records.length; start += CHUNK) {
    const chunk = records.slice(start, start + CHUNK);
    const bySlug = new Map((await insert(chunk)).map((row) => [row.slug, row.id]));
    for (const record of chunk) ids.set(record.key, bySlug.get(record.slug)!);
  }
}

type Origin = { entry: string; path: string } | undefined;

/**
 * The text as stored. Imported text passes the limits text sent to the API does, after its asset
 * URLs were rewritten too (a new URL may be longer than the old, and a text may name it many times):
 * past RICH_TEXT_MAX_BYTES it is 400 invalid_import naming the entry, and nothing is created.
 */
function stored(text: RichText, origin: Origin, field?: string): string | null {
  if (text.length === 0) return null;
  const json = JSON.stringify(text);
  if (json.length * 3 > RICH_TEXT_MAX_BYTES && Buffer.byteLength(json, 'utf8') > RICH_TEXT_MAX_BYTES) {
    const where = origin ?? { entry: 'the file', path: '' };
    const path = field === undefined ? where.path : `${where.path}/${field}`;
    throw importProblems(where.entry, [{ path, message: `must be at most ${RICH_TEXT_MAX_BYTES} bytes of JSON once its image URLs are rewritten to this service's` }]);
  }
  return json;
}

async function freeCampaignSlug(trx: Transaction<DB>, wanted: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const slug = attempt === 0 ? wanted : withSuffix(wanted, randomSlugSuffix());
    const taken = await trx.selectFrom('campaigns').select('id').where('slug', '=', slug).executeTakeFirst();
    if (!taken) return slug;
  }
}

/**
 * Creates the campaign of `plan`, owned by `ownerId`, in one transaction. `staged` holds the staged
 * bytes of each asset's `file`; each is placed or (on failure) discarded by the time this returns.
 */
export async function writePlan(
  database: Database,
  imageHost: ImageHost,
  plan: ImportPlan,
  ownerId: string,
  staged: Map<string, StagedImage>,
  fallbackSlug: string,
  budget?: ImportBudget,
): Promise<{ campaign: CampaignRow; counts: ImportCounts }> {
  const placed: ImageRef[] = [];
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        budget?.check();
        return await database.write(async (trx) => {
          const written = await writeAll(trx, imageHost, plan, ownerId, staged, fallbackSlug, placed);
          // A client gone while the campaign was written: roll it back, create nothing.
          budget?.check();
          return written;
        });
      } catch (error) {
        // Another campaign took the slug between our look and our insert: look again.
        if (classifyDatabaseError(error) !== 'unique' || attempt >= 3 || placed.length > 0) throw error;
      }
    }
  } catch (error) {
    await imageHost.remove(placed).catch(() => {});
    throw error;
  } finally {
    await Promise.all([...staged.values()].map((image) => imageHost.discardStaged(image).catch(() => {})));
  }
}

async function writeAll(
  trx: Transaction<DB>,
  imageHost: ImageHost,
  plan: ImportPlan,
  ownerId: string,
  staged: Map<string, StagedImage>,
  fallbackSlug: string,
  placed: ImageRef[],
): Promise<{ campaign: CampaignRow; counts: ImportCounts }> {
  const c = plan.campaign;
  const slug = await freeCampaignSlug(trx, c.slug ?? fallbackSlug);
  const campaign = await trx
    .insertInto('campaigns')
    .values({
      slug,
      name: c.name,
      description: null,
      user_id: ownerId,
      default_visibility: c.defaultVisibility ?? 'all',
      version: 1,
      created_at: c.createdAt,
      updated_at: c.updatedAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const campaignId = campaign.id;
  await trx.insertInto('campaign_members').values({ campaign_id: campaignId, user_id: ownerId, role: 'owner', joined_at: nowIso() }).execute();

  const types = new Map<number, number>();
  for (const t of plan.thingTypes) {
    const row = await trx
      .insertInto('thing_types')
      .values({ campaign_id: campaignId, name: t.name, name_key: t.name.toLowerCase(), fields: JSON.stringify(t.fields), version: 1, created_at: t.createdAt, updated_at: t.updatedAt })
      .returning('id')
      .executeTakeFirstOrThrow();
    types.set(t.key, row.id);
  }

  const maps: IdMaps = { things: new Map(), arcs: new Map(), assets: new Map(), urls: new Map() };
  for (const asset of plan.assets) {
    const image = staged.get(asset.file)!;
    const ref = { campaignId, imageId: newImageId() };
    const where = await imageHost.placeStaged(image, ref);
    staged.delete(asset.file);
    placed.push(ref);
    const row = await trx
      .insertInto('assets')
      .values({
        campaign_id: campaignId,
        user_id: ownerId,
        image_id: ref.imageId,
        label: asset.label,
        storage_key: where.storageKey,
        url: where.url,
        content_type: where.contentType,
        byte_size: where.byteSize,
        created_at: asset.createdAt,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    maps.assets.set(asset.key, { id: row.id, url: where.url });
    if (asset.url !== undefined) maps.urls.set(asset.url, where.url);
  }

  // Texts without mentions are written as they come; those with mentions once every id is known.
  const later: { table: 'things' | 'arcs'; key: number }[] = [];
  await insertInChunks(plan.things, maps.things, (chunk) =>
    trx
      .insertInto('things')
      .values(
        chunk.map((t) => {
          const deferred = hasMentions(t.description) || hasLinks(t.properties);
          if (deferred) later.push({ table: 'things', key: t.key });
          return {
            campaign_id: campaignId,
            type_id: types.get(t.typeKey)!,
            slug: t.slug,
            name: t.name,
            description: deferred ? null : stored(remapRichText(t.description, maps), t.origin),
            ...structureColumns({ properties: deferred ? [] : t.properties, tags: t.tags, aliases: t.aliases }),
            visibility: t.visibility,
            version: 1,
            created_at: t.createdAt,
            updated_at: t.updatedAt,
          };
        }),
      )
      .returning(['id', 'slug'])
      .execute(),
  );
  await insertInChunks(plan.arcs, maps.arcs, (chunk) =>
    trx
      .insertInto('arcs')
      .values(
        chunk.map((a) => {
          const deferred = ARC_TEXT_FIELDS.some((field) => hasMentions(a.fields[field])) || hasLinks(a.properties);
          if (deferred) later.push({ table: 'arcs', key: a.key });
          const texts = Object.fromEntries(ARC_TEXT_FIELDS.map((field) => [field, deferred ? null : stored(remapRichText(a.fields[field], maps), a.origin, field)]));
          return {
            campaign_id: campaignId,
            parent_arc_id: null,
            slug: a.slug,
            name: a.name,
            ...texts,
            ...structureColumns({ properties: deferred ? [] : a.properties, tags: a.tags, aliases: a.aliases }),
            visibility: a.visibility,
            version: 1,
            created_at: a.createdAt,
            updated_at: a.updatedAt,
          };
        }),
      )
      .returning(['id', 'slug'])
      .execute(),
  );
  for (const a of plan.arcs) {
    if (a.parentKey === null) continue;
    await trx.updateTable('arcs').set({ parent_arc_id: maps.arcs.get(a.parentKey)! }).where('id', '=', maps.arcs.get(a.key)!).execute();
  }

  const things = new Map(plan.things.map((t) => [t.key, t]));
  const arcs = new Map(plan.arcs.map((a) => [a.key, a]));
  for (const record of later) {
    if (record.table === 'things') {
      const t = things.get(record.key)!;
      await trx
        .updateTable('things')
        .set({ description: stored(remapRichText(t.description, maps), t.origin), ...structureColumns({ properties: remapProperties(t.properties, maps) }) })
        .where('id', '=', maps.things.get(t.key)!)
        .execute();
    } else {
      const a = arcs.get(record.key)!;
      const texts = Object.fromEntries(ARC_TEXT_FIELDS.map((field) => [field, stored(remapRichText(a.fields[field], maps), a.origin, field)]));
      await trx
        .updateTable('arcs')
        .set({ ...texts, ...structureColumns({ properties: remapProperties(a.properties, maps) }) })
        .where('id', '=', maps.arcs.get(a.key)!)
        .execute();
    }
  }

  for (let start = 0; start < plan.links.length; start += CHUNK) {
    await trx
      .insertInto('arc_things')
      .values(
        plan.links.slice(start, start + CHUNK).map((l) => ({
          campaign_id: campaignId,
          arc_id: maps.arcs.get(l.arcKey)!,
          thing_id: maps.things.get(l.thingKey)!,
          created_at: l.createdAt,
        })),
      )
      .execute();
  }

  const done = await trx
    .updateTable('campaigns')
    .set({ description: stored(remapRichText(c.description, maps), c.origin) })
    .where('id', '=', campaignId)
    .returningAll()
    .executeTakeFirstOrThrow();
  await rebuildCampaignIndex(trx, campaignId);
  await rebuildCampaignMentions(trx, campaignId);
  return {
    campaign: done,
    counts: { thingTypes: plan.thingTypes.length, things: plan.things.length, arcs: plan.arcs.length, links: plan.links.length, assets: plan.assets.length },
  };
}
