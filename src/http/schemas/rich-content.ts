import { Type } from '@sinclair/typebox';
import { Slug, Timestamp } from './common.js';

// A string, not an enum: ajv coercion is off and the handler reports a bad value as invalid_query
// with a pointer (/format), as the other query parameters do.
export const RenderedQuerystring = Type.Object({
  format: Type.Optional(Type.String({ description: '`html` (default) or `markdown`' })),
});

const FORMAT = Type.Union([Type.Literal('html'), Type.Literal('markdown')]);
const RENDERED_FIELD =
  'the field rendered: HTML with only the CONTRACT vocabulary’s elements (no script, style, event handler or URL of another scheme), or CommonMark with GFM tables and strikethrough';

function rendered(fields: readonly string[], description: string) {
  return Type.Object(
    {
      format: FORMAT,
      fields: Type.Object(Object.fromEntries(fields.map((field) => [field, Type.String({ description: RENDERED_FIELD })]))),
    },
    { description },
  );
}

export const RenderedThing = rendered(['description'], 'The thing’s rich text rendered');
export const RenderedCampaign = rendered(['description'], 'The campaign’s description rendered');
export const RenderedArc = rendered(['hook', 'protagonist', 'antagonist', 'problem', 'key', 'outcome', 'notes'], 'The arc’s seven narrative fields rendered');

export const Backlink = Type.Object({
  type: Type.Union([Type.Literal('thing'), Type.Literal('arc'), Type.Literal('campaign')], {
    description: '`campaign`: the campaign’s own description mentions the record',
  }),
  id: Type.Integer(),
  slug: Slug,
  name: Type.String(),
  fields: Type.Array(Type.String(), {
    description: 'the rich-text fields that mention the record, and `properties.<key>` for each link property that names it (a relation), in alphabetical order',
  }),
  updatedAt: Timestamp,
});
export const Backlinks = Type.Array(Backlink, {
  description: 'every record whose rich text mentions this one or whose link property names it, most recently updated first (for a player, never through a GM-only property)',
});
