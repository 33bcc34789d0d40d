import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  SLUG_MAX_LENGTH,
  isValidSlug,
  nextFreeSlug,
  randomSlugSuffix,
  slugifyName,
  withSuffix,
} from '../../src/domain/slugs.js';

const validSlug = fc
  .stringMatching(/^[a-z0-9]{1,12}(?:-[a-z0-9]{1,12}){0,10}$/)
  .filter((s) => s.length <= SLUG_MAX_LENGTH);

// Names that look like slugs: the slug alphabet plus capitals, separators and runs of hyphens.
const slugLikeUnit = fc.constantFrom(...'abcxyzABCXYZ0189-_ .é'.split(''));
const slugLikeName = fc.string({ unit: slugLikeUnit, maxLength: 160 });
// Long enough that the cut at SLUG_MAX_LENGTH is exercised on every run of this arbitrary.
const longName = fc.string({ unit: slugLikeUnit, minLength: 90, maxLength: 400 });

const anyName = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }), // full Unicode, lone surrogates included
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc.string({ maxLength: 200 }),
  slugLikeName,
  longName,
  validSlug,
);

describe('isValidSlug', () => {
  it.each(['a', '0', 'abc', 'a-b', 'emile-zola', 'x1-2-3', 'a'.repeat(SLUG_MAX_LENGTH)])('accepts %j', (slug) => {
    expect(isValidSlug(slug)).toBe(true);
  });

  it.each([
    '',
    'A',
    'Abc',
    'a--b',
    '-a',
    'a-',
    '-',
    'a_b',
    'a b',
    'é',
    'a\n',
    'a'.repeat(SLUG_MAX_LENGTH + 1),
  ])('rejects %j', (slug) => {
    expect(isValidSlug(slug)).toBe(false);
  });
});

describe('slugifyName', () => {
  it.each([
    ['Émile Zola', 'emile-zola'],
    ['Straße', 'strasse'],
    ['Mädchen', 'maedchen'],
    ['McDonald', 'mcdonald'],
    ['fooBar', 'foobar'],
    ['Москва', 'moskva'],
    ['Αθήνα', 'athina'],
    ['  Hello,   World!  ', 'hello-world'],
    ['The Goblin King (Act II)', 'the-goblin-king-act-ii'],
    ['a--b__c', 'a-b-c'],
    ['ﬁne ｆｕｌｌ', 'fine-full'],
    ['Dungeons & Dragons', 'dungeons-and-dragons'],
    ['already-a-slug', 'already-a-slug'],
  ])('%j → %j', (name, slug) => {
    expect(slugifyName(name)).toBe(slug);
  });

  it.each(['', '   ', '!!!', '*** ### ***', '%$#@', '東京', '北京市', '—'])('leaves nothing of %j', (name) => {
    expect(slugifyName(name)).toBe('');
  });

  it('copes with NUL, lone surrogates and emoji', () => {
    expect(slugifyName('a\u0000b')).toBe('a-b');
    expect(slugifyName('\uD800x\uDC00y')).toBe('x-y');
    expect(slugifyName('\uDFFF')).toBe('');
    expect(slugifyName('🐉 Dragon 👑')).toBe('dragon');
  });

  it('truncates to the maximum length without leaving a trailing hyphen', () => {
    const long = `${'a'.repeat(SLUG_MAX_LENGTH - 1)} bcd`;
    expect(slugifyName(long)).toBe('a'.repeat(SLUG_MAX_LENGTH - 1));
    expect(slugifyName('word '.repeat(2_000))).toHaveLength(99);
    expect(isValidSlug(slugifyName('word '.repeat(2_000)))).toBe(true);
  });

  it('handles 10,000-character names', () => {
    for (const name of ['x'.repeat(10_000), '-'.repeat(10_000), 'é!'.repeat(5_000), '東'.repeat(10_000)]) {
      const slug = slugifyName(name);
      expect(slug === '' || isValidSlug(slug)).toBe(true);
    }
  });

  it('always returns an empty string or a valid slug', () => {
    fc.assert(
      fc.property(anyName, (name) => {
        const slug = slugifyName(name);
        expect(slug === '' || isValidSlug(slug)).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(anyName, (name) => {
        const once = slugifyName(name);
        expect(slugifyName(once)).toBe(once);
      }),
      { numRuns: 2_000 },
    );
  });

  it('keeps a valid slug as it is', () => {
    fc.assert(
      fc.property(validSlug, (slug) => {
        expect(slugifyName(slug)).toBe(slug);
      }),
    );
  });
});

describe('withSuffix', () => {
  it('joins base and suffix with a hyphen', () => {
    expect(withSuffix('goblin', '2')).toBe('goblin-2');
    expect(withSuffix('my-campaign', 'x7k2qa')).toBe('my-campaign-x7k2qa');
  });

  it('truncates the base so the result fits, trimming a hyphen at the cut', () => {
    const base = 'a'.repeat(SLUG_MAX_LENGTH);
    expect(withSuffix(base, '12')).toBe(`${'a'.repeat(SLUG_MAX_LENGTH - 3)}-12`);
    // The cut for a 2-character suffix falls right after the hyphen at index 96.
    const hyphenAtCut = `${'b'.repeat(96)}-${'c'.repeat(3)}`;
    const joined = withSuffix(hyphenAtCut, '12');
    expect(joined).toBe(`${'b'.repeat(96)}-12`);
    expect(isValidSlug(joined)).toBe(true);
  });

  it('slugifies a base that is not a slug and falls back to the suffix when nothing is left', () => {
    expect(withSuffix('Goblin King', '3')).toBe('goblin-king-3');
    expect(withSuffix('!!!', '3')).toBe('3');
    expect(withSuffix('', 'thing-12')).toBe('thing-12');
  });

  it('refuses a suffix that is not a short slug', () => {
    expect(() => withSuffix('a', '')).toThrow(RangeError);
    expect(() => withSuffix('a', 'A')).toThrow(RangeError);
    expect(() => withSuffix('a', '-2')).toThrow(RangeError);
    expect(() => withSuffix('a', 'x'.repeat(SLUG_MAX_LENGTH - 1))).toThrow(RangeError);
    expect(withSuffix('a', 'x'.repeat(SLUG_MAX_LENGTH - 2))).toBe(`a-${'x'.repeat(SLUG_MAX_LENGTH - 2)}`);
  });

  it('always gives a valid slug ending in the suffix', () => {
    const shortSuffix = validSlug.filter((s) => s.length <= SLUG_MAX_LENGTH - 2);
    fc.assert(
      fc.property(anyName, shortSuffix, (base, suffix) => {
        const result = withSuffix(base, suffix);
        expect(isValidSlug(result)).toBe(true);
        expect(result === suffix || result.endsWith(`-${suffix}`)).toBe(true);
      }),
      { numRuns: 1_000 },
    );
  });
});

describe('nextFreeSlug', () => {
  it('takes the base when it is free', () => {
    expect(nextFreeSlug('goblin', [])).toBe('goblin');
    expect(nextFreeSlug('goblin', ['goblin-2', 'orc'])).toBe('goblin');
  });

  it('takes the lowest free counter', () => {
    expect(nextFreeSlug('goblin', ['goblin'])).toBe('goblin-2');
    expect(nextFreeSlug('goblin', ['goblin', 'goblin-2'])).toBe('goblin-3');
    expect(nextFreeSlug('goblin', ['goblin', 'goblin-3'])).toBe('goblin-2');
    const many = ['goblin', ...Array.from({ length: 98 }, (_, i) => `goblin-${i + 2}`)];
    expect(nextFreeSlug('goblin', many)).toBe('goblin-100');
  });

  it('accepts any iterable, such as a generator', () => {
    function* taken(): Generator<string> {
      yield 'goblin';
      yield 'goblin-2';
    }
    expect(nextFreeSlug('goblin', taken())).toBe('goblin-3');
    expect(nextFreeSlug('goblin', new Set(['goblin']))).toBe('goblin-2');
  });

  it('keeps a counter on a maximum-length base within the limit', () => {
    const base = 'a'.repeat(SLUG_MAX_LENGTH);
    expect(nextFreeSlug(base, [base])).toBe(`${'a'.repeat(SLUG_MAX_LENGTH - 2)}-2`);
  });

  it('slugifies its base and refuses one that leaves nothing', () => {
    expect(nextFreeSlug('Goblin King', ['goblin-king'])).toBe('goblin-king-2');
    expect(() => nextFreeSlug('!!!', [])).toThrow(RangeError);
  });

  it('always gives a valid slug that is not taken, the lowest such one', () => {
    const scenario = validSlug.chain((base) =>
      fc.tuple(
        fc.constant(base),
        fc.array(
          fc.oneof(
            fc.constant(base),
            fc.integer({ min: 2, max: 30 }).map((n) => withSuffix(base, String(n))),
            validSlug,
          ),
          { maxLength: 40 },
        ),
      ),
    );
    fc.assert(
      fc.property(scenario, ([base, taken]) => {
        const result = nextFreeSlug(base, taken);
        expect(isValidSlug(result)).toBe(true);
        expect(taken).not.toContain(result);
        if (result !== base) {
          expect(taken).toContain(base);
          const counter = Number(result.slice(result.lastIndexOf('-') + 1));
          for (let n = 2; n < counter; n += 1) expect(taken).toContain(withSuffix(base, String(n)));
        }
      }),
      { numRuns: 1_000 },
    );
  });
});

describe('randomSlugSuffix', () => {
  it('is six lowercase letters or digits, a valid slug on its own', () => {
    for (let i = 0; i < 200; i += 1) {
      const suffix = randomSlugSuffix();
      expect(suffix).toMatch(/^[a-z0-9]{6}$/);
      expect(isValidSlug(suffix)).toBe(true);
    }
  });

  it('varies from call to call', () => {
    // 36^6 possible values: even one repeat in 200 draws is a one-in-100,000 event.
    const drawn = new Set(Array.from({ length: 200 }, () => randomSlugSuffix()));
    expect(drawn.size).toBeGreaterThanOrEqual(199);
  });
});
