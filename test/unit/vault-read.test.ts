import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RICH_TEXT_MAX_BYTES, type RichTextBlock } from '../../src/domain/rich-text.js';
import { ImportBudget } from '../../src/portability/budget.js';
import { isTemplatesFolder } from '../../src/portability/vault/layout.js';
import { inlineTags, planFromVault } from '../../src/portability/vault/read.js';
import { MARKDOWN_CHUNK, markdownChunks, splitBlocks } from '../../src/portability/vault/split.js';
import { redactNodes } from '../../src/vocabulary/index.js';
import { flowItems, forgivingFrontMatter } from '../../src/portability/vault/yaml.js';
import { openZip } from '../../src/portability/zip.js';
import { zipOf } from '../support/zip.js';

// The vault reader's parts that need no database (src/portability/vault/): the forgiving front
// matter reader, inline tags, templates folders, long notes cut without losing a character, and the
// progress a vault's reading reports.

describe('forgiving front matter', () => {
  it('reads what Obsidian opens and strict YAML refuses', () => {
    const laiba = forgivingFrontMatter('aliases: ["Laiba "Nana" Rosse", \'O\'\'Neil\', [[Home]]]\ntags:\n  - noble\n\t- spy\nlevel: 3\nalive: true\nnothing:\nnote: text # a comment\nstray line\nplace:\n  city: Waterdeep');
    expect(laiba.problem).toMatch(/^the front matter is not valid YAML \(.+\): read line by line as Obsidian shows it \(1 line left out\)$/);
    expect(laiba.meta).toEqual({ aliases: ['Laiba "Nana" Rosse', "O'Neil", '[[Home]]'], tags: ['noble', 'spy'], level: 3, alive: true, nothing: null, note: 'text', place: { city: 'Waterdeep' } });
    expect(laiba.entries.map(([key]) => key)).toEqual(['aliases', 'tags', 'level', 'alive', 'nothing', 'note', 'place']);
  });

  it('keeps the last of repeated keys, and valid YAML as it is', () => {
    expect(forgivingFrontMatter('a: 1\na: 2').meta).toEqual({ a: 2 });
    expect(forgivingFrontMatter('a: 1\nb: [x, y]')).toEqual({ meta: { a: 1, b: ['x', 'y'] }, entries: [['a', 1], ['b', ['x', 'y']]] });
    expect(forgivingFrontMatter(': :\n[[[\n{').meta).toEqual({});
  });

  it('splits flow lists at commas outside quotes and wikilinks', () => {
    expect(flowItems('"a, b" , c,[[d, e]], "x "y" z"')).toEqual(['"a, b"', 'c', '[[d, e]]', '"x "y" z"']);
  });

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', ':', ' ', '\t', '\n', '-', '"', "'", '[', ']', '{', '}', ',', '#', '|', '>') }), (text) => {
        const read = forgivingFrontMatter(text);
        expect(typeof read.meta).toBe('object');
      }),
    );
  });
});

describe('inline tags', () => {
  const p = (...children: unknown[]) => ({ type: 'paragraph', children }) as RichTextBlock;
  it('are Obsidian’s: after a space, at least one character not a digit; not in code, links, mentions or secrets', () => {
    expect(
      inlineTags([
        p({ text: '#start and #nested/tag, #123 #1a a#b (#paren) #ünïcode #end/' }),
        p({ text: '#code', code: true }, { text: ' ' }, { type: 'link', url: 'x', children: [{ text: '#linked' }] }),
        { type: 'code-block', children: [{ text: '#block' }] },
        { type: 'paragraph', isSecret: true, children: [{ text: '#hidden' }] },
        { type: 'bulleted-list', children: [{ type: 'list-item', children: [{ text: 'item #listed' }] }] },
      ]),
    ).toEqual(['start', 'nested/tag', '1a', 'ünïcode', 'end', 'listed']);
  });
});

describe('templates folders', () => {
  it('are recognised by name however they are prefixed', () => {
    for (const name of ['templates', 'Templates', '_templates', 'z_Templates', '99 - Templates', '00_template', 'TEMPLATE']) expect(isTemplatesFolder(name), name).toBe(true);
    for (const name of ['Template Notes', 'NPCs', 'temple', 'my templates']) expect(isTemplatesFolder(name), name).toBe(false);
  });
});

describe('long notes', () => {
  it('Markdown is cut in pieces of at most the size asked, which joined are the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'é', '😀', ' ', '\n', '\n\n', '```\n', 'word '), maxLength: 400 }), fc.integer({ min: 8, max: 64 }), (text, max) => {
        const pieces = markdownChunks(text, max);
        expect(pieces.join('')).toBe(text);
        for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(max);
      }),
    );
  });

  it('rich text is cut in parts of at most the bytes asked, every character kept in order', () => {
    const leaf = fc.record({ text: fc.string({ unit: fc.constantFrom('a', 'é', '😀', ' ', '"', '\n'), maxLength: 60 }), bold: fc.boolean() });
    const block = fc.oneof(
      fc.array(leaf, { minLength: 1, maxLength: 4 }).map((children) => ({ type: 'paragraph', children })),
      fc.array(fc.array(leaf, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }).map((items) => ({ type: 'bulleted-list', children: items.map((children) => ({ type: 'list-item', children })) })),
    );
    const text = (nodes: unknown[]): string => nodes.map((n) => ((n as { text?: string }).text ?? text((n as { children: unknown[] }).children))).join('');
    fc.assert(
      fc.property(fc.array(block, { minLength: 1, maxLength: 8 }), fc.integer({ min: 300, max: 800 }), fc.integer({ min: 8, max: 400 }), (blocks, max, fillMin) => {
        const parts = splitBlocks(blocks, max, fillMin);
        for (const part of parts) expect(Buffer.byteLength(JSON.stringify(part))).toBeLessThanOrEqual(max);
        expect(parts.map((part) => text(part)).join('')).toBe(text(blocks));
      }),
    );
  });
});

describe('reading a vault', () => {
  it('reports its progress: one step per note, all done', async () => {
    const file = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'vault-read-')), 'v.zip');
    await fs.writeFile(file, await zipOf([{ name: 'A/one.md', data: 'One #tag' }, { name: 'B/two.md', data: '[[one]]' }, { name: 'Templates/t.md', data: 'x' }, { name: 'three.md', data: 'x'.repeat(2 * RICH_TEXT_MAX_BYTES) }]));
    const opened = await openZip(file, 'v.zip', () => Number.POSITIVE_INFINITY);
    try {
      const budget = new ImportBudget(Number.POSITIVE_INFINITY);
      const seen: string[] = [];
      budget.onProgress = (progress) => seen.push(`${progress.done}/${progress.total}`);
      const plan = await planFromVault(opened, 'v', budget);
      expect(seen).toEqual(['0/3', '1/3', '2/3', '3/3']);
      expect(plan.things.map((t) => [t.name, t.tags])).toEqual([
        ['one', ['tag']],
        ['two', []],
        ['three', []],
        ['three (continued 2)', []],
        ['three (continued 3)', []],
      ]);
      expect(plan.warnings.map((w) => w.entry)).toEqual(['Templates/t.md', 'three.md']);
    } finally {
      opened.close();
      await fs.rm(path.dirname(file), { recursive: true, force: true });
    }
  });
});

/** A vault from elsewhere read into a plan. */
async function planOf(files: { name: string; data: string }[]) {
  const file = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'vault-read-')), 'v.zip');
  await fs.writeFile(file, await zipOf(files));
  const opened = await openZip(file, 'v.zip', () => Number.POSITIVE_INFINITY);
  try {
    return await planFromVault(opened, 'v', new ImportBudget(Number.POSITIVE_INFINITY));
  } finally {
    opened.close();
    await fs.rm(path.dirname(file), { recursive: true, force: true });
  }
}

/** What a player reads of every thing of a plan, and every tag (tags are shown to players). */
function playerView(plan: Awaited<ReturnType<typeof planOf>>): string {
  return JSON.stringify(plan.things.map((thing) => [thing.name, thing.tags, redactNodes(thing.description)]));
}

/** The words of `pattern` in a text, each with a little of what surrounds it (a short failure message). */
function found(text: string, pattern: RegExp): string[] {
  return [...text.matchAll(new RegExp(pattern.source, 'g'))].map((match) => text.slice(Math.max(0, match.index - 30), match.index + 30));
}

describe('secrets on the fallback paths of a note from elsewhere', () => {
  it.each([
    ['%%', '%%'],
    ['<!--', '-->'],
  ])('a comment (%s) across the cut of a long note stays secret to its end, and the text after it is shown', async (open, close) => {
    const visible = Array.from({ length: 1950 }, (_, i) => `Visible paragraph ${i} ${'v'.repeat(76)}`).join('\n\n');
    const secrets = Array.from({ length: 200 }, (_, i) => `SECRETLINE${i}`).join('\n\n');
    const note = `${visible}\n\n${open}\n${secrets}\n${close}\n\nAfter the comment.\n\nThe end.`;
    expect(note.indexOf(open)).toBeLessThan(MARKDOWN_CHUNK);
    expect(note.lastIndexOf(close)).toBeGreaterThan(MARKDOWN_CHUNK);
    const plan = await planOf([{ name: 'Long.md', data: note }]);
    const shown = playerView(plan);
    expect(found(shown, /SECRETLINE/)).toEqual([]);
    expect(shown).toContain('After the comment.');
    expect(shown).toContain('The end.');
    const all = JSON.stringify(plan.things.map((thing) => thing.description));
    for (const i of [0, 57, 199]) expect(all).toContain(`"SECRETLINE${i}"`);
  });

  it('a comment across a cut inside a line with no blank line stays secret', async () => {
    const note = `${'word '.repeat(MARKDOWN_CHUNK / 5 - 10)}%% HIDDENWORD ${'hidden '.repeat(200)} %% shown ${'tail '.repeat(100)}`;
    const shown = playerView(await planOf([{ name: 'Line.md', data: note }]));
    expect(found(shown, /HIDDENWORD|hidden/)).toEqual([]);
    expect(shown).toContain('shown');
  });

  it('a note failing the structural check keeps its secrets secret as plain paragraphs', async () => {
    // A quote holding 6 nested list levels whose last item is loose with a link: deeper than rich text nests.
    let nested = '';
    for (let level = 0; level < 6; level++) nested += `${'  '.repeat(level)}- level ${level}\n`;
    nested += `${'  '.repeat(6)}- [a link](https://example.com) item\n\n${'  '.repeat(6)}  loose\n`;
    const quote = nested
      .split('\n')
      .map((line) => `> ${line}`)
      .join('\n');
    const note = `%% DUKE is the killer #murder %%\n\nVisible words, and [[Other|the VAMPIRE]].\n\n> [!secret]\n> The COUNT hides. #count\n\nThe <span class="secret">BARON</span> waits.\n\n${quote}\n`;
    const plan = await planOf([
      { name: 'Deep.md', data: note },
      { name: 'Other.md', data: 'x' },
    ]);
    expect(plan.warnings.map((w) => w.problem).join('\n')).toMatch(/kept as plain paragraphs/);
    const shown = playerView(plan);
    expect(found(shown, /DUKE|COUNT|BARON|murder|count/)).toEqual([]);
    expect(shown).toContain('Visible words, and ');
    const deep = plan.things.find((thing) => thing.name === 'Deep')!;
    expect(deep.description).toContainEqual({ type: 'paragraph', isSecret: true, children: [{ text: 'DUKE is the killer #murder' }] });
    expect(deep.tags).toEqual([]);
    // A mention stays a mention (a player's view removes one of a hidden record, its label too).
    const other = plan.things.find((thing) => thing.name === 'Other')!;
    expect(deep.description).toContainEqual({ type: 'paragraph', children: [{ text: 'Visible words, and ' }, { type: 'mention', targetType: 'thing', targetId: other.key, children: [{ text: 'the VAMPIRE' }] }, { text: '.' }] });
  });

  it('Markdown nested thousands deep keeps its comments and secret callouts secret, and gives no tags from them', async () => {
    const note = `%% DUKE #murder %%\n\n> [!secret]\n> The COUNT #count\n\nSeen #seen\n\n${'>'.repeat(3000)} z\n`;
    const plan = await planOf([{ name: 'Deep.md', data: note }]);
    const shown = playerView(plan);
    expect(found(shown, /DUKE|COUNT|murder|count/)).toEqual([]);
    expect(shown).toContain('Seen');
    const deep = plan.things.find((thing) => thing.name === 'Deep')!;
    expect(deep.tags).toEqual(['seen']);
    expect(JSON.stringify(deep.description)).toContain('DUKE');
  });
});
