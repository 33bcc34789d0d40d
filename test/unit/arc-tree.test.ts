import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wouldCreateCycle, type ArcEdge } from '../../src/domain/arc-tree.js';

//   1        6
//  / \       |
// 2   3      7
// |
// 4
// |
// 5
const forest: ArcEdge[] = [
  { id: 1, parentArcId: null },
  { id: 2, parentArcId: 1 },
  { id: 3, parentArcId: 1 },
  { id: 4, parentArcId: 2 },
  { id: 5, parentArcId: 4 },
  { id: 6, parentArcId: null },
  { id: 7, parentArcId: 6 },
];

describe('wouldCreateCycle', () => {
  it('refuses the arc itself as its parent', () => {
    expect(wouldCreateCycle(1, 1, forest)).toBe(true);
    expect(wouldCreateCycle(5, 5, forest)).toBe(true);
    expect(wouldCreateCycle(9, 9, [])).toBe(true);
  });

  it('refuses any descendant, however deep', () => {
    for (const descendant of [2, 3, 4, 5]) expect(wouldCreateCycle(1, descendant, forest)).toBe(true);
    expect(wouldCreateCycle(2, 5, forest)).toBe(true);
    expect(wouldCreateCycle(6, 7, forest)).toBe(true);
  });

  it('allows ancestors, siblings, cousins and other trees', () => {
    expect(wouldCreateCycle(5, 1, forest)).toBe(false); // an ancestor (moves 5 up)
    expect(wouldCreateCycle(5, 4, forest)).toBe(false); // the current parent
    expect(wouldCreateCycle(3, 2, forest)).toBe(false); // a sibling
    expect(wouldCreateCycle(3, 5, forest)).toBe(false); // a sibling's descendant
    expect(wouldCreateCycle(1, 7, forest)).toBe(false); // another tree
    expect(wouldCreateCycle(7, 5, forest)).toBe(false);
  });

  it('treats a parent id missing from the pairs as a root', () => {
    expect(wouldCreateCycle(1, 99, forest)).toBe(false);
  });

  it('stops on a loop already in the data instead of spinning', () => {
    const looped: ArcEdge[] = [
      { id: 1, parentArcId: 2 },
      { id: 2, parentArcId: 1 },
      { id: 3, parentArcId: null },
    ];
    expect(wouldCreateCycle(3, 1, looped)).toBe(false);
    expect(wouldCreateCycle(1, 2, looped)).toBe(true);
  });

  // Random forests: node i may only have a parent below i, so the input is always a forest.
  const randomForest = fc.integer({ min: 1, max: 40 }).chain((size) =>
    fc
      .array(fc.option(fc.nat(), { nil: null }), { minLength: size, maxLength: size })
      .map((choices) =>
        choices.map((choice, index): ArcEdge => ({
          id: index + 1,
          parentArcId: choice === null || index === 0 ? null : (choice % index) + 1,
        })),
      ),
  );

  // After the change, following parents from `arcId` either reaches a root (no loop) or comes back.
  function hasLoopAfter(edges: ArcEdge[], arcId: number, parentId: number): boolean {
    const parentOf = new Map(edges.map((e) => [e.id, e.parentArcId]));
    parentOf.set(arcId, parentId);
    let current: number | null | undefined = arcId;
    for (let steps = 0; steps <= edges.length + 1; steps += 1) {
      current = current === null || current === undefined ? current : parentOf.get(current);
      if (current === arcId) return true;
      if (current === null || current === undefined) return false;
    }
    return true;
  }

  it('answers true exactly when the change would leave a loop', () => {
    fc.assert(
      fc.property(
        randomForest.chain((edges) =>
          fc.tuple(fc.constant(edges), fc.integer({ min: 1, max: edges.length }), fc.integer({ min: 1, max: edges.length })),
        ),
        ([edges, arcId, parentId]) => {
          expect(wouldCreateCycle(arcId, parentId, edges)).toBe(hasLoopAfter(edges, arcId, parentId));
        },
      ),
      { numRuns: 500 },
    );
  });
});
