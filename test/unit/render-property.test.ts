// Rendering never fails and its HTML is safe, whatever is stored (issue 11, CONTRACT "Rich
// content"): 100,000 generated documents (RENDER_PROPERTY_RUNS overrides the count) mixing the
// vocabulary, unknown elements, odd keys, hostile Markdown- and HTML-looking text and hostile URLs
// render to both formats without error, and the HTML, parsed by parse5 (the HTML standard's
// parser), holds only the allowlisted elements and attributes, with only allowed URL schemes. The
// Markdown of one document in ten (VIEWED_EVERY; micromark takes most of the time), compiled by
// micromark (CommonMark with GFM) with raw HTML let through, gives HTML that passes the same
// allowlist: nothing a user typed turns into markup in a Markdown viewer either.

import fc from 'fast-check';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { parseFragment, type DefaultTreeAdapterMap } from 'parse5';
import { describe, expect, it } from 'vitest';
import type { RichText } from '../../src/domain/rich-text.js';
import { renderRichText, type MentionTarget, type RenderContext } from '../../src/render/index.js';
import { hostileString, ODD_TEXT } from '../support/fuzz/hostile.js';

const RUNS = Number(process.env.RENDER_PROPERTY_RUNS ?? 100_000);
const VIEWED_EVERY = 10;

const ELEMENTS = new Set(['aside', 'mark', 'p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'ul', 'ol', 'li', 'pre', 'code', 'hr', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'figure', 'img', 'figcaption', 'a', 'strong', 'em', 'u', 's', 'br', 'section', 'span']);
const ATTRIBUTES: Record<string, Set<string>> = {
  a: new Set(['href', 'rel', 'class', 'data-type', 'data-id']),
  img: new Set(['src', 'alt', 'loading', 'fetchpriority']),
  // A callout (`<aside class="callout" data-type>`) and its title (`<p class="callout-title">`).
  aside: new Set(['class', 'data-type']),
  p: new Set(['class']),
  span: new Set(['class']),
  section: new Set(['class']),
  // Secrets below the top level: a list item, a table cell (`class="secret"`).
  li: new Set(['class']),
  th: new Set(['class']),
  td: new Set(['class']),
};
// What micromark writes for our Markdown: `del` for strikethrough, a disabled checkbox for a task,
// `title` never (we write none).
const MARKDOWN_ELEMENTS = new Set([...ELEMENTS, 'del', 'input']);
// A secret inline element or table cell is inline HTML in Markdown: `<span class="secret">`.
const MARKDOWN_ATTRIBUTES: Record<string, Set<string>> = {
  a: new Set(['href']),
  img: new Set(['src', 'alt']),
  span: new Set(['class']),
  input: new Set(['type', 'disabled', 'checked']),
};

const HOSTILE_TEXT = [
  '# heading?',
  '*emph* _emph_ **strong** ~~del~~ `code`',
  '[link](javascript:alert(1))',
  '![img](javascript:alert(1))',
  '![x](data:text/html;base64,PHNjcmlwdD4=)',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '<a href="javascript:alert(1)">x</a>',
  '"><svg onload=alert(1)>',
  '&lt;&amp;&#x3C;&#60;',
  '<!-- comment --><![CDATA[x]]>',
  '</p></section></table>',
  '| a | b |\n|---|---|',
  '> quote\n- item\n1. item\n---',
  '```\ncode\n```',
  '[[thing#bob]] [[arc#the-heist]] [[thing#gone]] [[arc#]] [[thing#Bob]]',
  '![](https://example.test/a.png) ![label](/images/1)',
  '\\*escaped\\* \\',
  '<style>*{}</style><iframe src=x>',
  '\u0000\u0008\u001b[31m',
];

const HOSTILE_URLS = [
  'javascript:alert(1)',
  'JAVASCRIPT:alert(1)',
  ' javascript:alert(1)',
  'java\tscript:alert(1)',
  '\u0001javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'data:image/svg+xml,<svg onload=alert(1)>',
  'vbscript:x',
  '//evil.test',
  '/\\evil.test',
  '\\\\evil.test',
  'https://example.test/"><script>',
  "https://example.test/' onerror='alert(1)",
  'http://example.test/a b',
  'mailto:x@y.test',
  '/campaigns/x/things/y',
  'https://example.test/ok.png',
  '',
  'x',
];

const text = fc.oneof({ weight: 3, arbitrary: hostileString(80) }, { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_TEXT) }, { weight: 1, arbitrary: fc.constantFrom(...ODD_TEXT) });
const url = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...HOSTILE_URLS) }, { weight: 1, arbitrary: fc.webUrl() }, { weight: 1, arbitrary: hostileString(60) });
const mark = fc.record({ bold: fc.boolean(), italic: fc.boolean(), underline: fc.boolean(), code: fc.boolean(), strikethrough: fc.boolean(), highlight: fc.boolean() }, { requiredKeys: [] });
const leaf = fc.tuple(text, mark).map(([value, marks]) => ({ text: value, ...marks }));
const oddValue = fc.oneof(fc.constant(null), fc.integer(), fc.string({ maxLength: 5 }), fc.constant(true), fc.constant([]), fc.constant({}));

const TYPES = [
  'paragraph',
  'heading-one',
  'heading-three',
  'heading-six',
  'block-quote',
  'bulleted-list',
  'numbered-list',
  'list-item',
  'code-block',
  'divider',
  'table',
  'table-row',
  'table-cell',
  'image',
  'link',
  'mention',
  'callout',
  'script',
  '__proto__',
];

const { node } = fc.letrec<{ node: Record<string, unknown>; element: Record<string, unknown> }>((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('element')),
  element: fc
    .record(
      {
        type: fc.constantFrom(...TYPES),
        children: fc.array(tie('node'), { maxLength: 4 }),
        url,
        alt: text,
        caption: text,
        assetId: fc.oneof(fc.integer({ min: 1, max: 3 }), oddValue),
        targetType: fc.oneof(fc.constantFrom('thing', 'arc', 'npc'), oddValue),
        targetId: fc.oneof(fc.integer({ min: 0, max: 4 }), oddValue),
        isSecret: fc.boolean(),
        kind: fc.oneof(fc.constantFrom('note', 'warning', 'secret', 'x"><script>', ']]', ''), text, oddValue),
        title: fc.oneof(text, oddValue),
        checked: fc.oneof(fc.boolean(), oddValue),
        style: fc.constant('color: red'),
        onclick: fc.constant('alert(1)'),
      },
      { requiredKeys: ['type', 'children'] },
    )
    .map((element) => element as Record<string, unknown>),
}));

const document = fc.array(node, { maxLength: 6 });

function targets(list: MentionTarget[]) {
  return { byId: new Map(list.map((t) => [t.id, t])), bySlug: new Map(list.map((t) => [t.slug, t])) };
}

const ctx = (showSecrets: boolean): RenderContext => ({
  campaignSlug: 'c',
  showSecrets,
  things: targets([{ id: 1, slug: 'bob', name: '<script>alert("bob")</script>' }]),
  arcs: targets([{ id: 2, slug: 'the-heist', name: 'The "Heist" & <b>' }]),
  assets: {
    byId: new Map([
      [1, { url: 'https://images.test/1', label: '"><img onerror=x>' }],
      [2, { url: 'javascript:alert(1)', label: 'hostile stored url' }],
    ]),
    byUrl: new Map([['https://images.test/1', { url: 'https://images.test/1', label: 'label' }]]),
  },
});

type Node = DefaultTreeAdapterMap['childNode'];

function allowedUrl(value: string, element: string): boolean {
  if (/^\/(?![/\\])/.test(value) && !/[\s\\]/.test(value)) return true;
  const schemes = element === 'a' ? ['http:', 'https:', 'mailto:'] : ['http:', 'https:'];
  try {
    return schemes.includes(new URL(value).protocol) && /^[a-z]+:/i.test(value);
  } catch {
    return false;
  }
}

/** Every element and attribute of the parsed HTML that the allowlist does not admit. */
function problemsOf(html: string, elements = ELEMENTS, attributes = ATTRIBUTES): string[] {
  const problems: string[] = [];
  const visit = (nodes: Node[]) => {
    for (const child of nodes) {
      if (child.nodeName === '#comment' || child.nodeName === '#documentType') problems.push(child.nodeName);
      if (!('tagName' in child)) continue;
      if (!elements.has(child.tagName)) problems.push(`element <${child.tagName}>`);
      for (const attr of child.attrs) {
        if (!attributes[child.tagName]?.has(attr.name)) problems.push(`attribute ${attr.name} on <${child.tagName}>`);
        if ((attr.name === 'href' || attr.name === 'src') && !allowedUrl(attr.value, child.tagName)) problems.push(`${attr.name}=${JSON.stringify(attr.value)}`);
      }
      visit(child.childNodes);
    }
  };
  visit(parseFragment(html).childNodes);
  return problems;
}

/** The element structure parse5 reads; equal to the one written when the markup is balanced and well nested. */
function reserialized(html: string): string {
  const fragment = parseFragment(html);
  const out: string[] = [];
  const visit = (nodes: Node[]) => {
    for (const child of nodes) {
      if ('tagName' in child) {
        out.push(`<${child.tagName}>`);
        visit(child.childNodes);
        out.push(`</${child.tagName}>`);
      }
    }
  };
  visit(fragment.childNodes);
  return out.join('');
}

function structureOf(html: string): string {
  // The element structure as our serializer wrote it: an opening tag per start, a closing per end,
  // void elements closed at once. Compared with parse5's view, any unbalanced or misnested markup
  // (which the parser would repair differently) shows up as a difference.
  const VOID = new Set(['br', 'hr', 'img']);
  const out: string[] = [];
  // Attribute values are double-quoted (and may hold `>`); text never holds a `<`: it is escaped.
  for (const token of html.split(/(<\/?[a-z0-9]+(?:\s+[a-z-]+(?:="[^"]*")?)*\s*>)/)) {
    const tag = /^<(\/?)([a-z0-9]+)/.exec(token);
    if (!tag) continue;
    out.push(`<${tag[1]}${tag[2]}>`);
    if (VOID.has(tag[2]!)) out.push(`</${tag[2]}>`);
  }
  return out.join('');
}

// In slices, each yielding to the event loop every YIELD_EVERY documents: a synchronous run holds
// the worker's event loop, and on a busy machine vitest's own messages from the worker time out.
const SLICES = 10;
const YIELD_EVERY = 100;

describe('rendering any stored value', () => {
  const perSlice = Math.ceil(RUNS / SLICES);
  let total = 0;
  let seconds = 0;
  for (let slice = 1; slice <= SLICES; slice++) {
    it(`renders documents ${((slice - 1) * perSlice + 1).toLocaleString('en')}–${(slice * perSlice).toLocaleString('en')} of ${RUNS.toLocaleString('en')} to safe, balanced HTML and to Markdown`, async () => {
      const started = performance.now();
      let runs = 0;
      await fc.assert(
        // `view` is generated, not counted, so a failure shrinks like any other.
        fc.asyncProperty(document, fc.boolean(), fc.nat(VIEWED_EVERY - 1), async (value, showSecrets, view) => {
          runs += 1;
          if (runs % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
          const context = ctx(showSecrets);
          const html = renderRichText(value as unknown as RichText, 'html', context);
          expect(problemsOf(html)).toEqual([]);
          expect(reserialized(html)).toBe(structureOf(html));
          const markdown = renderRichText(value as unknown as RichText, 'markdown', context);
          if (view !== 0) return;
          const viewed = micromark(markdown, { allowDangerousHtml: true, allowDangerousProtocol: true, extensions: [gfm()], htmlExtensions: [gfmHtml()] });
          expect(problemsOf(viewed, MARKDOWN_ELEMENTS, MARKDOWN_ATTRIBUTES)).toEqual([]);
        }),
        { numRuns: perSlice },
      );
      total += perSlice;
      seconds += (performance.now() - started) / 1000;
      if (slice === SLICES) console.log(`render property: ${total.toLocaleString('en')} documents in ${seconds.toFixed(1)} s`);
    }, 120_000);
  }
});
