// Who may do what in a campaign (CONTRACT "Members and roles"), in one place. Every campaign route
// declares the least role it needs (`config.role`; reads default to player, writes to gm) and the
// authentication hook refuses anyone below it with 403 role_forbidden before the body is read. The
// finer rules of the member routes (who may invite, remove or promote whom) are the functions below,
// which those routes call. What a caller may *see* is decided by access/view.ts.
import type { Role } from '../db/schema.js';

export type { Role };
export const ROLES = ['owner', 'gm', 'player'] as const;
export type MemberRole = Exclude<Role, 'owner'>;

const RANK: Record<Role, number> = { player: 1, gm: 2, owner: 3 };

/** Whether `role` is at least `least`. */
export function atLeast(role: Role, least: Role): boolean {
  return RANK[role] >= RANK[least];
}

/** The higher of two roles (accepting an invitation never lowers a member's role). */
export function higherRole<R extends Role>(a: R, b: R): R {
  return RANK[a] >= RANK[b] ? a : b;
}

/** The least role a route needs when it does not say: reading is for every member, writing for game masters. */
export function defaultLeastRole(method: string): Role {
  return method === 'GET' || method === 'HEAD' ? 'player' : 'gm';
}

/** Owners invite with any role but owner; game masters invite players. */
export function mayInvite(inviter: Role, role: MemberRole): boolean {
  return inviter === 'owner' || (inviter === 'gm' && role === 'player');
}

/**
 * Whether `actor` may remove the member `target` (another user, or `self` when it is the actor):
 * the owner anyone but themselves (an owner leaves by transferring first), a game master players
 * and themselves, a player only themselves.
 */
export function mayRemove(actor: Role, target: Role, self: boolean): boolean {
  if (target === 'owner') return false;
  if (self) return true;
  return actor === 'owner' || (actor === 'gm' && target === 'player');
}
