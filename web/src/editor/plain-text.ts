/** The words of rich text, one block a line: for the conflict dialog and clipboard. */
export function plainText(value: unknown): string {
  if (!Array.isArray(value)) return '';
  const text = (node: unknown): string => {
    if (typeof node !== 'object' || node === null) return '';
    const n = node as { text?: unknown; children?: unknown };
    if (typeof n.text === 'string') return n.text;
    return Array.isArray(n.children) ? n.children.map(text).join('') : '';
  };
  return value.map(text).join('\n');
}
