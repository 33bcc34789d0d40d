// The one definition of secrecy (CONTRACT "Secrets that hold"): an element with `isSecret: true`,
// at any depth, is secret together with everything inside it. Redaction for players, rendering,
// search documents, the mentions index, export and the web editor all ask this module.
import { isElementNode, isRecord } from './nodes.js';

export function isSecretNode(node: unknown): boolean {
  return isRecord(node) && node.isSecret === true;
}

/** Whether anything in the value (an array of nodes, or one node) is secret. */
export function containsSecret(value: unknown): boolean {
  const stack: unknown[] = Array.isArray(value) ? [...(value as unknown[])] : [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isSecretNode(node)) return true;
    if (isElementNode(node)) for (const child of node.children) stack.push(child);
  }
  return false;
}

/**
 * Walks a tree and calls `visit` for every node with whether it sits inside (or is) a secret
 * element. Iterative: stored rich text is at most 16 deep, but imported or hostile values may not be.
 */
export function walkWithSecrecy(value: readonly unknown[], visit: (node: unknown, secret: boolean, depth: number) => void): void {
  const stack: { node: unknown; secret: boolean; depth: number }[] = [];
  for (let i = value.length - 1; i >= 0; i -= 1) stack.push({ node: value[i], secret: false, depth: 1 });
  while (stack.length > 0) {
    const { node, secret: outer, depth } = stack.pop()!;
    const secret = outer || isSecretNode(node);
    visit(node, secret, depth);
    if (isElementNode(node)) {
      for (let i = node.children.length - 1; i >= 0; i -= 1) stack.push({ node: node.children[i], secret, depth: depth + 1 });
    }
  }
}

/**
 * What a reader who may not see secrets gets of an array of nodes, and of mentions `drop` names:
 *  - a secret element is removed with everything inside it; a secret table cell is kept empty
 *    (and no longer secret), so the columns players read stay under their headers;
 *  - an element `drop` says to remove (a mention of a hidden record) is removed whole, label included;
 *  - an element whose children were all elements and are all removed is removed too (an emptied
 *    list, list item, quote, table or row); an element that held text keeps a `{text: ""}` leaf.
 * Unchanged subtrees are returned as they were (the same objects).
 */
export function redactNodes<T>(nodes: readonly T[], drop: (node: unknown) => boolean = () => false): T[] {
  return redactArray(nodes, drop, 0) as T[];
}

const MAX_REDACTION_DEPTH = 256;

function redactArray(nodes: readonly unknown[], drop: (node: unknown) => boolean, depth: number): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < nodes.length; i += 1) {
    const node = nodes[i];
    const kept = redactNode(node, drop, depth);
    if (kept !== node && out === undefined) out = nodes.slice(0, i);
    if (out !== undefined && kept !== undefined) out.push(kept);
  }
  return out ?? (nodes as unknown[]);
}

function redactNode(node: unknown, drop: (node: unknown) => boolean, depth: number): unknown {
  if (!isElementNode(node)) return node;
  if (isSecretNode(node)) {
    if (node.type === 'table-cell') {
      const { isSecret: _secret, ...rest } = node;
      return { ...rest, children: [{ text: '' }] };
    }
    return undefined;
  }
  if (drop(node)) return undefined;
  // Deeper than any value the API stores: nothing is kept rather than walking without end.
  if (depth > MAX_REDACTION_DEPTH) return undefined;
  const children = redactArray(node.children, drop, depth + 1);
  if (children === node.children) return node;
  if (children.length === 0) {
    const heldText = node.children.some((child) => !isElementNode(child));
    if (!heldText) return undefined;
    return { ...node, children: [{ text: '' }] };
  }
  return { ...node, children };
}
