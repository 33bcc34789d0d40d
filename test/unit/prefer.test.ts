import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { preferenceNames, prefersAsync } from '../../src/http/prefer.js';

// The Prefer header (RFC 7240) as clients send it: `respond-async` alone or among other
// preferences, in any case, with values and parameters, in one header or several.

describe('Prefer: respond-async', () => {
  it('is found as clients write it', () => {
    for (const header of ['respond-async', 'Respond-Async', 'RESPOND-ASYNC', 'wait=10, respond-async', 'respond-async, wait=10', 'handling=lenient,respond-async;x=1', '  respond-async  ', 'return=minimal; foo="a,b", respond-async']) {
      expect(prefersAsync(header), header).toBe(true);
    }
    expect(prefersAsync(['wait=5', 'respond-async'])).toBe(true);
  });

  it('is not found where it is not a preference of its own', () => {
    for (const header of [undefined, '', 'wait=10', 'respond-asynchronously', 'x-respond-async', 'foo="respond-async"', 'foo="a, respond-async"', 'return=respond-async', 'respond async']) {
      expect(prefersAsync(header), String(header)).toBe(false);
    }
  });

  it('reads every preference of any list, whatever values, parameters, quotes and spaces surround them', () => {
    const token = fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/);
    const value = fc.oneof(fc.constant(''), token.map((t) => `=${t}`), fc.string({ maxLength: 12 }).map((t) => `="${t.replace(/["\\]/g, '')}"`));
    const parameter = fc.oneof(fc.constant(''), token.map((t) => `;${t}=1`));
    const space = fc.constantFrom('', ' ', '  ', '\t');
    const preference = fc.record({ name: fc.oneof(token, fc.constant('respond-async')), value, parameter, before: space, after: space });
    fc.assert(
      fc.property(fc.array(preference, { minLength: 1, maxLength: 6 }), fc.boolean(), (preferences, upper) => {
        const header = preferences.map((p) => `${p.before}${upper ? p.name.toUpperCase() : p.name}${p.value}${p.parameter}${p.after}`).join(',');
        expect(preferenceNames(header)).toEqual(preferences.map((p) => p.name));
        expect(prefersAsync(header)).toBe(preferences.some((p) => p.name === 'respond-async'));
      }),
    );
  });
});
