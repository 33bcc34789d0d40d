import { calloutTitle } from '../../../src/vocabulary/index.js';

/** The words of rich text, one block a line (a callout's title its first): for the conflict dialog and clipboard. */
export function plainText(value: unknown): string {
  if (!Array.isArray(value)) return '';
  const text = (node: unknown): string => {
    if (typeof node !== 'object' || node === null) return '';
    const n = node as { text?: unknown; children?: unknown };
    if (typeof n.text === 'string') return n.text;
    const inner = Array.isArray(n.children) ? n.children.map(text).join('') : '';
    const title = calloutTitle(node);
    return title === undefined ? inner : `${title}\n${inner}`;
  };
  return value.map(text).join('\n');
}
