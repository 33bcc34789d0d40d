// A note's Markdown (its mdast tree, from markdown.ts) mapped onto the rich-text vocabulary, with
// links resolved against the vault (read.ts gives the resolver).
import type { Nodes as MdNode, PhrasingContent, Root, RootContent } from 'mdast';
import { RICH_TEXT_MAX_DEPTH, type RichTextBlock, type RichTextNode } from '../../domain/rich-text.js';
import { HEADING_TYPES } from '../../vocabulary/index.js';
import { importProblems } from '../plan.js';

/** What a link of a note names: another note (a thing or an arc) or an image file of the vault. */
export type Target = { kind: 'thing' | 'arc'; key: number; name: string } | { kind: 'image'; key: number };

export function toBlocks(converter: Converter, tree: Root, file: string): RichTextBlock[] {
  try {
    return converter.blocks(tree.children, 1, true);
  } catch (error) {
    // Inline content (emphasis in emphasis…) nested thousands deep.
    if (error instanceof RangeError) throw importProblems(file, [{ path: '', message: 'the Markdown nests too deeply to read' }]);
    throw error;
  }
}


export function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export function plainText(node: RichTextNode): string {
  if (typeof (node as { text?: unknown }).text === 'string') return (node as { text: string }).text;
  return ((node as RichTextBlock).children ?? []).map(plainText).join('');
}

interface Marks {
  bold?: true;
  italic?: true;
  strikethrough?: true;
  code?: true;
}

// `[[target#heading|label]]`, with `!` before it for an embed.
const WIKILINK = /(!?)\[\[([^[\]|#^\n]*)(?:[#^][^[\]|\n]*)?(?:\|([^[\]\n]*))?\]\]/g;
const SECRET_CALLOUT = /^\[!secret\][+-]?[ \t]*/i;
const SECRET_SPAN_OPEN = '<span class="secret">';
const SECRET_SPAN_CLOSE = '</span>';

/** The content of phrasing that is exactly one secret span (our export's secret cell), else undefined. */
function secretSpanContent(nodes: readonly PhrasingContent[]): PhrasingContent[] | undefined {
  const kept = nodes.filter((n) => !(n.type === 'text' && n.value.trim() === ''));
  const first = kept[0];
  const last = kept.at(-1);
  if (kept.length < 2 || first?.type !== 'html' || first.value !== SECRET_SPAN_OPEN || last?.type !== 'html' || last.value !== SECRET_SPAN_CLOSE) return undefined;
  const inner = kept.slice(1, -1);
  return inner.some((n) => n.type === 'html' && (n.value === SECRET_SPAN_OPEN || n.value === SECRET_SPAN_CLOSE)) ? undefined : inner;
}

/** mdast to rich text, with links resolved against the vault. */
export class Converter {
  constructor(
    private readonly resolve: (reference: string, wiki: boolean) => Target | undefined,
    /** The first alt text seen for each image: its label. */
    private readonly labels: Map<number, string>,
  ) {}

  blocks(nodes: readonly RootContent[], depth: number, top: boolean): RichTextBlock[] {
    const out: RichTextBlock[] = [];
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i]!;
      const made = this.block(node, depth, top);
      // Our export's caption line under an image: `*caption*` alone in a paragraph.
      const last = made.at(-1);
      const next = nodes[i + 1];
      if (last?.type === 'image' && next?.type === 'paragraph' && next.children.length === 1 && next.children[0]!.type === 'emphasis') {
        const caption = mdText(next.children[0]);
        if (caption !== last.alt) last.caption = caption;
        i++;
      }
      out.push(...made);
    }
    return out;
  }

  private block(node: RootContent, depth: number, top: boolean): RichTextBlock[] {
    // Deeper than rich text may nest: what is inside is kept as paragraphs of its text.
    if (depth > RICH_TEXT_MAX_DEPTH - 2 && 'children' in node && node.type !== 'paragraph' && node.type !== 'heading') {
      return [{ type: 'paragraph', children: [{ text: mdText(node) }] }];
    }
    switch (node.type) {
      case 'paragraph':
        return this.paragraph(node.children, 'paragraph');
      case 'heading':
        return [{ type: HEADING_TYPES[node.depth - 1]!, children: this.leaves(node.children) }];
      case 'blockquote': {
        const [first, ...rest] = node.children;
        if (first?.type === 'paragraph' && first.children[0]?.type === 'text' && SECRET_CALLOUT.test(first.children[0].value)) {
          // `> [!secret]`, at any depth (a list item, a quote): each block inside is a secret block.
          const head = first.children[0];
          const remainder = head.value.replace(SECRET_CALLOUT, '').replace(/^\r?\n/, '');
          const firstChildren = remainder === '' ? first.children.slice(1) : [{ ...head, value: remainder }, ...first.children.slice(1)];
          const inner = firstChildren.length > 0 ? [{ ...first, children: firstChildren }, ...rest] : rest;
          return this.blocks(inner as RootContent[], depth, false).map((block) => ({ ...block, isSecret: true }));
        }
        return [{ type: 'block-quote', children: nonEmpty(this.blocks(node.children, depth + 1, false)) }];
      }
      case 'list':
        return [
          {
            type: node.ordered ? 'numbered-list' : 'bulleted-list',
            children: node.children.map((item) => {
              const only = item.children.length === 1 && item.children[0]!.type === 'paragraph' ? item.children[0] : undefined;
              const children = only ? this.leaves(only.children) : nonEmpty(this.blocks(item.children, depth + 2, false));
              return { type: 'list-item', children: children.length === 0 ? [{ text: '' }] : children };
            }),
          },
        ];
      case 'code':
        return [{ type: 'code-block', children: [{ text: node.value }] }];
      case 'thematicBreak':
        return [{ type: 'divider', children: [{ text: '' }] }];
      case 'table':
        return [
          {
            type: 'table',
            children: node.children.map((row) => ({
              type: 'table-row',
              children: row.children.map((cell) => {
                // Our export's secret cell: its whole content in one `<span class="secret">`.
                const inner = secretSpanContent(cell.children);
                return inner ? { type: 'table-cell', isSecret: true, children: withText(this.leaves(inner)) } : { type: 'table-cell', children: withText(this.leaves(cell.children)) };
              }),
            })),
          },
        ];
      case 'html':
        return node.value.trim() === '' ? [] : [{ type: 'paragraph', children: [{ text: node.value }] }];
      case 'definition':
      case 'yaml':
        return [];
      case 'footnoteDefinition':
      case 'listItem':
        return this.blocks(node.children, depth, top);
      case 'tableRow':
        return this.blocks(node.children, depth, top);
      case 'tableCell':
        return this.paragraph(node.children, 'paragraph');
      // Phrasing where a block belongs (mdast allows it in few places): a paragraph of it.
      case 'text':
      case 'emphasis':
      case 'strong':
      case 'delete':
      case 'inlineCode':
      case 'break':
      case 'link':
      case 'image':
      case 'linkReference':
      case 'imageReference':
      case 'footnoteReference':
        return this.paragraph([node], 'paragraph');
    }
  }

  /** A paragraph's inline content; images in it come out as image blocks around the text. */
  private paragraph(children: PhrasingContent[], type: string): RichTextBlock[] {
    const out: RichTextBlock[] = [];
    let run: RichTextNode[] = [];
    const flush = () => {
      if (run.some((n) => !('text' in n) || (n as { text: string }).text.trim() !== '')) out.push({ type, children: withText(run) });
      run = [];
    };
    for (const item of this.inline(children, {})) {
      if ('type' in item && item.type === 'image') {
        flush();
        out.push(item as RichTextBlock);
      } else run.push(item);
    }
    flush();
    return out;
  }

  /** Inline content with images kept as text (inside headings, list items, cells). */
  private leaves(children: PhrasingContent[]): RichTextNode[] {
    return withText(this.inline(children, {}).map((item) => ('type' in item && item.type === 'image' ? { text: typeof item.alt === 'string' ? item.alt : '' } : item)));
  }

  private inline(nodes: readonly PhrasingContent[], marks: Marks): RichTextNode[] {
    const out: RichTextNode[] = [];
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i]!;
      const close = node.type === 'html' && node.value === SECRET_SPAN_OPEN ? nodes.findIndex((n, j) => j > i && n.type === 'html' && n.value === SECRET_SPAN_CLOSE) : -1;
      if (close > i) {
        // Our export's secret inline element: one link or mention is itself secret; other
        // content keeps its secrecy in an element of its own (rendered as its children).
        const inner = this.inline(nodes.slice(i + 1, close), marks).filter((n) => !('text' in n) || n.text !== '');
        const only = inner.length === 1 && !('text' in inner[0]!) ? inner[0] : undefined;
        out.push(only ? { ...only, isSecret: true } : { type: 'span', isSecret: true, children: withText(inner) });
        i = close;
        continue;
      }
      switch (node.type) {
        case 'text':
          out.push(...this.text(node.value, marks));
          break;
        case 'emphasis':
          out.push(...this.inline(node.children, { ...marks, italic: true }));
          break;
        case 'strong':
          out.push(...this.inline(node.children, { ...marks, bold: true }));
          break;
        case 'delete':
          out.push(...this.inline(node.children, { ...marks, strikethrough: true }));
          break;
        case 'inlineCode':
          out.push({ text: node.value, ...marks, code: true });
          break;
        case 'break':
          out.push({ text: '\n', ...marks });
          break;
        case 'link': {
          const label = this.inline(node.children, marks);
          out.push(this.link(node.url, label, marks));
          break;
        }
        case 'image':
          out.push(this.image(node.url, node.alt ?? ''));
          break;
        case 'html':
          out.push({ text: node.value, ...marks });
          break;
        case 'linkReference':
          out.push(...this.inline(node.children, marks));
          break;
        case 'imageReference':
          out.push({ text: node.alt ?? '', ...marks });
          break;
        case 'footnoteReference':
          out.push({ text: `[^${node.identifier}]`, ...marks });
          break;
      }
    }
    return out;
  }

  /** Text, with `[[wikilinks]]` to files of the vault made mentions and `![[embeds]]` of its images image blocks. */
  private text(value: string, marks: Marks): RichTextNode[] {
    const out: RichTextNode[] = [];
    let at = 0;
    for (const match of value.matchAll(WIKILINK)) {
      const [whole, bang, reference, label] = match;
      const target = reference!.trim() === '' ? undefined : this.resolve(reference!.trim(), true);
      if (!target) continue;
      if (match.index > at) out.push({ text: value.slice(at, match.index), ...marks });
      at = match.index + whole.length;
      if (target.kind === 'image') out.push(bang ? this.imageOf(target.key, label ?? '') : { text: label ?? reference!, ...marks });
      else out.push(this.mention(target, label?.trim() ?? ''));
    }
    if (at < value.length) out.push({ text: value.slice(at), ...marks });
    return out;
  }

  private link(url: string, label: RichTextNode[], marks: Marks): RichTextNode {
    // A path from the vault root (`/x/y.md`) is the vault's too; `//host` is not.
    if (!/^[a-z][a-z0-9+.-]*:/i.test(url) && !url.startsWith('//') && !url.startsWith('#')) {
      const target = this.resolve(safeDecode(url.split('#')[0]!), false);
      if (target && target.kind !== 'image') return this.mention(target, label.map(plainText).join(''));
      if (target?.kind === 'image') return { text: label.map(plainText).join(''), ...marks };
    }
    return { type: 'link', url, children: withText(label) };
  }

  private mention(target: Target & { kind: 'thing' | 'arc' }, label: string): RichTextNode {
    // The target's name is what a mention shows anyway; a different label is kept.
    return { type: 'mention', targetType: target.kind, targetId: target.key, children: [{ text: label === target.name ? '' : label }] };
  }

  private image(url: string, alt: string): RichTextBlock {
    if (!/^[a-z][a-z0-9+.-]*:/i.test(url) && !url.startsWith('//')) {
      const target = this.resolve(safeDecode(url), false);
      if (target?.kind === 'image') return this.imageOf(target.key, alt);
    }
    return { type: 'image', url, alt, children: [{ text: '' }] };
  }

  private imageOf(key: number, alt: string): RichTextBlock {
    if (alt !== '' && !this.labels.has(key)) this.labels.set(key, alt);
    return { type: 'image', assetId: key, url: '', alt, children: [{ text: '' }] };
  }
}

function withText(nodes: RichTextNode[]): RichTextNode[] {
  return nodes.length === 0 ? [{ text: '' }] : nodes;
}

function nonEmpty(blocks: RichTextBlock[]): RichTextBlock[] {
  return blocks.length === 0 ? [{ type: 'paragraph', children: [{ text: '' }] }] : blocks;
}

export function mdText(node: MdNode): string {
  if ('value' in node && typeof node.value === 'string') return node.value;
  if ('children' in node) return (node.children as MdNode[]).map(mdText).join('');
  return '';
}
