// Typo tolerance. Candidates are found through typo keys (search_terms.typo0, typo1, typo2) and
// then checked with the true distance (editDistance below).
//
// What a vocabulary word stores is bounded: three keys on its own vocabulary row, whatever its
// length (typoKeys). A word of n ≥ 3 code points is cut into three segments of fixed lengths; two
// edits (insertions, deletions, substitutions) can touch at most two of them, so any word within
// two edits of it holds one segment unchanged, shifted by at most two places (the pigeonhole
// filter of PassJoin). Segment i's key, in column typo<i>, is the word's length and the segment's
// text: nezznar is "7:ne", "7:zz", "7:nar". A query word looks up, for every length within two of
// its own, each segment's text at each place it may have moved to (typoProbes): a few hundred keys
// at most, one indexed lookup. An adjacent transposition counts as one edit but may straddle two
// segments: the query side also tries itself with one neighbour pair swapped back at the places a
// straddling swap can be. A word of two code points is stored whole ("2:ab", in typo0) and found
// from the words of four letters it is two deletions of; shorter words take no typos. No pair
// within two edits is missed (test/unit/search-typo-keys.test.ts checks it on random pairs and
// exhaustively on short words), and a new word costs one row — the deletion neighbourhood used
// before stored up to 29 rows per word (search_term_variants), 125 times the text's size for a
// description of distinct words.

export const MAX_EDITS = 2;
/** How many typos a query word of `length` code points may have: none below 4, one for 4–5, two from 6 on. */
export function allowedEdits(length: number): number {
  if (length < 4) return 0;
  return length < 6 ? 1 : 2;
}

/** The three segments of a word of `length` ≥ 3 code points: [start, length] each (the last ones one longer when it does not divide). */
export function segments(length: number): [number, number][] {
  const base = Math.floor(length / 3);
  const longer = length % 3;
  const out: [number, number][] = [];
  let start = 0;
  for (let i = 0; i < 3; i += 1) {
    const size = base + (i >= 3 - longer ? 1 : 0);
    out.push([start, size]);
    start += size;
  }
  return out;
}

/** A word's typo keys, one per segment (search_terms.typo0, typo1, typo2); null where it has none. */
export type TypoKeys = [string | null, string | null, string | null];

/** The typo keys of a vocabulary word: its length and a segment's text ("6:go", "6:bl", "6:in" for goblin). */
export function typoKeys(word: string): TypoKeys {
  const chars = Array.from(word);
  const n = chars.length;
  if (n < 2) return [null, null, null];
  if (n === 2) return [`2:${word}`, null, null];
  const [first, second, third] = segments(n).map(([start, size]) => `${n}:${chars.slice(start, start + size).join('')}`);
  return [first!, second!, third!];
}

/**
 * The keys, per segment, under which every vocabulary word within MAX_EDITS edits of `word` (a
 * query word of four code points or more, see allowedEdits) is stored: at least one per such word.
 */
export function typoProbes(word: string): [string[], string[], string[]] {
  const chars = Array.from(word);
  const length = chars.length;
  const found = [new Set<string>(), new Set<string>(), new Set<string>()] as const;
  for (let n = Math.max(2, length - MAX_EDITS); n <= length + MAX_EDITS; n += 1) {
    if (n === 2) {
      // A word of two code points within two edits of a word of four: two of its characters deleted.
      for (let i = 0; i < length; i += 1) {
        for (let j = i + 1; j < length; j += 1) found[0].add(`2:${chars.filter((_, k) => k !== i && k !== j).join('')}`);
      }
      continue;
    }
    const parts = segments(n);
    // The word as typed, and with one neighbour pair swapped back where a swap straddling a
    // segment boundary of a word of length n can be (the boundary moved by at most one place).
    const bases = [chars];
    for (const [start] of parts.slice(1)) {
      for (let shift = -1; shift <= 1; shift += 1) {
        const at = start - 1 + shift;
        if (at < 0 || at + 1 >= length) continue;
        const swapped = [...chars];
        [swapped[at], swapped[at + 1]] = [swapped[at + 1]!, swapped[at]!];
        bases.push(swapped);
      }
    }
    for (const base of bases) {
      parts.forEach(([start, size], i) => {
        // The first segment has nothing before it to shift it.
        const shifts = i === 0 ? [0] : [-2, -1, 0, 1, 2];
        for (const shift of shifts) {
          const from = start + shift;
          if (from < 0 || from + size > base.length) continue;
          found[i]!.add(`${n}:${base.slice(from, from + size).join('')}`);
        }
      });
    }
  }
  return [[...found[0]].sort(), [...found[1]].sort(), [...found[2]].sort()];
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
