// Obsidian's own Markdown, beyond CommonMark and GFM, as the vault reader (convert.ts) needs it:
// `==highlights==`, block ids (`^id`), image size hints (`|300`, `|cover hsmall`) and the first line
// of a callout (`> [!kind]- Title`). Each helper is linear in its input: the converter runs on the
// server's event loop.
import type { PhrasingContent } from 'mdast';

/** `[[target#heading|label]]`, with `!` before it for an embed. */
export const WIKILINK = /(!?)\[\[([^[\]|#^\n]*)(?:[#^][^[\]|\n]*)?(?:\|([^[\]\n]*))?\]\]/g;

/** A comment (`%% … %%`, `<!-- … -->`) as the parser's worker leaves it in the tree (markdown-worker.mjs). */
export interface CommentNode {
  type: 'comment';
  children: import('mdast').RootContent[];
}

/** The node as a comment, if it is one (mdast's own types know no comments, so this is not a type guard). */
export function commentOf(node: { type: string }): CommentNode | undefined {
  return node.type === 'comment' ? (node as unknown as CommentNode) : undefined;
}

export function isComment(node: { type: string }): boolean {
  return node.type === 'comment';
}

/** A piece of phrasing and whether it is highlighted. */
export interface Piece {
  node: PhrasingContent;
  on: boolean;
}

/**
 * Phrasing with its `==highlight==` delimiters taken out of its text, each piece marked when it is
 * highlighted. Delimiters pair within one level of phrasing (so a highlight may hold emphasis); an
 * opening `==` is followed, and a closing one preceded, by neither white space nor `=`; a `==`
 * without a partner stays text. Code is not text here, so `==` in code stays as it is.
 */
export function highlighted(nodes: readonly PhrasingContent[]): Piece[] {
  const found: { i: number; at: number; open: boolean; close: boolean }[] = [];
  nodes.forEach((node, i) => {
    if (node.type !== 'text') return;
    const value = node.value;
    for (let at = value.indexOf('=='); at !== -1; at = value.indexOf('==', at + 2)) {
      const before = at > 0 ? value[at - 1]! : i > 0 ? 'x' : ' ';
      const after = at + 2 < value.length ? value[at + 2]! : i < nodes.length - 1 ? 'x' : ' ';
      found.push({ i, at, open: !/[\s=]/.test(after), close: !/[\s=]/.test(before) });
    }
  });
  if (found.length < 2) return nodes.map((node) => ({ node, on: false }));
  const closerAfter = new Array<boolean>(found.length + 1).fill(false);
  for (let k = found.length - 1; k >= 0; k--) closerAfter[k] = closerAfter[k + 1]! || found[k]!.close;
  const toggles = new Map<number, number[]>();
  const toggle = (k: number) => {
    const { i, at } = found[k]!;
    const list = toggles.get(i);
    if (list) list.push(at);
    else toggles.set(i, [at]);
  };
  let open = -1;
  for (let k = 0; k < found.length; k++) {
    if (open === -1) {
      if (found[k]!.open && closerAfter[k + 1]) open = k;
    } else if (found[k]!.close) {
      toggle(open);
      toggle(k);
      open = -1;
    }
  }
  const out: Piece[] = [];
  let on = false;
  nodes.forEach((node, i) => {
    const at = toggles.get(i);
    if (!at || node.type !== 'text') {
      out.push({ node, on });
      return;
    }
    let from = 0;
    for (const cut of at) {
      if (cut > from) out.push({ node: { type: 'text', value: node.value.slice(from, cut) }, on });
      on = !on;
      from = cut + 2;
    }
    if (from < node.value.length) out.push({ node: { type: 'text', value: node.value.slice(from) }, on });
  });
  return out;
}

const isBlockIdCharacter = (code: number) => code === 0x2d || (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);

/** A paragraph's phrasing without the block id (`^abc-123`) that may end it, alone on its last line or after a space. */
export function withoutBlockId(nodes: PhrasingContent[]): PhrasingContent[] {
  const last = nodes.at(-1);
  if (last?.type !== 'text') return nodes;
  const value = last.value.trimEnd();
  let at = value.length;
  while (at > 0 && isBlockIdCharacter(value.charCodeAt(at - 1))) at--;
  if (at === value.length || at === 0 || value[at - 1] !== '^') return nodes;
  const before = at - 1;
  if (before > 0 && !/\s/.test(value[before - 1]!)) return nodes;
  if (before === 0 && nodes.length > 1 && nodes.at(-2)!.type !== 'break') return nodes;
  const rest = value.slice(0, before).trimEnd();
  return rest === '' ? nodes.slice(0, -1) : [...nodes.slice(0, -1), { ...last, value: rest }];
}

/** Words of an image's size and place in community themes (ITS, Minimal): `![[x.png|cover hsmall]]`. */
const LAYOUT_WORDS = new Set(
  ('left right center centre cover contain wide wfull full banner sban portrait landscape small hsmall htiny hmed hmedium hlarge wsmall wtiny wmed ' +
    'tiny med medium large huge circle round rounded square lp rp ctr float invert grey gray grayscale sepia blur outline interface nobg bg clear shadow grid ' +
    'top bottom bl br tl tr inline').split(' '),
);

const isLayoutHint = (part: string) => {
  const words = part.trim().toLowerCase().split(/\s+/).filter((word) => word !== '');
  return words.every((word) => /^\d+(?:x\d+)?(?:px)?$/.test(word) || LAYOUT_WORDS.has(word));
};

/** An embed's label (`![[x.png|label]]`) without the size and layout hints Obsidian reads from it (`300`, `cover hsmall`, `A map|300`). */
export function embedAlt(label: string): string {
  return label
    .split('|')
    .filter((part) => !isLayoutHint(part))
    .map((part) => part.trim())
    .join(' ');
}

/** A Markdown image's alt text without the hints after it (`![alt|300](x.png)`). */
export function imageAlt(alt: string): string {
  const bar = alt.indexOf('|');
  if (bar === -1) return alt;
  const rest = embedAlt(alt.slice(bar + 1));
  return [alt.slice(0, bar).trim(), rest].filter((part) => part !== '').join(' ');
}

const CALLOUT = /^\[!([^\]\s]{1,64})\][+-]?/;

/** A callout's kind (folded to lower case) and how much of its first line the marker takes, if the text starts one. */
export function calloutHead(text: string): { kind: string; length: number } | undefined {
  const match = CALLOUT.exec(text);
  return match ? { kind: match[1]!.toLowerCase(), length: match[0].length } : undefined;
}

/** Phrasing split at its first line ending: the first line, and the rest. */
export function firstLine(nodes: readonly PhrasingContent[]): [PhrasingContent[], PhrasingContent[]] {
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i]!;
    if (node.type === 'break') return [nodes.slice(0, i), nodes.slice(i + 1)];
    if (node.type !== 'text') continue;
    const end = node.value.indexOf('\n');
    if (end !== -1) return [[...nodes.slice(0, i), { ...node, value: node.value.slice(0, end) }], [{ ...node, value: node.value.slice(end + 1) }, ...nodes.slice(i + 1)]];
  }
  return [[...nodes], []];
}
