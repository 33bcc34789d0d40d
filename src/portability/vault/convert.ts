// A note's Markdown (its mdast tree, from markdown.ts) mapped onto the rich-text vocabulary, with
// links resolved against the vault (read.ts gives the resolver).
import type { Blockquote, Heading, ListItem, Paragraph, PhrasingContent, Root, RootContent, Table } from 'mdast';
import { RICH_TEXT_MAX_DEPTH, type RichTextBlock, type RichTextNode } from '../../domain/rich-text.js';
import { HEADING_TYPES } from '../../vocabulary/index.js';
import { importProblems } from '../plan.js';
import { calloutHead, commentOf, embedAlt, firstLine, highlighted, imageAlt, isComment, WIKILINK, withoutBlockId, type CommentNode, type Piece } from './obsidian.js';
import { aloneOnLine, commentsIn, flatten, mdText, nonEmpty, onlyComments, plainBlocksOf, SECRET_SPAN_CLOSE, SECRET_SPAN_OPEN, secretSpanContent, titleText, visibleText, withText, type Line } from './nodes.js';

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
  highlight?: true;
}

const SECRET_CALLOUT = /^\[!secret\][+-]?[ \t]*/i;
/** An embed of a file that is neither a note nor an image (`![[map.pdf]]`, `![[theme.mp3]]`): its name as text. */
const OTHER_FILE = /\.(?!md$)[a-z0-9]{1,8}$/i;
/** The longest callout title the vocabulary holds. */
const CALLOUT_TITLE_MAX = 500;


/** Where phrasing sits: the depth of its block, whether it is a block's own phrasing, whether blocks may leave it. */
interface Place {
  depth: number;
  /** A paragraph's, heading's or cell's own phrasing (not inside emphasis or a link): its lines are the block's. */
  top?: boolean;
  /** A table cell or a link's text: a comment there stays an inline secret, never blocks. */
  inlineOnly?: boolean;
}

/** Whether a list item's only block is the box of an empty task (`[ ]`, `[x]`), and checked; undefined when it is not. */
function emptyTask(node: RootContent): boolean | undefined {
  const only = node.type === 'paragraph' && node.children.length === 1 ? node.children[0] : undefined;
  const box = only?.type === 'text' ? /^\[([ xX])\]$/.exec(only.value) : null;
  return box ? box[1] !== ' ' : undefined;
}

/** mdast to rich text, with links resolved against the vault. */
export class Converter {
  /** Blocks made from phrasing (images, embeds, comments of several blocks): moved out of the block around them. */
  private readonly lifted = new WeakSet<object>();
  /**
   * How many secrets (comments; in a vault from elsewhere, `> [!secret]`, secret spans and cells too)
   * the content being converted is inside: an image's alt text there names no asset.
   */
  private inSecrets = 0;
  /** The files embedded (`![[map.png]]`) that are not imported (not in the vault, or neither a note nor an image): kept as their names, for the plan's warnings. */
  readonly unimportedEmbeds = new Set<string>();

  constructor(
    private readonly resolve: (reference: string, wiki: boolean) => Target | undefined,
    /** The first alt text seen for each image: its label. */
    private readonly labels: Map<number, string>,
    /**
     * Our own export: its secrets (`> [!secret]`, secret spans and cells) are where it writes an
     * image's label when the image is only shown there, so their alt texts still name assets.
     */
    private readonly ours = false,
  ) {}

  /** `convert` inside a secret: an image's alt text there names no asset (a label is shown to players wherever the image is). */
  private hidden<T>(convert: () => T, always = false): T {
    const counted = always || !this.ours;
    if (counted) this.inSecrets += 1;
    try {
      return convert();
    } finally {
      if (counted) this.inSecrets -= 1;
    }
  }

  blocks(nodes: readonly RootContent[], depth: number, top: boolean): RichTextBlock[] {
    const out: RichTextBlock[] = [];
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i]!;
      const made = this.block(node, depth, top);
      // Our export's caption line under an image: `*caption*` alone in a paragraph.
      const last = made.at(-1);
      const next = nodes[i + 1];
      if (last?.type === 'image' && next?.type === 'paragraph' && next.children.length === 1 && next.children[0]!.type === 'emphasis' && commentsIn(next).length === 0) {
        const caption = mdText(next.children[0]);
        if (caption !== last.alt) last.caption = caption;
        i++;
      }
      out.push(...made);
    }
    return out;
  }

  private block(node: RootContent, depth: number, top: boolean): RichTextBlock[] {
    const comment = commentOf(node);
    if (comment) return this.commentBlocks(comment, depth);
    // Deeper than rich text may nest: what is inside is kept as paragraphs of its text, its secrets
    // (comments, `> [!secret]`, secret spans) as secret ones; inside a secret, all of it secret.
    if (depth > RICH_TEXT_MAX_DEPTH - 2 && 'children' in node && node.type !== 'paragraph' && node.type !== 'heading') {
      const plain = plainBlocksOf([node]);
      return this.inSecrets > 0 ? plain.map((block) => ({ ...block, isSecret: true })) : plain;
    }
    switch (node.type) {
      case 'paragraph':
        return this.paragraph(withoutBlockId(node.children), 'paragraph', depth);
      case 'heading':
        return this.heading(node, depth);
      case 'blockquote':
        return this.quote(node, depth);
      case 'list':
        return [{ type: node.ordered ? 'numbered-list' : 'bulleted-list', children: node.children.map((item) => this.listItem(item, depth)) }];
      case 'code':
        return [{ type: 'code-block', children: [{ text: node.value }] }];
      case 'thematicBreak':
        return [{ type: 'divider', children: [{ text: '' }] }];
      case 'table':
        return this.table(node, depth);
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
        return this.paragraph(node.children, 'paragraph', depth);
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
        return this.paragraph([node], 'paragraph', depth);
    }
  }

  /** Secret blocks (`isSecret: true` on each): what `> [!secret]` holds. */
  private secret(nodes: readonly RootContent[], depth: number): RichTextBlock[] {
    return this.hidden(() => this.blocks(nodes, depth, false)).map((block) => ({ ...block, isSecret: true }));
  }

  /**
   * A comment's content: secret blocks. An image's alt text in a comment names no asset (players
   * see an asset's label); in our own export's secrets it does (the label was already shown).
   */
  private commentBlocks(comment: CommentNode, depth: number): RichTextBlock[] {
    return this.hidden(() => this.secret(comment.children, depth), true);
  }

  private heading(node: Heading, depth: number): RichTextBlock[] {
    // Images and comments of several blocks cannot sit in a heading: they follow it.
    const { leaves, lifted } = this.split(node.children, { depth, top: true });
    return [{ type: HEADING_TYPES[node.depth - 1]!, children: leaves }, ...lifted];
  }

  private quote(node: Blockquote, depth: number): RichTextBlock[] {
    const [first, ...rest] = node.children;
    const head = first?.type === 'paragraph' && first.children[0]?.type === 'text' ? first.children[0] : undefined;
    const callout = head ? calloutHead(head.value) : undefined;
    if (!first || !head || !callout) return [{ type: 'block-quote', children: nonEmpty(this.blocks(node.children, depth + 1, false)) }];
    const firstParagraph = first as Paragraph;
    if (callout.kind === 'secret') {
      // `> [!secret]`, at any depth (a list item, a quote): each block inside is a secret block.
      const remainder = head.value.replace(SECRET_CALLOUT, '').replace(/^\r?\n/, '');
      const firstChildren = remainder === '' ? firstParagraph.children.slice(1) : [{ ...head, value: remainder }, ...firstParagraph.children.slice(1)];
      const inner = firstChildren.length > 0 ? [{ ...firstParagraph, children: firstChildren }, ...rest] : rest;
      return this.secret(inner, depth);
    }
    // `> [!kind]+ Title`: the title is the rest of the marker's line, as plain text; a comment in it goes to the callout's body.
    const [line, body] = firstLine([{ ...head, value: head.value.slice(callout.length) }, ...firstParagraph.children.slice(1)]);
    const title = [...line.filter((n) => !isComment(n)).map(titleText).join('').trim()].slice(0, CALLOUT_TITLE_MAX).join('');
    const inner: RootContent[] = body.some((n) => n.type !== 'text' || n.value.trim() !== '') ? [{ ...firstParagraph, children: body }, ...rest] : rest;
    const children = [...line.flatMap((n) => commentOf(n) ?? []).flatMap((c) => this.commentBlocks(c, depth + 1)), ...this.blocks(inner, depth + 1, false)];
    return [{ type: 'callout', kind: callout.kind, ...(title === '' ? {} : { title }), children: nonEmpty(children) }];
  }

  private listItem(item: ListItem, depth: number): RichTextBlock {
    // An empty task (`- [ ]` with nothing after it) is no task item to GFM; it is to Obsidian.
    const box = item.checked == null && item.children.length === 1 ? emptyTask(item.children[0]!) : undefined;
    if (box !== undefined) return { type: 'list-item', checked: box, children: [{ text: '' }] };
    const made = this.blocks(item.children, depth + 2, false);
    // An item of one paragraph holds its text; a task keeps whether it is done.
    const only = item.children.length === 1 && made.length === 1 && made[0]!.type === 'paragraph' && made[0]!.isSecret !== true ? made[0] : undefined;
    const children = only ? only.children : made.length === 0 ? [{ text: '' }] : made;
    return { type: 'list-item', ...(typeof item.checked === 'boolean' ? { checked: item.checked } : {}), children };
  }

  private table(node: Table, depth: number): RichTextBlock[] {
    // Images cannot sit in a cell: they follow the table, in order; the cell keeps their alt text.
    const after: RichTextBlock[] = [];
    const rows = node.children.map((row) => ({ type: 'table-row', children: row.children.map((cell) => this.cell(cell.children, depth, after)) }));
    return [{ type: 'table', children: rows }, ...after];
  }

  private cell(children: PhrasingContent[], depth: number, after: RichTextBlock[]): RichTextBlock {
    // Our export's secret cell: its whole content in one `<span class="secret">`; a cell that is a comment is secret too.
    const inner = secretSpanContent(children);
    const comments = onlyComments(children);
    const place = { depth, top: true, inlineOnly: true };
    const { leaves, lifted } = comments
      ? { leaves: comments.flatMap((c) => flatten(this.commentBlocks(c, depth))), lifted: [] }
      : inner
        ? this.hidden(() => this.split(inner, place))
        : this.split(children, place);
    // What leaves a secret cell (its images) stays secret.
    after.push(...(inner ? lifted.map((block) => ({ ...block, isSecret: true })) : lifted));
    return inner || comments ? { type: 'table-cell', isSecret: true, children: withText(leaves) } : { type: 'table-cell', children: withText(leaves) };
  }

  /** A paragraph's inline content; images, embeds and comments of several blocks in it come out as blocks around its text. */
  private paragraph(children: PhrasingContent[], type: string, depth: number): RichTextBlock[] {
    // A comment standing as its own paragraph: secret blocks.
    const comments = onlyComments(children);
    if (comments) return comments.flatMap((c) => this.commentBlocks(c, depth));
    const out: RichTextBlock[] = [];
    let run: RichTextNode[] = [];
    const flush = () => {
      if (run.some((n) => !('text' in n) || (n as { text: string }).text.trim() !== '')) out.push({ type, children: withText(run) });
      run = [];
    };
    for (const item of this.inline(children, {}, { depth, top: true })) {
      if (this.lifted.has(item)) {
        flush();
        out.push(item as RichTextBlock);
      } else run.push(item);
    }
    flush();
    return out;
  }

  /** Inline content that must stay in its block (a heading, a cell), and the blocks that leave it (images keep their alt text in place). */
  private split(children: PhrasingContent[], place: Place): { leaves: RichTextNode[]; lifted: RichTextBlock[] } {
    const leaves: RichTextNode[] = [];
    const lifted: RichTextBlock[] = [];
    for (const item of this.inline(children, {}, place)) {
      if (!this.lifted.has(item)) leaves.push(item);
      else {
        lifted.push(item as RichTextBlock);
        if (item.type === 'image' && typeof item.alt === 'string' && item.alt !== '') leaves.push({ text: item.alt });
      }
    }
    return { leaves: withText(leaves), lifted };
  }

  private inline(nodes: readonly PhrasingContent[], marks: Marks, place: Place): RichTextNode[] {
    return this.pieces(highlighted(nodes), marks, place);
  }

  /** Phrasing whose highlights are known (see obsidian.ts `highlighted`). */
  private pieces(pieces: readonly Piece[], marks: Marks, place: Place): RichTextNode[] {
    const out: RichTextNode[] = [];
    for (let i = 0; i < pieces.length; i++) {
      const { node } = pieces[i]!;
      const here = pieces[i]!.on ? { ...marks, highlight: true as const } : marks;
      const close = node.type === 'html' && node.value === SECRET_SPAN_OPEN ? pieces.findIndex((p, j) => j > i && p.node.type === 'html' && p.node.value === SECRET_SPAN_CLOSE) : -1;
      if (close > i) {
        // Our export's secret inline element: one link or mention is itself secret; other
        // content keeps its secrecy in an element of its own (rendered as its children).
        const inner = this.hidden(() => this.pieces(pieces.slice(i + 1, close), marks, { ...place, top: false })).filter((n) => !('text' in n) || n.text !== '');
        const only = inner.length === 1 && !('text' in inner[0]!) ? inner[0] : undefined;
        out.push(only ? { ...only, isSecret: true } : { type: 'span', isSecret: true, children: withText(inner) });
        i = close;
        continue;
      }
      // A line of the block starts before this piece, or ends after it (for embeds alone on their line).
      const line = { start: place.top === true && (i === 0 || pieces[i - 1]!.node.type === 'break'), end: place.top === true && (i === pieces.length - 1 || pieces[i + 1]!.node.type === 'break') };
      out.push(...this.phrasing(node, here, place, line));
    }
    return out;
  }

  private phrasing(node: PhrasingContent, marks: Marks, place: Place, line: Line): RichTextNode[] {
    const comment = commentOf(node);
    if (comment) return this.comment(comment, place);
    const inner = { ...place, top: false };
    switch (node.type) {
      case 'text':
        return this.text(node.value, marks, line);
      case 'emphasis':
        return this.inline(node.children, { ...marks, italic: true }, inner);
      case 'strong':
        return this.inline(node.children, { ...marks, bold: true }, inner);
      case 'delete':
        return this.inline(node.children, { ...marks, strikethrough: true }, inner);
      case 'inlineCode':
        return [{ text: node.value, ...marks, code: true }];
      case 'break':
        return [{ text: '\n', ...marks }];
      case 'link': {
        // A link that becomes a mention keeps its text as the label; a comment in that text stays, secret, after it.
        const label = this.inline(node.children, marks, { ...inner, inlineOnly: true });
        const made = this.link(node.url, label, marks);
        return made.type === 'link' ? [made] : [made, ...label.filter((n) => (n as { isSecret?: unknown }).isSecret === true)];
      }
      case 'image':
        return [this.image(node.url, imageAlt(node.alt ?? ''))];
      case 'html':
        return [{ text: node.value, ...marks }];
      case 'linkReference':
        return this.inline(node.children, marks, inner);
      case 'imageReference':
        return [{ text: imageAlt(node.alt ?? ''), ...marks }];
      case 'footnoteReference':
        return [{ text: `[^${node.identifier}]`, ...marks }];
    }
  }

  /** A comment inside a block's text: a secret inline element, or, when it holds several blocks, secret blocks after the text before it. */
  private comment(node: CommentNode, place: Place): RichTextNode[] {
    const blocks = this.commentBlocks(node, place.depth);
    if (blocks.length === 0) return [];
    const only = blocks.length === 1 && blocks[0]!.type === 'paragraph' ? blocks[0] : undefined;
    if (only || place.inlineOnly) return [{ type: 'span', isSecret: true, children: only ? only.children : withText(flatten(blocks)) }];
    for (const block of blocks) this.lifted.add(block);
    return blocks;
  }

  /**
   * Text, with `[[wikilinks]]` to files of the vault made mentions, `![[embeds]]` of its images image
   * blocks, an embed of a note alone on its line a paragraph of its own (holding the mention), and an
   * embed of any other file (a PDF, a sound) the file's name as text.
   */
  private text(value: string, marks: Marks, line: Line): RichTextNode[] {
    const out: RichTextNode[] = [];
    let at = 0;
    for (const match of value.matchAll(WIKILINK)) {
      const [whole, bang, reference, label] = match;
      const name = reference!.trim();
      const target = name === '' ? undefined : this.resolve(name, true);
      if (!target && !(bang && OTHER_FILE.test(name))) continue;
      let start = match.index;
      let end = match.index + whole.length;
      const alone = bang !== '' && target !== undefined && target.kind !== 'image' ? aloneOnLine(value, start, end, line) : undefined;
      if (alone) [start, end] = alone;
      if (start > at) out.push({ text: value.slice(at, start), ...marks });
      at = end;
      if (!target) {
        this.unimportedEmbeds.add(name);
        out.push({ text: embedAlt(label ?? '') || name, ...marks });
      }
      else if (target.kind === 'image') out.push(bang ? this.imageOf(target.key, embedAlt(label ?? '')) : { text: label ?? reference!, ...marks });
      else if (alone) out.push(this.lift({ type: 'paragraph', children: [this.mention(target, label?.trim() ?? '')] }));
      else out.push(this.mention(target, label?.trim() ?? ''));
    }
    if (at < value.length) out.push({ text: value.slice(at), ...marks });
    return out;
  }

  private link(url: string, label: RichTextNode[], marks: Marks): RichTextNode & { type?: unknown } {
    // A path from the vault root (`/x/y.md`) is the vault's too; `//host` is not.
    if (!/^[a-z][a-z0-9+.-]*:/i.test(url) && !url.startsWith('//') && !url.startsWith('#')) {
      const target = this.resolve(safeDecode(url.split('#')[0]!), false);
      if (target && target.kind !== 'image') return this.mention(target, label.map(visibleText).join(''));
      if (target?.kind === 'image') return { text: label.map(visibleText).join(''), ...marks };
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
    return this.lift({ type: 'image', url, alt, children: [{ text: '' }] });
  }

  private imageOf(key: number, alt: string): RichTextBlock {
    if (alt !== '' && this.inSecrets === 0 && !this.labels.has(key)) this.labels.set(key, alt);
    return this.lift({ type: 'image', assetId: key, url: '', alt, children: [{ text: '' }] });
  }

  private lift(block: RichTextBlock): RichTextBlock {
    this.lifted.add(block);
    return block;
  }
}
