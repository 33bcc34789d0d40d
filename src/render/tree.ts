// The rendering model (model.ts builds it; html.ts and markdown.ts serialize it).

import type { TargetKind } from './conventions.js';

export interface Marks {
  bold: boolean;
  italic: boolean;
  underline: boolean;
  code: boolean;
  strikethrough: boolean;
}

export type Inline =
  | { kind: 'text'; text: string; marks: Marks }
  | { kind: 'link'; href: string; children: Inline[] }
  | { kind: 'mention'; target: TargetKind; id: number; name: string; href: string; marks: Marks }
  | { kind: 'missing'; text: string; marks: Marks }
  | { kind: 'image'; src: string; alt: string };

export type Flow =
  | { kind: 'paragraph'; content: Inline[] }
  | { kind: 'heading'; depth: 1 | 2 | 3 | 4 | 5 | 6; content: Inline[] }
  | { kind: 'quote'; children: Flow[] }
  | { kind: 'list'; ordered: boolean; items: Flow[][] }
  | { kind: 'code'; text: string }
  | { kind: 'divider' }
  | { kind: 'table'; rows: Inline[][][] }
  | { kind: 'figure'; src: string; alt: string; caption: string | undefined }
  | { kind: 'secret'; children: Flow[] };

export const NO_MARKS: Marks = { bold: false, italic: false, underline: false, code: false, strikethrough: false };
