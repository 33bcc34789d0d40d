// The History panel's diff (block-diff.ts): whatever two documents it is given, each side can be read
// back from the diff exactly, what is kept is a longest common subsequence of blocks, a word edit
// inside a paragraph is a change of that word only, and copying removed blocks back one by one
// rebuilds the older text.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { copyBackIndex, diffBlocks, diffWords, insertBlock, sideOf, tokenize, withoutBlankDocument, type Block, type BlockChange } from './block-diff';

const WORDS = ['the', 'dragon', 'sleeps', 'under', 'Phandalin', 'gold', 'and', 'a', 'secret'];
const leaf = fc.record({ text: fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 5 }).map((w) => w.join(' ')), bold: fc.option(fc.constant(true), { nil: undefined }) }).map((l) => (l.bold ? { text: l.text, bold: true } : { text: l.text }));
const block: fc.Arbitrary<Block> = fc.oneof(
  fc.record({ type: fc.constantFrom('paragraph', 'heading-two', 'block-quote'), children: fc.array(leaf, { minLength: 1, maxLength: 3 }) }),
  fc.record({ type: fc.constant('paragraph'), children: fc.tuple(leaf, fc.integer({ min: 1, max: 3 }), leaf).map(([a, id, b]) => [a, { type: 'mention', targetType: 'thing', targetId: id, children: [{ text: '' }] }, b]) }),
  fc.record({ type: fc.constant('bulleted-list'), children: fc.array(fc.record({ type: fc.constant('list-item'), children: fc.array(leaf, { minLength: 1, maxLength: 2 }) }), { minLength: 1, maxLength: 3 }) }),
  fc.constant({ type: 'divider', children: [{ text: '' }] }),
) as fc.Arbitrary<Block>;
const documentArb = fc.array(block, { maxLength: 12 });

const p = (text: string, extra: Record<string, unknown> = {}): Block => ({ type: 'paragraph', ...extra, children: [{ text }] });
const kinds = (changes: BlockChange[]) => changes.map((c) => c.kind);
const key = (b: Block) => JSON.stringify(b);

/** The longest common subsequence's length, by the textbook recursion (an independent check). */
function lcsLength(a: string[], b: string[]): number {
  const memo = new Map<string, number>();
  const go = (i: number, j: number): number => {
    if (i === a.length || j === b.length) return 0;
    const id = `${i},${j}`;
    const known = memo.get(id);
    if (known !== undefined) return known;
    const value = a[i] === b[j] ? 1 + go(i + 1, j + 1) : Math.max(go(i + 1, j), go(i, j + 1));
    memo.set(id, value);
    return value;
  };
  return go(0, 0);
}

describe('diffBlocks', () => {
  it('gives back both documents exactly, and keeps a longest common subsequence of blocks', () => {
    fc.assert(
      fc.property(documentArb, documentArb, (before, after) => {
        const changes = diffBlocks(before, after);
        expect(sideOf(changes, 'before')).toEqual(before);
        expect(sideOf(changes, 'after')).toEqual(after);
        const same = changes.filter((c) => c.kind === 'same').length;
        expect(same).toBe(lcsLength(before.map(key), after.map(key)));
      }),
      { numRuns: 300 },
    );
  });

  it('finds nothing changed between a document and itself', () => {
    fc.assert(
      fc.property(documentArb, (doc) => {
        expect(diffBlocks(doc, structuredClone(doc)).every((c) => c.kind === 'same')).toBe(true);
      }),
    );
  });

  it('says which blocks were added and removed, the others unchanged', () => {
    const before = [p('Intro'), p('The dragon sleeps.'), p('Ending')];
    const after = [p('Intro'), p('Ending'), { type: 'heading-two', children: [{ text: 'A new part' }] } as Block];
    expect(kinds(diffBlocks(before, after))).toEqual(['same', 'removed', 'same', 'inserted']);
  });

  it('an edited paragraph is one block changed, word by word, its marks kept', () => {
    const before = [p('Intro'), { type: 'paragraph', children: [{ text: 'The red dragon ' }, { text: 'sleeps', bold: true }, { text: ' here.' }] } as Block];
    const after = [p('Intro'), { type: 'paragraph', children: [{ text: 'The green dragon ' }, { text: 'sleeps', bold: true }, { text: ' here.' }] } as Block];
    const changes = diffBlocks(before, after);
    expect(kinds(changes)).toEqual(['same', 'changed']);
    const changed = changes[1]!;
    if (changed.kind !== 'changed') throw new Error('expected a change');
    const edits = changed.words!.filter((part) => part.kind !== 'same').map((part) => [part.kind, part.tokens.map((t) => t.text).join('')]);
    expect(edits).toEqual([
      ['removed', 'red'],
      ['inserted', 'green'],
    ]);
    expect(changed.words!.flatMap((part) => part.tokens).find((t) => t.text === 'sleeps')?.marks).toEqual({ bold: true });
  });

  it('punctuation is a token of its own: words added before a full stop leave the stop unchanged', () => {
    const [change] = diffBlocks([p('Gundren hired the party.')], [p('Gundren hired the party in Neverwinter.')]);
    if (change?.kind !== 'changed') throw new Error('expected a change');
    expect(change.words!.map((part) => [part.kind, part.tokens.map((t) => t.text).join('')])).toEqual([
      ['same', 'Gundren hired the party'],
      ['inserted', ' in Neverwinter'],
      ['same', '.'],
    ]);
  });

  it('a paragraph rewritten entirely is removed and another inserted, not "changed"', () => {
    const changes = diffBlocks([p('The dragon sleeps under the hill')], [p('Goblins raid the caravan at dawn')]);
    expect(kinds(changes)).toEqual(['removed', 'inserted']);
  });

  it('a paragraph inserted before an edited one is an insertion, and the edit stays paired with its paragraph', () => {
    const changes = diffBlocks([p('one two three four five')], [p('A brand new opening line'), p('one two three four six')]);
    expect(kinds(changes)).toEqual(['inserted', 'changed']);
  });

  it('secrecy is part of a block: making a paragraph GM-only is a change', () => {
    const changes = diffBlocks([p('The mayor is a doppelganger')], [p('The mayor is a doppelganger', { isSecret: true })]);
    expect(kinds(changes)).toEqual(['changed']);
  });

  it('a very long text is compared quickly enough to show (common ends trimmed, then replaced past the cap)', () => {
    const long = Array.from({ length: 3000 }, (_, i) => p(`Paragraph ${i}`));
    const edited = [...long.slice(0, 1500), p('A new one'), ...long.slice(1500)];
    expect(kinds(diffBlocks(long, edited)).filter((k) => k !== 'same')).toEqual(['inserted']);
  });
});

describe('withoutBlankDocument', () => {
  it('compares a field holding one empty paragraph as empty, and any other text as it is', () => {
    expect(diffBlocks([], withoutBlankDocument([p('')]))).toEqual([]);
    expect(withoutBlankDocument([p('a')])).toEqual([p('a')]);
    expect(withoutBlankDocument([p(''), { type: 'divider', children: [{ text: '' }] }])).toHaveLength(2);
  });
});

describe('diffWords', () => {
  it('the words of each side are read back from the diff', () => {
    const textBlock = fc.array(leaf, { minLength: 1, maxLength: 4 }).map((children) => ({ type: 'paragraph', children }));
    fc.assert(
      fc.property(textBlock, textBlock, (before, after) => {
        const parts = diffWords(before, after);
        const side = (kind: 'removed' | 'inserted') => parts.filter((part) => part.kind === 'same' || part.kind === kind).flatMap((part) => part.tokens);
        expect(side('removed').map((t) => t.key)).toEqual(tokenize(before).map((t) => t.key));
        expect(side('inserted').map((t) => t.key)).toEqual(tokenize(after).map((t) => t.key));
      }),
    );
  });
});

describe('copying a block back', () => {
  it('copying back every removed block, one at a time, rebuilds the older text', () => {
    const distinct = fc.uniqueArray(block, { selector: key, maxLength: 10 });
    fc.assert(
      fc.property(distinct, fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }), (older, keep) => {
        let current = older.filter((_, i) => keep[i]);
        for (let step = 0; step <= older.length; step += 1) {
          const changes = diffBlocks(older, current);
          const at = changes.findIndex((c) => c.kind === 'removed');
          if (at === -1) break;
          const removed = changes[at]!;
          if (removed.kind !== 'removed') throw new Error('expected a removed block');
          current = insertBlock(current, copyBackIndex(changes, at, current), removed.block);
        }
        expect(current).toEqual(older);
      }),
    );
  });

  it('the older version of a changed block goes right after its current version, which stays', () => {
    const older = [p('Intro'), p('one two three four five'), p('End')];
    const current = [p('Intro'), p('one two three four six'), p('End')];
    const changes = diffBlocks(older, current);
    const at = changes.findIndex((c) => c.kind === 'changed');
    const change = changes[at]!;
    if (change.kind !== 'changed') throw new Error('expected a change');
    expect(insertBlock(current, copyBackIndex(changes, at, current), change.before)).toEqual([p('Intro'), p('one two three four six'), p('one two three four five'), p('End')]);
  });
});
