import { Type } from '@sinclair/typebox';
import type { LinkedArc } from '../../db/repositories/arc-links.js';
import type { ArcDetail } from '../../db/repositories/arcs.js';
import type { ArcRow } from '../../db/schema.js';
import { parseStoredRichText } from '../../domain/rich-text.js';
import { Name, RichTextOut, RichTextSchema, Slug, Timestamp } from './common.js';
import { presentThing, Thing } from './thing.js';

export const ArcRefSchema = Type.Object({ id: Type.Integer(), slug: Slug, name: Type.String() });

export const ArcChild = Type.Object({
  id: Type.Integer(),
  slug: Slug,
  name: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const storyFields = {
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
  campaignId: Type.Integer(),
  parentArcId: Type.Union([Type.Integer(), Type.Null()]),
  parentArc: Type.Union([ArcRefSchema, Type.Null()]),
  childArcs: Type.Array(ArcChild, { description: 'arcs whose parent is this arc, oldest first' }),
  things: Type.Array(Thing, { description: 'every thing linked to the arc, in the order they were linked' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** An arc as the things/{thingSlug}/arcs route lists it: the fields the spec names for that route. */
export const LinkedArcSchema = Type.Object({
  id: Type.Integer(),
  slug: Slug,
  name: Type.String(),
  ...storyFields,
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
  newArc: Type.Object({ name: Name, parentArcId: Type.Optional(ParentArcId), ...textInputs }),
});

export const UpdatedArcBody = Type.Object({
  updatedArc: Type.Object({
    slug: Type.Optional(Type.String()),
    name: Type.Optional(Name),
    parentArcId: Type.Optional(ParentArcId),
    ...textInputs,
  }),
});

export const LinkArcBody = Type.Object({ arcSlug: Type.String({ minLength: 1 }) });
export const LinkMessage = Type.Object({ message: Type.String() });

export const ArcParams = Type.Object({ campaignSlug: Type.String(), arcSlug: Type.String() });
export const ThingParams = Type.Object({ campaignSlug: Type.String(), thingSlug: Type.String() });
export const ThingArcParams = Type.Object({ campaignSlug: Type.String(), thingSlug: Type.String(), arcSlug: Type.String() });

function presentStoryFields(row: Pick<ArcRow, 'hook' | 'protagonist' | 'antagonist' | 'problem' | 'key' | 'outcome'>) {
  return {
    hook: parseStoredRichText(row.hook),
    protagonist: parseStoredRichText(row.protagonist),
    antagonist: parseStoredRichText(row.antagonist),
    problem: parseStoredRichText(row.problem),
    key: parseStoredRichText(row.key),
    outcome: parseStoredRichText(row.outcome),
  };
}

type PresentedThing = ReturnType<typeof presentThing>;

/**
 * `thingCache` lets a list present each thing once however many arcs it is linked to (the
 * serializer does not mind shared objects).
 */
export function presentArc(detail: ArcDetail, thingCache: Map<number, PresentedThing> = new Map()) {
  const { arc } = detail;
  return {
    id: arc.id,
    slug: arc.slug,
    name: arc.name,
    ...presentStoryFields(arc),
    notes: parseStoredRichText(arc.notes),
    campaignId: arc.campaign_id,
    parentArcId: arc.parent_arc_id,
    parentArc: detail.parent,
    childArcs: detail.children.map((child) => ({
      id: child.id,
      slug: child.slug,
      name: child.name,
      createdAt: child.created_at,
      updatedAt: child.updated_at,
    })),
    things: detail.things.map((thing) => {
      let presented = thingCache.get(thing.id);
      if (!presented) {
        presented = presentThing(thing);
        thingCache.set(thing.id, presented);
      }
      return presented;
    }),
    createdAt: arc.created_at,
    updatedAt: arc.updated_at,
  };
}

export function presentArcs(details: ArcDetail[]) {
  const thingCache = new Map<number, PresentedThing>();
  return details.map((detail) => presentArc(detail, thingCache));
}

export function presentLinkedArc(row: LinkedArc) {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    ...presentStoryFields(row),
    campaignId: row.campaign_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
