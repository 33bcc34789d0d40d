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

const RENDERED_PROPERTIES =
  'the record’s properties rendered as the caller may read them, the empty string when there are none: HTML a `<dl class="properties">` (key `<dt>`, value `<dd>`: lists as `<ul>`, booleans as yes/no, links as `<a class="mention">` with the target’s current name; ' +
  'a GM-only property’s `<dt>` and `<dd>` have `class="secret"`), or a Markdown list of `- **key**: value` (list values comma-separated, links as `[current name](href)`, a GM-only property inside `<span class="secret">`). ' +
  'Players get no GM-only property and no link to a record hidden from them.';

function rendered(fields: readonly string[], description: string) {
  return Type.Object(
    {
      format: FORMAT,
      fields: Type.Object(Object.fromEntries(fields.map((field) => [field, Type.String({ description: RENDERED_FIELD })]))),
    },
    { description },
  );
}

/** A thing’s or an arc’s rendering: its fields and its properties. */
function renderedRecord(fields: readonly string[], description: string) {
  return Type.Object(
    {
      format: FORMAT,
      fields: Type.Object(Object.fromEntries(fields.map((field) => [field, Type.String({ description: RENDERED_FIELD })]))),
      properties: Type.String({ description: RENDERED_PROPERTIES }),
    },
    { description },
  );
}

export const RenderedThing = renderedRecord(['description'], 'The thing’s rich text and properties rendered');
export const RenderedCampaign = rendered(['description'], 'The campaign’s description rendered');
export const RenderedArc = renderedRecord(['hook', 'protagonist', 'antagonist', 'problem', 'key', 'outcome', 'notes'], 'The arc’s seven narrative fields and its properties rendered');

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
