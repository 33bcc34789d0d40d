import { Type, type TSchema } from '@sinclair/typebox';

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds' });
export const Slug = Type.String({
  pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$',
  minLength: 1,
  maxLength: 100,
  description: 'lowercase ASCII letters, digits and single hyphens',
});
export const Name = Type.String({ description: 'trimmed; 1 to 255 characters after trimming' });

// The request schema checks only that rich text is an array; every rule about its nodes (blocks,
// leaves, marks, depth, size) is enforced by domain/rich-text.ts, which reports JSON pointers and
// stops after RICH_TEXT_MAX_ISSUES. A node schema here would make ajv (allErrors) build one error
// object per bad node before any cap applies: a 600 KB array of numbers cost 0.3-0.5 s of CPU.
export const RichTextSchema = Type.Array(Type.Unknown(), {
  description:
    'Rich text (Slate-style): blocks {type, children, …} whose children are blocks or text leaves {text, bold?, italic?, underline?, code?, strikethrough?, highlight?}; depth ≤ 16; ≤ 256 KiB. ' +
    'Vocabulary (rendered by the `rendered` routes): `paragraph`; `heading-one` … `heading-six`; `block-quote`; ' +
      '`callout` {kind (1 to 64 characters: note, warning, any word), title? (plain text, ≤ 500 characters)} holding blocks (Markdown `> [!kind] Title`); ' +
      '`bulleted-list` / `numbered-list` of `list-item`, a task when it has `checked: true|false` (`checked` is allowed on `list-item` only); ' +
    '`code-block`; `divider`; `table` › `table-row` › `table-cell` (first row is the header); `image` {url, assetId?, alt?, caption?}; ' +
    'inline `link` {url} (http, https, mailto or a /path) and `mention` {targetType: thing|arc, targetId}, whose children are `[{text: ""}]` (it shows the target\'s current name) or a label. ' +
    'In text, `[[thing#slug]]` and `[[arc#slug]]` are mentions and `![label](url)` an image. Any element at any depth with `isSecret: true` is GM-only with everything inside it: ' +
    'players never receive it (a secret table cell comes as an empty cell), nor a mention of a record hidden from them (removed whole, label included). ' +
    'Unknown element types and extra keys are kept as given and render as their children.',
});
export const RichTextOut = Type.Array(Type.Unknown(), { description: RichTextSchema.description });

const VISIBILITY_DESCRIPTION = '`all` (default): every member sees it; `gm`: only the owner and game masters (players never see the record, by any route).';
export const Visibility = Type.Unsafe<'all' | 'gm'>({ type: 'string', enum: ['all', 'gm'], description: VISIBILITY_DESCRIPTION });
export const VisibilityIn = Type.Unsafe<'all' | 'gm'>({ type: 'string', enum: ['all', 'gm'], description: VISIBILITY_DESCRIPTION });

export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
    success: Type.Optional(Type.Literal(false)),
  },
  { description: 'RFC 9457 problem details' },
);

/** Problem responses every authenticated route can give, for the OpenAPI document. */
export function problems(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, Problem]));
}

export const CampaignParams = Type.Object({ campaignSlug: Type.String() });
