// Rendered properties (src/render/properties.ts) are safe and faithful whatever they hold: the HTML,
// parsed by parse5, is one `<dl>` whose `<dt>`s are the keys as typed and holds only its allowlisted
// elements and attributes; the Markdown, compiled by micromark (raw HTML let through), is one list
// whose items start with the key in bold as typed: nothing a user typed turns into markup.
import fc from 'fast-check';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { parseFragment, type DefaultTreeAdapterMap } from 'parse5';
import { describe, expect, it } from 'vitest';
import type { Property } from '../../src/domain/properties.js';
import { renderProperties, type MentionTarget, type RenderContext } from '../../src/render/index.js';
import { ODD_TEXT } from '../support/fuzz/hostile.js';

type Node = DefaultTreeAdapterMap['childNode'];

const HOSTILE = ['<script>alert(1)</script>', '**bold** _em_ `code` ~~del~~', '[x](javascript:alert(1))', '# heading', '- item', '1. item', '> quote', '| a | b |', '\\', '*', '<span class="secret">', '&amp; &#60;', 'line\nbreak', '[[thing#bob]]', ...ODD_TEXT];
// eslint-disable-next-line no-control-regex
const keyArb = fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 })).map((key) => key.replace(/[\u0000-\u001f\u007f]/g, ' ').trim()).filter((key) => key !== '');
const scalarArb = fc.oneof(
  fc.constantFrom(...HOSTILE),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  // 1 and 2 exist; 3 does not (a deleted target).
  fc.record({ targetType: fc.constantFrom('thing' as const, 'arc' as const), targetId: fc.integer({ min: 1, max: 3 }) }),
);
const propertiesArb = fc.uniqueArray(fc.record({ key: keyArb, value: fc.oneof(scalarArb, fc.array(scalarArb, { maxLength: 4 })), gmOnly: fc.boolean() }), {
  selector: (p) => p.key.toLowerCase(),
  minLength: 1,
  maxLength: 6,
});

const target = (id: number, name: string): MentionTarget => ({ id, slug: `t-${id}`, name });
const ctx: RenderContext = {
  campaignSlug: 'c',
  showSecrets: true,
  things: { byId: new Map([[1, target(1, '<b>Bob</b> & "co"')]]), bySlug: new Map() },
  arcs: { byId: new Map([[2, target(2, '**The Heist**')]]), bySlug: new Map() },
  assets: { byId: new Map(), byUrl: new Map() },
};

const ALLOWED: Record<string, Set<string>> = {
  dl: new Set(['class']),
  dt: new Set(['class']),
  dd: new Set(['class']),
  ul: new Set(),
  li: new Set(),
  a: new Set(['class', 'data-type', 'data-id', 'href']),
  br: new Set(),
};
const MARKDOWN_ALLOWED: Record<string, Set<string>> = { ul: new Set(), li: new Set(), p: new Set(), strong: new Set(), a: new Set(['href']), br: new Set(), span: new Set(['class']) };

function problemsOf(nodes: Node[], allowed: Record<string, Set<string>>, problems: string[] = []): string[] {
  for (const child of nodes) {
    if (child.nodeName === '#comment') problems.push('comment');
    if (!('tagName' in child)) continue;
    if (!allowed[child.tagName]) problems.push(`<${child.tagName}>`);
    for (const attr of child.attrs) {
      if (!allowed[child.tagName]?.has(attr.name)) problems.push(`${attr.name} on <${child.tagName}>`);
      if (attr.name === 'href' && !/^\/campaigns\/c\/(things|arcs)\/t-\d$/.test(attr.value)) problems.push(`href=${attr.value}`);
    }
    problemsOf(child.childNodes, allowed, problems);
  }
  return problems;
}

const textOf = (node: Node): string => ('value' in node && node.nodeName === '#text' ? node.value : 'childNodes' in node ? node.childNodes.map(textOf).join('') : '');
const elements = (nodes: Node[]) => nodes.filter((n): n is Extract<Node, { tagName: string }> => 'tagName' in n);

describe('rendered properties', () => {
  it('HTML: one <dl> of the keys as typed, only allowlisted markup, whatever the keys and values', () => {
    fc.assert(
      fc.property(propertiesArb, (properties: Property[]) => {
        const html = renderProperties(properties, 'html', ctx);
        const top = elements(parseFragment(html).childNodes);
        expect(top.map((n) => n.tagName)).toEqual(['dl']);
        expect(problemsOf(top, ALLOWED)).toEqual([]);
        const dts = elements(top[0]!.childNodes).filter((n) => n.tagName === 'dt');
        expect(dts.map(textOf)).toEqual(properties.map((p) => p.key));
        expect(html).not.toContain('t-3');
      }),
      { numRuns: 500 },
    );
  });

  it('Markdown: one list whose items start with the key in bold as typed, only allowlisted markup once compiled', () => {
    fc.assert(
      fc.property(propertiesArb, (properties: Property[]) => {
        const markdown = renderProperties(properties, 'markdown', ctx);
        const html = micromark(markdown, { allowDangerousHtml: true, extensions: [gfm()], htmlExtensions: [gfmHtml()] });
        const top = elements(parseFragment(html).childNodes);
        expect(top.map((n) => n.tagName), markdown).toEqual(['ul']);
        expect(problemsOf(top, MARKDOWN_ALLOWED), markdown).toEqual([]);
        const items = elements(top[0]!.childNodes);
        expect(items).toHaveLength(properties.length);
        items.forEach((item, i) => {
          const strong = (nodes: Node[]): Node | undefined => {
            for (const n of elements(nodes)) if (n.tagName === 'strong') return n;
            for (const n of elements(nodes)) {
              const found = strong(n.childNodes);
              if (found) return found;
            }
            return undefined;
          };
          expect(textOf(strong(item.childNodes)!), markdown).toBe(properties[i]!.key);
        });
      }),
      { numRuns: 500 },
    );
  });
});
