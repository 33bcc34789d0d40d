// Structural views of rich-text nodes, loose enough for stored JSON (any extra keys) and for the
// web editor's Slate nodes alike.

export interface VocabularyElement {
  type?: unknown;
  children?: unknown;
  [key: string]: unknown;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A text leaf: an object with an own `text` key. */
export function isLeafNode(node: unknown): node is { text: string; [key: string]: unknown } {
  return isRecord(node) && Object.hasOwn(node, 'text');
}

/** An element: an object with a `children` array. */
export function isElementNode(node: unknown): node is VocabularyElement & { children: unknown[] } {
  return isRecord(node) && Array.isArray(node.children);
}

/** The concatenated text of a node and everything inside it. */
export function textOf(node: unknown, depthLeft = 10_000): string {
  if (isLeafNode(node)) return typeof node.text === 'string' ? node.text : '';
  if (!isElementNode(node) || depthLeft <= 0) return '';
  let out = '';
  for (const child of node.children) out += textOf(child, depthLeft - 1);
  return out;
}
