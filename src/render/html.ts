// The rendering model as HTML: a hast tree serialized by hast-util-to-html, which escapes text and
// attribute values; no user text is ever pasted into markup. Only the elements and attributes of
// the CONTRACT's table are produced.

import type { Element, ElementContent, Root } from 'hast';
import { toHtml } from 'hast-util-to-html';
import { LINE_ENDING, type Flow, type ImageSize, type ImageVariant, type Inline, type ListItem, type Marks } from './tree.js';

const LINK_REL = ['noopener', 'noreferrer', 'nofollow', 'ugc'];

export function el(tagName: string, properties: Element['properties'], children: ElementContent[] = []): Element {
  return { type: 'element', tagName, properties, children };
}

function textWithBreaks(text: string): ElementContent[] {
  const out: ElementContent[] = [];
  text.split(LINE_ENDING).forEach((line, i) => {
    if (i > 0) out.push(el('br', {}));
    if (line !== '') out.push({ type: 'text', value: line });
  });
  return out;
}

function marked(content: ElementContent[], marks: Marks): ElementContent[] {
  let out = content;
  if (marks.code) out = [el('code', {}, out)];
  if (marks.highlight) out = [el('mark', {}, out)];
  if (marks.strikethrough) out = [el('s', {}, out)];
  if (marks.underline) out = [el('u', {}, out)];
  if (marks.italic) out = [el('em', {}, out)];
  if (marks.bold) out = [el('strong', {}, out)];
  return out;
}

// Width and height (an uploaded image's, when known) let the browser reserve the image's box before
// it loads: no layout shift. The page's CSS keeps it within the column (max-width: 100%; height: auto).
// An asset's WebP variants (images/variants.ts) are its srcset, the original last when it is wider,
// with `sizes` the width it is shown at: the column's (52rem at most) or its own, whichever is less.
const COLUMN_PX = 832;
function image({ src, alt, size, variants }: { src: string; alt: string; size: ImageSize | undefined; variants?: readonly ImageVariant[] | undefined }): Element {
  const properties: Element['properties'] = size ? { src, alt, width: size.width, height: size.height } : { src, alt };
  if (size && variants && variants.length > 0) {
    const candidates = variants.map((v) => `${v.url} ${v.width}w`);
    if (size.width > variants[variants.length - 1]!.width) candidates.push(`${src} ${size.width}w`);
    properties.srcSet = candidates.join(', ');
    properties.sizes = `min(100vw, ${Math.min(size.width, COLUMN_PX)}px)`;
  }
  properties.loading = 'lazy';
  return el('img', properties);
}

/** The first image of a text is likely what a page paints largest: asked for at once and first (not lazy, high priority). */
function eagerFirstImage(nodes: ElementContent[] | Root['children']): boolean {
  for (const node of nodes) {
    if (node.type !== 'element') continue;
    if (node.tagName === 'img') {
      delete node.properties.loading;
      node.properties.fetchPriority = 'high';
      return true;
    }
    if (eagerFirstImage(node.children)) return true;
  }
  return false;
}

export function inline(node: Inline): ElementContent[] {
  switch (node.kind) {
    case 'text':
      return node.text === '' ? [] : marked(textWithBreaks(node.text), node.marks);
    case 'link':
      return [el('a', { href: node.href, rel: LINK_REL }, node.children.flatMap(inline))];
    case 'mention':
      return marked([el('a', { className: ['mention'], dataType: node.target, dataId: String(node.id), href: node.href }, [{ type: 'text', value: node.name }])], node.marks);
    case 'missing':
      return marked([el('span', { className: ['mention', 'missing'] }, [{ type: 'text', value: node.text }])], node.marks);
    case 'image':
      return [image(node)];
    case 'secret-span':
      return [el('span', { className: ['secret'] }, node.children.flatMap(inline))];
  }
}

/** A table cell: a cell that is one secret span is itself marked (`<td class="secret">`). */
function tableCell(tag: string, cell: Inline[]): Element {
  const only = cell.length === 1 ? cell[0] : undefined;
  if (only?.kind === 'secret-span') return el(tag, { className: ['secret'] }, only.children.flatMap(inline));
  return el(tag, {}, cell.flatMap(inline));
}

function flow(node: Flow): Element {
  switch (node.kind) {
    case 'paragraph':
      return el('p', {}, node.content.flatMap(inline));
    case 'heading':
      return el(`h${node.depth}`, {}, node.content.flatMap(inline));
    case 'quote':
      return el('blockquote', {}, node.children.map(flow));
    case 'list':
      return el(node.ordered ? 'ol' : 'ul', {}, node.items.map(listItem));
    case 'code':
      return el('pre', {}, [el('code', {}, node.text === '' ? [] : [{ type: 'text', value: node.text }])]);
    case 'divider':
      return el('hr', {});
    case 'table': {
      const [head, ...body] = node.rows;
      const row = (cells: Inline[][], tag: string) => el('tr', {}, cells.map((cell) => tableCell(tag, cell)));
      const parts: Element[] = [];
      if (head) parts.push(el('thead', {}, [row(head, 'th')]));
      if (body.length > 0) parts.push(el('tbody', {}, body.map((cells) => row(cells, 'td'))));
      return el('table', {}, parts);
    }
    case 'figure': {
      const children: ElementContent[] = [image(node)];
      if (node.caption !== undefined) children.push(el('figcaption', {}, [{ type: 'text', value: node.caption }]));
      return el('figure', {}, children);
    }
    case 'secret':
      return el('section', { className: ['secret'] }, node.children.map(flow));
    case 'callout': {
      const children: ElementContent[] = node.title === undefined ? [] : [el('p', { className: ['callout-title'] }, [{ type: 'text', value: node.title }])];
      return el('aside', { className: ['callout'], dataType: node.type }, [...children, ...node.children.map(flow)]);
    }
  }
}

// A task's state is in its text too: a class is not read aloud, and the HTML allow-list has no
// `<input>`; screen readers say "ballot box" and "ballot box with check" for these two characters.
const TASK_MARKERS = { open: '☐ ', done: '☑ ' } as const;

// A list item's paragraphs are its own lines (a tight list, as an editor shows it); other blocks
// (a nested list, a figure) stay blocks. A secret item (one secret flow) is `<li class="secret">`;
// a task is `<li class="task">`, `<li class="task done">` when checked, its marker first.
function listItem({ checked, content }: ListItem): Element {
  const task = checked === undefined ? [] : checked ? ['task', 'done'] : ['task'];
  const only = content.length === 1 ? content[0] : undefined;
  const secret = only?.kind === 'secret';
  const children = itemContent(secret ? only.children : content);
  if (checked !== undefined) children.unshift({ type: 'text', value: checked ? TASK_MARKERS.done : TASK_MARKERS.open });
  const className = secret ? ['secret', ...task] : task;
  return el('li', className.length > 0 ? { className } : {}, children);
}

function itemContent(item: Flow[]): ElementContent[] {
  const children: ElementContent[] = [];
  let afterParagraph = false;
  for (const block of item) {
    if (block.kind === 'paragraph') {
      if (afterParagraph) children.push(el('br', {}));
      children.push(...block.content.flatMap(inline));
      afterParagraph = true;
    } else {
      children.push(flow(block));
      afterParagraph = false;
    }
  }
  return children;
}

export function toHtmlString(blocks: Flow[]): string {
  const root: Root = { type: 'root', children: blocks.map(flow) };
  eagerFirstImage(root.children);
  return toHtml(root, { characterReferences: { useNamedReferences: false } });
}
