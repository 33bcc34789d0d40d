// The seed system's text conventions, recognised inside text leaves (CONTRACT "Rich content"):
// `[[thing#slug]]` and `[[arc#slug]]` are mentions by slug, `![label](url)` is an image. Everything
// else a user typed is literal. Not recognised in code (a `code-block`, or a leaf with the `code`
// mark): code is shown as typed.

export type TargetKind = 'thing' | 'arc';

export type TextSegment =
  | { kind: 'text'; text: string }
  | { kind: 'slug-mention'; target: TargetKind; slug: string; source: string }
  | { kind: 'image'; label: string; url: string };

// Slugs as src/domain/slugs.ts defines them; a label has no brackets or line breaks; a URL no
// parentheses or white space. Anything else stays text.
const CONVENTIONS = /\[\[(thing|arc)#([a-z0-9]+(?:-[a-z0-9]+)*)\]\]|!\[([^[\]\n]*)\]\(([^()\s]+)\)/g;
const SLUG_MAX_LENGTH = 100;

/** Splits a leaf's text into literal text, slug mentions and images, in order. */
export function segmentText(text: string): TextSegment[] {
  const out: TextSegment[] = [];
  let last = 0;
  for (const match of text.matchAll(CONVENTIONS)) {
    const [source, target, slug, label, url] = match;
    if (slug !== undefined && slug.length > SLUG_MAX_LENGTH) continue;
    if (match.index > last) out.push({ kind: 'text', text: text.slice(last, match.index) });
    if (target !== undefined && slug !== undefined) out.push({ kind: 'slug-mention', target: target as TargetKind, slug, source });
    else out.push({ kind: 'image', label: label ?? '', url: url ?? '' });
    last = match.index + source.length;
  }
  if (last < text.length) out.push({ kind: 'text', text: text.slice(last) });
  return out;
}

/** The text with every `[[kind#from]]` link made `[[kind#to]]`; the same string when none is. */
export function rewriteSlugLinks(text: string, kind: TargetKind, from: string, to: string): string {
  const needle = `[[${kind}#${from}]]`;
  if (!text.includes(needle)) return text;
  return segmentText(text)
    .map((segment) => {
      if (segment.kind === 'text') return segment.text;
      if (segment.kind === 'image') return `![${segment.label}](${segment.url})`;
      return segment.target === kind && segment.slug === from ? `[[${kind}#${to}]]` : segment.source;
    })
    .join('');
}
