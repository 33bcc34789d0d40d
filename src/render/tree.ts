// The rendering model (model.ts builds it; html.ts and markdown.ts serialize it).

import type { TargetKind } from './conventions.js';

export interface Marks {
  bold: boolean;
  italic: boolean;
  underline: boolean;
  code: boolean;
  strikethrough: boolean;
  highlight: boolean;
}

/** An uploaded image's pixels (the asset's), so a browser reserves its box before it loads. */
export interface ImageSize {
  width: number;
  height: number;
}

/** A smaller copy of an uploaded image (its width in pixels, its URL), for the img's srcset. */
export interface ImageVariant {
  width: number;
  url: string;
}

/** The size of an asset that knows its dimensions. */
export function sizeOf(asset: { width?: number | null; height?: number | null }): ImageSize | undefined {
  const { width, height } = asset;
  return typeof width === 'number' && typeof height === 'number' ? { width, height } : undefined;
}

export type Inline =
  | { kind: 'text'; text: string; marks: Marks }
  | { kind: 'link'; href: string; children: Inline[] }
  | { kind: 'mention'; target: TargetKind; id: number; name: string; href: string; marks: Marks }
  | { kind: 'missing'; text: string; marks: Marks }
  | { kind: 'image'; src: string; alt: string; size: ImageSize | undefined; variants?: readonly ImageVariant[] | undefined }
  /** Phrasing inside a secret element (an inline link, a table cell), shown to game masters only. */
  | { kind: 'secret-span'; children: Inline[] };

export type Flow =
  | { kind: 'paragraph'; content: Inline[] }
  | { kind: 'heading'; depth: 1 | 2 | 3 | 4 | 5 | 6; content: Inline[] }
  | { kind: 'quote'; children: Flow[] }
  | { kind: 'list'; ordered: boolean; items: ListItem[] }
  /** A callout (`> [!kind] Title`): its kind, its title (plain text) if it has one, its blocks. */
  | { kind: 'callout'; type: string; title: string | undefined; children: Flow[] }
  | { kind: 'code'; text: string }
  | { kind: 'divider' }
  | { kind: 'table'; rows: Inline[][][] }
  | { kind: 'figure'; src: string; alt: string; caption: string | undefined; size: ImageSize | undefined; variants?: readonly ImageVariant[] | undefined }
  /** A secret element's content (a block, a list item's, at any depth), shown to game masters only. */
  | { kind: 'secret'; children: Flow[] };

/** A list item's blocks; `checked` (true or false) when it is a task. */
export interface ListItem {
  checked: boolean | undefined;
  content: Flow[];
}

/** A line ending as CommonMark and HTML count them: CR LF, CR or LF. */
export const LINE_ENDING = /\r\n|\r|\n/g;

export const NO_MARKS: Marks = { bold: false, italic: false, underline: false, code: false, strikethrough: false, highlight: false };

/** A run of phrasing without white space at its two ends (text leaves only, code kept as typed; empty ones dropped). */
export function trimRun(run: Inline[]): Inline[] {
  const out = [...run];
  const edge = (index: number, trim: (text: string) => string) => {
    const inline = out[index];
    if (inline?.kind !== 'text' || inline.marks.code) return;
    const text = trim(inline.text);
    if (text === '') out.splice(index, 1);
    else out[index] = { ...inline, text };
  };
  edge(out.length - 1, (text) => text.trimEnd());
  edge(0, (text) => text.trimStart());
  return out;
}

const sameMarks = (a: Marks, b: Marks) => a.bold === b.bold && a.italic === b.italic && a.underline === b.underline && a.code === b.code && a.strikethrough === b.strikethrough && a.highlight === b.highlight;

/**
 * Adjacent text with the same marks as one text: an editor splits leaves freely, and two code
 * spans side by side would otherwise meet as a longer backtick run in Markdown and change meaning.
 */
export function mergeText(run: Inline[]): Inline[] {
  const out: Inline[] = [];
  for (const inline of run) {
    const last = out.at(-1);
    if (inline.kind === 'text' && last?.kind === 'text' && sameMarks(last.marks, inline.marks)) out[out.length - 1] = { ...last, text: last.text + inline.text };
    else out.push(inline);
  }
  return out;
}
