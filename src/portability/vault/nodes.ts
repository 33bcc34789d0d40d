// Small pieces of the vault reader (convert.ts): reading mdast and making rich-text nodes.
import type { Nodes as MdNode, PhrasingContent } from 'mdast';
import type { RichTextBlock, RichTextNode } from '../../domain/rich-text.js';
import { walkWithSecrecy } from '../../vocabulary/index.js';
import { commentOf, isComment, WIKILINK, type CommentNode } from './obsidian.js';

export const SECRET_SPAN_OPEN = '<span class="secret">';
export const SECRET_SPAN_CLOSE = '</span>';

/** The content of phrasing that is exactly one secret span (our export's secret cell), else undefined. */
export function secretSpanContent(nodes: readonly PhrasingContent[]): PhrasingContent[] | undefined {
  const kept = nodes.filter((n) => !(n.type === 'text' && n.value.trim() === ''));
  const first = kept[0];
  const last = kept.at(-1);
  if (kept.length < 2 || first?.type !== 'html' || first.value !== SECRET_SPAN_OPEN || last?.type !== 'html' || last.value !== SECRET_SPAN_CLOSE) return undefined;
  const inner = kept.slice(1, -1);
  return inner.some((n) => n.type === 'html' && (n.value === SECRET_SPAN_OPEN || n.value === SECRET_SPAN_CLOSE)) ? undefined : inner;
}

export interface Line {
  start: boolean;
  end: boolean;
}

/** Where an embed alone on its line begins and ends, its line ending(s) included; undefined when other text shares its line. */
export function aloneOnLine(value: string, start: number, end: number, line: Line): [number, number] | undefined {
  let from = start;
  while (from > 0 && (value[from - 1] === ' ' || value[from - 1] === '\t')) from--;
  let to = end;
  while (to < value.length && (value[to] === ' ' || value[to] === '\t')) to++;
  const startsLine = from === 0 ? line.start : value[from - 1] === '\n';
  const endsLine = to === value.length ? line.end : value[to] === '\n';
  if (!startsLine || !endsLine) return undefined;
  return [from > 0 ? from - 1 : from, to < value.length ? to + 1 : to];
}

/** The comments of phrasing that holds nothing else (but white space), or undefined. */
export function onlyComments(nodes: readonly PhrasingContent[]): CommentNode[] | undefined {
  const comments = nodes.flatMap((n) => commentOf(n) ?? []);
  if (comments.length === 0) return undefined;
  return nodes.every((n) => isComment(n) || n.type === 'break' || (n.type === 'text' && n.value.trim() === '')) ? comments : undefined;
}

/** Blocks as one run of inline content (what a cell can hold), blocks apart by a space. */
export function flatten(blocks: readonly RichTextNode[]): RichTextNode[] {
  const out: RichTextNode[] = [];
  for (const block of blocks) {
    if ('text' in block) out.push(block);
    else if (block.type === 'image') out.push({ text: typeof block.alt === 'string' ? block.alt : '' });
    else if (block.children.some((child) => 'text' in child || child.type === 'mention' || child.type === 'link' || child.type === 'span')) {
      if (out.length > 0) out.push({ text: ' ' });
      out.push(...block.children);
    } else out.push(...flatten(block.children));
  }
  return out;
}

/** The text a reader sees of inline content (a link's text as a mention's label): secret elements are not part of it. */
export function visibleText(node: RichTextNode): string {
  if ((node as { isSecret?: unknown }).isSecret === true) return '';
  if (typeof (node as { text?: unknown }).text === 'string') return (node as { text: string }).text;
  return ((node as RichTextBlock).children ?? []).map(visibleText).join('');
}

/** A callout title's text: wikilinks as their label or their target's name, comments left out. */
export function titleText(node: PhrasingContent): string {
  return mdText(node).replace(WIKILINK, (_whole, _bang, reference: string, label: string | undefined) => label ?? reference);
}

/** The text of every comment in a tree (the depth guard keeps them as secret paragraphs). */
export function commentsIn(node: MdNode): string[] {
  const found: string[] = [];
  const stack: MdNode[] = [node];
  while (stack.length > 0) {
    const next = stack.pop()!;
    const comment = commentOf(next);
    if (comment) found.push(comment.children.map((child) => mdText(child, true)).join('\n'));
    else if ('children' in next) for (const child of next.children as MdNode[]) stack.push(child);
  }
  return found;
}

export function withText(nodes: RichTextNode[]): RichTextNode[] {
  return nodes.length === 0 ? [{ text: '' }] : nodes;
}

export function nonEmpty(blocks: RichTextBlock[]): RichTextBlock[] {
  return blocks.length === 0 ? [{ type: 'paragraph', children: [{ text: '' }] }] : blocks;
}

/** The text of a tree; a comment's text only when `comments` says so (it is secret). */
export function mdText(node: MdNode, comments = false): string {
  if (!comments && isComment(node)) return '';
  if ('value' in node && typeof node.value === 'string') return node.value;
  if ('children' in node) return (node.children as MdNode[]).map((child) => mdText(child, comments)).join('');
  return '';
}

/**
 * Paragraphs of text (and mentions), in order, apart where secrecy changes: the secret ones
 * `isSecret: true`; paragraphs of white space alone dropped.
 */
class PlainParagraphs {
  readonly out: RichTextBlock[] = [];
  private children: RichTextNode[] = [];
  private text = '';
  private secret = false;

  add(text: string, secret: boolean): void {
    if (text === '') return;
    if (secret !== this.secret) this.flush();
    this.secret = secret;
    this.text += text;
  }

  /** A mention, kept whole: a player's view still removes one of a hidden record, label and all. */
  addMention(mention: RichTextNode, secret: boolean): void {
    if (secret !== this.secret) this.flush();
    this.secret = secret;
    this.children.push({ text: this.text }, mention);
    this.text = '';
  }

  flush(): void {
    const textOf = (node: RichTextNode) => (node as { text?: unknown }).text;
    // A text on each side of every mention, as Slate keeps them.
    const children = [...this.children, { text: this.text }];
    if (children.some((node) => typeof textOf(node) !== 'string' || (textOf(node) as string).trim() !== '')) this.out.push(this.secret ? { type: 'paragraph', isSecret: true, children } : { type: 'paragraph', children });
    this.children = [];
    this.text = '';
  }
}

const SECRET_CALLOUT_HEAD = /^\[!secret\][+-]?/i;
/** mdast nodes whose text ends a paragraph of the plain text. */
const PLAIN_BLOCKS = new Set(['paragraph', 'heading', 'code', 'tableCell', 'tableRow', 'listItem', 'blockquote', 'list', 'table', 'thematicBreak', 'footnoteDefinition', 'comment']);

/** Whether a blockquote is a `> [!secret]` callout. */
function isSecretCallout(node: MdNode): boolean {
  if (node.type !== 'blockquote') return false;
  const first = node.children[0];
  const head = first?.type === 'paragraph' ? first.children[0] : undefined;
  return head?.type === 'text' && SECRET_CALLOUT_HEAD.test(head.value);
}

/**
 * A tree's text as paragraphs, whatever its depth (without recursion), its secrets kept secret: the
 * text of a comment, of a `> [!secret]` callout and of our export's `<span class="secret">` is in
 * secret paragraphs (`isSecret: true`), never in visible ones. For Markdown nested deeper than rich
 * text holds.
 */
export function plainBlocksOf(nodes: readonly MdNode[]): RichTextBlock[] {
  const paragraphs = new PlainParagraphs();
  type Item = { node: MdNode; secret: boolean } | { end: true };
  const stack: Item[] = [];
  const pushAll = (children: readonly MdNode[], secret: boolean) => {
    // Our export's secret spans: the siblings between `<span class="secret">` and its `</span>` (to the end when unclosed).
    const flags: boolean[] = [];
    let open = 0;
    for (const child of children) {
      const html = child.type === 'html' ? child.value : undefined;
      if (html === SECRET_SPAN_OPEN) open += 1;
      flags.push(secret || open > 0);
      if (html === SECRET_SPAN_CLOSE && open > 0) open -= 1;
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i]!, secret: flags[i]! });
  };
  pushAll(nodes, false);
  while (stack.length > 0) {
    const item = stack.pop()!;
    if ('end' in item) {
      paragraphs.flush();
      continue;
    }
    const { node } = item;
    const secret = item.secret || isComment(node) || isSecretCallout(node);
    const block = PLAIN_BLOCKS.has(node.type);
    if (block) {
      paragraphs.flush();
      stack.push({ end: true });
    }
    if (node.type === 'html' && (node.value === SECRET_SPAN_OPEN || node.value === SECRET_SPAN_CLOSE)) continue;
    if (node.type === 'break') paragraphs.add('\n', secret);
    else if ('value' in node && typeof node.value === 'string' && node.type !== 'yaml') paragraphs.add(node.value, secret);
    else if ('children' in node) pushAll(node.children as MdNode[], secret);
  }
  paragraphs.flush();
  return paragraphs.out;
}

/**
 * Rich text as paragraphs of its text, whatever its depth: what an element marked `isSecret` (or
 * inside one) holds is in secret paragraphs, never in visible ones. For text the rich-text checks refuse.
 */
export function plainRichText(nodes: readonly RichTextNode[]): RichTextBlock[] {
  const paragraphs = new PlainParagraphs();
  const inMentions = new WeakSet<object>();
  walkWithSecrecy(nodes, (node, secret) => {
    if (inMentions.has(node as object)) return;
    const type = (node as { type?: unknown }).type;
    if (type === 'mention') {
      const mention = node as RichTextBlock;
      for (const child of mention.children ?? []) inMentions.add(child);
      paragraphs.addMention(mention, secret);
    } else if (typeof (node as { text?: unknown }).text === 'string') paragraphs.add((node as { text: string }).text, secret);
    else if (!INLINE_ELEMENTS.has(type as string)) paragraphs.flush();
  });
  paragraphs.flush();
  return paragraphs.out;
}

const INLINE_ELEMENTS = new Set(['link', 'mention', 'span']);
