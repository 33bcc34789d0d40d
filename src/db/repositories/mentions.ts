// The mentions index's read side (its write side is db/indexes/mentions.ts): backlinks, and the
// records and assets a rendering refers to. Each is a fixed number of statements whatever the size
// of the campaign or the content: lists of ids and slugs travel as one parameter.
import { sql, type Expression, type SqlBool } from 'kysely';
import type { Db, Dialect } from '../database.js';
import { SOURCE_CODES, TARGET_CODES, type SourceKind, type TargetKind } from '../indexes/mentions.js';
import { propertiesFor, richTextFor, type View } from '../../access/view.js';
import { visibleArcs, visibleThings } from './visible.js';
import { assetVariants } from '../../images/variant-names.js';
import {
  collectReferences,
  emptyReferences,
  propertyReferences,
  renderProperties,
  renderRichText,
  type AssetTarget,
  type MentionTarget,
  type References,
  type RenderContext,
  type RenderFormat,
} from '../../render/index.js';

export interface Backlink {
  type: SourceKind;
  id: number;
  slug: string;
  name: string;
  fields: string[];
  updatedAt: string;
}

/**
 * Every thing, arc and campaign description that mentions the target (by id, or by a `[[kind#slug]]`
 * link to its current slug or a previous one), with the fields that do, most recently updated first. One statement.
 * For a player's view, a GM-only source is no backlink, and neither is a mention only made inside
 * secret elements (at any depth).
 */
export async function listBacklinks(db: Db, view: View, kind: TargetKind, target: { id: number; slug: string }): Promise<Backlink[]> {
  const campaignId = view.campaignId;
  let query = db
    .selectFrom('mentions as m')
    .leftJoin('things as t', 't.id', 'm.thing_id')
    .leftJoin('arcs as a', 'a.id', 'm.arc_id')
    .innerJoin('campaigns as c', 'c.id', 'm.campaign_id')
    .select(['m.source_kind', 'm.field', 't.id as thingId', 't.slug as thingSlug', 't.name as thingName', 't.updated_at as thingUpdatedAt', 't.players_updated_at as thingPlayersUpdatedAt'])
    .select(['a.id as arcId', 'a.slug as arcSlug', 'a.name as arcName', 'a.updated_at as arcUpdatedAt', 'a.players_updated_at as arcPlayersUpdatedAt'])
    .select(['c.id as campaignId', 'c.slug as campaignSlug', 'c.name as campaignName', 'c.updated_at as campaignUpdatedAt', 'c.players_updated_at as campaignPlayersUpdatedAt'])
    .where('m.campaign_id', '=', campaignId)
    .where('m.target_kind', '=', TARGET_CODES[kind])
    .where((eb) =>
      eb.or([
        eb('m.target_id', '=', target.id),
        eb('m.target_slug', '=', target.slug),
        // A `[[kind#slug]]` link to one of its previous slugs names it too.
        eb(
          'm.target_slug',
          'in',
          eb
            .selectFrom('previous_slugs as p')
            .select('p.slug')
            .where('p.campaign_id', '=', campaignId)
            .where('p.kind', '=', TARGET_CODES[kind])
            .where(kind === 'thing' ? 'p.thing_id' : 'p.arc_id', '=', target.id),
        ),
      ]),
    );
  if (view.players) {
    query = query
      .where('m.secret', '=', 0)
      .where((eb) =>
        eb.or([
          eb('m.source_kind', '=', SOURCE_CODES.campaign),
          eb.and([eb('m.source_kind', '=', SOURCE_CODES.thing), eb('t.visibility', '=', 'all')]),
          eb.and([eb('m.source_kind', '=', SOURCE_CODES.arc), eb('a.visibility', '=', 'all')]),
        ]),
      );
  }
  const rows = await query.execute();
  const bySource = new Map<string, Backlink>();
  // Players see when a source last changed as they see it (access/players-see.ts).
  const shown = (updatedAt: string | null, playersUpdatedAt: string | null) => (view.players ? (playersUpdatedAt ?? updatedAt) : updatedAt);
  for (const row of rows) {
    const source: Omit<Backlink, 'fields'> | undefined =
      row.source_kind === SOURCE_CODES.thing && row.thingId !== null
        ? { type: 'thing', id: row.thingId, slug: row.thingSlug!, name: row.thingName!, updatedAt: shown(row.thingUpdatedAt, row.thingPlayersUpdatedAt)! }
        : row.source_kind === SOURCE_CODES.arc && row.arcId !== null
          ? { type: 'arc', id: row.arcId, slug: row.arcSlug!, name: row.arcName!, updatedAt: shown(row.arcUpdatedAt, row.arcPlayersUpdatedAt)! }
          : row.source_kind === SOURCE_CODES.campaign
            ? { type: 'campaign', id: row.campaignId, slug: row.campaignSlug, name: row.campaignName, updatedAt: shown(row.campaignUpdatedAt, row.campaignPlayersUpdatedAt)! }
            : undefined;
    if (!source) continue;
    const key = `${source.type}:${source.id}`;
    const seen = bySource.get(key);
    if (!seen) bySource.set(key, { ...source, fields: [row.field] });
    else if (!seen.fields.includes(row.field)) seen.fields.push(row.field);
  }
  const order = { campaign: 0, thing: 1, arc: 2 };
  return [...bySource.values()]
    .map((backlink) => ({ ...backlink, fields: backlink.fields.sort() }))
    .sort((x, y) => (x.updatedAt === y.updatedAt ? order[x.type] - order[y.type] || y.id - x.id : x.updatedAt < y.updatedAt ? 1 : -1));
}

/** `column` is one of `values`, passed as a single parameter (a JSON array on SQLite, an array on PostgreSQL). */
function oneOf(dialect: Dialect, column: string, values: readonly (number | string)[], type: 'integer' | 'text'): Expression<SqlBool> {
  return dialect === 'sqlite'
    ? sql<SqlBool>`${sql.ref(column)} in (select value from json_each(${JSON.stringify(values)}))`
    : sql<SqlBool>`${sql.ref(column)} = any(cast(${values} as ${sql.raw(type)}[]))`;
}

/** Targets by id and by slug: current slugs, and previous slugs (db/repositories/previous-slugs.ts) no record has now. */
function targetMaps(rows: { id: number; slug: string; name: string; previousSlug: string | null }[]) {
  const byId = new Map<number, MentionTarget>();
  const bySlug = new Map<string, MentionTarget>();
  for (const { previousSlug: _previous, ...row } of rows) {
    byId.set(row.id, row);
    bySlug.set(row.slug, row);
  }
  for (const row of rows) if (row.previousSlug !== null && !bySlug.has(row.previousSlug)) bySlug.set(row.previousSlug, byId.get(row.id)!);
  return { byId, bySlug };
}

/**
 * What a rendering of content with these references needs, as the campaign holds it now for this
 * view: the mentioned things and arcs the view sees (by id or slug; any other renders as missing)
 * and the images' assets (by id or URL). Secret blocks are shown to a game master's view only. At
 * most three statements, none when there is nothing to look up.
 */
export async function loadRenderContext(
  db: Db,
  dialect: Dialect,
  campaign: { id: number; slug: string },
  refs: References,
  view: View,
): Promise<RenderContext> {
  // A `[[kind#slug]]` link names a record by its current slug or by a previous one: the previous
  // slugs asked for come along in the same statement (one row per previous slug that matches).
  const things = async () => {
    if (refs.thingIds.size === 0 && refs.thingSlugs.size === 0) return [];
    const slugs = [...refs.thingSlugs];
    return visibleThings(db, view)
      .leftJoin('previous_slugs as p', (join) =>
        join.onRef('p.campaign_id', '=', 'things.campaign_id').onRef('p.thing_id', '=', 'things.id').on(oneOf(dialect, 'p.slug', slugs, 'text')),
      )
      .select(['things.id as id', 'things.slug as slug', 'things.name as name', 'p.slug as previousSlug'])
      .where((eb) => eb.or([oneOf(dialect, 'things.id', [...refs.thingIds], 'integer'), oneOf(dialect, 'things.slug', slugs, 'text'), eb('p.slug', 'is not', null)]))
      .orderBy('things.id')
      .execute();
  };
  const arcs = async () => {
    if (refs.arcIds.size === 0 && refs.arcSlugs.size === 0) return [];
    const slugs = [...refs.arcSlugs];
    return visibleArcs(db, view)
      .leftJoin('previous_slugs as p', (join) =>
        join.onRef('p.campaign_id', '=', 'arcs.campaign_id').onRef('p.arc_id', '=', 'arcs.id').on(oneOf(dialect, 'p.slug', slugs, 'text')),
      )
      .select(['arcs.id as id', 'arcs.slug as slug', 'arcs.name as name', 'p.slug as previousSlug'])
      .where((eb) => eb.or([oneOf(dialect, 'arcs.id', [...refs.arcIds], 'integer'), oneOf(dialect, 'arcs.slug', slugs, 'text'), eb('p.slug', 'is not', null)]))
      .orderBy('arcs.id')
      .execute();
  };
  const showSecrets = !view.players;
  const [thingTargets, arcTargets, assets] = await Promise.all([
    things(),
    arcs(),
    refs.assetIds.size === 0 && refs.imageUrls.size === 0
      ? Promise.resolve([])
      : db
          .selectFrom('assets')
          .select(['id', 'url', 'label', 'width', 'height', 'has_variants'])
          .where('campaign_id', '=', campaign.id)
          .where((eb) => eb.or([oneOf(dialect, 'id', [...refs.assetIds], 'integer'), oneOf(dialect, 'url', [...refs.imageUrls], 'text')]))
          .execute(),
  ]);
  const assetTargets = (rows: ({ id: number; has_variants: number } & AssetTarget)[]) => {
    const targets = rows.map(({ has_variants, ...row }) => ({ ...row, variants: assetVariants({ ...row, has_variants }) }));
    return { byId: new Map<number, AssetTarget>(targets.map((t) => [t.id, t])), byUrl: new Map<string, AssetTarget>(targets.map((t) => [t.url, t])) };
  };
  return { campaignSlug: campaign.slug, showSecrets, things: targetMaps(thingTargets), arcs: targetMaps(arcTargets), assets: assetTargets(assets) };
}

/** Renders stored rich-text fields (JSON text, or null for never written) for the view, with one lookup of what they refer to. */
export async function renderStoredFields<F extends string>(
  db: Db,
  dialect: Dialect,
  campaign: { id: number; slug: string },
  fields: Record<F, string | null>,
  format: RenderFormat,
  view: View,
): Promise<Record<F, string>> {
  // A player's view renders what it reads: no secret element, no mention of a hidden record (whole).
  const entries = Object.entries<string | null>(fields).map(([name, stored]) => [name, richTextFor(view, stored)] as const);
  const refs = emptyReferences();
  for (const [, value] of entries) collectReferences(value, refs);
  const context = await loadRenderContext(db, dialect, campaign, refs, view);
  return Object.fromEntries(entries.map(([name, value]) => [name, renderRichText(value, format, context)])) as Record<F, string>;
}

/**
 * A record's rich-text fields and its properties (stored JSON text) rendered for the view, with one
 * lookup of what both refer to: the targets of its link properties are looked up with its mentions.
 */
export async function renderStoredRecord<F extends string>(
  db: Db,
  dialect: Dialect,
  campaign: { id: number; slug: string },
  fields: Record<F, string | null>,
  storedProperties: string,
  format: RenderFormat,
  view: View,
): Promise<{ fields: Record<F, string>; properties: string }> {
  const entries = Object.entries<string | null>(fields).map(([name, stored]) => [name, richTextFor(view, stored)] as const);
  // A player's view: no GM-only property, no link to a hidden record (access/view.ts).
  const properties = propertiesFor(view, storedProperties);
  const refs = emptyReferences();
  for (const [, value] of entries) collectReferences(value, refs);
  propertyReferences(properties, refs);
  const context = await loadRenderContext(db, dialect, campaign, refs, view);
  return {
    fields: Object.fromEntries(entries.map(([name, value]) => [name, renderRichText(value, format, context)])) as Record<F, string>,
    properties: renderProperties(properties, format, context),
  };
}
