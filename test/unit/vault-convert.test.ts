import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { validateRichText, type RichTextBlock, type RichTextNode } from '../../src/domain/rich-text.js';
import { MarkdownParser } from '../../src/portability/markdown.js';
import { Converter, toBlocks, type Target } from '../../src/portability/vault/convert.js';
import { plainBlocksOf } from '../../src/portability/vault/nodes.js';
import { redactNodes, walkWithSecrecy } from '../../src/vocabulary/index.js';
import { cell, mention, p, t } from '../fixtures/rich-text.js';

// A vault's Markdown as Obsidian users write it (CONTRACT "Import from elsewhere"), parsed by the
// real parser (its worker thread) and converted to rich text: comments as secrets, highlights, tasks,
// callouts, block ids and size hints, images in tables and headings, embeds and labels.

const parser = new MarkdownParser();
afterAll(async () => {
  await parser.close();
});

const TARGETS: Record<string, Target> = {
  bob: { kind: 'thing', key: 2, name: 'Bob' },
  'bob.md': { kind: 'thing', key: 2, name: 'Bob' },
  "drewid 'geoff' barrymore": { kind: 'thing', key: 3, name: "Drewid 'Geoff' Barrymore" },
  'the siege': { kind: 'arc', key: 1, name: 'The Siege' },
  'img.png': { kind: 'image', key: 1 },
  'portrait.jpg': { kind: 'image', key: 2 },
};

async function convert(markdown: string): Promise<RichTextBlock[]> {
  const converter = new Converter((reference) => TARGETS[reference.toLowerCase()], new Map());
  // A generous time allowance: what is tested here is the result, on a machine that may be busy.
  return toBlocks(converter, await parser.parse(markdown, 'note.md', undefined, 60_000), 'note.md');
}

const secret = (block: Record<string, unknown>) => ({ ...block, isSecret: true });
const span = (...children: unknown[]) => ({ type: 'span', isSecret: true, children });
const h = (level: 1 | 2 | 3, ...children: unknown[]) => ({ type: ['heading-one', 'heading-two', 'heading-three'][level - 1], children });
const asset = (assetId: number, alt = '') => ({ type: 'image', assetId, url: '', alt, children: [t('')] });
const item = (children: unknown[], checked?: boolean) => ({ type: 'list-item', ...(checked === undefined ? {} : { checked }), children });
const list = (...items: unknown[]) => ({ type: 'bulleted-list', children: items });

describe('comments become secrets', () => {
  it('a comment standing as its own blocks: each block secret, read as Markdown', async () => {
    const blocks = await convert('Before.\n\n%%\nThe duke is a *doppelganger*.\n\n- He fears fire #secret\n%%\n\nAfter.');
    expect(blocks).toEqual([
      p(t('Before.')),
      secret(p(t('The duke is a '), t('doppelganger', { italic: true }), t('.'))),
      secret(list(item([t('He fears fire #secret')]))),
      p(t('After.')),
    ]);
  });

  it('a comment inside a line: a secret inline element where it was', async () => {
    expect(await convert('The duke %%is a doppelganger%% greets you.')).toEqual([p(t('The duke '), span(t('is a doppelganger')), t(' greets you.'))]);
    expect(await convert('Lines before\n%% between %%\nand after.')).toEqual([p(t('Lines before\n'), span(t('between')), t('\nand after.'))]);
  });

  it('a comment from the middle of a paragraph across two paragraphs: the paragraph split around its secret blocks', async () => {
    expect(await convert('Ask the duke %%he lies.\n\nHe serves Vecna.%% about the ring.')).toEqual([
      p(t('Ask the duke ')),
      secret(p(t('he lies.'))),
      secret(p(t('He serves Vecna.'))),
      p(t(' about the ring.')),
    ]);
  });

  it('%% in inline code and in fenced code is literal', async () => {
    expect(await convert('Type `%%` twice: `%%x%%`.\n\n```\n%% not a comment %%\n```\n\n~~~md\n<!-- nor this -->\n~~~')).toEqual([
      p(t('Type '), t('%%', { code: true }), t(' twice: '), t('%%x%%', { code: true }), t('.')),
      { type: 'code-block', children: [t('%% not a comment %%')] },
      { type: 'code-block', children: [t('<!-- nor this -->')] },
    ]);
  });

  it('%% in indented code, and in code the quick look for code misses, is literal too', async () => {
    expect(await convert('Text.\n\n    %% indented code %%\n\nAfter %%gone%%.')).toEqual([p(t('Text.')), { type: 'code-block', children: [t('%% indented code %%')] }, p(t('After '), span(t('gone')), t('.'))]);
    expect(await convert('A `` code with ` and %% `` and %%hidden%%.')).toEqual([p(t('A '), t('code with ` and %%', { code: true }), t(' and '), span(t('hidden')), t('.'))]);
    expect(await convert('- item\n\n  ```\n  %% fenced in a list %%\n  ```')).toEqual([list(item([p(t('item')), { type: 'code-block', children: [t('%% fenced in a list %%')] }]))]);
  });

  it('a comment holding code ends at the %% after the code', async () => {
    expect(await convert('Seen %% hidden `%%` still hidden %% seen.')).toEqual([p(t('Seen '), span(t('hidden '), t('%%', { code: true }), t(' still hidden')), t(' seen.'))]);
  });

  it('an unclosed %% hides the rest of the note, as Obsidian does', async () => {
    expect(await convert('Visible.\n\n%% From here on\n\n# Still hidden\n\n- also hidden')).toEqual([
      p(t('Visible.')),
      secret(p(t('From here on'))),
      secret(h(1, t('Still hidden'))),
      secret(list(item([t('also hidden')]))),
    ]);
  });

  it('HTML comments, as blocks and inside a line', async () => {
    expect(await convert('<!-- GM: the map is fake.\n\nTwo paragraphs. -->\n\nText <!-- an aside --> more.')).toEqual([
      secret(p(t('GM: the map is fake.'))),
      secret(p(t('Two paragraphs.'))),
      p(t('Text '), span(t('an aside')), t(' more.')),
    ]);
  });

  it('in a table: a cell that is a comment is a secret cell, a comment in a cell a secret span', async () => {
    expect(await convert('| Name | Truth |\n|---|---|\n| Duke | %%a doppelganger%% |\n| Bob | honest %%mostly%% |')).toEqual([
      {
        type: 'table',
        children: [
          { type: 'table-row', children: [cell('Name'), cell('Truth')] },
          { type: 'table-row', children: [cell('Duke'), { type: 'table-cell', isSecret: true, children: [t('a doppelganger')] }] },
          { type: 'table-row', children: [cell('Bob'), { type: 'table-cell', children: [t('honest '), span(t('mostly'))] }] },
        ],
      },
    ]);
  });

  it('in a heading, a list item, a quote and a callout title', async () => {
    expect(await convert('## Plans %%betrayal%%')).toEqual([h(2, t('Plans '), span(t('betrayal')))]);
    expect(await convert('- %%hidden item%%\n- shown')).toEqual([list(item([secret(p(t('hidden item')))]), item([t('shown')]))]);
    expect(await convert('> Quoted %%first line\n> second line%% end')).toEqual([{ type: 'block-quote', children: [p(t('Quoted '), span(t('first line\nsecond line')), t(' end'))] }]);
    expect(await convert('> [!info] The duke %%lies%%\n> Body.')).toEqual([{ type: 'callout', kind: 'info', title: 'The duke', children: [secret(p(t('lies'))), p(t('Body.'))] }]);
  });

  it('in a link that becomes a mention: the label is the visible text, the comment stays secret after it', async () => {
    expect(await convert('See [the duke %%a fake%%](Bob.md).')).toEqual([p(t('See '), mention('thing', 2, 'the duke '), span(t('a fake')), t('.'))]);
  });

  it('our own export’s secrets read back as they are', async () => {
    expect(await convert('> [!secret]\n> GM only.')).toEqual([secret(p(t('GM only.')))]);
    expect(await convert('Shown <span class="secret">hidden</span> shown.')).toEqual([p(t('Shown '), span(t('hidden')), t(' shown.'))]);
    expect(await convert('Kept \\%% literal \\%% text.')).toEqual([p(t('Kept %% literal %% text.'))]);
    expect(await convert('Shown <span class="secret">a ==marked== word</span>.')).toEqual([p(t('Shown '), span(t('a '), t('marked', { highlight: true }), t(' word')), t('.'))]);
    // An image in a secret cell follows the table, secret still.
    expect(await convert('| a |\n|---|\n| <span class="secret">![Map](img.png)</span> |')).toEqual([
      { type: 'table', children: [{ type: 'table-row', children: [cell('a')] }, { type: 'table-row', children: [{ type: 'table-cell', isSecret: true, children: [t('Map')] }] }] },
      secret(asset(1, 'Map')),
    ]);
  });

  it('an image’s alt text in any secret of a vault from elsewhere names no asset (players see labels); in our own export’s secrets it still does', async () => {
    const markdown = '%% ![[img.png|The secret lair]] %%\n\n> [!secret]\n> ![[portrait.jpg|The duke]]\n\nA <span class="secret">![Lich lair](img.png)</span>.\n\n| <span class="secret">![The crypt](portrait.jpg)</span> |\n|---|';
    const elsewhere = new Map<number, string>();
    const blocks = toBlocks(new Converter((reference) => TARGETS[reference.toLowerCase()], elsewhere), await parser.parse(markdown, 'n.md', undefined, 60_000), 'n.md');
    expect(blocks.slice(0, 2)).toEqual([secret(asset(1, 'The secret lair')), secret(asset(2, 'The duke'))]);
    expect(JSON.stringify(blocks)).toContain('Lich lair');
    expect([...elsewhere]).toEqual([]);
    const ours = new Map<number, string>();
    toBlocks(new Converter((reference) => TARGETS[reference.toLowerCase()], ours, true), await parser.parse(markdown, 'n.md', undefined, 60_000), 'n.md');
    expect([...ours]).toEqual([
      [2, 'The duke'],
      [1, 'Lich lair'],
    ]);
  });

  it('the empty comment our export writes between two lists (so they stay two) leaves nothing', async () => {
    expect(await convert('- a\n\n<!---->\n\n- b')).toEqual([list(item([t('a')])), list(item([t('b')]))]);
  });

  it('a comment in the line under an image keeps that line from being taken for its caption', async () => {
    expect(await convert('![Map](img.png)\n\n*The old map %%forged%%*')).toEqual([asset(1, 'Map'), p(t('The old map ', { italic: true }), span(t('forged')))]);
    expect(await convert('![Map](img.png)\n\n*The old map*')).toEqual([{ ...asset(1, 'Map'), caption: 'The old map' }]);
  });
});

describe('the depth guard keeps secrets secret', () => {
  it('a secret callout, a comment and a secret span deeper than rich text nests are secret paragraphs, the rest visible', async () => {
    const bullets = Array.from({ length: 9 }, (_, level) => `${'  '.repeat(level)}- level ${level}`).join('\n');
    const indent = '  '.repeat(9);
    const blocks = await convert(`${bullets}\n${indent}> [!secret]\n${indent}> DUKE is the killer\n\n${indent}Shown %% COUNT %% and <span class="secret">BARON</span>.`);
    const player = JSON.stringify(redactNodes(blocks));
    for (const word of ['DUKE', 'COUNT', 'BARON']) {
      expect(player).not.toContain(word);
      expect(JSON.stringify(blocks)).toContain(word);
    }
    expect(player).toContain('level 8');
    expect(player).toContain('Shown');
    expect(validateRichText(blocks, '')).toEqual([]);
  });

  it('the plain text of a tree of any depth keeps its comments, secret callouts and secret spans in secret paragraphs, in order', () => {
    const text = (value: string) => ({ type: 'text', value });
    const paragraph = (...children: unknown[]) => ({ type: 'paragraph', children });
    const inner = [
      paragraph(text('Shown '), { type: 'html', value: '<span class="secret">' }, text('BARON'), { type: 'html', value: '</span>' }, text(' again.')),
      { type: 'comment', children: [paragraph(text('DUKE #murder'))] },
      { type: 'blockquote', children: [paragraph(text('[!secret]\nThe COUNT'))] },
      { type: 'blockquote', children: [paragraph(text('[!note]\nA note'))] },
    ];
    let tree: Record<string, unknown> = { type: 'blockquote', children: inner };
    for (let level = 0; level < 100_000; level++) tree = { type: 'blockquote', children: [tree] };
    expect(plainBlocksOf([tree as never])).toEqual([
      p(t('Shown ')),
      secret(p(t('BARON'))),
      p(t(' again.')),
      secret(p(t('DUKE #murder'))),
      secret(p(t('[!secret]\nThe COUNT'))),
      p(t('[!note]\nA note')),
    ]);
  });

  it('whatever the nesting, no word of a secret is visible', async () => {
    // Nesting of every kind, and secrets of every kind (a `> [!secret]` callout starts a quote of its own, as Obsidian needs).
    const pieces = fc.constantFrom('- ', '> ', '1. ', '\n', 'word ', '\n\n> [!secret] zq\n\n', '%% zq %%', '<span class="secret">zq</span>', '**', '[a](b) ');
    await fc.assert(
      fc.asyncProperty(fc.array(pieces, { minLength: 20, maxLength: 80 }), async (parts) => {
        const blocks = await convert(parts.join(''));
        expect(JSON.stringify(redactNodes(blocks))).not.toMatch(/zq/);
      }),
      { numRuns: 60 },
    );
  });
});

describe('bounds', () => {
  it('a note of more comments than a thing’s text could hold is refused by the parser before their contents are parsed', async () => {
    await expect(parser.parse('%%a%% '.repeat(60_000), 'many.md')).rejects.toMatchObject({ code: 'invalid_import', message: expect.stringContaining('more than 100000 elements') });
    let everyPrivateCharacter = '';
    for (let code = 0xe000; code <= 0xf8ff; code++) everyPrivateCharacter += String.fromCharCode(code);
    await expect(parser.parse(`${everyPrivateCharacter} %%secret%%`, 'odd.md')).rejects.toMatchObject({ code: 'invalid_import' });
    // The parser is still there for the next note.
    expect(await convert('A %%b%% c')).toEqual([p(t('A '), span(t('b')), t(' c'))]);
  });
});

describe('highlights', () => {
  it('==text== is the highlight mark, with = inside, across emphasis, never in code', async () => {
    expect(await convert('A ==bright== idea.')).toEqual([p(t('A '), t('bright', { highlight: true }), t(' idea.'))]);
    expect(await convert('==a=b== and ==x == y==')).toEqual([p(t('a=b', { highlight: true }), t(' and '), t('x == y', { highlight: true }))]);
    expect(await convert('==one *two* three==')).toEqual([p(t('one ', { highlight: true }), t('two', { highlight: true, italic: true }), t(' three', { highlight: true }))]);
    expect(await convert('*==in emphasis==*')).toEqual([p(t('in emphasis', { highlight: true, italic: true }))]);
    expect(await convert('`==code==` and x == y, ==unpaired, ====')).toEqual([p(t('==code==', { code: true }), t(' and x == y, ==unpaired, ===='))]);
  });
});

describe('tasks', () => {
  it('- [ ] and - [x] are list items with checked; other items have none', async () => {
    expect(await convert('- [ ] Buy rope\n- [x] Find the map\n  - [ ] nested task\n- plain item')).toEqual([
      list(
        item([t('Buy rope')], false),
        item([p(t('Find the map')), list(item([t('nested task')], false))], true),
        item([t('plain item')]),
      ),
    ]);
    expect(await convert('1. [X] done')).toEqual([{ type: 'numbered-list', children: [item([t('done')], true)] }]);
    expect(await convert('- [ ]\n- [x] \n- [y]')).toEqual([list(item([t('')], false), item([t('')], true), item([t('[y]')]))]);
  });
});

describe('callouts', () => {
  it('> [!kind] Title: a callout of that kind (lower case), the title as plain text, the fold marker dropped', async () => {
    expect(await convert('> [!NOTE] About [[Bob|the smith]]\n> He forges *blades*.')).toEqual([
      { type: 'callout', kind: 'note', title: 'About the smith', children: [p(t('He forges '), t('blades', { italic: true }), t('.'))] },
    ]);
    expect(await convert('> [!tip]-\n> Folded, no title.')).toEqual([{ type: 'callout', kind: 'tip', children: [p(t('Folded, no title.'))] }]);
    expect(await convert('> [!warning]+ Watch out')).toEqual([{ type: 'callout', kind: 'warning', title: 'Watch out', children: [p(t(''))] }]);
    expect(await convert('> [!my-Kind] Custom\n>\n> Para one.\n>\n> Para two.')).toEqual([{ type: 'callout', kind: 'my-kind', title: 'Custom', children: [p(t('Para one.')), p(t('Para two.'))] }]);
  });

  it('nested callouts, a callout in a list, and a plain quote', async () => {
    expect(await convert('> [!example] Outer\n> > [!quote] Inner\n> > Words.')).toEqual([
      { type: 'callout', kind: 'example', title: 'Outer', children: [{ type: 'callout', kind: 'quote', title: 'Inner', children: [p(t('Words.'))] }] },
    ]);
    expect(await convert('- Item\n\n  > [!note] In a list\n  > Text.')).toEqual([list(item([p(t('Item')), { type: 'callout', kind: 'note', title: 'In a list', children: [p(t('Text.'))] }]))]);
    expect(await convert('> Just [a quote].')).toEqual([{ type: 'block-quote', children: [p(t('Just [a quote].'))] }]);
  });
});

describe('block ids and size hints', () => {
  it('block ids (^id) at the end of a paragraph, a list item, or alone on a line are dropped', async () => {
    expect(await convert('The duke lies. ^duke-lies\n\n- an item ^item1\n\n| a |\n|---|\n| b |\n\n^table-id\n\nLast line\n^abc-123')).toEqual([
      p(t('The duke lies.')),
      list(item([t('an item')])),
      { type: 'table', children: [{ type: 'table-row', children: [cell('a')] }, { type: 'table-row', children: [cell('b')] }] },
      p(t('Last line')),
    ]);
    expect(await convert('2^10 is big, and so is x^2')).toEqual([p(t('2^10 is big, and so is x^2'))]);
  });

  it('size and layout hints are dropped from images; the alt is what text remains', async () => {
    expect(await convert('![[portrait.jpg|cover hsmall]]')).toEqual([asset(2)]);
    expect(await convert('![[img.png|300]]\n\n![[img.png|300x200]]')).toEqual([asset(1), asset(1)]);
    expect(await convert('![[img.png|The old map|300]]')).toEqual([asset(1, 'The old map')]);
    expect(await convert('![Harbour|300](img.png)')).toEqual([asset(1, 'Harbour')]);
    expect(await convert('![Small boat](https://example.test/boat.png)')).toEqual([{ type: 'image', url: 'https://example.test/boat.png', alt: 'Small boat', children: [t('')] }]);
  });
});

describe('images in tables and headings', () => {
  it('move just after the table or heading; the cell or heading keeps the alt text', async () => {
    expect(await convert('| Portrait | Name |\n|---|---|\n| ![[portrait.jpg\\|hsmall]] | Bob |\n| ![Map\\|200](img.png) | Map |')).toEqual([
      {
        type: 'table',
        children: [
          { type: 'table-row', children: [cell('Portrait'), cell('Name')] },
          { type: 'table-row', children: [cell(''), cell('Bob')] },
          { type: 'table-row', children: [cell('Map'), cell('Map')] },
        ],
      },
      asset(2),
      asset(1, 'Map'),
    ]);
    expect(await convert('# ![[portrait.jpg]] Bob the smith')).toEqual([h(1, t(' Bob the smith')), asset(2)]);
  });
});

describe('embeds and labels', () => {
  it('a note embedded alone on its line is a paragraph of its own holding the mention; inside a line, a mention', async () => {
    expect(await convert('Intro.\n![[Bob]]\nOutro.')).toEqual([p(t('Intro.')), p(mention('thing', 2)), p(t('Outro.'))]);
    expect(await convert('![[The Siege#Day one|the first day]]')).toEqual([p(mention('arc', 1, 'the first day'))]);
    expect(await convert('See ![[Bob]] here.')).toEqual([p(t('See '), mention('thing', 2), t(' here.'))]);
  });

  it('an embed of a file that is neither a note nor an image is its name as text, never an image', async () => {
    expect(await convert('Handout: ![[handout.pdf]] and ![[theme.mp3|the theme]]. ![[Nobody]]')).toEqual([p(t('Handout: '), t('handout.pdf'), t(' and '), t('the theme'), t('. ![[Nobody]]'))]);
  });

  it('a wikilink’s label is kept as the mention’s label', async () => {
    expect(await convert("Met [[Drewid 'Geoff' Barrymore|Rosie]] and [[Bob|Bob]].")).toEqual([p(t('Met '), mention('thing', 3, 'Rosie'), t(' and '), mention('thing', 2), t('.'))]);
  });
});

describe('what our export writes of the new elements reads back into the same shapes', () => {
  it('callouts, highlights and tasks', async () => {
    expect(await convert('> [!warning] Beware\n> The *bridge* is out.\n\nA ==marked== word.\n\n- [ ] open\n- [x] done')).toEqual([
      { type: 'callout', kind: 'warning', title: 'Beware', children: [p(t('The '), t('bridge', { italic: true }), t(' is out.'))] },
      p(t('A '), t('marked', { highlight: true }), t(' word.')),
      list(item([t('open')], false), item([t('done')], true)),
    ]);
  });
});

/** The text of every leaf outside secret elements, and inside them. */
function texts(blocks: RichTextNode[]): { shown: string; hidden: string } {
  let shown = '';
  let hidden = '';
  walkWithSecrecy(blocks, (node, isSecret) => {
    const record = node as Record<string, unknown>;
    const text = typeof record.text === 'string' ? record.text : [record.title, record.alt, record.caption].filter((x) => typeof x === 'string').join(' ');
    if (isSecret) hidden += ` ${text}`;
    else shown += ` ${text}`;
  });
  return { shown, hidden };
}

describe('random notes made of these constructs', () => {
  const word = fc.constantFrom('duke', 'harbour', 'Bob', '*bold*', '==lit==', '`code`', '[[Bob]]', '[[Bob|Rosie]]', '![[img.png|300]]', '![[Bob]]', '^id-1', '#tag', 'x == y', '%', '=', '[!note]', '|');
  const line = fc.array(word, { minLength: 1, maxLength: 6 }).map((words) => words.join(' '));
  let n = 0;
  // Every comment holds one word of its own (zq0, zq1, …) that must never be shown and never be lost.
  const comment = fc.tuple(fc.constantFrom('%%', '<!--'), fc.array(fc.oneof(line, fc.constant('\n\n'), fc.constant('\n- item\n')), { maxLength: 3 }), fc.boolean()).map(([open, inside, inline]) => {
    const secretWord = `zq${(n += 1)}`;
    const close = open === '%%' ? '%%' : '-->';
    return inline ? `${open} ${secretWord} ${inside.join(' ')} ${close}` : `\n\n${open}\n${secretWord}\n${inside.join('\n')}\n${close}\n\n`;
  });
  const piece = fc.oneof(
    { weight: 4, arbitrary: line },
    { weight: 3, arbitrary: comment },
    { weight: 1, arbitrary: line.map((l) => `\n\n# ${l}\n\n`) },
    { weight: 1, arbitrary: line.map((l) => `\n\n> [!tip]- ${l}\n> ${l}\n\n`) },
    { weight: 1, arbitrary: fc.tuple(line, fc.boolean()).map(([l, done]) => `\n\n- [${done ? 'x' : ' '}] ${l}\n  - ${l}\n\n`) },
    { weight: 1, arbitrary: fc.tuple(line, line).map(([a, b]) => `\n\n| a | b |\n|---|---|\n| ${a} | ${b} |\n\n`) },
    { weight: 1, arbitrary: fc.constantFrom('\n\n```\n%% code %%\n```\n\n', '\n', '\n\n', '\n\n---\n\n', ' ') },
  );

  it('convert without throwing to valid rich text that never shows a comment’s words, and loses none', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 12 }), fc.boolean(), async (pieces, unclosed) => {
        // No run of four spaces: it could start an indented code block, where %% is text.
        const markdown = (pieces.join(' ') + (unclosed ? ' %% zqopen the rest' : '')).replace(/ {3,}/g, ' ');
        const blocks = await convert(markdown);
        expect(validateRichText(blocks.length === 0 ? [p(t(''))] : blocks, '')).toEqual([]);
        // What a player reads of it, by the vocabulary's one rule of secrecy.
        expect(JSON.stringify(redactNodes(blocks))).not.toMatch(/zq/);
        const { shown, hidden } = texts(blocks);
        expect(shown).not.toMatch(/zq/);
        for (const secretWord of markdown.match(/zq\w+/g) ?? []) expect(hidden).toContain(secretWord);
      }),
      { numRuns: 150 },
    );
  });
});
