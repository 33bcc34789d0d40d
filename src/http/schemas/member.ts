import { Type } from '@sinclair/typebox';
import type { MemberListing } from '../../db/repositories/members.js';
import type { InvitationRow, Role } from '../../db/schema.js';
import { Campaign } from './campaign.js';
import { Timestamp } from './common.js';

const RoleOut = Type.Unsafe<'owner' | 'gm' | 'player'>({ type: 'string', enum: ['owner', 'gm', 'player'] });
const MemberRoleIn = Type.Unsafe<'gm' | 'player'>({ type: 'string', enum: ['gm', 'player'], description: '`gm` (co-game master) or `player`' });

export const Member = Type.Object({
  userId: Type.String(),
  name: Type.String(),
  email: Type.Optional(Type.String({ description: 'shown to the owner and game masters only' })),
  role: RoleOut,
  joinedAt: Timestamp,
});

export const MemberParams = Type.Object({ campaignSlug: Type.String(), userId: Type.String() });
export const ChangeRoleBody = Type.Object({ role: MemberRoleIn });
export const TransferBody = Type.Object({ userId: Type.String({ description: 'the id of a member, who becomes the owner' }) });

export function presentMember(row: MemberListing, viewerRole: Role) {
  return {
    userId: row.user_id,
    name: row.name,
    ...(viewerRole === 'player' ? {} : { email: row.email }),
    role: row.role,
    joinedAt: row.joined_at,
  };
}

export const Invitation = Type.Object({
  id: Type.Integer(),
  role: Type.Unsafe<'gm' | 'player'>({ type: 'string', enum: ['gm', 'player'] }),
  expiresAt: Timestamp,
  maxUses: Type.Integer(),
  uses: Type.Integer(),
  createdAt: Timestamp,
  createdBy: Type.String({ description: 'the user id of the member who made it: a game master may revoke only their own' }),
});

export const CreatedInvitation = Type.Object({
  ...Invitation.properties,
  token: Type.String({ description: 'the secret, shown this once; only its hash is stored' }),
  url: Type.String({ description: 'the web app’s page that accepts the invitation, with the token in its fragment' }),
});

export const NewInvitationBody = Type.Object({
  role: MemberRoleIn,
  expiresAt: Type.Optional(Type.String({ description: 'ISO 8601 date-time with a time zone, in the future, at most a year ahead; default: in 7 days' })),
  maxUses: Type.Optional(Type.Integer({ description: 'how many people may accept it, 1 to 1000; default 1' })),
});

export const InvitationParams = Type.Object({ campaignSlug: Type.String(), id: Type.String() });
export const AcceptBody = Type.Object({ token: Type.String() });
export const Accepted = Type.Object({ campaign: Campaign, role: RoleOut });

export function presentInvitation(row: InvitationRow) {
  return { id: row.id, role: row.role, expiresAt: row.expires_at, maxUses: row.max_uses, uses: row.uses, createdAt: row.created_at, createdBy: row.created_by };
}
