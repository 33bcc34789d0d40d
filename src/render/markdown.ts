// The rendering model as CommonMark with GFM tables and strikethrough: an mdast tree serialized by
// mdast-util-to-markdown, which escapes every character that would otherwise mean something, so
// `# not a heading` and `*not emphasis*` stay what the user typed.

import type { BlockContent, PhrasingContent, Root } from 'mdast';
import { gfmToMarkdown } from 'mdast-util-gfm';
import { toMarkdown } from 'mdast-util-to-markdown';
import type { Flow, Inline, Marks } from './tree.js';

const SECRET_MARKER = '[!secret]';

function textWithBreaks(text: string): PhrasingContent[] {
  const out: PhrasingContent[] = [];
  text.split('\n').forEach((line, i) => {
    if (i > 0) out.push({ type: 'break' });
    if (line !== '') out.push({ type: 'text', value: line });
  });
  return out;
}

// Underline has no Markdown: it renders as plain text.
function marked(content: PhrasingContent[], marks: Marks): PhrasingContent[] {
  let out = content;
  if (marks.strikethrough) out = [{ type: 'delete', children: out }];
  if (marks.italic) out = [{ type: 'emphasis', children: out }];
  if (marks.bold) out = [{ type: 'strong', children: out }];
  return out;
}

function inline(node: Inline): PhrasingContent[] {
  switch (node.kind) {
    case 'text':
      if (node.text === '') return [];
      return marked(node.marks.code ? [{ type: 'inlineCode', value: node.text }] : textWithBreaks(node.text), node.marks);
    case 'link':
      return [{ type: 'link', url: node.href, children: node.children.flatMap(inline) }];
    case 'mention':
      return marked([{ type: 'link', url: node.href, children: [{ type: 'text', value: node.name }] }], node.marks);
    case 'missing':
      return marked([{ type: 'text', value: node.text }], node.marks);
    case 'image':
      return [{ type: 'image', url: node.src, alt: node.alt }];
  }
}

function flow(node: Flow): BlockContent[] {
  switch (node.kind) {
    case 'paragraph': {
      const children = node.content.flatMap(inline);
      // An empty paragraph is an empty line of the editor: Markdown has no such thing.
      return children.length === 0 ? [] : [{ type: 'paragraph', children }];
    }
    case 'heading':
      return [{ type: 'heading', depth: node.depth, children: node.content.flatMap(inline) }];
    case 'quote':
      return [{ type: 'blockquote', children: node.children.flatMap(flow) }];
    case 'list':
      return [
        {
          type: 'list',
          ordered: node.ordered,
          spread: false,
          children: node.items.map((item) => ({ type: 'listItem', spread: false, children: item.flatMap(flow) })),
        },
      ];
    case 'code':
      return [{ type: 'code', value: node.text }];
    case 'divider':
      return [{ type: 'thematicBreak' }];
    case 'table': {
      const width = Math.max(1, ...node.rows.map((row) => row.length));
      return [
        {
          type: 'table',
          children: node.rows.map((row) => ({
            type: 'tableRow',
            children: Array.from({ length: width }, (_, i) => ({ type: 'tableCell', children: (row[i] ?? []).flatMap(inline) })),
          })),
        },
      ];
    }
    case 'figure': {
      const out: BlockContent[] = [{ type: 'paragraph', children: [{ type: 'image', url: node.src, alt: node.alt }] }];
      if (node.caption !== undefined) out.push({ type: 'paragraph', children: [{ type: 'emphasis', children: [{ type: 'text', value: node.caption }] }] });
      return out;
    }
    case 'secret':
      // An Obsidian callout: the marker line is ours (an html node is written as it is, unescaped).
      return [{ type: 'blockquote', children: [{ type: 'html', value: SECRET_MARKER }, ...node.children.flatMap(flow)] }];
  }
}

export function toMarkdownString(blocks: Flow[]): string {
  const root: Root = { type: 'root', children: blocks.flatMap(flow) };
  if (root.children.length === 0) return '';
  return toMarkdown(root, {
    bullet: '-',
    emphasis: '*',
    strong: '*',
    rule: '-',
    fence: '`',
    fences: true,
    listItemIndent: 'one',
    extensions: [gfmToMarkdown()],
    // The callout's marker line and its first line of content belong together.
    join: [(left, _right, parent) => (parent.type === 'blockquote' && left.type === 'html' && left.value === SECRET_MARKER ? 0 : undefined)],
  });
}
