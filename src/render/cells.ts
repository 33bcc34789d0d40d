// Table cells hold phrasing only, in HTML as in a GFM table (one line per row). A cell whose
// content has blocks (a client's own shape, or a pasted list) keeps every word: its blocks are
// flattened to phrasing, separated by spaces, images kept inline.

import { LINE_ENDING, NO_MARKS, type Flow, type Inline } from './tree.js';

export function flowsToPhrasing(flows: Flow[]): Inline[] {
  const out: Inline[] = [];
  const add = (inlines: Inline[]) => {
    if (out.length > 0 && inlines.length > 0) out.push({ kind: 'text', text: ' ', marks: NO_MARKS });
    out.push(...inlines);
  };
  const flatten = (flow: Flow): void => {
    switch (flow.kind) {
      case 'paragraph':
      case 'heading':
        add(flow.content);
        break;
      case 'code':
        add([{ kind: 'text', text: flow.text, marks: { ...NO_MARKS, code: true } }]);
        break;
      case 'figure':
        add([{ kind: 'image', src: flow.src, alt: flow.alt, size: flow.size, variants: flow.variants }]);
        break;
      case 'quote':
        flow.children.forEach(flatten);
        break;
      case 'callout':
        if (flow.title !== undefined) add([{ kind: 'text', text: flow.title, marks: NO_MARKS }]);
        flow.children.forEach(flatten);
        break;
      case 'secret': {
        // Secret blocks in a cell stay marked: their phrasing as one secret span.
        const inner = flowsToPhrasing(flow.children);
        if (inner.length > 0) add([{ kind: 'secret-span', children: inner }]);
        break;
      }
      case 'list':
        flow.items.forEach((item) => item.content.forEach(flatten));
        break;
      case 'table':
        flow.rows.forEach((row) => row.forEach((inlines) => add(inlines)));
        break;
      case 'divider':
        break;
    }
  };
  flows.forEach(flatten);
  return out.map(oneLine);
}

function oneLine(inline: Inline): Inline {
  if (inline.kind === 'text') return { ...inline, text: inline.text.replace(LINE_ENDING, ' ') };
  if (inline.kind === 'secret-span') return { ...inline, children: inline.children.map(oneLine) };
  return inline;
}
