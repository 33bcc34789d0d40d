// Invitations: making one (a secret link, rate limited per user) and accepting one (rate limited
// per IP against guessing). A service because it spans the rules (access/policy.ts), the secret
// and the rate-limit counters; the routes (http/routes/members.ts) only check input and answer.
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { acceptInvitation, createInvitation, type Acceptance } from '../db/repositories/members.js';
import { count, isExhausted, takeSlot } from '../db/repositories/rate-limits.js';
import type { InvitationRow, Role } from '../db/schema.js';
import { mayInvite, type MemberRole } from '../access/policy.js';
import { AppError, errors } from '../domain/errors.js';
import { HOUR_MS, limitKeys, MINUTE_MS } from '../domain/rate-limit.js';
import { hashSecret, newSecret } from '../domain/secrets.js';

type InvitationSettings = Pick<Config, 'invitationsMaxPerUserPerHour' | 'invitationMaxFailuresPerIp' | 'publicBaseUrl'>;

export const INVITATION_DEFAULT_DAYS = 7;
export const INVITATION_MAX_DAYS = 365;
export const INVITATION_MAX_USES = 1000;
/** The web app's page that accepts an invitation; the secret travels in the fragment, never to a server log. */
export const INVITATION_PAGE = '/join';
const GUESSING_WINDOW_MS = 15 * MINUTE_MS;

export interface NewInvitationResult {
  invitation: InvitationRow;
  token: string;
  url: string;
}

export class Invitations {
  constructor(
    private readonly database: Database,
    private readonly settings: InvitationSettings,
  ) {}

  /** Creates an invitation to `campaignId` with `role`, made by a member with role `inviterRole`. */
  async create(
    campaignId: number,
    inviter: { userId: string; role: Role },
    input: { role: MemberRole; expiresAt: string; maxUses: number },
    now = new Date(),
  ): Promise<NewInvitationResult> {
    if (!mayInvite(inviter.role, input.role)) throw errors.roleForbidden('a game master may invite players only.');
    const limit = { key: limitKeys.invitationsByUser(inviter.userId), max: this.settings.invitationsMaxPerUserPerHour, windowMs: HOUR_MS };
    const decision = await takeSlot(this.database.kysely, limit, now);
    if (decision.limited) throw errors.rateLimited('Too many new invitations from this account', decision.resetSeconds);
    const token = newSecret('lfi_');
    const invitation = await createInvitation(this.database, campaignId, {
      role: input.role,
      secretHash: hashSecret(token),
      createdBy: inviter.userId,
      expiresAt: input.expiresAt,
      maxUses: input.maxUses,
    });
    return { invitation, token, url: this.urlOf(token) };
  }

  urlOf(token: string): string {
    return `${this.settings.publicBaseUrl}${INVITATION_PAGE}#${token}`;
  }

  /**
   * Accepts an invitation for `userId`. Every failed try counts against the caller's IP; beyond the
   * limit every try is refused (429) until the window ends, valid token or not.
   */
  async accept(token: string, userId: string, ip: string, now = new Date()): Promise<Acceptance> {
    const limit = { key: limitKeys.invitationFailuresByIp(ip), max: this.settings.invitationMaxFailuresPerIp, windowMs: GUESSING_WINDOW_MS };
    const state = await isExhausted(this.database.kysely, limit, now);
    if (state.limited) throw errors.rateLimited('Too many invitations tried from this address', state.resetSeconds);
    try {
      return await acceptInvitation(this.database, hashSecret(token), userId);
    } catch (error) {
      if (error instanceof AppError && error.code === 'invitation_unavailable') await count(this.database.kysely, limit, now);
      throw error;
    }
  }
}
