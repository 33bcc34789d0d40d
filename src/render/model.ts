// Rich text → the rendering model: a small, always well-formed tree of flow blocks and phrasing,
// with mentions and images resolved and every URL checked. The HTML and Markdown serializers
// (html.ts, markdown.ts) only translate this model, so both formats show the same content and
// neither can be handed a shape its syntax cannot hold (a block inside a paragraph, a link inside
// a link, a figure in a heading): such content is lifted out here, once.
//
// Total over every stored value: any JSON the wire format admits renders; unknown element types
// render their children; unknown keys are ignored.

import type { RichText, RichTextBlock, RichTextNode } from '../domain/rich-text.js';
import { flowsToPhrasing } from './cells.js';
import { LINE_ENDING, mergeText, NO_MARKS, sizeOf, trimRun, type Flow, type ImageVariant, type Inline, type Marks } from './tree.js';
import { segmentText, type TargetKind } from './conventions.js';
import { safeImageUrl, safeLinkUrl } from './urls.js';
import { calloutKind, calloutTitle, HEADING_LEVELS as HEADINGS, isBlockType, isElementNode, isInlineType, isSecretNode, taskState } from '../vocabulary/index.js';


export interface MentionTarget {
  id: number;
  slug: string;
  name: string;
}

export interface AssetTarget {
  url: string;
  label: string;
  /** Its pixels, when known (uploaded since they are recorded): rendered as the img's width and height. */
  width?: number | null;
  height?: number | null;
  /** Its smaller WebP copies, smallest first (none when not made): rendered as the img's srcset. */
  variants?: readonly ImageVariant[] | undefined;
}

/**
 * Where mentions and the campaign's own images point, when not at the web app's pages and the
 * images' public URLs (a Markdown vault links files relative to each other). The paths are the
 * caller's own, never user input, so they are not checked as URLs.
 */
export interface RenderLinks {
  mention(kind: TargetKind, target: MentionTarget): string;
  asset(asset: AssetTarget): string;
}

/** What the content refers to, as the campaign holds it now (a repository loads it). */
export interface RenderContext {
  campaignSlug: string;
  /**
   * Whether secret elements (`isSecret: true` on any element at any depth) are shown, marked as
   * secret where they sit; else they are left out with everything inside them.
   */
  showSecrets: boolean;
  things: { byId: ReadonlyMap<number, MentionTarget>; bySlug: ReadonlyMap<string, MentionTarget> };
  arcs: { byId: ReadonlyMap<number, MentionTarget>; bySlug: ReadonlyMap<string, MentionTarget> };
  assets: { byId: ReadonlyMap<number, AssetTarget>; byUrl: ReadonlyMap<string, AssetTarget> };
  links?: RenderLinks | undefined;
}

/** Where a mention of `target` links: the web app's page of it, or the context's own link. */
export function mentionHref(ctx: RenderContext, kind: TargetKind, target: MentionTarget): string {
  return ctx.links ? ctx.links.mention(kind, target) : `/campaigns/${ctx.campaignSlug}/${kind === 'thing' ? 'things' : 'arcs'}/${target.slug}`;
}

export function isLeaf(node: RichTextNode): node is RichTextNode & { text: string } {
  return Object.hasOwn(node, 'text');
}

function childrenOf(node: RichTextNode): RichTextNode[] {
  const children = (node as RichTextBlock).children;
  return Array.isArray(children) ? children : [];
}

function typeOf(node: RichTextNode): string {
  const type = (node as RichTextBlock).type;
  return typeof type === 'string' ? type : '';
}

/** Phrasing content: a leaf, a link, a mention, or an unknown element holding only phrasing. */
export function isInline(node: RichTextNode): boolean {
  if (isLeaf(node)) return true;
  const type = typeOf(node);
  if (isInlineType(type)) return true;
  if (isBlockType(type)) return false;
  return childrenOf(node).every(isInline);
}

function marksOf(node: RichTextNode): Marks {
  const n = node as Record<string, unknown>;
  return { bold: n.bold === true, italic: n.italic === true, underline: n.underline === true, code: n.code === true, strikethrough: n.strikethrough === true, highlight: n.highlight === true };
}

/** The text of a node's leaves, blocks separated by line breaks (code blocks, missing mentions). */
export function plainText(node: RichTextNode): string {
  if (isLeaf(node)) return typeof node.text === 'string' ? node.text : '';
  const children = childrenOf(node);
  return children.map(plainText).join(children.some((child) => !isInline(child)) ? '\n' : '');
}

type Item = Inline | Flow;
const FLOW_KINDS = new Set<string>(['paragraph', 'heading', 'quote', 'list', 'code', 'divider', 'table', 'figure', 'secret', 'callout']);
const isFlow = (item: Item): item is Flow => FLOW_KINDS.has(item.kind);

/** A secret element: an element (not a leaf) with `isSecret: true` (vocabulary/secrecy.ts). */
const isSecretElement = (node: unknown): boolean => isElementNode(node) && isSecretNode(node);

/** Groups runs of phrasing into `wrap(run)`, passing flow items through in order. */
function splitRuns(items: Item[], wrap: (run: Inline[]) => Flow | undefined): Flow[] {
  const out: Flow[] = [];
  let run: Inline[] = [];
  const flush = () => {
    if (run.length > 0) {
      const block = wrap(mergeText(run));
      if (block) out.push(block);
    }
    run = [];
  };
  for (const item of items) {
    if (isFlow(item)) {
      flush();
      out.push(item);
    } else {
      run.push(item);
    }
  }
  flush();
  return out;
}

export class Renderer {
  constructor(private readonly ctx: RenderContext) {}

  /** A rich-text field as the model: secret elements, at any depth, marked or left out by the context. */
  document(value: RichText): Flow[] {
    return this.blocks(Array.isArray(value) ? value : []);
  }

  private blocks(nodes: RichTextNode[]): Flow[] {
    const items: Item[] = [];
    for (const node of nodes) {
      if (isInline(node)) items.push(...this.inline(node, false));
      else items.push(...this.block(node));
    }
    return splitRuns(items, (content) => ({ kind: 'paragraph', content }));
  }

  /** A block element: inside a secret section when it is secret and secrets are shown, else nothing. */
  private block(node: RichTextNode): Flow[] {
    if (!isSecretElement(node)) return this.openBlock(node);
    if (!this.ctx.showSecrets) return [];
    const flows = this.openBlock(node);
    return flows.length > 0 ? [{ kind: 'secret', children: flows }] : [];
  }

  /** A list item's blocks; a secret item's inside one secret flow (`<li class="secret">`), or no item. */
  private listItem(item: RichTextNode): Flow[] | undefined {
    if (typeOf(item) !== 'list-item') return this.blocks([item]);
    const flows = this.blocks(childrenOf(item));
    if (!isSecretElement(item)) return flows;
    return this.ctx.showSecrets ? [{ kind: 'secret', children: flows }] : undefined;
  }

  private openBlock(node: RichTextNode): Flow[] {
    const type = typeOf(node);
    const children = childrenOf(node);
    const depth = HEADINGS.get(type);
    if (type === 'paragraph') return this.phrasingBlock(children, (content) => ({ kind: 'paragraph', content }));
    if (depth !== undefined) return this.phrasingBlock(children, (content) => ({ kind: 'heading', depth, content }));
    switch (type) {
      case 'block-quote':
        return [{ kind: 'quote', children: this.blocks(children) }];
      case 'callout': {
        // A stored callout was validated; one written around the API without a kind is a note.
        const title = calloutTitle(node)?.replace(LINE_ENDING, ' ').trim();
        return [{ kind: 'callout', type: calloutKind(node) || 'note', title: title || undefined, children: this.blocks(children) }];
      }
      case 'bulleted-list':
      case 'numbered-list':
      {
        const items = children.flatMap((item) => {
          const content = this.listItem(item);
          return content ? [{ checked: taskState(item), content }] : [];
        });
        return items.length > 0 || children.length === 0 ? [{ kind: 'list', ordered: type === 'numbered-list', items }] : [];
      }
      case 'code-block':
        return [{ kind: 'code', text: plainText(node) }];
      case 'divider':
        return [{ kind: 'divider' }];
      case 'table':
        return [{ kind: 'table', rows: children.map((row) => this.row(row)) }];
      case 'image':
        return this.imageElement(node);
      default:
        return this.blocks(children);
    }
  }

  /** A block that holds phrasing only: split around anything that is not (lifted blocks, figures). */
  private phrasingBlock(children: RichTextNode[], wrap: (content: Inline[]) => Flow): Flow[] {
    const items = children.flatMap((child) => (isInline(child) ? this.inline(child, false) : this.block(child)));
    // Where a figure or block was lifted out, the white space around it separated it from the text:
    // it is the split itself now, and would otherwise render as an escaped space at a line's edge.
    const lifted = items.some(isFlow);
    const blocks = splitRuns(items, (run) => {
      const content = lifted ? trimRun(run) : run;
      return content.length > 0 || !lifted ? wrap(content) : undefined;
    });
    return blocks.length > 0 ? blocks : [wrap([])];
  }

  /** A table row's cells; a secret row's cells are each secret. */
  private row(row: RichTextNode): Inline[][] {
    const cells = (typeOf(row) === 'table-row' ? childrenOf(row) : [row]).map((cell) => this.cell(cell));
    if (typeOf(row) !== 'table-row' || !isSecretElement(row)) return cells;
    return cells.map((cell) => this.secretCell(cell));
  }

  /**
   * A table cell: phrasing only in both formats (cells.ts flattens any blocks in it). A secret cell
   * stays in its column: its content in one secret span (`<td class="secret">`), or empty.
   */
  private cell(node: RichTextNode): Inline[] {
    if (typeOf(node) !== 'table-cell') return mergeText(flowsToPhrasing(this.blocks([node])));
    const content = mergeText(flowsToPhrasing(this.blocks(childrenOf(node))));
    return isSecretElement(node) ? this.secretCell(content) : content;
  }

  private secretCell(content: Inline[]): Inline[] {
    if (!this.ctx.showSecrets) return [];
    if (content.length === 1 && content[0]!.kind === 'secret-span') return content;
    return [{ kind: 'secret-span', children: content }];
  }

  private imageElement(node: RichTextNode): Flow[] {
    const n = node as Record<string, unknown>;
    const asset = typeof n.assetId === 'number' ? this.ctx.assets.byId.get(n.assetId) : undefined;
    if (asset) {
      const src = this.assetSrc(asset);
      return src ? [{ kind: 'figure', src, alt: asset.label, caption: asset.label || undefined, size: sizeOf(asset), variants: this.variantsOf(asset) }] : [];
    }
    const src = safeImageUrl(n.url);
    if (!src) return [];
    const caption = typeof n.caption === 'string' && n.caption !== '' ? n.caption : undefined;
    return [{ kind: 'figure', src, alt: typeof n.alt === 'string' ? n.alt : '', caption, size: undefined }];
  }

  private textImage(label: string, url: string): Flow[] {
    const asset = this.ctx.assets.byUrl.get(url);
    const src = asset ? this.assetSrc(asset) : safeImageUrl(url);
    if (!src) return [];
    const text = asset ? asset.label : label;
    return [{ kind: 'figure', src, alt: text, caption: text || undefined, size: asset ? sizeOf(asset) : undefined, variants: asset ? this.variantsOf(asset) : undefined }];
  }

  // Variants sit beside the image at its host: an export that links files of its own names none.
  private variantsOf(asset: AssetTarget): readonly ImageVariant[] | undefined {
    return this.ctx.links || !asset.variants?.length ? undefined : asset.variants;
  }

  private assetSrc(asset: AssetTarget): string | undefined {
    return this.ctx.links ? this.ctx.links.asset(asset) : safeImageUrl(asset.url);
  }

  private target(kind: TargetKind, key: { id?: number; slug?: string }): MentionTarget | undefined {
    const table = kind === 'thing' ? this.ctx.things : this.ctx.arcs;
    return key.id !== undefined ? table.byId.get(key.id) : table.bySlug.get(key.slug ?? '');
  }

  /**
   * A mention: its label when it has one (non-empty text), else its target's current name; a target
   * the context does not hold renders the label, or nothing (an empty mark for a game master), as missing. (`[[kind#slug]]` text links
   * come here with `label` undefined: they show the current name, or their source when missing.)
   */
  private mention(kind: TargetKind, target: MentionTarget | undefined, label: string | undefined, source: string, marks: Marks, inLink: boolean): Inline[] {
    const text = label !== undefined && label !== '' ? label : undefined;
    if (!target) {
      const shown = text ?? source;
      // Nothing, for a reader: a mention of a record hidden from them is not there at all. A game
      // master's rendering (secrets shown) keeps an empty mark of it, so their page can say it is
      // missing (a record in the trash), as their editor does.
      if (shown === '') return this.ctx.showSecrets ? [{ kind: 'missing', text: '', marks }] : [];
      return [{ kind: 'missing', text: shown, marks }];
    }
    const name = text ?? target.name;
    // A link cannot hold a link: inside one, a mention is its text.
    if (inLink) return [{ kind: 'text', text: name, marks }];
    const href = mentionHref(this.ctx, kind, target);
    return [{ kind: 'mention', target: kind, id: target.id, name, href, marks }];
  }

  /** Phrasing (and any flow lifted out of it) of an inline node; a secret one marked, or left out. */
  private inline(node: RichTextNode, inLink: boolean): Item[] {
    if (isLeaf(node)) return this.leaf(node, inLink);
    if (!isSecretElement(node)) return this.openInline(node, inLink);
    if (!this.ctx.showSecrets) return [];
    const out: Item[] = [];
    let run: Inline[] = [];
    const flush = () => {
      if (run.length > 0) out.push({ kind: 'secret-span', children: mergeText(run) });
      run = [];
    };
    for (const item of this.openInline(node, inLink)) {
      if (isFlow(item)) {
        flush();
        out.push(item.kind === 'secret' ? item : { kind: 'secret', children: [item] });
      } else run.push(item);
    }
    flush();
    return out;
  }

  private openInline(node: RichTextNode, inLink: boolean): Item[] {
    const type = typeOf(node);
    const n = node as Record<string, unknown>;
    if (type === 'mention') {
      const kind = n.targetType === 'thing' || n.targetType === 'arc' ? n.targetType : undefined;
      const id = n.targetId;
      const target = kind && typeof id === 'number' && Number.isSafeInteger(id) ? this.target(kind, { id }) : undefined;
      const label = plainText(node);
      return this.mention(kind ?? 'thing', target, label, '', NO_MARKS, inLink);
    }
    const items = childrenOf(node).flatMap((child) => (isInline(child) ? this.inline(child, inLink || type === 'link') : this.block(child)));
    if (type !== 'link' || inLink) return items;
    const href = safeLinkUrl(n.url);
    if (href === undefined) return items;
    const out: Item[] = [];
    let run: Inline[] = [];
    const flush = () => {
      if (run.length > 0) out.push({ kind: 'link', href, children: mergeText(run) });
      run = [];
    };
    for (const item of items) {
      if (isFlow(item)) {
        flush();
        out.push(item);
      } else run.push(item);
    }
    flush();
    return out;
  }

  private leaf(node: RichTextNode & { text: string }, inLink: boolean): Item[] {
    const text = typeof node.text === 'string' ? node.text : '';
    const marks = marksOf(node);
    if (marks.code) return [{ kind: 'text', text, marks }];
    const out: Item[] = [];
    for (const segment of segmentText(text)) {
      if (segment.kind === 'text') out.push({ kind: 'text', text: segment.text, marks });
      else if (segment.kind === 'image') out.push(...this.textImage(segment.label, segment.url));
      else out.push(...this.mention(segment.target, this.target(segment.target, { slug: segment.slug }), undefined, segment.source, marks, inLink));
    }
    return out.length > 0 ? out : [{ kind: 'text', text: '', marks }];
  }
}
