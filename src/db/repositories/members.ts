// Members of a campaign and the invitations that make them (CONTRACT "Members and roles"). The rules
// of who may do what are access/policy.ts; these functions apply them inside the transactions that
// make the changes, so two concurrent changes cannot together break them (one owner, always).
import type { Transaction } from 'kysely';
import type { Database, Db } from '../database.js';
import type { CampaignMembersTable, CampaignRow, DB, InvitationRow, Role } from '../schema.js';
import { higherRole, mayInvite, mayRemove, mayRevokeInvitation, type MemberRole } from '../../access/policy.js';
import { errors } from '../../domain/errors.js';
import { nowIso } from '../../domain/time.js';
import { revokeUploadGrantsOf } from './assets.js';
import { beginCampaignWrite, campaignWrite, roleAtCommit } from './common.js';

export interface MemberListing {
  user_id: string;
  name: string;
  email: string;
  role: Role;
  joined_at: string;
}

const ROLE_ORDER = { owner: 0, gm: 1, player: 2 } as const;

/** Adds a member to a campaign (in the caller's transaction). */
export async function addCampaignMember(db: Db, member: CampaignMembersTable): Promise<void> {
  await db.insertInto('campaign_members').values(member).execute();
}

function memberQuery(db: Db, campaignId: number) {
  return db
    .selectFrom('campaign_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.user_id', 'u.name', 'u.email', 'm.role', 'm.joined_at'])
    .where('m.campaign_id', '=', campaignId);
}

/** The campaign's members: the owner, then game masters, then players, each by when they joined. One statement. */
export async function listMembers(db: Db, campaignId: number): Promise<MemberListing[]> {
  const rows = await memberQuery(db, campaignId).orderBy('m.joined_at').orderBy('m.user_id').execute();
  return rows.sort((a, b) => ROLE_ORDER[a.role] - ROLE_ORDER[b.role]);
}

export function findMember(db: Db, campaignId: number, userId: string): Promise<MemberListing | undefined> {
  return memberQuery(db, campaignId).where('m.user_id', '=', userId).executeTakeFirst();
}

async function requireMember(db: Db, campaignId: number, userId: string): Promise<MemberListing> {
  const member = await findMember(db, campaignId, userId);
  if (!member) throw errors.memberNotFound(userId);
  return member;
}

/** Gives a member (not the owner: ownership moves only by transfer) the role `gm` or `player`. */
export function changeMemberRole(database: Database, campaignId: number, userId: string, role: MemberRole): Promise<MemberListing> {
  return campaignWrite(database, campaignId, async (trx) => {
    const member = await requireMember(trx, campaignId, userId);
    if (member.role === 'owner') throw errors.ownerMustTransfer('keeps the role owner');
    await trx.updateTable('campaign_members').set({ role }).where('campaign_id', '=', campaignId).where('user_id', '=', userId).execute();
    // A player invites nobody and uploads nothing: the links they made as a game master and the
    // upload URLs they were given stop working.
    if (role === 'player') await revokeMemberPowers(trx, campaignId, userId);
    return { ...member, role };
  });
}

/** The role of the member `userId` as the transaction commits it; 404 when they are no longer a member. */
async function actorRole(trx: Transaction<DB>, campaignId: number, userId: string): Promise<Role> {
  const role = await roleAtCommit(trx, campaignId, userId);
  if (role === undefined) throw errors.campaignNotFound();
  return role;
}

/**
 * Removes `userId` from the campaign on behalf of the member `actorUserId`, with the actor's role as
 * it is at commit: the owner removes anyone but themselves, a game master players and themselves, a
 * player themselves. The removed member's next request is refused: membership is read on every
 * request, and again inside every write.
 */
export function removeMember(database: Database, campaignId: number, actorUserId: string, userId: string): Promise<void> {
  return campaignWrite(database, campaignId, async (trx) => {
    const role = await actorRole(trx, campaignId, actorUserId);
    const member = await requireMember(trx, campaignId, userId);
    const self = member.user_id === actorUserId;
    if (member.role === 'owner' && self) throw errors.ownerMustTransfer('cannot leave the campaign');
    if (!mayRemove(role, member.role, self)) {
      throw errors.roleForbidden(role === 'player' ? 'a player may only leave, not remove others.' : 'a game master may remove players only.');
    }
    await trx.deleteFrom('campaign_members').where('campaign_id', '=', campaignId).where('user_id', '=', userId).execute();
    // Nobody gets in by the links, nor uploads by the URLs, of someone who is no longer in.
    await revokeMemberPowers(trx, campaignId, userId);
  });
}

/** A member removed or made a player: their invitations and unused upload grants stop working. */
async function revokeMemberPowers(trx: Transaction<DB>, campaignId: number, userId: string): Promise<void> {
  await trx.deleteFrom('invitations').where('campaign_id', '=', campaignId).where('created_by', '=', userId).execute();
  await revokeUploadGrantsOf(trx, campaignId, userId, nowIso());
}

/**
 * Makes the member `toUserId` the owner; the owner becomes a game master. The campaign's `userId`
 * follows, so its version and updatedAt move. 400 when `toUserId` is no member.
 */
export function transferOwnership(database: Database, campaign: CampaignRow, fromUserId: string, toUserId: string): Promise<CampaignRow> {
  return campaignWrite(database, campaign.id, async (trx) => {
    const target = await findMember(trx, campaign.id, toUserId);
    if (!target) throw errors.notAMember(toUserId, 'userId');
    const current = await trx.selectFrom('campaigns').selectAll().where('id', '=', campaign.id).executeTakeFirstOrThrow();
    if (toUserId === fromUserId) return current;
    // Demote first: the database holds one owner per campaign at every statement.
    await trx.updateTable('campaign_members').set({ role: 'gm' }).where('campaign_id', '=', campaign.id).where('role', '=', 'owner').execute();
    // A game master invites players only: the previous owner's `gm` links stop working.
    await trx.deleteFrom('invitations').where('campaign_id', '=', campaign.id).where('created_by', '=', fromUserId).where('role', '=', 'gm').execute();
    await trx.updateTable('campaign_members').set({ role: 'owner' }).where('campaign_id', '=', campaign.id).where('user_id', '=', toUserId).execute();
    return trx
      .updateTable('campaigns')
      .set((eb) => ({ user_id: toUserId, version: eb('version', '+', 1), updated_at: nowIso() }))
      .where('id', '=', campaign.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

export interface NewInvitation {
  role: MemberRole;
  secretHash: string;
  createdBy: string;
  expiresAt: string;
  maxUses: number;
}

/** Creates an invitation, if its maker, with their role as it is at commit, may invite with its role. */
export function createInvitation(database: Database, campaignId: number, input: NewInvitation): Promise<InvitationRow> {
  return campaignWrite(database, campaignId, async (trx) => {
    if (!mayInvite(await actorRole(trx, campaignId, input.createdBy), input.role)) throw errors.roleForbidden('a game master may invite players only.');
    return trx
      .insertInto('invitations')
      .values({
        campaign_id: campaignId,
        role: input.role,
        secret_hash: input.secretHash,
        created_by: input.createdBy,
        created_at: nowIso(),
        expires_at: input.expiresAt,
        max_uses: input.maxUses,
        uses: 0,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

/** The campaign's invitations that can still be used (not expired, not used up), newest first. */
export function listInvitations(db: Db, campaignId: number, now: string): Promise<InvitationRow[]> {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('campaign_id', '=', campaignId)
    .where('expires_at', '>', now)
    .whereRef('uses', '<', 'max_uses')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/**
 * Revokes an invitation on behalf of the member `actorUserId`: its link stops working at once. The
 * owner revokes any; a game master only those they made (403 role_forbidden for the others).
 */
export function deleteInvitation(database: Database, campaignId: number, actorUserId: string, id: number): Promise<void> {
  return campaignWrite(database, campaignId, async (trx) => {
    const role = await actorRole(trx, campaignId, actorUserId);
    const invitation = await trx.selectFrom('invitations').select('created_by').where('campaign_id', '=', campaignId).where('id', '=', id).executeTakeFirst();
    if (!invitation) throw errors.invitationNotFound(id);
    if (!mayRevokeInvitation({ userId: actorUserId, role }, invitation.created_by)) throw errors.roleForbidden('a game master may revoke only the invitations they made.');
    await trx.deleteFrom('invitations').where('campaign_id', '=', campaignId).where('id', '=', id).execute();
  });
}

export interface Acceptance {
  campaign: CampaignRow;
  role: Role;
}

/**
 * Accepts the invitation whose secret hashes to `secretHash` for `userId`: a new member joins with
 * its role and uses it once; an existing member keeps their role, or rises to the invitation's
 * (a use too), never falls. Unknown, expired, used-up or revoked: invitation_unavailable.
 */
export function acceptInvitation(database: Database, secretHash: string, userId: string): Promise<Acceptance> {
  return database.write(async (trx) => {
    const now = nowIso();
    const invitation = await trx.selectFrom('invitations').selectAll().where('secret_hash', '=', secretHash).executeTakeFirst();
    if (!invitation || invitation.expires_at <= now || invitation.uses >= invitation.max_uses) throw errors.invitationUnavailable();
    if (!(await beginCampaignWrite(trx, invitation.campaign_id))) throw errors.invitationUnavailable();
    const existing = await trx
      .selectFrom('campaign_members')
      .select('role')
      .where('campaign_id', '=', invitation.campaign_id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    let role: Role = invitation.role;
    if (existing) role = higherRole<Role>(existing.role, invitation.role);
    if (!existing || role !== existing.role) {
      // Counted in the statement itself: two accepts racing for the last use cannot both have it.
      const used = await trx
        .updateTable('invitations')
        .set((eb) => ({ uses: eb('uses', '+', 1) }))
        .where('id', '=', invitation.id)
        .whereRef('uses', '<', 'max_uses')
        .returning('id')
        .executeTakeFirst();
      if (!used) throw errors.invitationUnavailable();
      if (existing) {
        await trx.updateTable('campaign_members').set({ role }).where('campaign_id', '=', invitation.campaign_id).where('user_id', '=', userId).execute();
      } else {
        await addCampaignMember(trx, { campaign_id: invitation.campaign_id, user_id: userId, role, joined_at: now });
      }
    }
    const campaign = await trx.selectFrom('campaigns').selectAll().where('id', '=', invitation.campaign_id).executeTakeFirstOrThrow();
    // A campaign in its owner's trash takes no one in (throwing undoes the membership above).
    if (campaign.deleted_at !== null) throw errors.invitationUnavailable();
    return { campaign, role };
  });
}
