// Properties, tags and aliases of things and arcs, and a thing type's fields, as the wire carries
// them (CONTRACT "# Phase 3" › "Records: properties, tags, aliases"). Requests are checked in full by
// domain/properties.ts, which reports every problem with a pointer; the request schemas only say
// "an array" so that ajv's messages never stand in for those.
import { Type } from '@sinclair/typebox';
import {
  ALIAS_MAX_LENGTH,
  ALIASES_MAX,
  FIELD_KINDS,
  PROPERTIES_MAX,
  PROPERTIES_MAX_BYTES,
  PROPERTY_KEY_MAX,
  PROPERTY_LIST_MAX,
  PROPERTY_TEXT_MAX,
  TAG_MAX_LENGTH,
  TAGS_MAX,
} from '../../domain/properties.js';

export const PropertyLinkSchema = Type.Object(
  { targetType: Type.Union([Type.Literal('thing'), Type.Literal('arc')]), targetId: Type.Integer({ minimum: 1 }) },
  { additionalProperties: false, description: 'a link to a thing or an arc of the campaign: a relation, counted in the target’s backlinks as `properties.<key>`' },
);

const Scalar = [
  Type.String({ maxLength: PROPERTY_TEXT_MAX }),
  Type.Number(),
  Type.Boolean(),
  Type.Null(),
  PropertyLinkSchema,
];

export const PropertyValueSchema = Type.Union([...Scalar, Type.Array(Type.Union(Scalar), { maxItems: PROPERTY_LIST_MAX })], {
  description: `text (≤ ${PROPERTY_TEXT_MAX} characters), a number, a boolean, null, a link {targetType, targetId}, or a list of up to ${PROPERTY_LIST_MAX} of these`,
});

const PROPERTIES_DESCRIPTION =
  `Ordered properties {key, value, gmOnly} (at most ${PROPERTIES_MAX}, and ${PROPERTIES_MAX_BYTES / 1024} KiB as JSON); keys are 1–${PROPERTY_KEY_MAX} characters, unique per record ignoring case. ` +
  'A GM-only property, and a link (or a list item) to a record hidden from players, are never sent to players. ' +
  'The values of keys the thing’s type declares in `fields` must match their kind (400 with a pointer).';

export const PropertySchema = Type.Object({
  key: Type.String({ minLength: 1, maxLength: PROPERTY_KEY_MAX }),
  value: PropertyValueSchema,
  gmOnly: Type.Boolean({ description: 'true: only the owner and game masters see this property' }),
});

export const PropertiesOut = Type.Array(PropertySchema, { description: PROPERTIES_DESCRIPTION });
export const TagsOut = Type.Array(Type.String(), { description: `tags, in the order given (at most ${TAGS_MAX}, 1–${TAG_MAX_LENGTH} characters each, unique ignoring case)` });
export const AliasesOut = Type.Array(Type.String(), { description: `other names the record is found by in search and the mention picker (at most ${ALIASES_MAX}, 1–${ALIAS_MAX_LENGTH} characters each)` });

/** The three fields on every answer that carries a thing or an arc. */
export const structureFields = { properties: PropertiesOut, tags: TagsOut, aliases: AliasesOut };

/** The three fields in a POST (omitted: empty) and a PUT (given: replaces the old list). */
export const structureInputs = {
  properties: Type.Optional(Type.Array(Type.Unknown(), { description: `${PROPERTIES_DESCRIPTION} Each item: {key, value, gmOnly?} (gmOnly defaults to false). Omitted in a POST: none (plus the type's declared keys, value null); in a PUT, a given array replaces the old one.`})),
  tags: Type.Optional(Type.Array(Type.Unknown(), { description: `up to ${TAGS_MAX} tags of 1–${TAG_MAX_LENGTH} characters (trimmed; unique ignoring case; no control characters); a given array replaces the old one` })),
  aliases: Type.Optional(Type.Array(Type.Unknown(), { description: `up to ${ALIASES_MAX} other names of 1–${ALIAS_MAX_LENGTH} characters (trimmed; unique ignoring case); a given array replaces the old one` })),
};

export const TypeFieldSchema = Type.Object({
  key: Type.String({ minLength: 1, maxLength: PROPERTY_KEY_MAX }),
  kind: Type.Union(FIELD_KINDS.map((kind) => Type.Literal(kind)), { description: '`date`: an ISO 8601 date string (YYYY-MM-DD, optionally with a time); `link`: a link {targetType, targetId}; `list`: a list' }),
});

export const FieldsOut = Type.Array(TypeFieldSchema, {
  description: 'Ordered fields {key, kind} the type declares: a new thing of the type starts with these keys (value null), and a value of a declared key must match its kind. Keys not declared are free.',
});

export const FieldsIn = Type.Array(Type.Unknown(), { description: `${FieldsOut.description} At most 100; keys unique ignoring case.` });
