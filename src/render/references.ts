// What rich text refers to: the mentions it makes (the mentions index stores them) and everything a
// rendering must look up (mention targets by id and by slug, assets by id and by URL).

import { isStorableId } from '../domain/ids.js';
import type { RichText, RichTextNode } from '../domain/rich-text.js';
import { rewriteSlugLinks, segmentText, type TargetKind } from './conventions.js';
import { isLeaf } from './model.js';
import { isElementNode, isSecretNode } from '../vocabulary/index.js';

const isSecretElement = (node: unknown): boolean => isElementNode(node) && isSecretNode(node);

export interface Mention {
  target: TargetKind;
  /** A `mention` element names its target by id, a `[[kind#slug]]` text link by slug. */
  id: number | undefined;
  slug: string | undefined;
  /** Whether every occurrence lies inside a secret element, at any depth, or is one (players do not see it). */
  secret: boolean;
}

export interface References {
  thingIds: Set<number>;
  thingSlugs: Set<string>;
  arcIds: Set<number>;
  arcSlugs: Set<string>;
  assetIds: Set<number>;
  imageUrls: Set<string>;
}

export function emptyReferences(): References {
  return { thingIds: new Set(), thingSlugs: new Set(), arcIds: new Set(), arcSlugs: new Set(), assetIds: new Set(), imageUrls: new Set() };
}

type Visit = (found: { kind: 'mention-id'; target: TargetKind; id: number } | { kind: 'mention-slug'; target: TargetKind; slug: string } | { kind: 'asset'; id: number } | { kind: 'image-url'; url: string }, secret: boolean) => void;

function childrenOf(node: RichTextNode): RichTextNode[] {
  const children = (node as { children?: unknown }).children;
  return Array.isArray(children) ? (children as RichTextNode[]) : [];
}

/** Walks a field in document order, reporting each reference; code is not looked into. */
function walk(value: RichText, visit: Visit): void {
  const stack: { node: RichTextNode; secret: boolean; code: boolean }[] = [];
  const top = Array.isArray(value) ? value : [];
  for (let i = top.length - 1; i >= 0; i--) {
    const block = top[i]!;
    stack.push({ node: block, secret: isSecretElement(block), code: false });
  }
  while (stack.length > 0) {
    const { node, secret, code } = stack.pop()!;
    const n = node as Record<string, unknown>;
    if (isLeaf(node)) {
      if (code || n.code === true || typeof n.text !== 'string') continue;
      for (const segment of segmentText(n.text)) {
        if (segment.kind === 'slug-mention') visit({ kind: 'mention-slug', target: segment.target, slug: segment.slug }, secret);
        else if (segment.kind === 'image' && !segment.url.includes('\u0000')) visit({ kind: 'image-url', url: segment.url }, secret);
      }
      continue;
    }
    if (n.type === 'mention') {
      if ((n.targetType === 'thing' || n.targetType === 'arc') && typeof n.targetId === 'number' && isStorableId(n.targetId)) {
        visit({ kind: 'mention-id', target: n.targetType, id: n.targetId }, secret);
      }
      continue;
    }
    if (n.type === 'image') {
      if (typeof n.assetId === 'number' && isStorableId(n.assetId)) visit({ kind: 'asset', id: n.assetId }, secret);
      continue;
    }
    const children = childrenOf(node);
    const inCode = code || n.type === 'code-block';
    // Secret at any depth: an element inside a secret element, or secret itself (vocabulary/secrecy.ts).
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i]!, secret: secret || isSecretElement(children[i]), code: inCode });
  }
}

/** The distinct mentions of one field. */
export function mentionsOf(value: RichText): Mention[] {
  const found = new Map<string, Mention>();
  walk(value, (ref, secret) => {
    if (ref.kind !== 'mention-id' && ref.kind !== 'mention-slug') return;
    const key = ref.kind === 'mention-id' ? `${ref.target}:#${ref.id}` : `${ref.target}:${ref.slug}`;
    const seen = found.get(key);
    if (seen) seen.secret &&= secret;
    else found.set(key, { target: ref.target, id: ref.kind === 'mention-id' ? ref.id : undefined, slug: ref.kind === 'mention-slug' ? ref.slug : undefined, secret });
  });
  return [...found.values()];
}

/**
 * False only for a field stored as JSON text that cannot mention anything, told without parsing it
 * (mentionsOf would find none): a mention is a `mention` element or a `[[thing#…]]` / `[[arc#…]]`
 * text link, and JSON writes `"mention"` and `[[` as they are unless it escapes a character, so
 * text with any \u escape counts as one that may.
 */
export function storedMayMention(stored: string): boolean {
  return stored.includes('"mention"') || stored.includes('[[') || stored.includes('\\u');
}

/** Adds what rendering `value` must look up to `into`. */
export function collectReferences(value: RichText, into: References): References {
  walk(value, (ref) => {
    if (ref.kind === 'mention-id') (ref.target === 'thing' ? into.thingIds : into.arcIds).add(ref.id);
    else if (ref.kind === 'mention-slug') (ref.target === 'thing' ? into.thingSlugs : into.arcSlugs).add(ref.slug);
    else if (ref.kind === 'asset') into.assetIds.add(ref.id);
    else into.imageUrls.add(ref.url);
  });
  return into;
}

/**
 * The field with its `[[kind#from]]` text links made `[[kind#to]]` (outside code, as they are
 * recognised), or undefined when it has none. Only leaves change; every other key is kept. With
 * `onlyInSecret`, only links inside secret elements (at any depth, src/vocabulary) change: the
 * new slug of a GM-only record is never written where players read.
 */
export function rewriteMentionSlugs(value: RichText, kind: TargetKind, from: string, to: string, options: { onlyInSecret?: boolean } = {}): RichText | undefined {
  let changed = false;
  const rewrite = (node: RichTextNode, code: boolean, secret: boolean): RichTextNode => {
    const n = node as Record<string, unknown>;
    if (isLeaf(node)) {
      if (code || n.code === true || typeof n.text !== 'string') return node;
      if (options.onlyInSecret === true && !secret) return node;
      const text = rewriteSlugLinks(n.text, kind, from, to);
      if (text === n.text) return node;
      changed = true;
      return { ...node, text };
    }
    if (n.type === 'mention' || n.type === 'image' || !Array.isArray(n.children)) return node;
    const inCode = code || n.type === 'code-block';
    const inSecret = secret || isSecretNode(node);
    return { ...node, children: (n.children as RichTextNode[]).map((child) => rewrite(child, inCode, inSecret)) };
  };
  const result = (Array.isArray(value) ? value : []).map((block) => rewrite(block, false, false));
  return changed ? (result as RichText) : undefined;
}
