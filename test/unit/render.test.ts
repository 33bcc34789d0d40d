// The renderer (src/render): every element and mark of the CONTRACT's vocabulary in both formats,
// the seed system's conventions, literal text that looks like markup, and hostile URLs. Expected
// outputs are written out in full and were checked by hand against the CONTRACT's table.

import { describe, expect, it } from 'vitest';
import type { RichText } from '../../src/domain/rich-text.js';
import { collectReferences, emptyReferences, mentionsOf, renderRichText, rewriteMentionSlugs, type MentionTarget, type RenderContext } from '../../src/render/index.js';
import { rewriteSlugLinks, segmentText } from '../../src/render/conventions.js';
import { safeImageUrl, safeLinkUrl } from '../../src/render/urls.js';

function byIdAndSlug(targets: MentionTarget[]) {
  return { byId: new Map(targets.map((t) => [t.id, t])), bySlug: new Map(targets.map((t) => [t.slug, t])) };
}

const ASSET_URL = 'https://images.example.test/images/7';

function context(overrides: Partial<RenderContext> = {}): RenderContext {
  return {
    campaignSlug: 'lost-mine',
    showSecrets: true,
    things: byIdAndSlug([{ id: 1, slug: 'bob', name: 'Bob the <Bold>' }]),
    arcs: byIdAndSlug([{ id: 4, slug: 'the-heist', name: 'The Heist' }]),
    assets: {
      byId: new Map([[7, { url: ASSET_URL, label: 'Map of Phandalin' }]]),
      byUrl: new Map([[ASSET_URL, { url: ASSET_URL, label: 'Map of Phandalin' }]]),
    },
    ...overrides,
  };
}

const html = (value: unknown, ctx = context()) => renderRichText(value as RichText, 'html', ctx);
const md = (value: unknown, ctx = context()) => renderRichText(value as RichText, 'markdown', ctx);
const p = (...children: unknown[]) => ({ type: 'paragraph', children });
const t = (text: string, marks: Record<string, boolean> = {}) => ({ text, ...marks });

describe('blocks', () => {
  const cases: [string, unknown[], string, string][] = [
    ['paragraph', [p(t('Hello'))], '<p>Hello</p>', 'Hello\n'],
    ['two paragraphs', [p(t('One')), p(t('Two'))], '<p>One</p><p>Two</p>', 'One\n\nTwo\n'],
    ['heading-one', [{ type: 'heading-one', children: [t('Title')] }], '<h1>Title</h1>', '# Title\n'],
    ['heading-two', [{ type: 'heading-two', children: [t('Title')] }], '<h2>Title</h2>', '## Title\n'],
    ['heading-three', [{ type: 'heading-three', children: [t('Title')] }], '<h3>Title</h3>', '### Title\n'],
    ['heading-four', [{ type: 'heading-four', children: [t('Title')] }], '<h4>Title</h4>', '#### Title\n'],
    ['heading-five', [{ type: 'heading-five', children: [t('Title')] }], '<h5>Title</h5>', '##### Title\n'],
    ['heading-six', [{ type: 'heading-six', children: [t('Title')] }], '<h6>Title</h6>', '###### Title\n'],
    ['block-quote of text', [{ type: 'block-quote', children: [t('Quoted')] }], '<blockquote><p>Quoted</p></blockquote>', '> Quoted\n'],
    ['block-quote of paragraphs', [{ type: 'block-quote', children: [p(t('A')), p(t('B'))] }], '<blockquote><p>A</p><p>B</p></blockquote>', '> A\n>\n> B\n'],
    [
      'bulleted-list',
      [{ type: 'bulleted-list', children: [{ type: 'list-item', children: [t('one')] }, { type: 'list-item', children: [t('two')] }] }],
      '<ul><li>one</li><li>two</li></ul>',
      '- one\n- two\n',
    ],
    [
      'numbered-list',
      [{ type: 'numbered-list', children: [{ type: 'list-item', children: [t('one')] }, { type: 'list-item', children: [t('two')] }] }],
      '<ol><li>one</li><li>two</li></ol>',
      '1. one\n2. two\n',
    ],
    [
      'nested list',
      [
        {
          type: 'bulleted-list',
          children: [{ type: 'list-item', children: [t('outer'), { type: 'numbered-list', children: [{ type: 'list-item', children: [t('inner')] }] }] }],
        },
      ],
      '<ul><li>outer<ol><li>inner</li></ol></li></ul>',
      '- outer\n  1. inner\n',
    ],
    ['code-block', [{ type: 'code-block', children: [t('const x = "<b>";\n*y*')] }], '<pre><code>const x = "&#x3C;b>";\n*y*</code></pre>', '```\nconst x = "<b>";\n*y*\n```\n'],
    ['divider', [{ type: 'divider', children: [t('')] }], '<hr>', '---\n'],
    [
      'table',
      [
        {
          type: 'table',
          children: [
            { type: 'table-row', children: [{ type: 'table-cell', children: [t('Name')] }, { type: 'table-cell', children: [t('Role')] }] },
            { type: 'table-row', children: [{ type: 'table-cell', children: [t('Bob')] }, { type: 'table-cell', children: [t('a | b')] }] },
          ],
        },
      ],
      '<table><thead><tr><th>Name</th><th>Role</th></tr></thead><tbody><tr><td>Bob</td><td>a | b</td></tr></tbody></table>',
      '| Name | Role   |\n| ---- | ------ |\n| Bob  | a \\| b |\n',
    ],
    [
      'image by URL with alt and caption',
      [{ type: 'image', url: 'https://example.test/a.png', alt: 'A map', caption: 'The old map', children: [t('')] }],
      '<figure><img src="https://example.test/a.png" alt="A map" fetchpriority="high"><figcaption>The old map</figcaption></figure>',
      '![A map](https://example.test/a.png)\n\n*The old map*\n',
    ],
    [
      'image by URL without alt or caption',
      [{ type: 'image', url: '/images/3', children: [t('')] }],
      '<figure><img src="/images/3" alt="" fetchpriority="high"></figure>',
      '![](/images/3)\n',
    ],
    [
      'image of an asset: its URL, its label as alt and caption',
      [{ type: 'image', url: 'https://stale.example.test/old.png', assetId: 7, alt: 'ignored', caption: 'ignored', children: [t('')] }],
      `<figure><img src="${ASSET_URL}" alt="Map of Phandalin" fetchpriority="high"><figcaption>Map of Phandalin</figcaption></figure>`,
      `![Map of Phandalin](${ASSET_URL})\n\n*Map of Phandalin*\n`,
    ],
    [
      'image of an unknown asset falls back to its url',
      [{ type: 'image', url: 'https://example.test/b.png', assetId: 99, alt: 'B', children: [t('')] }],
      '<figure><img src="https://example.test/b.png" alt="B" fetchpriority="high"></figure>',
      '![B](https://example.test/b.png)\n',
    ],
  ];
  it.each(cases)('%s', (_name, value, expectedHtml, expectedMarkdown) => {
    expect(html(value)).toBe(expectedHtml);
    expect(md(value)).toBe(expectedMarkdown);
  });

  it('renders an empty field as nothing', () => {
    expect(html([])).toBe('');
    expect(md([])).toBe('');
    expect(html([p(t(''))])).toBe('<p></p>');
    expect(md([p(t(''))])).toBe('');
  });

  it('keeps line breaks inside a paragraph', () => {
    expect(html([p(t('one\ntwo'))])).toBe('<p>one<br>two</p>');
    expect(md([p(t('one\ntwo'))])).toBe('one\\\ntwo\n');
  });

  it('renders unknown element types as their children and ignores unknown keys', () => {
    const value = [{ type: 'admonition', icon: 'skull', children: [p(t('Inside')), { type: 'kbd', children: [t('Ctrl')] }] }];
    expect(html(value)).toBe('<p>Inside</p><p>Ctrl</p>');
    expect(md(value)).toBe('Inside\n\nCtrl\n');
    expect(html([{ type: 'paragraph', align: 'center', children: [{ type: 'kbd', children: [t('K')] }] }])).toBe('<p>K</p>');
  });

  it('lifts a block out of a paragraph instead of nesting it', () => {
    const value = [p(t('Before '), { type: 'image', url: '/i.png', alt: 'x', children: [t('')] }, t(' after'))];
    expect(html(value)).toBe('<p>Before</p><figure><img src="/i.png" alt="x" fetchpriority="high"></figure><p>after</p>');
    expect(md(value)).toBe('Before\n\n![x](/i.png)\n\nafter\n');
  });
});

describe('marks', () => {
  const cases: [string, Record<string, boolean>, string, string][] = [
    ['bold', { bold: true }, '<p><strong>word</strong></p>', '**word**\n'],
    ['italic', { italic: true }, '<p><em>word</em></p>', '*word*\n'],
    ['underline', { underline: true }, '<p><u>word</u></p>', 'word\n'],
    ['code', { code: true }, '<p><code>word</code></p>', '`word`\n'],
    ['strikethrough', { strikethrough: true }, '<p><s>word</s></p>', '~~word~~\n'],
    [
      'all at once',
      { bold: true, italic: true, underline: true, code: true, strikethrough: true },
      '<p><strong><em><u><s><code>word</code></s></u></em></strong></p>',
      '**_~~`word`~~_**\n',
    ],
  ];
  it.each(cases)('%s', (_name, marks, expectedHtml, expectedMarkdown) => {
    expect(html([p(t('word', marks))])).toBe(expectedHtml);
    expect(md([p(t('word', marks))])).toBe(expectedMarkdown);
  });

  it('does not interpret conventions inside code', () => {
    const value = [p(t('[[thing#bob]] ![m](https://x.test/a.png)', { code: true }))];
    expect(html(value)).toBe('<p><code>[[thing#bob]] ![m](https://x.test/a.png)</code></p>');
    expect(md(value)).toBe('`[[thing#bob]] ![m](https://x.test/a.png)`\n');
    expect(html([{ type: 'code-block', children: [t('[[thing#bob]]')] }])).toBe('<pre><code>[[thing#bob]]</code></pre>');
  });
});

describe('callouts, highlights and tasks', () => {
  const callout = (fields: Record<string, unknown>, ...children: unknown[]) => ({ type: 'callout', ...fields, children });
  const item = (fields: Record<string, unknown>, ...children: unknown[]) => ({ type: 'list-item', ...fields, children });
  const list = (...items: unknown[]) => ({ type: 'bulleted-list', children: items });

  it('renders a callout with a title as an aside whose first element is the title, and as an Obsidian callout', () => {
    const value = [callout({ kind: 'warning', title: 'The bridge is out' }, p(t('Take the ford.')), list(item({}, t('Rope'))))];
    expect(html(value)).toBe('<aside class="callout" data-type="warning"><p class="callout-title">The bridge is out</p><p>Take the ford.</p><ul><li>Rope</li></ul></aside>');
    expect(md(value)).toBe('> [!warning] The bridge is out\n>\n> Take the ford.\n>\n> - Rope\n');
  });

  it('renders a callout without a title with no title element and a bare marker', () => {
    const value = [callout({ kind: 'note' }, p(t('Plain.')))];
    expect(html(value)).toBe('<aside class="callout" data-type="note"><p>Plain.</p></aside>');
    expect(md(value)).toBe('> [!note]\n>\n> Plain.\n');
    expect(html([callout({ kind: 'tip', title: '' })])).toBe('<aside class="callout" data-type="tip"></aside>');
    expect(md([callout({ kind: 'tip', title: '' })])).toBe('> [!tip]\n');
  });

  it('nests callouts, and puts one inside a list item', () => {
    const value = [callout({ kind: 'info', title: 'Outer' }, callout({ kind: 'danger', title: 'Inner' }, p(t('Deep.')))), list(item({}, p(t('Item')), callout({ kind: 'tip' }, p(t('Hint')))))];
    expect(html(value)).toBe(
      '<aside class="callout" data-type="info"><p class="callout-title">Outer</p><aside class="callout" data-type="danger"><p class="callout-title">Inner</p><p>Deep.</p></aside></aside>' +
        '<ul><li>Item<aside class="callout" data-type="tip"><p>Hint</p></aside></li></ul>',
    );
    expect(md(value)).toBe('> [!info] Outer\n>\n> > [!danger] Inner\n> >\n> > Deep.\n\n- Item\n  > [!tip]\n  >\n  > Hint\n');
  });

  it('keeps a title plain text: markup in it is escaped, line breaks are spaces', () => {
    const value = [callout({ kind: 'note', title: '  *Not* <b>bold</b> [[thing#bob]]\nsecond line ' }, p(t('x')))];
    expect(html(value)).toBe('<aside class="callout" data-type="note"><p class="callout-title">*Not* &#x3C;b>bold&#x3C;/b> [[thing#bob]] second line</p><p>x</p></aside>');
    expect(md(value)).toBe('> [!note] \\*Not\\* \\<b>bold\\</b> \\[\\[thing#bob]] second line\n>\n> x\n');
  });

  it('writes only a safe kind into the Markdown marker, and the kind as given into data-type', () => {
    const value = [callout({ kind: 'x] <script>\ny' }, p(t('x')))];
    expect(html(value)).toBe('<aside class="callout" data-type="x] <script>\ny"><p>x</p></aside>');
    expect(md(value)).toBe('> [!x-script-y]\n>\n> x\n');
    expect(md([callout({ kind: ']]' }, p(t('x')))])).toBe('> [!note]\n>\n> x\n');
    expect(md([callout({ kind: 'Frage' }, p(t('x')))])).toBe('> [!Frage]\n>\n> x\n');
    // A callout written around the API without a kind renders as a note.
    expect(html([callout({}, p(t('x')))])).toBe('<aside class="callout" data-type="note"><p>x</p></aside>');
  });

  it('hides a secret callout, and a callout inside a secret block, title included, from those who may not see secrets', () => {
    const value = [p(t('Open.')), callout({ kind: 'note', title: 'Hidden title', isSecret: true }, p(t('Hidden body'))), { type: 'block-quote', isSecret: true, children: [callout({ kind: 'tip', title: 'Deeper title' }, p(t('x')))] }];
    const players = context({ showSecrets: false });
    expect(html(value, players)).toBe('<p>Open.</p>');
    expect(md(value, players)).toBe('Open.\n');
    expect(html(value)).toBe(
      '<p>Open.</p><section class="secret"><aside class="callout" data-type="note"><p class="callout-title">Hidden title</p><p>Hidden body</p></aside></section>' +
        '<section class="secret"><blockquote><aside class="callout" data-type="tip"><p class="callout-title">Deeper title</p><p>x</p></aside></blockquote></section>',
    );
    expect(md(value)).toBe('Open.\n\n> [!secret]\n>\n> > [!note] Hidden title\n> >\n> > Hidden body\n\n> [!secret]\n>\n> > > [!tip] Deeper title\n> > >\n> > > x\n');
  });

  it('renders a highlight as <mark> and ==text==, with the other marks around it', () => {
    const value = [p(t('The '), t('vampire', { highlight: true }), t(' is '), t('here', { highlight: true, bold: true, italic: true }), t(' '), t('code', { highlight: true, code: true }))];
    expect(html(value)).toBe('<p>The <mark>vampire</mark> is <strong><em><mark>here</mark></em></strong> <mark><code>code</code></mark></p>');
    expect(md(value)).toBe('The ==vampire== is **_==here==_** ==`code`==\n');
  });

  it('merges neighbouring highlighted leaves and escapes every = that could read as a highlight', () => {
    expect(md([p(t('Dun', { highlight: true }), t('geon', { highlight: true, underline: true }))])).toBe('==Dungeon==\n');
    expect(md([p(t('a == b ==c== ='))])).toBe('a \\=\\= b \\=\\=c\\=\\= =\n');
    expect(md([p(t('=x=', { highlight: true }))])).toBe('==\\=x\\===\n');
    expect(md([p(t('a='), t('b', { highlight: true }), t('=c'))])).toBe('a\\===b==\\=c\n');
    expect(html([p(t('a == b'))])).toBe('<p>a == b</p>');
  });

  it('renders tasks as <li class="task"> with a marker and as GFM task items; other items are no tasks', () => {
    const value = [list(item({ checked: false }, t('Buy rope')), item({ checked: true }, p(t('Find the map'))), item({}, t('Just an item')))];
    expect(html(value)).toBe('<ul><li class="task">☐ Buy rope</li><li class="task done">☑ Find the map</li><li>Just an item</li></ul>');
    expect(md(value)).toBe('- [ ] Buy rope\n- [x] Find the map\n- Just an item\n');
  });

  it('keeps the state of an empty task, of a task in a numbered list and of one that starts with a list', () => {
    const value = [{ type: 'numbered-list', children: [item({ checked: true }, t('')), item({ checked: false }, list(item({}, t('inner'))))] }];
    expect(html(value)).toBe('<ol><li class="task done">☑ </li><li class="task">☐ <ul><li>inner</li></ul></li></ol>');
    expect(md(value)).toBe('1. [x] &#x20;\n2. [ ] &#x20;\n   - inner\n');
  });

  it('marks a secret task as secret and leaves it out for players', () => {
    const value = [list(item({ checked: true }, t('open')), item({ checked: false, isSecret: true }, t('hidden')))];
    expect(html(value)).toBe('<ul><li class="task done">☑ open</li><li class="secret task">☐ hidden</li></ul>');
    expect(html(value, context({ showSecrets: false }))).toBe('<ul><li class="task done">☑ open</li></ul>');
    expect(md(value, context({ showSecrets: false }))).toBe('- [x] open\n');
  });

  it('flattens a callout in a table cell to its title and words', () => {
    const value = [{ type: 'table', children: [{ type: 'table-row', children: [{ type: 'table-cell', children: [callout({ kind: 'note', title: 'Title' }, p(t('body')))] }] }] }];
    expect(html(value)).toBe('<table><thead><tr><th>Title body</th></tr></thead></table>');
  });
});

describe('links and mentions', () => {
  it('renders a link with its rel in both formats', () => {
    const value = [p(t('See '), { type: 'link', url: 'https://example.test/x?a=1&b=2', children: [t('the site', { bold: true })] })];
    expect(html(value)).toBe('<p>See <a href="https://example.test/x?a=1&#x26;b=2" rel="noopener noreferrer nofollow ugc"><strong>the site</strong></a></p>');
    expect(md(value)).toBe('See [**the site**](https://example.test/x?a=1\\&b=2)\n');
  });

  it('renders mailto: and path links', () => {
    expect(html([p({ type: 'link', url: 'mailto:gm@example.test', children: [t('mail')] })])).toBe(
      '<p><a href="mailto:gm@example.test" rel="noopener noreferrer nofollow ugc">mail</a></p>',
    );
    expect(md([p({ type: 'link', url: '/campaigns/x', children: [t('here')] })])).toBe('[here](/campaigns/x)\n');
  });

  it('renders a mention by id as a link to the web app with its label, or the current name when it has none', () => {
    const value = [p(t('Ask '), { type: 'mention', targetType: 'thing', targetId: 1, children: [t('')] }, t('.'))];
    expect(html(value)).toBe('<p>Ask <a class="mention" data-type="thing" data-id="1" href="/campaigns/lost-mine/things/bob">Bob the &#x3C;Bold></a>.</p>');
    expect(md(value)).toBe('Ask [Bob the \\<Bold>](/campaigns/lost-mine/things/bob).\n');
    const labelled = [p(t('Ask '), { type: 'mention', targetType: 'thing', targetId: 1, children: [t('the smith')] }, t('.'))];
    expect(html(labelled)).toBe('<p>Ask <a class="mention" data-type="thing" data-id="1" href="/campaigns/lost-mine/things/bob">the smith</a>.</p>');
    expect(md(labelled)).toBe('Ask [the smith](/campaigns/lost-mine/things/bob).\n');
    const arc = [p({ type: 'mention', targetType: 'arc', targetId: 4, children: [t('')] })];
    expect(html(arc)).toBe('<p><a class="mention" data-type="arc" data-id="4" href="/campaigns/lost-mine/arcs/the-heist">The Heist</a></p>');
    expect(md(arc)).toBe('[The Heist](/campaigns/lost-mine/arcs/the-heist)\n');
  });

  it('renders a mention of a missing target as its own text, or nothing (an empty mark for a game master)', () => {
    const value = [p({ type: 'mention', targetType: 'thing', targetId: 2, children: [t('Gone')] }, t(' / '), { type: 'mention', targetType: 'arc', targetId: 1, children: [t('')] })];
    // A game master's page says it is missing (web/src/records/record-page.css); a reader's has nothing there.
    expect(html(value)).toBe('<p><span class="mention missing">Gone</span> / <span class="mention missing"></span></p>');
    expect(html(value, context({ showSecrets: false }))).toBe('<p><span class="mention missing">Gone</span> / </p>');
    expect(md(value)).toBe('Gone /\n');
    expect(md(value, context({ showSecrets: false }))).toBe('Gone /\n');
    expect(html([p({ type: 'mention', targetType: 'npc', targetId: 1, children: [t('odd')] })])).toBe('<p><span class="mention missing">odd</span></p>');
  });

  it('renders a mention inside a link as the target name, never a link in a link', () => {
    const value = [p({ type: 'link', url: 'https://example.test', children: [t('with '), { type: 'mention', targetType: 'thing', targetId: 1, children: [t('')] }] })];
    expect(html(value)).toBe('<p><a href="https://example.test/" rel="noopener noreferrer nofollow ugc">with Bob the &#x3C;Bold></a></p>');
    const nested = [p({ type: 'link', url: 'https://a.test', children: [{ type: 'link', url: 'https://b.test', children: [t('inner')] }] })];
    expect(html(nested)).toBe('<p><a href="https://a.test/" rel="noopener noreferrer nofollow ugc">inner</a></p>');
  });
});

describe("the seed system's conventions", () => {
  it('makes [[thing#slug]] and [[arc#slug]] mentions, resolved by slug', () => {
    const value = [p(t('Meet [[thing#bob]] in [[arc#the-heist]], not [[thing#nobody]].'))];
    expect(html(value)).toBe(
      '<p>Meet <a class="mention" data-type="thing" data-id="1" href="/campaigns/lost-mine/things/bob">Bob the &#x3C;Bold></a> in ' +
        '<a class="mention" data-type="arc" data-id="4" href="/campaigns/lost-mine/arcs/the-heist">The Heist</a>, not <span class="mention missing">[[thing#nobody]]</span>.</p>',
    );
    expect(md(value)).toBe('Meet [Bob the \\<Bold>](/campaigns/lost-mine/things/bob) in [The Heist](/campaigns/lost-mine/arcs/the-heist), not \\[\\[thing#nobody]].\n');
  });

  it('keeps the marks of the text around a slug mention', () => {
    expect(html([p(t('[[thing#bob]]', { italic: true }))])).toBe('<p><em><a class="mention" data-type="thing" data-id="1" href="/campaigns/lost-mine/things/bob">Bob the &#x3C;Bold></a></em></p>');
  });

  it('makes ![label](url) an image with the label as alt and caption', () => {
    const value = [p(t('![The gate](https://example.test/gate.png)'))];
    expect(html(value)).toBe('<figure><img src="https://example.test/gate.png" alt="The gate" fetchpriority="high"><figcaption>The gate</figcaption></figure>');
    expect(md(value)).toBe('![The gate](https://example.test/gate.png)\n\n*The gate*\n');
  });

  it("uses the asset's label when the image URL is an asset's", () => {
    expect(html([p(t(`![typed label](${ASSET_URL})`))])).toBe(`<figure><img src="${ASSET_URL}" alt="Map of Phandalin" fetchpriority="high"><figcaption>Map of Phandalin</figcaption></figure>`);
  });

  it('drops an image convention with a hostile URL and keeps the text around it', () => {
    expect(html([p(t('a ![x](javascript:alert(1)) b'))])).toBe('<p>a ![x](javascript:alert(1)) b</p>');
    expect(html([p(t('a ![x](javascript:void) b'))])).toBe('<p>a  b</p>');
  });

  it('renders a top-level isSecret block in a section or a callout, and nothing when secrets are hidden', () => {
    const value = [p(t('Open')), { type: 'paragraph', isSecret: true, children: [t('The villain is Bob')] }, { type: 'heading-two', isSecret: true, children: [t('Twist')] }];
    expect(html(value)).toBe('<p>Open</p><section class="secret"><p>The villain is Bob</p></section><section class="secret"><h2>Twist</h2></section>');
    expect(md(value)).toBe('Open\n\n> [!secret]\n> The villain is Bob\n\n> [!secret]\n>\n> ## Twist\n');
    const hidden = context({ showSecrets: false });
    expect(html(value, hidden)).toBe('<p>Open</p>');
    expect(md(value, hidden)).toBe('Open\n');
  });

  it('marks a secret at any depth where it sits for a GM, and leaves it out for the others', () => {
    const hidden = context({ showSecrets: false });
    const quoted = [{ type: 'block-quote', children: [p(t('open')), { type: 'paragraph', isSecret: true, children: [t('inner')] }] }];
    expect(html(quoted)).toBe('<blockquote><p>open</p><section class="secret"><p>inner</p></section></blockquote>');
    expect(md(quoted)).toBe('> open\n>\n> > [!secret]\n> > inner\n');
    expect(html(quoted, hidden)).toBe('<blockquote><p>open</p></blockquote>');
    const items = [{ type: 'bulleted-list', children: [{ type: 'list-item', children: [p(t('one'))] }, { type: 'list-item', isSecret: true, children: [p(t('two'))] }] }];
    expect(html(items)).toBe('<ul><li>one</li><li class="secret">two</li></ul>');
    expect(md(items)).toBe('- one\n- > [!secret]\n  > two\n');
    expect(html(items, hidden)).toBe('<ul><li>one</li></ul>');
    expect(md(items, hidden)).toBe('- one\n');
    const onlySecret = [{ type: 'bulleted-list', children: [{ type: 'list-item', isSecret: true, children: [p(t('two'))] }] }];
    expect(html(onlySecret, hidden)).toBe('');
    const cells = [
      {
        type: 'table',
        children: [
          { type: 'table-row', children: [{ type: 'table-cell', children: [p(t('a'))] }, { type: 'table-cell', children: [p(t('b'))] }] },
          { type: 'table-row', children: [{ type: 'table-cell', children: [p(t('c'))] }, { type: 'table-cell', isSecret: true, children: [p(t('d'))] }] },
        ],
      },
    ];
    expect(html(cells)).toBe('<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>c</td><td class="secret">d</td></tr></tbody></table>');
    expect(md(cells)).toBe('| a | b                             |\n| - | ----------------------------- |\n| c | <span class="secret">d</span> |\n');
    expect(html(cells, hidden)).toBe('<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>c</td><td></td></tr></tbody></table>');
    const inline = [p(t('see '), { type: 'link', url: 'https://example.test/', isSecret: true, children: [t('here')] }, t('.'))];
    expect(html(inline)).toBe('<p>see <span class="secret"><a href="https://example.test/" rel="noopener noreferrer nofollow ugc">here</a></span>.</p>');
    expect(md(inline)).toBe('see <span class="secret">[here](https://example.test/)</span>.\n');
    expect(html(inline, hidden)).toBe('<p>see .</p>');
  });
});

describe('literal text', () => {
  it('keeps Markdown-looking text literal in both formats', () => {
    const value = [p(t('# not a heading *not emphasis* _nor this_ [not](a link) `no code` <b>no html</b> &amp;'))];
    expect(html(value)).toBe('<p># not a heading *not emphasis* _nor this_ [not](a link) `no code` &#x3C;b>no html&#x3C;/b> &#x26;amp;</p>');
    expect(md(value)).toBe('\\# not a heading \\*not emphasis\\* \\_nor this\\_ \\[not]\\(a link) \\`no code\\` \\<b>no html\\</b> \\&amp;\n');
  });

  it('keeps list and quote markers at the start of a paragraph literal in Markdown', () => {
    expect(md([p(t('- not a list'))])).toBe('\\- not a list\n');
    expect(md([p(t('1. not a list'))])).toBe('1\\. not a list\n');
    expect(md([p(t('> not a quote'))])).toBe('\\> not a quote\n');
    expect(md([p(t('---'))])).toBe('\\---\n');
  });

  it('escapes HTML-looking text and attribute values', () => {
    const value = [p(t('<script>alert(1)</script><img src=x onerror=alert(1)>'))];
    expect(html(value)).toBe('<p>&#x3C;script>alert(1)&#x3C;/script>&#x3C;img src=x onerror=alert(1)></p>');
    const attr = [{ type: 'image', url: 'https://x.test/"onerror="alert(1)', alt: '"><script>', children: [t('')] }];
    expect(html(attr)).toBe('<figure><img src="https://x.test/%22onerror=%22alert(1)" alt="&#x22;><script>" fetchpriority="high"></figure>');
  });
});

describe('hostile URLs', () => {
  const hostile = [
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    ' javascript:alert(1)',
    '\tjava\nscript:alert(1)',
    'java\u0000script:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'data:image/png;base64,AAAA',
    'vbscript:msgbox(1)',
    '//evil.example.test/x',
    '/\\evil.example.test',
    'file:///etc/passwd',
    'https://exa mple.test',
    '',
    'relative/path',
  ];
  it.each(hostile)('%j is neither a link nor an image', (url) => {
    expect(safeLinkUrl(url)).toBeUndefined();
    expect(safeImageUrl(url)).toBeUndefined();
    expect(html([p({ type: 'link', url, children: [t('text')] })])).toBe('<p>text</p>');
    expect(md([p({ type: 'link', url, children: [t('text')] })])).toBe('text\n');
    expect(html([{ type: 'image', url, alt: 'a', children: [t('')] }])).toBe('');
  });

  it('allows http, https, mailto (links only) and single-slash paths', () => {
    expect(safeLinkUrl('https://example.test/a b'.replace(' ', '%20'))).toBe('https://example.test/a%20b');
    expect(safeLinkUrl('HTTP://EXAMPLE.TEST')).toBe('http://example.test/');
    expect(safeLinkUrl('mailto:a@b.test')).toBe('mailto:a@b.test');
    expect(safeImageUrl('mailto:a@b.test')).toBeUndefined();
    expect(safeLinkUrl('/campaigns/a')).toBe('/campaigns/a');
    expect(safeLinkUrl(42)).toBeUndefined();
  });
});

describe('conventions and references', () => {
  it('segments text into literal text, slug mentions and images', () => {
    expect(segmentText('a [[thing#bob]] b ![l](/x.png) [[npc#x]] [[thing#Bad]]')).toEqual([
      { kind: 'text', text: 'a ' },
      { kind: 'slug-mention', target: 'thing', slug: 'bob', source: '[[thing#bob]]' },
      { kind: 'text', text: ' b ' },
      { kind: 'image', label: 'l', url: '/x.png' },
      { kind: 'text', text: ' [[npc#x]] [[thing#Bad]]' },
    ]);
  });

  it('rewrites only the named slug of the named kind', () => {
    expect(rewriteSlugLinks('[[thing#bob]] [[arc#bob]] [[thing#bobby]] [[thing#bob]]', 'thing', 'bob', 'robert')).toBe(
      '[[thing#robert]] [[arc#bob]] [[thing#bobby]] [[thing#robert]]',
    );
    const same = 'nothing here';
    expect(rewriteSlugLinks(same, 'thing', 'bob', 'robert')).toBe(same);
  });

  it('rewrites slug links in a whole field, but not inside code', () => {
    const value = [p(t('[[thing#bob]]'), t('[[thing#bob]]', { code: true })), { type: 'code-block', children: [t('[[thing#bob]]')] }];
    expect(rewriteMentionSlugs(value as RichText, 'thing', 'bob', 'robert')).toEqual([
      p(t('[[thing#robert]]'), t('[[thing#bob]]', { code: true })),
      { type: 'code-block', children: [t('[[thing#bob]]')] },
    ]);
    expect(rewriteMentionSlugs(value as RichText, 'arc', 'bob', 'robert')).toBeUndefined();
  });

  it('lists mentions by id and by slug, marking those only inside secrets', () => {
    const value = [
      p({ type: 'mention', targetType: 'thing', targetId: 3, children: [t('')] }, t(' [[arc#x]]')),
      { type: 'paragraph', isSecret: true, children: [t('[[thing#hidden]] [[arc#x]]'), { type: 'mention', targetType: 'arc', targetId: 9, children: [t('')] }] },
    ];
    const mentions = mentionsOf(value as RichText);
    expect(mentions).toEqual(
      expect.arrayContaining([
        { target: 'thing', id: 3, slug: undefined, secret: false },
        { target: 'arc', id: undefined, slug: 'x', secret: false },
        { target: 'thing', id: undefined, slug: 'hidden', secret: true },
        { target: 'arc', id: 9, slug: undefined, secret: true },
      ]),
    );
    expect(mentions).toHaveLength(4);
    const refs = collectReferences([{ type: 'image', assetId: 7, url: '/a', children: [t('')] }] as RichText, collectReferences(value as RichText, emptyReferences()));
    expect([...refs.thingIds]).toEqual([3]);
    expect([...refs.arcSlugs]).toEqual(['x']);
    expect([...refs.assetIds]).toEqual([7]);
  });
});
