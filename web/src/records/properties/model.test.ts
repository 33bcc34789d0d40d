import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addLabel, addProperty, moveAmong, convert, fieldsProblem, fitsKind, isDay, keyProblem, kindOf, KINDS, move, parseInput, setDeclared, splitByFields, suggestTags, type Property, type PropertyScalar } from './model';

const p = (key: string, value: Property['value'], gmOnly = false): Property => ({ key, value, gmOnly });

const scalar: fc.Arbitrary<PropertyScalar> = fc.oneof(
  fc.string(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.record({ targetType: fc.constantFrom('thing' as const, 'arc' as const), targetId: fc.integer({ min: 1 }) }),
);
const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 5 }));

describe('values per kind', () => {
  it('parses what each control holds', () => {
    expect(parseInput('text', 'Waterdeep')).toEqual({ ok: true, value: 'Waterdeep' });
    expect(parseInput('text', '')).toEqual({ ok: true, value: null });
    expect(parseInput('number', ' 12.5 ')).toEqual({ ok: true, value: 12.5 });
    expect(parseInput('number', '-3')).toEqual({ ok: true, value: -3 });
    expect(parseInput('number', '')).toEqual({ ok: true, value: null });
    expect(parseInput('number', 'twelve')).toEqual({ ok: false, message: 'must be a number' });
    expect(parseInput('number', 'Infinity').ok).toBe(false);
    expect(parseInput('date', '1492-03-04')).toEqual({ ok: true, value: '1492-03-04' });
    expect(parseInput('date', '2026-02-30').ok).toBe(false);
    expect(parseInput('date', '')).toEqual({ ok: true, value: null });
    expect(parseInput('boolean', 'true')).toEqual({ ok: true, value: true });
    expect(parseInput('boolean', 'false')).toEqual({ ok: true, value: false });
    expect(parseInput('link', 'x').ok).toBe(false);
  });

  it('knows a real day', () => {
    expect(isDay('2024-02-29')).toBe(true);
    expect(isDay('2023-02-29')).toBe(false);
    expect(isDay('2023-13-01')).toBe(false);
    expect(isDay('23-01-01')).toBe(false);
  });

  it('tells the kind of a value, remembering the chosen kind of an empty one', () => {
    expect(kindOf('Elf')).toBe('text');
    expect(kindOf('1492-03-04')).toBe('date');
    expect(kindOf('1492-03-04', 'text')).toBe('text');
    expect(kindOf(3)).toBe('number');
    expect(kindOf(false)).toBe('boolean');
    expect(kindOf({ targetType: 'thing', targetId: 4 })).toBe('link');
    expect(kindOf([])).toBe('list');
    expect(kindOf(null)).toBe('text');
    expect(kindOf(null, 'link')).toBe('link');
  });

  it('changing the kind keeps what fits and empties the rest', () => {
    expect(convert('12', 'number')).toBe(12);
    expect(convert('twelve', 'number')).toBeNull();
    expect(convert(12, 'text')).toBe('12');
    expect(convert('yes', 'boolean')).toBe(true);
    expect(convert('2026-11-24T10:00Z', 'date')).toBe('2026-11-24');
    expect(convert('Elf', 'list')).toEqual(['Elf']);
    expect(convert(null, 'list')).toEqual([]);
    expect(convert(['Elf'], 'text')).toBe('Elf');
    expect(convert(['Elf', 'Drow'], 'text')).toBeNull();
    expect(convert({ targetType: 'arc', targetId: 2 }, 'text')).toBeNull();
    expect(convert([{ targetType: 'arc', targetId: 2 }], 'link')).toEqual({ targetType: 'arc', targetId: 2 });
  });

  it('whatever the value, converting to a kind gives a value of that kind (or null)', () => {
    fc.assert(
      fc.property(value, fc.constantFrom(...KINDS), (v, kind) => {
        const converted = convert(v, kind);
        expect(fitsKind(converted, kind)).toBe(true);
        if (converted !== null) expect(kindOf(converted, kind)).toBe(kind);
      }),
    );
  });

  it('a number typed in is read back as the same number', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        const parsed = parseInput('number', String(n));
        // -0 reads back as 0, which JSON sends as the same number.
        expect(parsed.ok && parsed.value === n).toBe(true);
      }),
    );
  });
});

describe('reordering', () => {
  it('moves one place up or down and stays put at the ends', () => {
    expect(move(['a', 'b', 'c'], 1, -1)).toEqual(['b', 'a', 'c']);
    expect(move(['a', 'b', 'c'], 1, 1)).toEqual(['a', 'c', 'b']);
    expect(move(['a', 'b', 'c'], 0, -1)).toEqual(['a', 'b', 'c']);
    expect(move(['a', 'b', 'c'], 2, 1)).toEqual(['a', 'b', 'c']);
  });

  it('keeps every item (a permutation), and down then up is where it started', () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { minLength: 1, maxLength: 20 }), fc.nat(), fc.constantFrom(-1 as const, 1 as const), (list, at, by) => {
        const index = at % list.length;
        const moved = move(list, index, by);
        expect([...moved].sort()).toEqual([...list].sort());
        const to = index + by;
        if (to >= 0 && to < list.length) expect(move(moved, to, by === 1 ? -1 : 1)).toEqual(list);
        else expect(moved).toEqual(list);
      }),
    );
  });
});

describe('reordering the free properties among declared ones', () => {
  it('swaps with the next free property, leaving declared fields where they are', () => {
    // Places 1 and 3 are declared fields; 0, 2 and 4 are free.
    const list = ['a', 'Level', 'b', 'Species', 'c'];
    expect(moveAmong(list, [0, 2, 4], 1, 1)).toEqual(['a', 'Level', 'c', 'Species', 'b']);
    expect(moveAmong(list, [0, 2, 4], 0, -1)).toEqual(list);
    expect(moveAmong(list, [0, 2, 4], 2, 1)).toEqual(list);
  });

  it('never moves a place that is not among the given ones', () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { minLength: 1, maxLength: 12 }), fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }), fc.nat(), fc.constantFrom(-1 as const, 1 as const), (list, free, at, by) => {
        const places = list.flatMap((_, i) => (free[i] ? [i] : []));
        const moved = moveAmong(list, places, places.length === 0 ? 0 : at % places.length, by);
        list.forEach((item, i) => {
          if (!places.includes(i)) expect(moved[i]).toBe(item);
        });
        expect([...moved].sort()).toEqual([...list].sort());
      }),
    );
  });
});

describe('adding properties', () => {
  it('refuses a blank, too long or taken key (ignoring case)', () => {
    const list = [p('Species', 'Elf')];
    expect(keyProblem(list, '  ')).toMatch(/needs a name/);
    expect(keyProblem(list, 'x'.repeat(101))).toMatch(/at most 100/);
    expect(keyProblem(list, 'species')).toMatch(/already/);
    expect(keyProblem(list, 'species', 0)).toBeUndefined();
    expect(keyProblem(list, 'Level')).toBeUndefined();
  });

  it('adds an empty property of the chosen kind at the end', () => {
    expect(addProperty([p('a', 1)], ' Allies ', 'list')).toEqual([p('a', 1), p('Allies', [])]);
    expect(addProperty([], 'Serves', 'link', true)).toEqual([p('Serves', null, true)]);
  });
});

describe('fields a type declares', () => {
  const fields = [
    { key: 'Species', kind: 'text' as const },
    { key: 'Level', kind: 'number' as const },
  ];

  it('shows declared keys in the type’s order and the others after, each with its place', () => {
    const properties = [p('Mood', 'grim'), p('level', 3), p('Species', 'Kobold')];
    const { declared, others } = splitByFields(properties, fields);
    expect(declared.map((d) => [d.field.key, d.index, d.property?.value])).toEqual([
      ['Species', 2, 'Kobold'],
      ['Level', 1, 3],
    ]);
    expect(others).toEqual([{ index: 0, property: p('Mood', 'grim') }]);
  });

  it('sets a declared field the record lacks by adding its key', () => {
    const { declared } = splitByFields([p('Mood', 'grim')], fields);
    expect(setDeclared([p('Mood', 'grim')], declared[1]!, 4)).toEqual([p('Mood', 'grim'), p('Level', 4)]);
    const present = splitByFields([p('Level', 1)], fields).declared[1]!;
    expect(setDeclared([p('Level', 1)], present, 2)).toEqual([p('Level', 2)]);
  });

  it('checks a field list before it is sent', () => {
    expect(fieldsProblem(fields)).toBeUndefined();
    expect(fieldsProblem([...fields, { key: 'level', kind: 'text' }])).toMatch(/two fields/);
    expect(fieldsProblem([{ key: ' ', kind: 'text' }])).toMatch(/needs a name/);
  });
});

describe('tags and aliases', () => {
  const tagRules = { max: 3, maxLength: 10, what: 'tag' };

  it('adds trimmed labels once ignoring case, within the limits', () => {
    expect(addLabel(['villain'], '  undead ', tagRules)).toEqual({ labels: ['villain', 'undead'] });
    expect(addLabel(['villain'], 'VILLAIN', tagRules).problem).toMatch(/already/);
    expect(addLabel(['villain'], '   ', tagRules)).toEqual({ labels: ['villain'] });
    expect(addLabel([], 'x'.repeat(11), tagRules).problem).toMatch(/at most 10/);
    expect(addLabel(['a', 'b', 'c'], 'd', tagRules).problem).toMatch(/At most 3/);
    expect(addLabel([], 'a\tb', tagRules).problem).toMatch(/line breaks/);
  });

  it('whatever is added, the labels stay unique ignoring case', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 12 }), { maxLength: 30 }), (typed) => {
        let labels: string[] = [];
        for (const t of typed) labels = addLabel(labels, t, { max: 100, maxLength: 50, what: 'tag' }).labels;
        expect(new Set(labels.map((l) => l.normalize('NFC').toLowerCase())).size).toBe(labels.length);
        for (const l of labels) expect(l).toBe(l.trim());
      }),
    );
  });

  it('suggests the campaign’s tags that start with what is typed first, without those the record has', () => {
    const all = ['Dragon', 'Undead', 'villain', 'Villages', 'evil-villain'];
    expect(suggestTags(all, 'vil', ['Villain'])).toEqual(['Villages', 'evil-villain']);
    expect(suggestTags(all, '', ['dragon'], 2)).toEqual(['Undead', 'villain']);
  });
});
