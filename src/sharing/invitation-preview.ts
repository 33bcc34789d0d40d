// The invitation preview: what a link offers (campaign, inviter, role, expiry), shown by the join
// page before anyone signs in. It reveals as much as accepting would, so it is guarded as accepting
// is: every unusable token counts against the caller's address on the same counter, and beyond the
// limit every try is refused (429) until the window ends.
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { findInvitationPreview, type InvitationPreviewRow } from '../db/repositories/invitation-previews.js';
import { count, isExhausted } from '../db/repositories/rate-limits.js';
import { errors } from '../domain/errors.js';
import { limitKeys, MINUTE_MS } from '../domain/rate-limit.js';
import { hashSecret } from '../domain/secrets.js';
import { nowIso } from '../domain/time.js';

const GUESSING_WINDOW_MS = 15 * MINUTE_MS;

export async function previewInvitation(
  database: Database,
  settings: Pick<Config, 'invitationMaxFailuresPerIp'>,
  token: string,
  ip: string,
  now = new Date(),
): Promise<InvitationPreviewRow> {
  const limit = { key: limitKeys.invitationFailuresByIp(ip), max: settings.invitationMaxFailuresPerIp, windowMs: GUESSING_WINDOW_MS };
  const state = await isExhausted(database.kysely, limit, now);
  if (state.limited) throw errors.rateLimited('Too many invitations tried from this address', state.resetSeconds);
  const preview = await findInvitationPreview(database.kysely, hashSecret(token), nowIso(now));
  if (!preview) {
    await count(database.kysely, limit, now);
    throw errors.invitationUnavailable();
  }
  return preview;
}
