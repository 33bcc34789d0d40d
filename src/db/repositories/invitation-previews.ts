import type { Db } from '../database.js';
import type { Role } from '../schema.js';

export interface InvitationPreviewRow {
  campaignName: string;
  invitedBy: string;
  role: Exclude<Role, 'owner'>;
  expiresAt: string;
}

/**
 * What an invitation offers, read without using it: the campaign's name, the inviter's name, the
 * role and the expiry. Undefined when accepting it would be 410 (unknown, expired, used up, revoked).
 */
export async function findInvitationPreview(db: Db, secretHash: string, now: string): Promise<InvitationPreviewRow | undefined> {
  const row = await db
    .selectFrom('invitations as i')
    .innerJoin('campaigns as c', 'c.id', 'i.campaign_id')
    .innerJoin('users as u', 'u.id', 'i.created_by')
    .select(['c.name as campaign_name', 'u.name as inviter_name', 'i.role', 'i.expires_at', 'i.uses', 'i.max_uses'])
    .where('i.secret_hash', '=', secretHash)
    .where('c.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row || row.expires_at <= now || row.uses >= row.max_uses) return undefined;
  return { campaignName: row.campaign_name, invitedBy: row.inviter_name, role: row.role, expiresAt: row.expires_at };
}
