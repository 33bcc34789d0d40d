// The rich-text vocabulary (CONTRACT "Rich content"): the element and mark names that the server
// (validation, rendering, search, portability) and the web editor share. Pure: no Node or DOM
// imports, so the web app bundles it as it is.

export const MARKS = ['bold', 'italic', 'underline', 'code', 'strikethrough', 'highlight'] as const;
export type MarkName = (typeof MARKS)[number];

export const HEADING_TYPES = ['heading-one', 'heading-two', 'heading-three', 'heading-four', 'heading-five', 'heading-six'] as const;
export type HeadingType = (typeof HEADING_TYPES)[number];

/** A heading's level by its element type (a Map: a stored type may be `__proto__`). */
export const HEADING_LEVELS: ReadonlyMap<string, 1 | 2 | 3 | 4 | 5 | 6> = new Map(
  HEADING_TYPES.map((type, index) => [type, (index + 1) as 1 | 2 | 3 | 4 | 5 | 6]),
);

export const LIST_TYPES = ['bulleted-list', 'numbered-list'] as const;
export type ListType = (typeof LIST_TYPES)[number];

export const BLOCK_TYPES = [
  'paragraph',
  ...HEADING_TYPES,
  'block-quote',
  'callout',
  ...LIST_TYPES,
  'list-item',
  'code-block',
  'divider',
  'table',
  'table-row',
  'table-cell',
  'image',
] as const;
export type BlockType = (typeof BLOCK_TYPES)[number];

export const INLINE_TYPES = ['link', 'mention'] as const;
/** Elements whose children are only a placeholder `[{text: ""}]` (a mention's may be a label). */
export const VOID_TYPES = ['divider', 'image', 'mention'] as const;

export type MentionTargetType = 'thing' | 'arc';

/**
 * How deep elements may nest: a top-level block is level 1, an element inside it level 2 (an inline
 * element counts, a text leaf does not). The server refuses deeper text (domain/rich-text.ts); the
 * editor keeps a paste within it (web/src/editor/commands.ts).
 */
export const RICH_TEXT_MAX_DEPTH = 16;

/**
 * A callout (Obsidian's `> [!kind] Title`): `{type: "callout", kind, title?, children: [blocks]}`.
 * `kind` is the callout's type in lower case (`note`, `warning`, any word a vault uses); `title` is
 * plain text, absent when the callout line has none. `> [!secret]` is no callout: its blocks are
 * secret blocks (secrecy.ts).
 */
export const CALLOUT_KIND_MAX_LENGTH = 64;
export const CALLOUT_TITLE_MAX_LENGTH = 500;

/** A callout's kind, '' when the node is no callout or its kind is not a string. */
export function calloutKind(node: unknown): string {
  if (typeof node !== 'object' || node === null) return '';
  const { type, kind } = node as { type?: unknown; kind?: unknown };
  return type === 'callout' && typeof kind === 'string' ? kind : '';
}

/** A callout's title, undefined when the node is no callout or has no (non-empty) title. */
export function calloutTitle(node: unknown): string | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  const { type, title } = node as { type?: unknown; title?: unknown };
  return type === 'callout' && typeof title === 'string' && title !== '' ? title : undefined;
}

/**
 * A task: a `list-item` with `checked` (true or false); a list item without it is not a task.
 * Returns the item's state, or undefined when the node is no task.
 */
export function taskState(node: unknown): boolean | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  const { type, checked } = node as { type?: unknown; checked?: unknown };
  return type === 'list-item' && typeof checked === 'boolean' ? checked : undefined;
}

const blockTypes: ReadonlySet<string> = new Set(BLOCK_TYPES);
const inlineTypes: ReadonlySet<string> = new Set(INLINE_TYPES);
const voidTypes: ReadonlySet<string> = new Set(VOID_TYPES);
const listTypes: ReadonlySet<string> = new Set(LIST_TYPES);

export const isBlockType = (type: unknown): boolean => typeof type === 'string' && blockTypes.has(type);
export const isInlineType = (type: unknown): boolean => typeof type === 'string' && inlineTypes.has(type);
export const isVoidType = (type: unknown): boolean => typeof type === 'string' && voidTypes.has(type);
export const isListType = (type: unknown): boolean => typeof type === 'string' && listTypes.has(type);
