import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { insertSlices, MAX_PARAMETERS, MAX_STATEMENT_TEXT, slicesByWeight } from '../../src/db/chunks.js';
import type { PlannedArc } from '../../src/portability/plan.js';
import { parentsFirst } from '../../src/portability/plan-rows.js';

// The pure parts of how an import writes: slices that keep statements and transactions bounded,
// and arcs ordered so that a parent is always inserted before its children.

describe('slicesByWeight', () => {
  it('keeps every item, in order, in slices within both bounds (an item heavier than the bound alone)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(1_000)), fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 3_000 }), (weights, maxItems, maxWeight) => {
        const slices = slicesByWeight(weights, maxItems, maxWeight, (w) => w);
        expect(slices.flat()).toEqual(weights);
        for (const slice of slices) {
          expect(slice.length).toBeGreaterThan(0);
          expect(slice.length).toBeLessThanOrEqual(maxItems);
          const total = slice.reduce((a, b) => a + b, 0);
          if (slice.length > 1) expect(total).toBeLessThanOrEqual(maxWeight);
        }
      }),
    );
  });

  it('insertSlices stays under both databases’ bound parameters (SQLite 32,766, PostgreSQL 65,535) and the text bound', () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => ({ a: i, b: 'x', c: null, d: i, e: 'y', f: 1, g: 2, h: 3, i: 4, j: 5, k: 6, l: 7, m: 8, n: 9 }));
    const slices = insertSlices(rows);
    expect(slices.flat()).toEqual(rows);
    for (const slice of slices) expect(slice.length * 14).toBeLessThanOrEqual(Math.min(MAX_PARAMETERS, 32_766));
    const texts = Array.from({ length: 100 }, () => ({ id: 1, description: 'z'.repeat(256 * 1024) }));
    for (const slice of insertSlices(texts)) expect(slice.length * 256 * 1024).toBeLessThanOrEqual(MAX_STATEMENT_TEXT + 256 * 1024);
  });
});

describe('parentsFirst', () => {
  const arc = (key: number, parentKey: number | null): PlannedArc => ({
    key,
    slug: `arc-${key}`,
    name: `Arc ${key}`,
    parentKey,
    visibility: 'all',
    fields: { hook: [], protagonist: [], antagonist: [], problem: [], key: [], outcome: [], notes: [] },
    properties: [],
    tags: [],
    aliases: [],
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  });

  it('orders any forest of arcs so each parent comes before its children, every arc once', () => {
    fc.assert(
      fc.property(
        // Arc i's parent is one of the arcs before it (a forest), then the file's order is shuffled.
        fc.array(fc.option(fc.nat(), { nil: null }), { maxLength: 60 }).chain((parents) =>
          fc.shuffledSubarray(
            parents.map((p, i) => arc(i + 1, p === null || i === 0 ? null : (p % i) + 1)),
            { minLength: parents.length, maxLength: parents.length },
          ),
        ),
        (arcs) => {
          const ordered = parentsFirst(arcs);
          expect(ordered.map((a) => a.key).sort((a, b) => a - b)).toEqual(arcs.map((a) => a.key).sort((a, b) => a - b));
          const position = new Map(ordered.map((a, i) => [a.key, i]));
          for (const a of ordered) if (a.parentKey !== null) expect(position.get(a.parentKey)!).toBeLessThan(position.get(a.key)!);
        },
      ),
    );
  });

  it('keeps the file’s order where parents allow it', () => {
    expect(parentsFirst([arc(1, null), arc(2, 3), arc(3, null), arc(4, 1)]).map((a) => a.key)).toEqual([1, 3, 2, 4]);
  });
});
