import { previewInvitation } from '../../sharing/invitation-preview.js';
import type { AppInstance } from '../app-types.js';
import { InvitationPreview, InvitationPreviewBody } from '../schemas/auth.js';
import { problems } from '../schemas/common.js';

export function invitationPreviewRoutes(app: AppInstance) {
  const { database, config } = app;

  app.post(
    '/invitations/preview',
    {
      config: { auth: 'none', rateLimited: true },
      schema: {
        operationId: 'previewInvitation',
        summary: 'What an invitation offers, without accepting it',
        description:
          'The campaign’s name, the name of the member who invited, the role and the expiry of the invitation, so the join page can show them before anyone signs in; nothing is used or changed. Needs no caller: the token is the credential. ' +
          'Expired, used up, revoked or unknown: 410 `invitation_unavailable`, as accepting would be, counted on the same per-IP counter of failed tries (beyond INVITATION_MAX_FAILURES_PER_IP in 15 minutes, 429).',
        tags: ['members'],
        body: InvitationPreviewBody,
        response: { 200: InvitationPreview, ...problems(400, 410, 415, 429) },
      },
    },
    async (request) => previewInvitation(database, config, request.body.token.trim(), request.ip),
  );
}
