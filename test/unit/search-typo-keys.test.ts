// The typo index's keys (src/search/fuzzy.ts): at most three per vocabulary word, whatever its
// length, and still no word within two edits of a query word missed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { editDistance, MAX_EDITS, typoKeys, typoProbes } from '../../src/search/fuzzy.js';
import { MAX_TERM_LENGTH } from '../../src/search/tokenize.js';

const edit = fc.record({ kind: fc.constantFrom('insert', 'delete', 'substitute', 'transpose'), at: fc.nat(80), char: fc.constantFrom('a', 'b', 'x', 'é') });

function applyEdit(chars: string[], e: { kind: string; at: number; char: string }): string[] {
  const out = [...chars];
  const at = chars.length === 0 ? 0 : e.at % (chars.length + (e.kind === 'insert' ? 1 : 0));
  if (e.kind === 'insert') out.splice(at, 0, e.char);
  else if (chars.length === 0) return out;
  else if (e.kind === 'delete') out.splice(at, 1);
  else if (e.kind === 'substitute') out[at] = e.char;
  else if (at + 1 < out.length) [out[at], out[at + 1]] = [out[at + 1]!, out[at]!];
  return out;
}

const shares = (word: string, query: string) => {
  const keys = typoKeys(word);
  return typoProbes(query).some((probes, i) => {
    const key = keys[i];
    return key !== null && key !== undefined && probes.includes(key);
  });
};

describe('typo keys', () => {
  it('are three per word at most, together about as long as the word', () => {
    expect(typoKeys('goblin')).toEqual(['6:go', '6:bl', '6:in']);
    expect(typoKeys('nezznar')).toEqual(['7:ne', '7:zz', '7:nar']);
    expect(typoKeys('ab')).toEqual(['2:ab', null, null]);
    expect(typoKeys('a')).toEqual([null, null, null]);
    fc.assert(
      fc.property(fc.stringMatching(new RegExp(`^[a-zé]{0,${MAX_TERM_LENGTH}}$`)), (word) => {
        const keys = typoKeys(word);
        expect(keys).toHaveLength(3);
        // Together no longer than the word plus three short headers: storage linear in the word.
        expect(keys.join('').length).toBeLessThanOrEqual(word.length + 3 * '64:'.length);
      }),
      { numRuns: 2000 },
    );
  });

  it('let a query word look up a bounded number of keys', () => {
    expect(typoProbes('golbin')[0]).toContain('6:go');
    const longest = 'x'.repeat(MAX_TERM_LENGTH - 1) + 'y';
    expect(typoProbes(longest).flat().length).toBeLessThanOrEqual(400);
  });

  it('find every word within two edits of a query word of four letters or more', () => {
    expect(shares('goblin', 'golbin')).toBe(true);
    expect(shares('bernsolqua', 'bnresoqlua')).toBe(true);
    expect(shares('nizzy', 'nezz')).toBe(true);
    expect(shares('ab', 'axby')).toBe(true);
    const word = fc.stringMatching(/^[abcdexyz]{1,20}$/);
    fc.assert(
      fc.property(word, fc.array(edit, { minLength: 1, maxLength: 2 }), (original, edits) => {
        const changed = edits.reduce(applyEdit, [...original]).join('');
        // The query side is a word of four letters or more (allowedEdits); the vocabulary side any word.
        if (changed.length < 4 || editDistance([...original], [...changed], MAX_EDITS) > MAX_EDITS) return;
        expect(shares(original, changed), `${original} / ${changed}`).toBe(true);
      }),
      { numRuns: 30000 },
    );
  });

  it('find every pair of short words within two edits, exhaustively over a small alphabet', () => {
    const words: string[] = [];
    const grow = (prefix: string) => {
      if (prefix.length > 0) words.push(prefix);
      if (prefix.length < 6) for (const c of 'abc') grow(prefix + c);
    };
    grow('');
    const queries = words.filter((w) => w.length >= 4);
    for (const query of queries) {
      const probes = typoProbes(query).map((keys) => new Set(keys));
      for (const word of words) {
        if (editDistance([...query], [...word], MAX_EDITS) > MAX_EDITS) continue;
        if (!typoKeys(word).some((key, i) => key !== null && probes[i]!.has(key))) throw new Error(`${word} not found from ${query}`);
      }
    }
  });
});
