// The rendering model as CommonMark with GFM tables and strikethrough: an mdast tree serialized by
// mdast-util-to-markdown, which escapes every character that would otherwise mean something, so
// `# not a heading` and `*not emphasis*` stay what the user typed.

import type { BlockContent, ListItem as MarkdownListItem, Parents, PhrasingContent, Root } from 'mdast';
import { gfmToMarkdown } from 'mdast-util-gfm';
import { toMarkdown, type ConstructName, type Handle, type Handlers, type Info, type Options, type State } from 'mdast-util-to-markdown';
import { LINE_ENDING, trimRun, type Flow, type Inline, type ListItem, type Marks } from './tree.js';

const SECRET_MARKER = '[!secret]';
const SECRET_SPAN_OPEN = '<span class="secret">';
const SECRET_SPAN_CLOSE = '</span>';

function textWithBreaks(text: string): PhrasingContent[] {
  const out: PhrasingContent[] = [];
  text.split(LINE_ENDING).forEach((line, i) => {
    if (i > 0) out.push({ type: 'break' });
    if (line !== '') out.push({ type: 'text', value: line });
  });
  return out;
}

/**
 * Obsidian's `==highlight==`: no mdast node of its own, so one of ours (`highlight`) with its own
 * handler, written like GFM's strikethrough. So that only a highlight reads as one, every `=`
 * inside a highlight is escaped (`\=`), and outside one every `=` next to another (`a \=\= b`).
 */
interface Highlight {
  type: 'highlight';
  children: PhrasingContent[];
}
const highlight = (children: PhrasingContent[]): PhrasingContent => ({ type: 'highlight', children }) as unknown as PhrasingContent;
const HIGHLIGHT_CONSTRUCT = 'highlight' as ConstructName;

function writeHighlight(node: Highlight, _parent: Parents | undefined, state: State, info: Info): string {
  const tracker = state.createTracker(info);
  const exit = state.enter(HIGHLIGHT_CONSTRUCT);
  let value = tracker.move('==');
  value += state.containerPhrasing(node as unknown as Parents, { ...tracker.current(), before: value, after: '=' });
  value += tracker.move('==');
  exit();
  return value;
}
const handleHighlight = Object.assign(writeHighlight, { peek: () => '=' }) as unknown as Handle;

const HIGHLIGHT_MARKDOWN: Options = {
  handlers: { highlight: handleHighlight } as Partial<Handlers>,
  unsafe: [
    { character: '=', inConstruct: HIGHLIGHT_CONSTRUCT },
    { character: '=', after: '=', inConstruct: 'phrasing' },
    { character: '=', before: '=', inConstruct: 'phrasing' },
  ],
};

// Underline has no Markdown: it renders as plain text. A highlight is innermost but for code
// (`==` around a code span: Obsidian highlights it).
function marked(content: PhrasingContent[], marks: Marks): PhrasingContent[] {
  let out = content;
  if (marks.highlight) out = [highlight(out)];
  if (marks.strikethrough) out = [{ type: 'delete', children: out }];
  if (marks.italic) out = [{ type: 'emphasis', children: out }];
  if (marks.bold) out = [{ type: 'strong', children: out }];
  return out;
}

type Parent = Extract<PhrasingContent, { type: 'strong' | 'emphasis' | 'delete' }>;
const isParent = (node: PhrasingContent): node is Parent => node.type === 'strong' || node.type === 'emphasis' || node.type === 'delete' || (node.type as string) === 'highlight';

/**
 * Neighbours of one kind as one node (`**a****b**` is not `**ab**` in Markdown, and two code
 * spans side by side would meet as one longer backtick run): leaves that differ only in marks
 * Markdown cannot show (underline), or in marks on part of them, come out as one span.
 */
function mergeAdjacent(nodes: PhrasingContent[]): PhrasingContent[] {
  const out: PhrasingContent[] = [];
  for (const node of nodes) {
    const last = out.at(-1);
    if (last?.type === 'text' && node.type === 'text') out[out.length - 1] = { ...last, value: last.value + node.value };
    else if (last?.type === 'inlineCode' && node.type === 'inlineCode') out[out.length - 1] = { ...last, value: last.value + node.value };
    else if (last && isParent(last) && isParent(node) && last.type === node.type) out[out.length - 1] = { ...last, children: mergeAdjacent([...last.children, ...node.children]) };
    else out.push(node);
  }
  return out;
}

// A game master's empty mark of a missing mention is for their page only: Markdown has none.
const withoutEmptyMarks = (content: Inline[]): Inline[] => content.filter((node) => node.kind !== 'missing' || node.text !== '');
const phrasing = (content: Inline[]): PhrasingContent[] => mergeAdjacent(withoutEmptyMarks(content).flatMap(inline));

function inline(node: Inline): PhrasingContent[] {
  switch (node.kind) {
    case 'text':
      if (node.text === '') return [];
      // A code span cannot hold a line ending (two would end the paragraph): CommonMark shows one
      // as a space, so that is what it becomes.
      return marked(node.marks.code ? [{ type: 'inlineCode', value: node.text.replace(LINE_ENDING, ' ') }] : textWithBreaks(node.text), node.marks);
    case 'link':
      return [{ type: 'link', url: node.href, children: phrasing(node.children) }];
    case 'mention':
      return marked([{ type: 'link', url: node.href, children: [{ type: 'text', value: node.name }] }], node.marks);
    case 'missing':
      return marked([{ type: 'text', value: node.text }], node.marks);
    case 'image':
      return [{ type: 'image', url: node.src, alt: node.alt }];
    case 'secret-span': {
      // Markdown has no inline callout: inline HTML marks it (its content stays Markdown, escaped),
      // on one line: a line holding only an open or a close tag would start a raw HTML block.
      const children = phrasing(node.children.map(oneLine));
      return children.length === 0 ? [] : [{ type: 'html', value: SECRET_SPAN_OPEN }, ...children, { type: 'html', value: SECRET_SPAN_CLOSE }];
    }
  }
}

/** Phrasing with every line ending as a space (what a table cell and a secret span hold). */
function oneLine(node: Inline): Inline {
  switch (node.kind) {
    case 'text':
    case 'missing':
      return { ...node, text: node.text.replace(LINE_ENDING, ' ') };
    case 'mention':
      return { ...node, name: node.name.replace(LINE_ENDING, ' ') };
    case 'link':
    case 'secret-span':
      return { ...node, children: node.children.map(oneLine) };
    case 'image':
      return node;
  }
}

function flow(node: Flow): BlockContent[] {
  switch (node.kind) {
    case 'paragraph': {
      // White space at a paragraph's edges shows in neither format; Markdown would have to spell
      // it as a character reference to keep it.
      const children = phrasing(trimRun(withoutEmptyMarks(node.content)));
      // An empty paragraph is an empty line of the editor: Markdown has no such thing.
      return children.length === 0 ? [] : [{ type: 'paragraph', children }];
    }
    case 'heading':
      return [{ type: 'heading', depth: node.depth, children: phrasing(trimRun(withoutEmptyMarks(node.content))) }];
    case 'quote':
      return [{ type: 'blockquote', children: node.children.flatMap(flow) }];
    case 'list':
      return [
        {
          type: 'list',
          ordered: node.ordered,
          spread: false,
          children: node.items.map(listItem),
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
            children: Array.from({ length: width }, (_, i) => ({ type: 'tableCell', children: phrasing(row[i] ?? []) })),
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
    case 'callout': {
      // `> [!kind] Title`, then a quoted blank line and the blocks. The marker is written as it is
      // (an html node): only a kind of letters, digits, `-` and `_` goes into it; the title is text,
      // escaped, on the marker's line.
      const marker: PhrasingContent[] = [{ type: 'html', value: `[!${markerKind(node.type)}]` }];
      if (node.title !== undefined) marker.push({ type: 'text', value: ` ${node.title}` });
      return [{ type: 'blockquote', children: [{ type: 'paragraph', children: marker }, ...node.children.flatMap(flow)] }];
    }
  }
}

/** A callout's kind as Obsidian reads it in a marker: no `]`, no space or line break, never empty. */
function markerKind(kind: string): string {
  const safe = kind
    .replace(/[^\p{L}\p{N}_-]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  return safe === '' ? 'note' : safe;
}

// A task's check (`[ ]`, `[x]`) is written before its first paragraph: one that starts with
// another block gets an empty first paragraph so that its state is kept.
function listItem({ checked, content }: ListItem): MarkdownListItem {
  const children = content.flatMap(flow);
  if (checked !== undefined && children[0]?.type !== 'paragraph') children.unshift({ type: 'paragraph', children: [] });
  return { type: 'listItem', spread: false, checked: checked ?? null, children };
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
    extensions: [gfmToMarkdown(), HIGHLIGHT_MARKDOWN],
    // The callout's marker line and a first paragraph belong together (Obsidian's callout title
    // line, then its content). Any other block keeps a blank line after the marker: a list or an
    // empty list item could not start right under it, they would continue its paragraph.
    join: [(left, right, parent) => (parent.type === 'blockquote' && left.type === 'html' && left.value === SECRET_MARKER && right.type === 'paragraph' ? 0 : undefined)],
  });
}
