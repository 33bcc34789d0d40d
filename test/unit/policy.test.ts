import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { atLeast, authorizeWriteAtCommit, isRole, mayRevokeInvitation, rolesAllowedAtCommit, ROLES, type Actor, type Role } from '../../src/access/policy.js';
import { AppError } from '../../src/domain/errors.js';

// The decision every campaign write makes again inside its transaction (CONTRACT "Authorization
// holds for the whole request"), over every combination of what the gate saw and what is true at commit.

const role = fc.constantFrom<Role>(...ROLES);

function outcome(actor: Actor, campaignId: number, roleNow: Role | undefined): string {
  try {
    authorizeWriteAtCommit(actor, campaignId, roleNow);
    return 'allowed';
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return error.code;
  }
}

describe('authorizeWriteAtCommit', () => {
  it('allows exactly a member at commit at least the route’s least role, not viewing as a player', () => {
    fc.assert(
      fc.property(role, fc.option(role, { nil: undefined }), fc.boolean(), (least, roleNow, asPlayer) => {
        const actor: Actor = { userId: 'u', campaignId: 7, least, asPlayer };
        const got = outcome(actor, 7, roleNow);
        if (roleNow === undefined) expect(got).toBe('campaign_not_found');
        else if (asPlayer || !atLeast(roleNow, least)) expect(got).toBe('role_forbidden');
        else expect(got).toBe('allowed');
      }),
    );
  });

  // The roles PostgreSQL checks a request's write against (migration 0036, common.ts holdCampaignWriteOpening).
  it('allows, by rolesAllowedAtCommit, exactly the roles it allows, for any caller, campaign and route', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 5 }), role, fc.boolean(), (userId, routeCampaign, campaignId, least, asPlayer) => {
        const actor: Actor = { userId, campaignId: routeCampaign, least, asPlayer };
        const allowed = rolesAllowedAtCommit(actor, campaignId);
        expect([...allowed].sort()).toEqual(ROLES.filter((r) => outcome(actor, campaignId, r) === 'allowed').sort());
      }),
    );
    expect(ROLES.every(isRole)).toBe(true);
    expect(['', 'admin', 'Owner'].some(isRole)).toBe(false);
  });

  it('a game master removed meanwhile is 404, made a player meanwhile 403', () => {
    const actor: Actor = { userId: 'u', campaignId: 1, least: 'gm', asPlayer: false };
    expect(outcome(actor, 1, undefined)).toBe('campaign_not_found');
    expect(outcome(actor, 1, 'player')).toBe('role_forbidden');
    expect(outcome(actor, 1, 'gm')).toBe('allowed');
    // An owner who transferred the campaign meanwhile no longer deletes it.
    expect(outcome({ ...actor, least: 'owner' }, 1, 'gm')).toBe('role_forbidden');
  });
});

describe('mayRevokeInvitation', () => {
  it('lets the owner revoke any invitation, a game master only their own, a player none', () => {
    expect(mayRevokeInvitation({ userId: 'o', role: 'owner' }, 'g')).toBe(true);
    expect(mayRevokeInvitation({ userId: 'g', role: 'gm' }, 'g')).toBe(true);
    expect(mayRevokeInvitation({ userId: 'g', role: 'gm' }, 'o')).toBe(false);
    expect(mayRevokeInvitation({ userId: 'p', role: 'player' }, 'p')).toBe(false);
  });
});
