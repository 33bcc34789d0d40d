// The editor's document: exactly the stored rich text (CONTRACT "Rich content"), Slate's own
// element names, so nothing is converted on the way in or out and unknown keys survive. The names
// of elements and marks come from the one vocabulary the server shares (src/vocabulary).
import type { BaseEditor, Descendant } from 'slate';
import type { HistoryEditor } from 'slate-history';
import type { ReactEditor } from 'slate-react';
import { HEADING_TYPES, INLINE_TYPES as VOCABULARY_INLINE_TYPES, LIST_TYPES as VOCABULARY_LIST_TYPES, MARKS as VOCABULARY_MARKS, VOID_TYPES as VOCABULARY_VOID_TYPES, type BlockType as VocabularyBlockType, type MarkName as VocabularyMarkName, type MentionTargetType } from '../../../src/vocabulary/index.js';

export type MarkName = VocabularyMarkName;
export const MARKS: readonly MarkName[] = VOCABULARY_MARKS;

export type BlockType = VocabularyBlockType;

export type Text = { text: string } & Partial<Record<MarkName, boolean>>;

export interface Element {
  type: string;
  children: Descendant[];
  isSecret?: boolean;
  url?: string;
  alt?: string;
  caption?: string;
  assetId?: number;
  targetType?: MentionTargetType;
  targetId?: number;
  /** A callout's kind (`note`, `warning`…) and its plain-text title. */
  kind?: string;
  title?: string;
  /** A task: a list item with `checked`. */
  checked?: boolean;
  [key: string]: unknown;
}

declare module 'slate' {
  interface CustomTypes {
    Editor: BaseEditor & ReactEditor & HistoryEditor;
    Element: Element;
    Text: Text;
  }
}

export const HEADINGS = HEADING_TYPES;
export const VOID_TYPES: ReadonlySet<string> = new Set(VOCABULARY_VOID_TYPES);
export const INLINE_TYPES: ReadonlySet<string> = new Set(VOCABULARY_INLINE_TYPES);
export const LIST_TYPES: ReadonlySet<string> = new Set(VOCABULARY_LIST_TYPES);

export const emptyDocument = (): Descendant[] => [{ type: 'paragraph', children: [{ text: '' }] }];
