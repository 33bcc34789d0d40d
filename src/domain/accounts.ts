// The rules of accounts that hold whatever the transport: what an email, a password and a token
// expiry must be. Checked with an InputChecker so every problem of a body is reported at once.
import type { InputChecker } from './input.js';
import { parseDateTime } from './time.js';

export const EMAIL_MAX_LENGTH = 254;
export const PASSWORD_MIN_LENGTH = 10;
// argon2 hashes whatever it is given; a bound keeps one request's work bounded.
export const PASSWORD_MAX_LENGTH = 1024;

/** A user is premium while premiumUntil is in the future. */
export function isPremium(user: { premium_until: string | null }, now: Date = new Date()): boolean {
  return user.premium_until !== null && Date.parse(user.premium_until) > now.getTime();
}

/** Premium as this server grants it: every account with EVERYONE_PREMIUM, else while premiumUntil is ahead. */
export function hasPremium(user: { premium_until: string | null }, settings: { everyonePremium: boolean }, now: Date = new Date()): boolean {
  return settings.everyonePremium || isPremium(user, now);
}

// Something@something: no blanks or control characters, exactly one @ with text on both sides.
const PLAUSIBLE_EMAIL = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+$/u;

/** The email of a registration, trimmed. */
export function checkEmail(check: InputChecker, value: string, path: string): string {
  const email = value.trim();
  if (email.length > EMAIL_MAX_LENGTH) check.issues.push({ path, message: `must be at most ${EMAIL_MAX_LENGTH} characters` });
  else if (!PLAUSIBLE_EMAIL.test(email)) check.issues.push({ path, message: 'must be an email address' });
  return email;
}

/** A new password: kept exactly as given (no trimming), its length counted in characters. */
export function checkPassword(check: InputChecker, value: string, path: string): string {
  const length = [...value].length;
  if (length < PASSWORD_MIN_LENGTH) check.issues.push({ path, message: `must be at least ${PASSWORD_MIN_LENGTH} characters` });
  else if (length > PASSWORD_MAX_LENGTH) check.issues.push({ path, message: `must be at most ${PASSWORD_MAX_LENGTH} characters` });
  return value;
}

/** The optional expiry of a new token: null when absent, else a future instant. */
export function checkExpiry(check: InputChecker, value: string | null | undefined, path: string, now: Date): string | null {
  if (value === undefined || value === null) return null;
  const instant = parseDateTime(value);
  if (instant === undefined) {
    check.issues.push({ path, message: 'must be an ISO 8601 date-time with a time zone, e.g. 2027-01-31T12:00:00Z' });
    return null;
  }
  if (Date.parse(instant) <= now.getTime()) check.issues.push({ path, message: 'must be in the future' });
  return instant;
}
