// The arc hierarchy as a forest: every arc has at most one parent, and following parents from any
// arc must end at a top-level arc. These rules run on the (id, parentArcId) pairs of one campaign,
// loaded in one query while the campaign is locked, so they need no database access of their own.

export interface ArcEdge {
  id: number;
  parentArcId: number | null;
}

/**
 * Whether giving `arcId` the parent `parentId` would close a loop: the parent is the arc itself or
 * one of its descendants (equivalently, `arcId` is `parentId` or one of its ancestors).
 */
export function wouldCreateCycle(arcId: number, parentId: number, edges: Iterable<ArcEdge>): boolean {
  const parentOf = new Map<number, number | null>();
  for (const edge of edges) parentOf.set(edge.id, edge.parentArcId);
  const seen = new Set<number>();
  let current: number | null | undefined = parentId;
  while (current !== null && current !== undefined) {
    if (current === arcId) return true;
    // Stored data never holds a loop; should it ever, the walk stops instead of spinning, and a
    // loop that does not pass through `arcId` is not one this change would create.
    if (seen.has(current)) return false;
    seen.add(current);
    current = parentOf.get(current);
  }
  return false;
}
