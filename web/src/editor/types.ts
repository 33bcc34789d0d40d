// The editor's document: exactly the stored rich text (CONTRACT "Rich content"), Slate's own
// element names, so nothing is converted on the way in or out and unknown keys survive.
import type { BaseEditor, Descendant } from 'slate';
import type { HistoryEditor } from 'slate-history';
import type { ReactEditor } from 'slate-react';

export type MarkName = 'bold' | 'italic' | 'underline' | 'code' | 'strikethrough';
export const MARKS: readonly MarkName[] = ['bold', 'italic', 'underline', 'code', 'strikethrough'];

export type BlockType =
  | 'paragraph'
  | 'heading-one'
  | 'heading-two'
  | 'heading-three'
  | 'heading-four'
  | 'heading-five'
  | 'heading-six'
  | 'block-quote'
  | 'bulleted-list'
  | 'numbered-list'
  | 'list-item'
  | 'code-block'
  | 'divider'
  | 'image'
  | 'table'
  | 'table-row'
  | 'table-cell';

export type Text = { text: string } & Partial<Record<MarkName, boolean>>;

export interface Element {
  type: string;
  children: Descendant[];
  isSecret?: boolean;
  url?: string;
  alt?: string;
  caption?: string;
  assetId?: number;
  targetType?: 'thing' | 'arc';
  targetId?: number;
  [key: string]: unknown;
}

declare module 'slate' {
  interface CustomTypes {
    Editor: BaseEditor & ReactEditor & HistoryEditor;
    Element: Element;
    Text: Text;
  }
}

export const HEADINGS = ['heading-one', 'heading-two', 'heading-three', 'heading-four', 'heading-five', 'heading-six'] as const;
export const VOID_TYPES = new Set(['divider', 'image', 'mention']);
export const INLINE_TYPES = new Set(['link', 'mention']);
export const LIST_TYPES = new Set(['bulleted-list', 'numbered-list']);

export const emptyDocument = (): Descendant[] => [{ type: 'paragraph', children: [{ text: '' }] }];
