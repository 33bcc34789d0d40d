// Typo tolerance. Candidates come from a deletion neighbourhood (the SymSpell idea): every word of
// a campaign's vocabulary is stored with the strings left after deleting up to two of its
// characters, and a query word looks up its own such strings. Two words within two edits of each
// other (insertions, deletions, substitutions, adjacent transpositions) always share one of them,
// so the lookup misses nothing; each candidate is then checked with the true distance.
//
// Only the first VARIANT_PREFIX characters take part: it bounds the keys of a long word (at most
// 1 + 7 + 21) and still misses no pair within two edits, because two such prefixes keep at least
// VARIANT_PREFIX - 2 characters in common (test/unit/search-text.test.ts checks it on random pairs).

export const MAX_EDITS = 2;
export const VARIANT_PREFIX = 7;
/** Shorter keys would match almost any short word; a query word of four letters yields keys of two. */
export const MIN_VARIANT_LENGTH = 2;

/** How many typos a query word of `length` code points may have: none below 4, one for 4–5, two from 6 on. */
export function allowedEdits(length: number): number {
  if (length < 4) return 0;
  return length < 6 ? 1 : 2;
}

/**
 * Every string left after deleting up to `maxDeletes` code points of the first VARIANT_PREFIX code
 * points of `word`, the prefix itself included; none shorter than MIN_VARIANT_LENGTH.
 */
export function deletionVariants(word: string, maxDeletes: number = MAX_EDITS): string[] {
  const prefix = Array.from(word).slice(0, VARIANT_PREFIX);
  const found = new Set<string>();
  let level = [prefix];
  if (prefix.length >= MIN_VARIANT_LENGTH) found.add(prefix.join(''));
  for (let deletes = 1; deletes <= maxDeletes; deletes += 1) {
    const next: string[][] = [];
    for (const chars of level) {
      if (chars.length - 1 < MIN_VARIANT_LENGTH) continue;
      for (let i = 0; i < chars.length; i += 1) {
        const shorter = chars.slice(0, i).concat(chars.slice(i + 1));
        const key = shorter.join('');
        if (found.has(key)) continue;
        found.add(key);
        next.push(shorter);
      }
    }
    level = next;
  }
  return [...found];
}

/**
 * Optimal-string-alignment distance (Damerau–Levenshtein with adjacent transpositions) between two
 * code-point arrays, or `max + 1` as soon as it is known to exceed `max`.
 */
export function editDistance(a: readonly string[], b: readonly string[], max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const width = b.length + 1;
  // Three rows, reused: two back (for transpositions), the previous and the current.
  let before = new Uint16Array(width);
  let previous = new Uint16Array(width);
  let current = new Uint16Array(width);
  for (let j = 0; j < width; j += 1) previous[j] = j;
  // A transposition reaches back two rows, so stop only when two rows in a row exceed `max`.
  let previousMin = 0;
  for (let i = 1; i <= a.length; i += 1) {
    current[0] = i;
    let rowMin = i;
    const ai = a[i - 1];
    for (let j = 1; j <= b.length; j += 1) {
      const bj = b[j - 1];
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (ai === bj ? 0 : 1));
      if (i > 1 && j > 1 && ai === b[j - 2] && a[i - 2] === bj) value = Math.min(value, before[j - 2]! + 1);
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max && previousMin > max) return max + 1;
    previousMin = rowMin;
    [before, previous, current] = [previous, current, before];
  }
  return Math.min(previous[b.length]!, max + 1);
}
