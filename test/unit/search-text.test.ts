import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildDocument, plainText, structurePassages, thingDocuments } from '../../src/search/document.js';
import { presentMatches } from '../../src/search/excerpt.js';
import { allowedEdits, editDistance } from '../../src/search/fuzzy.js';
import { stem, wordForms } from '../../src/search/stem.js';
import { fold, MAX_TERM_LENGTH, nameKey, tokenize, tokenizeUnicode } from '../../src/search/tokenize.js';

const terms = (text: string) => tokenize(text).map((t) => t.term);

describe('fold and tokenize', () => {
  it.each([
    ['Mädchen', 'madchen'],
    ['ÉMILE Zola', 'emile zola'],
    ['Straße', 'strasse'],
    ['Ἀθηνᾶ', 'αθηνα'],
    ['ΟΔΥΣΣΕΥΣ', 'οδυσσευσ'],
    ['Дра́кон', 'дракон'],
    ['ﬁre', 'fire'],
    ['ＡＢＣ１２３', 'abc123'],
    ['İstanbul', 'istanbul'],
    ['Øresund Æsir', 'oresund aesir'],
    ['한국어', '한국어'],
  ])('folds %j to %j', (input, expected) => {
    expect(fold(input)).toBe(expected);
  });

  it('splits words on punctuation and keeps apostrophes inside words out', () => {
    expect(terms("Nezznar, the Black-Spider! O'Brien’s (d20) half-orc")).toEqual([
      'nezznar', 'the', 'black', 'spider', 'obriens', 'd20', 'half', 'orc',
    ]);
  });

  it('gives offsets into the original text', () => {
    const text = '  Mädchen, im Wald';
    for (const token of tokenize(text)) expect(fold(text.slice(token.start, token.end))).toBe(token.term);
  });

  it('turns scripts without spaces into bigrams plus the lone last character', () => {
    expect(terms('東京の竜')).toEqual(['東京', '京の', 'の竜', '竜']);
    expect(tokenize('東京の竜').at(-1)).toMatchObject({ term: '竜', tail: true });
    expect(terms('竜')).toEqual(['竜']);
    expect(tokenize('竜')[0]!.tail).toBeUndefined();
    expect(terms('東京tower')).toEqual(['東京', '京', 'tower']);
    expect(terms('ภาษาไทย')).toHaveLength(7);
  });

  it('keeps pictographs as terms and drops everything else that is not a word', () => {
    expect(terms('🐉 Lair ✨ -- *** "" ::')).toEqual(['🐉', 'lair', '✨']);
    expect(terms('"NEAR" AND -x* : ( ) OR')).toEqual(['near', 'and', 'x', 'or']);
    expect(terms('\u0000\u0000')).toEqual([]);
  });

  it('survives any string, lone surrogates included, and never yields an empty or overlong term', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 300 })), (text) => {
        for (const token of tokenize(text)) {
          expect(token.term.length).toBeGreaterThan(0);
          expect(Array.from(token.term).length).toBeLessThanOrEqual(MAX_TERM_LENGTH);
          expect(token.term).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
          expect(token.term).not.toContain('\u0000');
          expect(token.start).toBeLessThan(token.end);
        }
        nameKey(text);
      }),
    );
  });

  it('tokenizes ASCII text on its fast path exactly as on the general one', () => {
    const ascii = fc.string({ unit: fc.constantFrom(...'abcXYZ019 \'-_.,!?*"\t\n'.split('')), maxLength: 200 });
    fc.assert(
      fc.property(fc.oneof(ascii, fc.string({ unit: 'binary-ascii', maxLength: 200 })), (text) => {
        expect(tokenize(text)).toEqual(tokenizeUnicode(text));
      }),
      { numRuns: 2000 },
    );
    expect(tokenize('x'.repeat(100))).toEqual(tokenizeUnicode('x'.repeat(100)));
  });

  it('cuts very long words to the same term on both sides', () => {
    const long = 'a'.repeat(5000);
    expect(terms(long)).toEqual(['a'.repeat(MAX_TERM_LENGTH)]);
  });

  it('gives the same name key for the same words, whatever the punctuation, case and accents', () => {
    expect(nameKey('Nezznar, the Black Spider')).toBe('nezznar the black spider');
    expect(nameKey('  NEZZNAR the black—spider ')).toBe('nezznar the black spider');
    expect(nameKey('Das Mädchen')).toBe(nameKey('das madchen'));
    expect(nameKey('!!!')).toBe('');
  });
});

describe('stem and word forms', () => {
  it.each([
    ['harpers', 'harper'],
    ['harper', 'harper'],
    ['goblins', 'goblin'],
    ['cities', 'city'],
    ['boxes', 'box'],
    ['glasses', 'glass'],
    ['raiding', 'raid'],
    ['raided', 'raid'],
    ['stopped', 'stop'],
    ['running', 'run'],
    ['closing', 'clos'],
    ['close', 'clos'],
    ['carried', 'carry'],
    ['status', 'status'],
    ['thing', 'thing'],
    ['speed', 'speed'],
    ['madchen', 'madchen'],
    ['drachen', 'drachen'],
    ['дракон', 'дракон'],
    ['d20s', 'd20s'],
  ])('stems %j to %j', (word, expected) => {
    expect(stem(word)).toBe(expected);
  });

  it('finds every word among the forms of its own stem', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{1,14}$/), (word) => {
        expect(wordForms(stem(word))).toContain(word);
      }),
      { numRuns: 3000 },
    );
  });
});

// The optimal-string-alignment distance, computed in full: the reference for editDistance.
function referenceDistance(a: string[], b: string[]): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

const shortWord = fc.stringMatching(/^[abcde]{0,9}$/);
describe('typo tolerance', () => {
  it('allows no typo below four letters, one for four or five, two from six', () => {
    expect([1, 3, 4, 5, 6, 12].map(allowedEdits)).toEqual([0, 0, 1, 1, 2, 2]);
  });

  it('computes the optimal-string-alignment distance, capped', () => {
    expect(editDistance([...'golbin'], [...'goblin'], 2)).toBe(1);
    expect(editDistance([...'nezznra'], [...'nezznar'], 2)).toBe(1);
    expect(editDistance([...'kitten'], [...'sitting'], 2)).toBe(3);
    fc.assert(
      fc.property(shortWord, shortWord, fc.integer({ min: 0, max: 3 }), (a, b, max) => {
        const reference = referenceDistance([...a], [...b]);
        expect(editDistance([...a], [...b], max)).toBe(Math.min(reference, max + 1));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('documents', () => {
  it('joins the leaves of a block and separates blocks by lines', () => {
    const value = [
      { type: 'paragraph', children: [{ text: 'Ne' }, { text: 'zz', bold: true }, { text: 'nar  waits' }] },
      { type: 'list', children: [{ type: 'item', children: [{ text: 'one' }] }, { type: 'item', children: [{ text: 'two' }] }] },
      { type: 'image', url: 'x', children: [{ text: '' }] },
    ];
    expect(plainText(value)).toBe('Nezznar waits\none\ntwo');
    expect(plainText('nonsense')).toBe('');
  });

  it('counts terms in the name and in the text', () => {
    const doc = buildDocument('Goblin Goblin Boss', ['A goblin.', 'Boss!'])!;
    expect(doc).toMatchObject({ nameKey: 'goblin goblin boss', nameLength: 3, textLength: 3 });
    expect(doc.postings.get('goblin')).toEqual({ name: 2, text: 1 });
    expect(doc.postings.get('boss')).toEqual({ name: 1, text: 1 });
    expect(buildDocument('!!!', [''])).toBeNull();
  });

  it('counts alias words as name words, keeping the name’s own key for exact matches', () => {
    const doc = buildDocument('Yusdrayl', ['Queen of the kobolds.'], ['Kobold Queen', 'Yus'])!;
    expect(doc).toMatchObject({ nameKey: 'yusdrayl', nameLength: 4, textLength: 4 });
    expect(doc.postings.get('queen')).toEqual({ name: 1, text: 1 });
    expect(doc.postings.get('yus')).toEqual({ name: 1, text: 0 });
  });

  it('indexes tags and property values (not keys nor links), GM-only ones for game masters only', () => {
    const record = {
      tags: JSON.stringify(['Big Bad', 'cragmaw']),
      properties: JSON.stringify([
        { key: 'species', value: 'Bugbear', gmOnly: false },
        { key: 'true name', value: 'Glasstaff', gmOnly: true },
        { key: 'level', value: [3, true, null, { targetType: 'thing', targetId: 9 }], gmOnly: false },
        { key: 'empty', value: null, gmOnly: false },
      ]),
    };
    expect(structurePassages(record, true)).toEqual(['#Big Bad #cragmaw', 'species: Bugbear', 'true name: Glasstaff', 'level: 3, true']);
    expect(structurePassages(record, false, true)).toEqual(['#Big Bad #cragmaw', 'Bugbear', '3, true']);
    const thing = { name: 'Klarg', description: null, visibility: 'all', aliases: '["Boss"]', ...record };
    const [players, gms] = thingDocuments(thing);
    expect(players).toMatchObject({ audience: 1 });
    expect(gms).toMatchObject({ audience: 2 });
    expect([...players!.document.postings.keys()].sort()).toEqual(['3', 'bad', 'big', 'boss', 'bugbear', 'cragmaw', 'klarg', 'true']);
    expect(gms!.document.postings.get('glasstaff')).toEqual({ name: 0, text: 1 });
    expect(gms!.document.postings.has('species')).toBe(false);
    // Without GM-only properties one document serves both views.
    expect(thingDocuments({ ...thing, properties: '[]' }).map((d) => d.audience)).toEqual([3]);
  });
});

describe('presenting a match', () => {
  const matches = new Map([
    ['kobold', { query: 0, prefix: false }],
    ['queen', { query: 1, prefix: false }],
  ]);

  it('names the alias that matched more query words than the name, and highlights it after the name', () => {
    expect(presentMatches('Yusdrayl', ['A small dragon-worshipper.'], matches, ['Yus', 'The Kobold Queen'])).toEqual({
      excerpt: 'A small dragon-worshipper.',
      highlights: ['Kobold', 'Queen'],
      alias: 'The Kobold Queen',
    });
    expect(presentMatches('Queen Yusdrayl', [], matches, ['Kobold Queen'])).toMatchObject({ alias: 'Kobold Queen', highlights: ['Queen', 'Kobold'] });
    expect(presentMatches('Kobold Queen', [], matches, ['Queen of Kobolds'])).not.toHaveProperty('alias');
    expect(presentMatches('Meepo', ['Serves the kobold queen.'], matches)).toEqual({ excerpt: 'Serves the kobold queen.', highlights: ['kobold', 'queen'] });
  });
});
