import { Type } from '@sinclair/typebox';
import type { ThingRow } from '../../db/schema.js';
import { richTextFor, type View } from '../../access/view.js';
import { shownUpdatedAt } from '../../access/players-see.js';
import { Name, RichTextOut, RichTextSchema, Slug, Timestamp, Visibility, VisibilityIn } from './common.js';

export const Thing = Type.Object({
  id: Type.Integer(),
  slug: Slug,
  typeId: Type.Integer(),
  name: Type.String(),
  description: RichTextOut,
  visibility: Visibility,
  campaignId: Type.Integer(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** The columns presentThing needs (a subset of ThingRow, so joined queries can select just these). */
export type ThingFields = Pick<ThingRow, 'id' | 'slug' | 'type_id' | 'name' | 'description' | 'visibility' | 'campaign_id' | 'created_at' | 'updated_at' | 'players_updated_at'>;

/** A thing as this view reads it (access/view.ts). */
export function presentThing(row: ThingFields, view: View) {
  return {
    id: row.id,
    slug: row.slug,
    typeId: row.type_id,
    name: row.name,
    description: richTextFor(view, row.description),
    visibility: row.visibility,
    campaignId: row.campaign_id,
    createdAt: row.created_at,
    updatedAt: shownUpdatedAt(view, row),
  };
}

export const ThingParams = Type.Object({ campaignSlug: Type.String(), thingSlug: Type.String() });

const TypeId = Type.Integer({ description: 'id of a thing type of the same campaign' });

export const NewThingBody = Type.Object({
  newThing: Type.Object({ name: Name, typeId: TypeId, description: Type.Optional(RichTextSchema), visibility: Type.Optional(VisibilityIn) }),
});

export const UpdatedThingBody = Type.Object({
  updatedThing: Type.Object({
    slug: Type.Optional(Type.String({ description: 'a new slug; must be free within the campaign' })),
    name: Type.Optional(Name),
    typeId: Type.Optional(TypeId),
    description: Type.Optional(RichTextSchema),
    visibility: Type.Optional(VisibilityIn),
  }),
});

// Strings, not numbers and booleans: ajv coercion is off, and the handler parses each value itself
// so a bad one gets a precise message (see domain/list-cursor.ts).
export const ThingListQuerystring = Type.Object({
  count: Type.Optional(Type.String({ description: 'an integer from 1 to 1000; default 20' })),
  fetchAll: Type.Optional(Type.String({ description: '`true` returns up to 1000 things and wins over count; `true` or `false`' })),
  typeId: Type.Optional(Type.String({ description: 'only things of this thing type' })),
  cursor: Type.Optional(Type.String({ description: 'opaque; from the Link header of the previous page' })),
});
