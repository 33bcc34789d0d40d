// The lossy length postings carry for ranking (search/document.ts postingLength): exact for short
// documents, within about 4.4 % of the length (and half a term) otherwise, never decreasing as a document grows, and
// the same for most one-word edits of a long text.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { postingLength } from '../../src/search/document.js';

describe('postingLength', () => {
  it('is exact up to 16 terms', () => {
    for (let n = 0; n <= 16; n++) expect(postingLength(n)).toBe(n);
  });

  it('stays within half a step of the length and never decreases', () => {
    fc.assert(
      fc.property(fc.integer({ min: 17, max: 10_000_000 }), (n) => {
        // Half a step (2^(1/16) - 1), and half a term of rounding to an integer.
        expect(Math.abs(postingLength(n) - n)).toBeLessThanOrEqual(0.0443 * n + 0.5);
        expect(postingLength(n + 1)).toBeGreaterThanOrEqual(postingLength(n));
      }),
    );
  });

  it('changes for few one-word edits of a 2 KB text (about 350 words)', () => {
    let changed = 0;
    for (let n = 300; n < 400; n++) if (postingLength(n + 1) !== postingLength(n)) changed += 1;
    expect(changed).toBeLessThanOrEqual(4);
  });
});
