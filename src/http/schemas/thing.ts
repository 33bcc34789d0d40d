import { Type } from '@sinclair/typebox';
import type { ThingRow } from '../../db/schema.js';
import type { ThingSummaryRow } from '../../db/repositories/things.js';
import { propertiesFor, richTextFor, type View } from '../../access/view.js';
import { parseStoredLabels } from '../../domain/properties.js';
import { structureFields, structureInputs } from './properties.js';
import { shownUpdatedAt } from '../../access/players-see.js';
import { Name, RichTextOut, RichTextSchema, Slug, Timestamp, Visibility, VisibilityIn } from './common.js';

export const Thing = Type.Object({
  id: Type.Integer(),
  slug: Slug,
  typeId: Type.Integer(),
  name: Type.String(),
  description: RichTextOut,
  visibility: Visibility,
  ...structureFields,
  campaignId: Type.Integer(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** A thing as `GET …/things?fields=summary` lists it: what navigation needs, no text. */
export const ThingSummary = Type.Object(
  {
    id: Type.Integer(),
    slug: Slug,
    name: Type.String(),
    typeId: Type.Integer(),
    visibility: Visibility,
    updatedAt: Timestamp,
  },
  { title: 'ThingSummary', additionalProperties: false, description: 'a thing as `fields=summary` lists it: no description, properties, tags or aliases' },
);

/** A thing's summary as this view reads it (its `updatedAt` the one the view sees). */
export function presentThingSummary(row: ThingSummaryRow, view: View) {
  return { id: row.id, slug: row.slug, name: row.name, typeId: row.type_id, visibility: row.visibility, updatedAt: shownUpdatedAt(view, row) };
}

/** The columns presentThing needs (a subset of ThingRow, so joined queries can select just these). */
export type ThingFields = Pick<ThingRow, 'id' | 'slug' | 'type_id' | 'name' | 'description' | 'visibility' | 'campaign_id' | 'created_at' | 'updated_at' | 'players_updated_at' | 'properties' | 'tags' | 'aliases'>;

/** A thing as this view reads it (access/view.ts). */
export function presentThing(row: ThingFields, view: View) {
  return {
    id: row.id,
    slug: row.slug,
    typeId: row.type_id,
    name: row.name,
    description: richTextFor(view, row.description),
    visibility: row.visibility,
    properties: propertiesFor(view, row.properties),
    tags: parseStoredLabels(row.tags),
    aliases: parseStoredLabels(row.aliases),
    campaignId: row.campaign_id,
    createdAt: row.created_at,
    updatedAt: shownUpdatedAt(view, row),
  };
}

export const ThingParams = Type.Object({ campaignSlug: Type.String(), thingSlug: Type.String() });

const TypeId = Type.Integer({ description: 'id of a thing type of the same campaign' });

export const NewThingBody = Type.Object({
  newThing: Type.Object({ name: Name, typeId: TypeId, description: Type.Optional(RichTextSchema), visibility: Type.Optional(VisibilityIn), ...structureInputs }),
});

export const UpdatedThingBody = Type.Object({
  updatedThing: Type.Object({
    slug: Type.Optional(Type.String({ description: 'a new slug; must be free within the campaign' })),
    name: Type.Optional(Name),
    typeId: Type.Optional(TypeId),
    description: Type.Optional(RichTextSchema),
    visibility: Type.Optional(VisibilityIn),
    ...structureInputs,
  }),
});

// Strings, not numbers and booleans: ajv coercion is off, and the handler parses each value itself
// so a bad one gets a precise message (see domain/list-cursor.ts).
export const ThingListQuerystring = Type.Object({
  count: Type.Optional(Type.String({ description: 'an integer from 1 to 1000; default 20' })),
  fetchAll: Type.Optional(Type.String({ description: '`true` returns up to 1000 things and wins over count; `true` or `false`' })),
  typeId: Type.Optional(Type.String({ description: 'only things of this thing type' })),
  cursor: Type.Optional(Type.String({ description: 'opaque; from the Link header of the previous page' })),
  tag: Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.String())], { description: 'only things with this tag (ignoring case); repeat it for things with every one of the tags' }),
  ),
  sort: Type.Optional(Type.String({ description: '`updatedAt` (default: most recently updated first) or `name` (A to Z ignoring case and accents in every script, then id; the same order on both databases)' })),
  fields: Type.Optional(Type.Literal('summary', { description: '`summary`: each thing as `{id, slug, name, typeId, visibility, updatedAt}` only (for navigation: no text is read or sent); absent: every field' })),
});
