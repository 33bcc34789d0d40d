// The rich-text vocabulary (CONTRACT "Rich content"): the element and mark names that the server
// (validation, rendering, search, portability) and the web editor share. Pure: no Node or DOM
// imports, so the web app bundles it as it is.

export const MARKS = ['bold', 'italic', 'underline', 'code', 'strikethrough'] as const;
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

const blockTypes: ReadonlySet<string> = new Set(BLOCK_TYPES);
const inlineTypes: ReadonlySet<string> = new Set(INLINE_TYPES);
const voidTypes: ReadonlySet<string> = new Set(VOID_TYPES);
const listTypes: ReadonlySet<string> = new Set(LIST_TYPES);

export const isBlockType = (type: unknown): boolean => typeof type === 'string' && blockTypes.has(type);
export const isInlineType = (type: unknown): boolean => typeof type === 'string' && inlineTypes.has(type);
export const isVoidType = (type: unknown): boolean => typeof type === 'string' && voidTypes.has(type);
export const isListType = (type: unknown): boolean => typeof type === 'string' && listTypes.has(type);
