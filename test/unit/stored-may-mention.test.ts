// storedMayMention (src/render/references.ts) lets the mentions index skip parsing a stored field:
// it may say "may mention" of a field that mentions nothing, never "cannot" of one that does,
// whether the JSON is written as serializeRichText writes it or with characters escaped.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RichText } from '../../src/domain/rich-text.js';
import { mentionsOf, storedMayMention } from '../../src/render/index.js';

const textArb = fc.oneof(
  fc.constantFrom('plain words', '[[thing#the-wizard]]', 'see [[arc#act-one]] then', '[[thing#', '[[ not a link ]]', '![map](https://x.test/m.png)', '"mention"', 'mention', 'a \\u005b escape', '#thing'),
  fc.string({ maxLength: 12 }),
);
const leafArb = fc.record({ text: textArb }, { requiredKeys: ['text'] }).chain((leaf) => fc.record({ code: fc.boolean() }).map((marks) => ({ ...leaf, ...(marks.code ? { code: true } : {}) })));
const mentionArb = fc.record({
  type: fc.constant('mention'),
  targetType: fc.constantFrom('thing', 'arc'),
  targetId: fc.integer({ min: 1, max: 50 }),
  children: fc.constant([{ text: '' }]),
});
const { node: nodeArb } = fc.letrec<{ node: Record<string, unknown> }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ type: fc.constantFrom('paragraph', 'heading-two'), children: fc.array(fc.oneof(leafArb, mentionArb), { minLength: 1, maxLength: 4 }) }),
    fc.record({ type: fc.constantFrom('bulleted-list', 'list-item', 'block-quote', 'secret', 'code-block'), children: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
  ),
}));
const docArb = fc.array(nodeArb, { minLength: 0, maxLength: 4 }) as fc.Arbitrary<RichText>;

/** JSON of `doc` with the characters at the chosen positions of every string escaped as \uXXXX, as another JSON writer may. */
function escapedJson(doc: RichText, every: number): string {
  return JSON.stringify(doc).replace(/"((?:[^"\\]|\\.)*)"/g, (_whole, inner: string) => {
    let i = 0;
    const escaped = inner.replace(/[a-z[#]/g, (c) => (i++ % every === 0 ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c));
    return `"${escaped}"`;
  });
}

describe('storedMayMention', () => {
  it('never says a field that mentions something cannot', () => {
    let cannot = 0;
    let may = 0;
    fc.assert(
      fc.property(docArb, fc.integer({ min: 1, max: 5 }), (doc, every) => {
        for (const stored of [JSON.stringify(doc), escapedJson(doc, every)]) {
          expect(JSON.parse(stored)).toEqual(doc);
          const mentions = mentionsOf(JSON.parse(stored) as RichText);
          if (storedMayMention(stored)) may += 1;
          else {
            cannot += 1;
            expect(mentions).toEqual([]);
          }
        }
      }),
      { numRuns: 500 },
    );
    // Both answers are given.
    expect(cannot).toBeGreaterThan(50);
    expect(may).toBeGreaterThan(50);
  });

  it('answers for the common cases', () => {
    expect(storedMayMention(JSON.stringify([{ type: 'paragraph', children: [{ text: 'The tower at dusk.' }] }]))).toBe(false);
    expect(storedMayMention(JSON.stringify([{ type: 'paragraph', children: [{ text: 'Ask [[thing#the-wizard]].' }] }]))).toBe(true);
    expect(storedMayMention(JSON.stringify([{ type: 'paragraph', children: [{ type: 'mention', targetType: 'thing', targetId: 3, children: [{ text: '' }] }] }]))).toBe(true);
    expect(storedMayMention('[{"type":"paragraph","children":[{"type":"\\u006dention","targetType":"thing","targetId":3,"children":[{"text":""}]}]}]')).toBe(true);
    expect(storedMayMention('[]')).toBe(false);
  });
});
