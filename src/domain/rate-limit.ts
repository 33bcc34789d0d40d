import { hashSecret } from './secrets.js';

// The rules of the rate limits (the account routes' and the general per-caller one). The counters
// are fixed windows kept in the database, shared by every instance (db/repositories/rate-limits.ts).
// A limit answers "go on" or "wait this many seconds"; the HTTP layer turns the latter into 429 with
// Retry-After.

export interface Limit {
  /** Counter key, e.g. `login:ip:203.0.113.7`. */
  key: string;
  max: number;
  windowMs: number;
}

/** A counter's live window: its hits so far and when it ends. */
export interface WindowState {
  hits: number;
  /** When the current window ends (ISO). */
  resetAt: string;
}

export interface LimitDecision {
  limited: boolean;
  /** Attempts left in this window. */
  remaining: number;
  /** Whole seconds until the window ends, at least 1 (a client told "0" would retry at once). */
  resetSeconds: number;
}

// Keys hold no personal data and stay short whatever the client sent: an email is hashed (a
// login may name any string, and the key is an indexed primary key).
export const limitKeys = {
  registerByIp: (ip: string) => `register:ip:${ip}`,
  loginFailuresByIp: (ip: string) => `login:ip:${ip}`,
  // Per account AND address: failures from one address never lock the account for the others.
  loginFailuresByAccountAndIp: (normalizedEmail: string, ip: string) => `login:account-ip:${hashSecret(JSON.stringify([normalizedEmail, ip]))}`,
  tokensByUser: (userId: string) => `tokens:user:${userId}`,
  apiByUser: (userId: string) => `api:user:${userId}`,
  invitationsByUser: (userId: string) => `invitations:user:${userId}`,
  invitationFailuresByIp: (ip: string) => `invitation-accept:ip:${ip}`,
  importsByUser: (userId: string) => `imports:user:${userId}`,
};

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;

/**
 * The decision for a window. `counted`: the state includes this attempt (limited beyond max);
 * otherwise it was only looked at (limited once max is reached).
 */
export function decide(limit: Limit, state: WindowState, counted: boolean, now: Date): LimitDecision {
  return {
    limited: counted ? state.hits > limit.max : state.hits >= limit.max,
    remaining: Math.max(0, limit.max - state.hits),
    resetSeconds: Math.max(1, Math.ceil((Date.parse(state.resetAt) - now.getTime()) / 1000)),
  };
}
