import { Type } from '@sinclair/typebox';
import type { UserRow } from '../../db/schema.js';
import { hasPremium, EMAIL_MAX_LENGTH, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../domain/accounts.js';
import { Name, Timestamp } from './common.js';

export const User = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  premium: Type.Boolean({ description: 'true while premiumUntil is in the future, or always when the server sets EVERYONE_PREMIUM=true' }),
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

const NewPassword = Type.String({ description: `${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters, kept exactly as given` });

export const ChangePasswordBody = Type.Object({
  currentPassword: Type.String(),
  newPassword: NewPassword,
});

export const PasswordResetBody = Type.Object({
  token: Type.String({ description: 'the secret of the reset link (the part after # of the link the command line printed)' }),
  newPassword: NewPassword,
});

export const DeleteAccountBody = Type.Object({
  password: Type.String({ description: 'the account’s password, as a confirmation' }),
});

export const InvitationPreviewBody = Type.Object({ token: Type.String() });

export const InvitationPreview = Type.Object({
  campaignName: Type.String(),
  invitedBy: Type.String({ description: 'the name of the member who made the invitation' }),
  role: Type.Unsafe<'gm' | 'player'>({ type: 'string', enum: ['gm', 'player'] }),
  expiresAt: Timestamp,
});

export const TokenParams = Type.Object({ id: Type.String() });

export function presentUser(row: UserRow, settings: { everyonePremium: boolean }, now = new Date()) {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    premium: hasPremium(row, settings, now),
    premiumUntil: row.premium_until,
    createdAt: row.created_at,
  };
}

export function presentToken(row: { id: number; name: string; created_at: string; expires_at: string | null; last_used_at: string | null }) {
  return { id: row.id, name: row.name, createdAt: row.created_at, expiresAt: row.expires_at, lastUsedAt: row.last_used_at };
}
