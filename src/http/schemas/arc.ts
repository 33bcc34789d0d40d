import { Type } from '@sinclair/typebox';
import type { LinkedArc } from '../../db/repositories/arc-links.js';
import type { ArcDetail, ArcTreeRow } from '../../db/repositories/arcs.js';
import type { ArcRow } from '../../db/schema.js';
import { propertiesFor, richTextFor, type View } from '../../access/view.js';
import { ARC_TEXT_FIELDS } from '../../domain/arc-fields.js';
import { parseStoredLabels } from '../../domain/properties.js';
import { structureFields, structureInputs } from './properties.js';
import { Name, RichTextOut, RichTextSchema, Slug, Timestamp, Visibility, VisibilityIn } from './common.js';
import { presentThing, Thing } from './thing.js';
import { num, richTextJsonOf, str, structureJson, thingJson } from './splice.js';
import { shownUpdatedAt } from '../../access/players-see.js';

export const ArcRefSchema = Type.Object({ id: Type.Integer(), slug: Slug, name: Type.String() });

export const ArcChild = Type.Object({
  id: Type.Integer(),
  slug: Slug,
  name: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** The six story fields of an arc as its answers carry them (notes are the seventh text). */
export const storyFields = {
  hook: RichTextOut,
  protagonist: RichTextOut,
  antagonist: RichTextOut,
  problem: RichTextOut,
  key: RichTextOut,
  outcome: RichTextOut,
};

export const Arc = Type.Object({
  id: Type.Integer(),
  slug: Slug,
  name: Type.String(),
  ...storyFields,
  notes: RichTextOut,
  visibility: Visibility,
  ...structureFields,
  campaignId: Type.Integer(),
  parentArcId: Type.Union([Type.Integer(), Type.Null()]),
  parentArc: Type.Union([ArcRefSchema, Type.Null()]),
  childArcs: Type.Array(ArcChild, { description: 'arcs whose parent is this arc, oldest first' }),
  things: Type.Array(Thing, { description: 'every thing linked to the arc, in the order they were linked' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** An arc as `GET …/arcs?things=none` lists it: every field but `things` and the seven texts. */
export const ArcWithoutThings = Type.Omit(Arc, ['things', ...ARC_TEXT_FIELDS], {
  title: 'ArcWithoutThings',
  additionalProperties: false,
  description: 'an arc as `things=none` lists it, for navigation: every field of an arc but `things` and its seven texts (`hook`, `protagonist`, `antagonist`, `problem`, `key`, `outcome`, `notes`); read the arc itself for those',
});

export const ArcListQuerystring = Type.Object({
  things: Type.Optional(Type.Union([Type.Literal('all'), Type.Literal('none')], { description: '`all` (default): each arc with its seven texts and its linked things in full; `none`: each arc without its texts and `things` (neither is read)' })),
});

/** An arc as the things/{thingSlug}/arcs route lists it: the fields the spec names for that route. */
export const LinkedArcSchema = Type.Object({
  id: Type.Integer(),
  slug: Slug,
  name: Type.String(),
  ...storyFields,
  ...structureFields,
  campaignId: Type.Integer(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const ParentArcId = Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
  description: 'id of another arc of the same campaign, or null for a top-level arc',
});

const textInputs = {
  hook: Type.Optional(RichTextSchema),
  protagonist: Type.Optional(RichTextSchema),
  antagonist: Type.Optional(RichTextSchema),
  problem: Type.Optional(RichTextSchema),
  key: Type.Optional(RichTextSchema),
  outcome: Type.Optional(RichTextSchema),
  notes: Type.Optional(RichTextSchema),
};

export const NewArcBody = Type.Object({
  newArc: Type.Object({ name: Name, parentArcId: Type.Optional(ParentArcId), visibility: Type.Optional(VisibilityIn), ...textInputs, ...structureInputs }),
});

export const UpdatedArcBody = Type.Object({
  updatedArc: Type.Object({
    slug: Type.Optional(Type.String()),
    name: Type.Optional(Name),
    parentArcId: Type.Optional(ParentArcId),
    visibility: Type.Optional(VisibilityIn),
    ...textInputs,
    ...structureInputs,
  }),
});

export const LinkArcBody = Type.Object({ arcSlug: Type.String({ minLength: 1 }) });
export const LinkMessage = Type.Object({ message: Type.String() });

export const ArcParams = Type.Object({ campaignSlug: Type.String(), arcSlug: Type.String() });
export const ThingArcParams = Type.Object({ campaignSlug: Type.String(), thingSlug: Type.String(), arcSlug: Type.String() });

/** A record's properties, tags and aliases as this view reads them. */
export function presentStructure(row: { properties: string; tags: string; aliases: string }, view: View) {
  return { properties: propertiesFor(view, row.properties), tags: parseStoredLabels(row.tags), aliases: parseStoredLabels(row.aliases) };
}

function presentStoryFields(row: Pick<ArcRow, 'hook' | 'protagonist' | 'antagonist' | 'problem' | 'key' | 'outcome'>, view: View) {
  return {
    hook: richTextFor(view, row.hook),
    protagonist: richTextFor(view, row.protagonist),
    antagonist: richTextFor(view, row.antagonist),
    problem: richTextFor(view, row.problem),
    key: richTextFor(view, row.key),
    outcome: richTextFor(view, row.outcome),
  };
}

/**
 * One arc with its parent, children and things, as every arc route but the list presents it. The
 * detail holds only what the view sees; `parentArcId` follows the parent it holds, so an arc under
 * a GM-only parent reads as top-level for a player.
 */
export function presentArc(detail: ArcDetail, view: View) {
  const { arc } = detail;
  return {
    id: arc.id,
    slug: arc.slug,
    name: arc.name,
    ...presentStoryFields(arc, view),
    notes: richTextFor(view, arc.notes),
    visibility: arc.visibility,
    ...presentStructure(arc, view),
    campaignId: arc.campaign_id,
    parentArcId: detail.parent?.id ?? null,
    parentArc: detail.parent,
    childArcs: detail.children.map((child) => ({
      id: child.id,
      slug: child.slug,
      name: child.name,
      createdAt: child.created_at,
      updatedAt: shownUpdatedAt(view, child),
    })),
    things: detail.things.map((thing) => presentThing(thing, view)),
    createdAt: arc.created_at,
    updatedAt: shownUpdatedAt(view, arc),
  };
}


export function presentLinkedArc(row: LinkedArc, view: View) {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    ...presentStoryFields(row, view),
    ...presentStructure(row, view),
    campaignId: row.campaign_id,
    createdAt: row.created_at,
    updatedAt: shownUpdatedAt(view, row),
  };
}

// The arcs list carries every linked thing in full: with 1,000 arcs and 10,000 links it is 14 MiB,
// nearly all of it rich text; it is written as JSON text with the stored texts spliced in (splice.ts).
/**
 * GET /arcs as JSON text: byte for byte what the Arc list schema serializes of details.map(presentArc)
 * for the view; with `things: false` (the details of listArcTree), every arc without its texts and
 * its `things` key, as ArcWithoutThings.
 */
export function serializeArcs(details: ArcDetail[], view: View): string;
export function serializeArcs(details: ArcDetail<ArcTreeRow>[], view: View, options: { things: false }): string;
export function serializeArcs(details: ArcDetail<ArcTreeRow>[], view: View, options: { things: boolean } = { things: true }): string {
  const richTextJson = richTextJsonOf(view);
  const texts = (arc: ArcTreeRow) => {
    if (!options.things) return '';
    const row = arc as ArcDetail['arc'];
    return (
      `"hook":${richTextJson(row.hook)},"protagonist":${richTextJson(row.protagonist)},"antagonist":${richTextJson(row.antagonist)},` +
      `"problem":${richTextJson(row.problem)},"key":${richTextJson(row.key)},"outcome":${richTextJson(row.outcome)},"notes":${richTextJson(row.notes)},`
    );
  };
  const things = new Map<number, string>();
  const parts: string[] = [];
  for (const { arc, parent, children, things: linked } of details) {
    const childJson = children.map(
      (child) =>
        `{"id":${num(child.id)},"slug":${str(child.slug)},"name":${str(child.name)},"createdAt":${str(child.created_at)},"updatedAt":${str(shownUpdatedAt(view, child))}}`,
    );
    const thingParts = linked.map((thing) => {
      let json = things.get(thing.id);
      if (json === undefined) {
        json = thingJson(thing, view, richTextJson);
        things.set(thing.id, json);
      }
      return json;
    });
    parts.push(
      `{"id":${num(arc.id)},"slug":${str(arc.slug)},"name":${str(arc.name)},${texts(arc)}` +
        `"visibility":${str(arc.visibility)},${structureJson(arc, view)},"campaignId":${num(arc.campaign_id)},` +
        `"parentArcId":${parent === null ? 'null' : num(parent.id)},` +
        `"parentArc":${parent === null ? 'null' : `{"id":${num(parent.id)},"slug":${str(parent.slug)},"name":${str(parent.name)}}`},` +
        `"childArcs":[${childJson.join(',')}],${options.things ? `"things":[${thingParts.join(',')}],` : ''}` +
        `"createdAt":${str(arc.created_at)},"updatedAt":${str(shownUpdatedAt(view, arc))}}`,
    );
  }
  return `[${parts.join(',')}]`;
}
