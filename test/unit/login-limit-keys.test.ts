import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeEmail } from '../../src/db/repositories/users.js';
import { limitKeys } from '../../src/domain/rate-limit.js';

// Failed sign-ins count per account and address pair (CONTRACT "# Phase 3" › "Accounts"): one
// address's failures must never land on another address's counter for the same account, whatever
// strings a client sends as its email.
describe('the sign-in limit key of an account and an address', () => {
  it('differs for every two different pairs, and is one short key whatever the input', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), fc.string(), (emailA, ipA, emailB, ipB) => {
        fc.pre(emailA !== emailB || ipA !== ipB);
        const a = limitKeys.loginFailuresByAccountAndIp(emailA, ipA);
        expect(a).not.toBe(limitKeys.loginFailuresByAccountAndIp(emailB, ipB));
        expect(a).toMatch(/^login:account-ip:[0-9a-f]{64}$/);
      }),
      { numRuns: 2000 },
    );
  });

  it('is the same for every spelling of an address that names the same account', () => {
    fc.assert(
      fc.property(fc.emailAddress(), fc.ipV4(), fc.array(fc.boolean(), { maxLength: 64 }), fc.constantFrom('', ' ', '  \t'), (email, ip, upper, pad) => {
        const spelled = pad + [...email].map((c, i) => (upper[i % Math.max(upper.length, 1)] ? c.toUpperCase() : c)).join('') + pad;
        expect(limitKeys.loginFailuresByAccountAndIp(normalizeEmail(spelled), ip)).toBe(limitKeys.loginFailuresByAccountAndIp(normalizeEmail(email), ip));
      }),
    );
  });

  it('never equals the per-address key, which stands beside it', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (email, ip) => {
        expect(limitKeys.loginFailuresByAccountAndIp(email, ip)).not.toBe(limitKeys.loginFailuresByIp(ip));
      }),
    );
  });
});
