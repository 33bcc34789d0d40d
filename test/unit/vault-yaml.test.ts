import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flowItems, forgivingFrontMatter, pairOf, scalar } from '../../src/portability/vault/yaml.js';

// The forgiving front matter reader (src/portability/vault/yaml.ts) on hostile lines: a line of
// tens of thousands of blanks without a colon, a list item or a value with a line break inside, a
// flow list nested thousands deep. Its first version read lines with regular expressions that
// backtrack (`[^:]*?[ \t]*:`, `[ \t]+#.*$`): a second and more per such note, on the main thread.
// Now each line is read by index: the same readings (against those expressions, below), and the
// hostile lines read as they should.

const BROKEN = 'k: [unclosed\n'; // strict YAML refuses it: what follows is read line by line
const blanks = (n: number) => ' '.repeat(n);
/** Long strings compared without printing them. */
const same = (actual: unknown, expected: string) => expect(actual === expected, `${String(actual).slice(0, 20)}… (${String(actual).length}) is ${expected.slice(0, 20)}… (${expected.length})`).toBe(true);

describe('hostile front matter', () => {
  it('a long line without a colon is a stray line, left out', () => {
    const read = forgivingFrontMatter(`${BROKEN}a${blanks(300_000)}b\nafter: 1`);
    expect(read.meta).toEqual({ k: '[unclosed', after: 1 });
    expect(read.problem).toMatch(/: read line by line as Obsidian shows it \(1 line left out\)$/);
  });

  it('a key after a long run of blanks, a value after a long run of blanks', () => {
    expect(forgivingFrontMatter(`${BROKEN}key${blanks(300_000)}:${blanks(300_000)}value`).meta).toEqual({ k: '[unclosed', key: 'value' });
    expect(forgivingFrontMatter(`${BROKEN}key:${blanks(300_000)}`).meta).toEqual({ k: '[unclosed', key: null });
  });

  it('a value with a long run of blanks keeps them; a comment after them is cut', () => {
    same(forgivingFrontMatter(`${BROKEN}v: a${blanks(300_000)}b`).meta.v, `a${blanks(300_000)}b`);
    expect(forgivingFrontMatter(`${BROKEN}v: a${blanks(300_000)}# note`).meta.v).toBe('a');
    expect(forgivingFrontMatter(`${BROKEN}v: a${' #'.repeat(100_000)}`).meta.v).toBe('a');
    // A value the line reader gives holds no line break; `scalar` alone may be given one.
    same(scalar(`a${'\t#x'.repeat(100_000)}\rb #c`), `a${'\t#x'.repeat(100_000)}\rb`);
    same(scalar(`a #${'\t#x'.repeat(100_000)}\u2028b`), `a #${'\t#x'.repeat(100_000)}\u2028b`);
  });

  it('an item or a value with a line break inside (a lone CR, U+2028) after long blanks is left out', () => {
    const read = forgivingFrontMatter(`${BROKEN}list:\n-${blanks(300_000)}a\u2028b\n- c\nv:${blanks(300_000)}a\rb`);
    expect(read.meta).toEqual({ k: '[unclosed', list: ['c'] });
    expect(read.problem).toMatch(/\(2 lines left out\)$/);
  });

  it('a flow list nested thousands deep is read to FLOW_DEPTH_MAX levels, the rest kept as text, without exhausting the stack', () => {
    let value = forgivingFrontMatter(`${BROKEN}v: ${'['.repeat(50_000)}x${']'.repeat(50_000)}`).meta.v;
    for (let depth = 0; depth < 32; depth++) {
      expect(Array.isArray(value), `level ${depth}`).toBe(true);
      expect(value).toHaveLength(1);
      value = (value as unknown[])[0];
    }
    same(value, `${'['.repeat(50_000 - 32)}x${']'.repeat(50_000 - 32)}`);
  });

  it('keys in quotes may hold colons; quoted keys lose their quotes', () => {
    expect(forgivingFrontMatter(`${BROKEN}"a:b": c\n'x:y' : d: e\n"q": 1\n'x: y'`).meta).toEqual({ k: '[unclosed', 'a:b': 'c', 'x:y': 'd: e', q: 1, "'x": "y'" });
  });
});

// The line reader's first version, as it was: its readings are the ones to keep.
const PAIR = /^([^\s#\-[{:][^:]*?|"[^"]*"|'[^']*')[ \t]*:(?:[ \t]+(.*))?$/;
function oldScalar(raw: string): unknown {
  let value = raw.trim();
  if (value === '') return null;
  const quote = value[0];
  if ((quote === '"' || quote === "'") && value.length >= 2 && value.endsWith(quote)) {
    const inner = value.slice(1, -1);
    return quote === '"' ? inner.replace(/\\(["\\])/g, '$1') : inner.replaceAll("''", "'");
  }
  if (value.startsWith('[') && value.endsWith(']') && !/^\[\[[^[\]]*\]\]$/.test(value)) return flowItems(value.slice(1, -1)).map(oldScalar);
  value = value.replace(/[ \t]+#.*$/, '');
  if (/^(?:~|null)$/i.test(value)) return null;
  if (/^true$/i.test(value)) return true;
  if (/^false$/i.test(value)) return false;
  if (/^[-+]?(?:\d+|\d*\.\d+)(?:[eE][-+]?\d+)?$/.test(value)) return Number(value);
  return value;
}
const oldUnquote = (key: string) => (/^(["']).*\1$/.test(key) ? key.slice(1, -1) : key);

// Lines of the characters YAML gives meaning to, blanks and line breaks a line can still hold.
const line = fc.string({ unit: fc.constantFrom('a', 'B', '1', '.', 'e', ':', ' ', '\t', '#', '-', '[', ']', '{', '"', "'", ',', '\\', '\r', '\u2028', '\u00a0', '~', 'null', 'true'), maxLength: 24 });

describe('the line reader', () => {
  it('splits `key: value` as the first version did', () => {
    fc.assert(
      fc.property(line, (text) => {
        const trimmed = text.trim();
        const old = PAIR.exec(trimmed);
        const pair = pairOf(trimmed);
        expect(pair && { key: oldUnquote(pair.key), value: pair.value }).toEqual(old ? { key: oldUnquote(old[1]!), value: old[2] } : undefined);
      }),
      { numRuns: 3000 },
    );
  });

  it('types values as the first version did', () => {
    fc.assert(
      fc.property(line, (text) => {
        expect(scalar(text)).toEqual(oldScalar(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('reads whole front matter as the first version did', () => {
    // The first version's line reader, through the same steps: a strict YAML error first.
    const ITEM = /^-(?:[ \t]+(.*))?$/;
    const oldLines = (text: string) => {
      const map = new Map<string, unknown>();
      let open: string | undefined;
      for (const raw of text.split(/\r?\n/)) {
        const trimmed = raw.trim();
        if (trimmed === '' || trimmed.startsWith('#')) continue;
        const indented = /^\s/.test(raw);
        const item = ITEM.exec(trimmed);
        if (item && open !== undefined) {
          const current = map.get(open);
          map.set(open, [...(Array.isArray(current) ? current : []), oldScalar(item[1] ?? '')]);
          continue;
        }
        const pair = PAIR.exec(trimmed);
        if (pair && indented && open !== undefined) {
          const current = map.get(open);
          const nested = current instanceof Map ? current : new Map<string, unknown>();
          nested.set(oldUnquote(pair[1]!), oldScalar(pair[2] ?? ''));
          map.set(open, nested);
          continue;
        }
        if (pair && !indented) {
          const key = oldUnquote(pair[1]!);
          const value = pair[2]?.trim() ?? '';
          map.set(key, oldScalar(value));
          open = value === '' ? key : undefined;
        }
      }
      return map;
    };
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('', '  ', '\t', '- ', 'key: ', 'k: [', 'k:'), line), { maxLength: 8 }), (lines) => {
        const text = `${BROKEN}${lines.map(([start, rest]) => start + rest).join('\n')}`;
        const read = forgivingFrontMatter(text);
        if (read.problem === undefined || /with repeated keys/.test(read.problem)) return; // read as YAML after all
        expect(new Map(read.entries)).toEqual(oldLines(text.replace(/^[ \t]+/gm, (indent) => indent.replaceAll('\t', '  '))));
      }),
      { numRuns: 1000 },
    );
  });
});
