import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { excerptOf, highlightsOf, type WordMatch } from '../../src/search/excerpt.js';
import { parseSearchParams } from '../../src/search/params.js';
import {
  analyzeQuery,
  expandQuery,
  MAX_QUERY_TERMS,
  prefixUpperBound,
  pruneCommonExpansions,
  vocabularyProbe,
  type Expansion,
} from '../../src/search/query.js';
import { presentedScore, tierOf, type RankKeys } from '../../src/search/ranking.js';

describe('parseSearchParams', () => {
  it('takes q or its alias query, type and limit, with defaults', () => {
    expect(parseSearchParams({ q: 'goblin' })).toEqual({ ok: true, value: { text: 'goblin', type: 'any', limit: 20, tags: [] } });
    expect(parseSearchParams({ query: ' x ', type: 'arc', limit: '100' })).toEqual({ ok: true, value: { text: ' x ', type: 'arc', limit: 100, tags: [] } });
    expect(parseSearchParams({ q: '"', type: 'thing', limit: '1' })).toEqual({ ok: true, value: { text: '"', type: 'thing', limit: 1, tags: [] } });
  });

  it.each([
    [{}, ['/q']],
    [{ q: '' }, ['/q']],
    [{ q: ' \t' }, ['/q']],
    [{ query: '' }, ['/query']],
    [{ q: 'a', query: 'a' }, ['/query']],
    [{ q: ['a', 'b'] }, ['/q']],
    [{ q: 'a', type: 'all' }, ['/type']],
    [{ q: 'a', limit: '0' }, ['/limit']],
    [{ q: 'a', limit: '101' }, ['/limit']],
    [{ q: 'a', limit: '07' }, ['/limit']],
    [{ q: 'a', limit: '1e2' }, ['/limit']],
    [{ type: 'x', limit: 'y' }, ['/q', '/type', '/limit']],
  ])('refuses %j at %j', (query, paths) => {
    const parsed = parseSearchParams(query);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.issues.map((i) => i.path)).toEqual(paths);
  });
});

describe('analyzeQuery', () => {
  it('keeps distinct terms in order, marks the last, and the name key', () => {
    const query = analyzeQuery('The Black, black SPIDER!');
    expect(query.terms.map((t) => [t.term, t.last, t.prefix])).toEqual([
      ['the', false, true],
      ['black', false, true],
      ['spider', true, true],
    ]);
    expect(query.key).toBe('the black black spider');
    expect(query.terms.map((t) => t.edits)).toEqual([0, 1, 2]);
  });

  it('searches a run of CJK characters by its bigrams, a single character by prefix', () => {
    expect(analyzeQuery('東京都').terms.map((t) => [t.term, t.prefix])).toEqual([
      ['東京', false],
      ['京都', false],
    ]);
    expect(analyzeQuery('竜').terms.map((t) => [t.term, t.prefix])).toEqual([['竜', true]]);
  });

  it('caps the number of terms and yields none for text without words', () => {
    expect(analyzeQuery(Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ')).terms).toHaveLength(MAX_QUERY_TERMS);
    expect(analyzeQuery('?!-- "" *').terms).toEqual([]);
    expect(analyzeQuery('?!').key).toBeNull();
  });
});

describe('prefixUpperBound', () => {
  it('is the least string above every extension of the prefix', () => {
    expect(prefixUpperBound('nezz')).toBe('nez{');
    expect(prefixUpperBound('a\uD7FF')).toBe('a\uE000');
    expect(prefixUpperBound('x\u{10FFFF}')).toBe('y');
    expect(prefixUpperBound('\u{10FFFF}')).toBeNull();
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }), fc.string({ unit: 'grapheme', maxLength: 6 }), (prefix, rest) => {
        const upper = prefixUpperBound(prefix);
        const word = prefix + rest;
        const points = (s: string) => Array.from(s, (c) => c.codePointAt(0)!);
        const compare = (a: string, b: string) => {
          const [x, y] = [points(a), points(b)];
          for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
          return x.length - y.length;
        };
        if (upper !== null) expect(compare(word, upper)).toBeLessThan(0);
      }),
    );
  });
});

describe('expandQuery', () => {
  const expand = (q: string, vocabulary: string[]) =>
    expandQuery(analyzeQuery(q), vocabulary).map((e) => `${e.queryIndex}:${e.term}:${e.match}${e.typos ? e.typos : ''}`);

  it('matches words as written, word forms, prefixes of the last word and typos', () => {
    expect(expand('harper', ['harper', 'harpers', 'harperson', 'harpy', 'carper', 'hamper', 'zebra'])).toEqual([
      '0:harper:exact',
      '0:harpers:form',
      '0:harperson:prefix',
      '0:carper:typo1',
      '0:hamper:typo1',
      '0:harpy:typo2',
    ]);
  });

  it('does not complete a word that exists as written unless it is the last one', () => {
    expect(expand('the tower', ['the', 'their', 'tower', 'towers', 'towering', 'towerlike'])).toEqual([
      '0:the:exact',
      '1:tower:exact',
      '1:towering:form',
      '1:towers:form',
      '1:towerlike:prefix',
    ]);
    expect(expand('nezz black', ['nezznar', 'black'])).toEqual(['0:nezznar:prefix', '1:black:exact']);
  });

  it('allows two typos on a four- or five-letter word only when nothing closer exists', () => {
    expect(expand('trial', ['trail', 'trawl'])).toEqual(['0:trail:typo1']);
    expect(expand('trial', ['trawl'])).toEqual(['0:trawl:typo2']);
    expect(expand('cat', ['cart', 'bat'])).toEqual([]);
  });

  it('caps completions and typo matches per word', () => {
    const words = Array.from({ length: 50 }, (_, i) => `gob${String(i).padStart(2, '0')}`);
    expect(expand('gob', words).length).toBe(16);
  });

  it('probes the vocabulary for the words, their forms, their prefixes and typo keys', () => {
    const probe = vocabularyProbe(analyzeQuery('harpers nezz'));
    expect(probe.exact).toEqual(expect.arrayContaining(['harper', 'harpers', 'nezz']));
    expect(probe.prefixes).toEqual([
      { from: 'harpers', to: 'harpert' },
      { from: 'nezz', to: 'nez{' },
    ]);
    // harper (six letters, first segment "ha"), nizzy (five, first segment "n"), zz (two, stored whole).
    expect(probe.typos[0]).toEqual(expect.arrayContaining(['6:ha', '5:n', '2:zz']));
  });
});

describe('pruneCommonExpansions', () => {
  const e = (queryIndex: number, term: string, match: Expansion['match']): Expansion => ({ term, queryIndex, match, typos: match === 'typo' ? 1 : 0, weight: 1 });

  it('drops words found nowhere and common completions of a word that has a match of its own', () => {
    const query = analyzeQuery('the');
    const result = pruneCommonExpansions(query, [e(0, 'the', 'exact'), e(0, 'their', 'prefix'), e(0, 'thelmor', 'prefix'), e(0, 'thex', 'prefix')], new Map([['the', 900], ['their', 800], ['thelmor', 3]]), 1000);
    expect(result.expansions.map((x) => x.term)).toEqual(['the', 'thelmor']);
    expect(result.termCount).toBe(1);
  });

  it('leaves out a word in more than half of a large campaign, unless all words are like that', () => {
    const query = analyzeQuery('the goblin');
    const frequency = new Map([['the', 1900], ['goblin', 40]]);
    const both = [e(0, 'the', 'exact'), e(1, 'goblin', 'exact')];
    expect(pruneCommonExpansions(query, both, frequency, 2000)).toEqual({ expansions: [both[1]], termCount: 1 });
    expect(pruneCommonExpansions(query, both, frequency, 500).termCount).toBe(2);
    expect(pruneCommonExpansions(analyzeQuery('the'), [both[0]!], frequency, 2000).termCount).toBe(1);
  });
});

describe('presentedScore', () => {
  const keys = fc.record({
    exactName: fc.boolean(),
    nameCoverage: fc.integer({ min: 0, max: 4 }),
    coverage: fc.integer({ min: 1, max: 4 }),
    typos: fc.integer({ min: 0, max: 8 }),
    relevance: fc.double({ min: 0, max: 1000, noNaN: true }),
  });
  const order = (a: RankKeys, b: RankKeys, n: number) =>
    tierOf(b, n) - tierOf(a, n) || b.coverage - a.coverage || a.typos - b.typos || b.relevance - a.relevance;

  it('orders results as the rank keys do, with the tier as its integer part', () => {
    fc.assert(
      fc.property(keys, keys, (a, b) => {
        const n = 4;
        expect(Math.floor(presentedScore(a, n))).toBe(tierOf(a, n));
        if (order(a, b, n) < 0) expect(presentedScore(a, n)).toBeGreaterThanOrEqual(presentedScore(b, n));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('excerpts and highlights', () => {
  const matches = (...words: string[]) => new Map<string, WordMatch>(words.map((w, i) => [w, { query: i, prefix: false }]));

  it('shows the passage with the most query words, cut at word boundaries', () => {
    const long = `${'Lorem ipsum dolor sit amet. '.repeat(12)}The goblin hides in the cave. ${'Sed do eiusmod tempor. '.repeat(12)}`;
    const excerpt = excerptOf(['A goblin.', long], matches('goblin', 'cave'));
    expect(excerpt).toMatch(/^…[A-Za-z].*The goblin hides in the cave\..*[a-z.]…$/);
    expect(excerpt.length).toBeLessThanOrEqual(182);
  });

  it('falls back to the beginning of the text, and to nothing', () => {
    expect(excerptOf(['First line.\nSecond line.'], matches('zzz'))).toBe('First line.');
    expect(excerptOf(['', ''], matches('zzz'))).toBe('');
  });

  it('lists matched words as written, name first, each once', () => {
    expect(highlightsOf('The Harpers', ['A harper, two HARPERS.'], matches('harpers', 'harper'))).toEqual(['Harpers', 'harper', 'HARPERS']);
    expect(highlightsOf('東京の竜', [], new Map([['東京', { query: 0, prefix: false }], ['京の', { query: 0, prefix: false }]]))).toEqual(['東京の']);
    // Terms are folded: が is か plus a voicing mark.
    expect(highlightsOf('竜が飛ぶ', [], new Map([['竜か', { query: 0, prefix: true }]]))).toEqual(['竜']);
  });

  it('never splits a surrogate pair', () => {
    const text = `${'😀'.repeat(150)} goblin ${'😀'.repeat(150)}`;
    const excerpt = excerptOf([text], matches('goblin'));
    expect(excerpt).toContain('goblin');
    expect(excerpt).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });
});
