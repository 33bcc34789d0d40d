// Who may do what in a campaign (CONTRACT "Members and roles"), in one place. Every campaign route
// declares the least role it needs (`config.role`; reads default to player, writes to gm) and the
// authentication hook refuses anyone below it with 403 role_forbidden before the body is read. The
// finer rules of the member routes (who may invite, remove or promote whom) are the functions below,
// which those routes call. What a caller may *see* is decided by access/view.ts.
import type { Role } from '../db/schema.js';
import { errors } from '../domain/errors.js';

export type { Role };
export const ROLES = ['owner', 'gm', 'player'] as const;
export type MemberRole = Exclude<Role, 'owner'>;

const RANK: Record<Role, number> = { player: 1, gm: 2, owner: 3 };

/** Whether `value` names a role. */
export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

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

/**
 * Who a campaign write acts for (CONTRACT "Authorization holds for the whole request"): the
 * caller, the campaign named in the path, the least role the route needs, and whether the request
 * views the campaign as players do (read-only). Set by the authentication hook for every write
 * route of a campaign; checked again, against the membership as it is at commit, inside the write's
 * transaction (db/repositories/common.ts: openCampaignWrite, or for a request's write on PostgreSQL
 * the same check made by the database, holdCampaignWriteOpening with rolesAllowedAtCommit).
 */
export interface Actor {
  userId: string;
  campaignId: number;
  least: Role;
  asPlayer: boolean;
}

/**
 * Whether the write of `actor` to `campaignId` may commit, given the actor's role there read inside
 * the transaction (undefined: no longer a member). Throws 404 campaign_not_found for a caller who
 * is no longer a member (as for every campaign route), 403 role_forbidden for one now below the
 * route's least role or viewing as a player.
 */
export function authorizeWriteAtCommit(actor: Actor, campaignId: number, roleNow: Role | undefined): void {
  if (roleNow === undefined) throw errors.campaignNotFound();
  if (actor.asPlayer) throw errors.roleForbidden('you are viewing the campaign as a player, which is read-only.');
  if (campaignId !== actor.campaignId && !atLeast(roleNow, 'gm')) throw errors.roleForbidden('it needs the role gm.');
  if (!atLeast(roleNow, actor.least)) throw errors.roleForbidden(`it needs the role ${actor.least}, and yours is now ${roleNow}.`);
}

// rolesAllowedAtCommit's answers, by all that authorizeWriteAtCommit reads of the actor and the
// campaign besides the role: a handful of keys.
const allowedAtCommit = new Map<string, readonly Role[]>();

/**
 * The roles with which `actor`'s write to `campaignId` may commit: exactly those for which
 * authorizeWriteAtCommit throws nothing, for a check made by the database itself (PostgreSQL: the
 * first statement of a request's campaign write, db/repositories/common.ts), which then reports the
 * role it found so that authorizeWriteAtCommit gives the answer.
 */
export function rolesAllowedAtCommit(actor: Actor, campaignId: number): readonly Role[] {
  const key = `${actor.least} ${actor.asPlayer} ${campaignId === actor.campaignId}`;
  let roles = allowedAtCommit.get(key);
  if (roles === undefined) {
    roles = ROLES.filter((role) => {
      try {
        authorizeWriteAtCommit(actor, campaignId, role);
        return true;
      } catch {
        return false;
      }
    });
    allowedAtCommit.set(key, roles);
  }
  return roles;
}

/** Owners revoke any invitation; a game master only those they made. */
export function mayRevokeInvitation(actor: { userId: string; role: Role }, createdBy: string): boolean {
  return actor.role === 'owner' || (actor.role === 'gm' && actor.userId === createdBy);
}
