import { Type } from '@sinclair/typebox';
import type { UserRow } from '../../db/schema.js';
import type { InputChecker } from '../../domain/input.js';
import { parseDateTime } from '../../domain/time.js';
import { Name, Timestamp } from './common.js';

export const EMAIL_MAX_LENGTH = 254;
export const PASSWORD_MIN_LENGTH = 10;
// argon2 hashes whatever it is given; a bound keeps one request's work bounded.
export const PASSWORD_MAX_LENGTH = 1024;

export const User = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  premium: Type.Boolean({ description: 'true while premiumUntil is in the future' }),
  premiumUntil: Type.Union([Timestamp, Type.Null()]),
  createdAt: Timestamp,
});

export const UserEnvelope = Type.Object({ user: User });

// Types only: the rules (trimming, lengths, plausibility) are checked in code so that every
// problem of a body is reported at once, with its JSON pointer.
export const RegisterBody = Type.Object({
  email: Type.String({ description: `trimmed; something@something, at most ${EMAIL_MAX_LENGTH} characters; unique, case-insensitively` }),
  password: Type.String({ description: `${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters` }),
  name: Type.Optional(Name),
});

export const LoginBody = Type.Object({
  email: Type.String(),
  password: Type.String(),
});

export const NewTokenBody = Type.Object({
  name: Name,
  expiresAt: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: 'ISO 8601 date-time with a time zone (Z or ±hh:mm), in the future; null or absent: never expires',
    }),
  ),
});

export const CreatedToken = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  token: Type.String({ description: 'the secret, shown this once; send it as "Authorization: Bearer <token>"' }),
  createdAt: Timestamp,
  expiresAt: Type.Union([Timestamp, Type.Null()]),
});

export const TokenSummary = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  createdAt: Timestamp,
  expiresAt: Type.Union([Timestamp, Type.Null()]),
  lastUsedAt: Type.Union([Timestamp, Type.Null()], { description: 'updated at most once a minute' }),
});

export const TokenParams = Type.Object({ id: Type.String() });

export function presentUser(row: UserRow, now = new Date()) {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    premium: row.premium_until !== null && Date.parse(row.premium_until) > now.getTime(),
    premiumUntil: row.premium_until,
    createdAt: row.created_at,
  };
}

export function presentToken(row: { id: number; name: string; created_at: string; expires_at: string | null; last_used_at: string | null }) {
  return { id: row.id, name: row.name, createdAt: row.created_at, expiresAt: row.expires_at, lastUsedAt: row.last_used_at };
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
