import { Type } from '@sinclair/typebox';
import {
  changeMemberRole,
  deleteInvitation,
  listInvitations,
  listMembers,
  removeMember,
  transferOwnership,
} from '../../db/repositories/members.js';
import { loadHiddenRecords } from '../../db/repositories/visible.js';
import { makeView } from '../../access/view.js';
import { errors } from '../../domain/errors.js';
import { parseIdText } from '../../domain/ids.js';
import { InputChecker } from '../../domain/input.js';
import { nowIso, parseDateTime } from '../../domain/time.js';
import { INVITATION_DEFAULT_DAYS, INVITATION_MAX_DAYS, INVITATION_MAX_USES, Invitations } from '../../sharing/invitations.js';
import { callerOf, campaignOf, viewOf } from '../auth.js';
import type { AppInstance } from '../app-types.js';
import { campaignEtag } from '../conditional.js';
import { Campaign, presentCampaign } from '../schemas/campaign.js';
import { CampaignParams, problems } from '../schemas/common.js';
import {
  AcceptBody,
  Accepted,
  ChangeRoleBody,
  CreatedInvitation,
  Invitation,
  InvitationParams,
  Member,
  MemberParams,
  NewInvitationBody,
  presentInvitation,
  presentMember,
  TransferBody,
} from '../schemas/member.js';

const DAY_MS = 86_400_000;

// Members, roles and invitations (CONTRACT "Members and roles"). Who may call each route is its
// `config.role` (checked before the body is read); the finer rules (whom a game master may invite or
// remove) are access/policy.ts, applied by the repository and the invitations service.
export function membersRoutes(app: AppInstance) {
  const { database, config } = app;
  const invitations = new Invitations(database, config);

  app.get(
    '/campaigns/:campaignSlug/members',
    {
      config: { auth: 'campaign', role: 'player' },
      schema: {
        operationId: 'listMembers',
        summary: 'The campaign’s members',
        description: 'Every member: the owner, then game masters, then players, each by when they joined. The owner and game masters also see each member’s `email`.',
        tags: ['members'],
        params: CampaignParams,
        response: { 200: Type.Array(Member), ...problems(401, 404) },
      },
    },
    async (request) => {
      const view = viewOf(request);
      const rows = await listMembers(database.kysely, view.campaignId);
      return rows.map((row) => presentMember(row, view.role));
    },
  );

  app.put(
    '/campaigns/:campaignSlug/members/:userId',
    {
      config: { auth: 'campaign', role: 'owner' },
      schema: {
        operationId: 'changeMemberRole',
        summary: 'Change a member’s role',
        description: 'Makes a member a game master (`gm`) or a `player`. The owner only; the owner’s own role changes only by a transfer (409 `owner_must_transfer`). Takes effect at once, on requests in flight too (a write checks the role again as it commits); a game master made a player loses the invitations they made and their unused upload URLs.',
        tags: ['members'],
        params: MemberParams,
        body: ChangeRoleBody,
        response: { 200: Member, ...problems(400, 401, 403, 404, 409, 415) },
      },
    },
    async (request) => {
      const member = await changeMemberRole(database, campaignOf(request).id, request.params.userId, request.body.role);
      return presentMember(member, viewOf(request).role);
    },
  );

  app.delete(
    '/campaigns/:campaignSlug/members/:userId',
    {
      config: { auth: 'campaign', role: 'player' },
      schema: {
        operationId: 'removeMember',
        summary: 'Remove a member, or leave',
        description: 'The owner removes anyone; a game master removes players; anyone may remove themselves (leave), except the owner, who transfers the campaign first (409 `owner_must_transfer`). Anything else is 403 `role_forbidden`. The removed member’s next request is 404, as is a write of theirs still in flight; the invitations they made and their unused upload URLs stop working. Viewing as a player (`Loreforge-View: player`) is read-only: leaving too is 403 `role_forbidden` then.',
        tags: ['members'],
        params: MemberParams,
        response: { 204: Type.Null(), ...problems(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await removeMember(database, viewOf(request).campaignId, callerOf(request).user.id, request.params.userId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/campaigns/:campaignSlug/transfer',
    {
      config: { auth: 'campaign', role: 'owner' },
      schema: {
        operationId: 'transferCampaign',
        summary: 'Transfer the campaign',
        description: 'Makes the member `userId` the owner; the previous owner becomes a game master. The owner only. A user who is not a member is 400 `invalid_reference`. The `gm` invitations the previous owner made stop working (a game master invites players only).',
        tags: ['members'],
        params: CampaignParams,
        body: TransferBody,
        responseHeaders: { 200: ['etag'] },
        response: { 200: Campaign, ...problems(400, 401, 403, 404, 415) },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const row = await transferOwnership(database, campaignOf(request), caller.user.id, request.body.userId);
      const view = makeView(row, row.user_id === caller.user.id ? 'owner' : 'gm', false);
      return reply.header('etag', campaignEtag(view, row)).send(presentCampaign(row, view));
    },
  );

  app.post(
    '/campaigns/:campaignSlug/invitations',
    {
      config: { auth: 'campaign', role: 'gm', rateLimited: true },
      schema: {
        operationId: 'createInvitation',
        summary: 'Invite someone',
        description:
          'Creates an invitation link: the owner invites with role `gm` or `player`, a game master with `player` (else 403 `role_forbidden`). ' +
          `Expires at \`expiresAt\` (default in ${INVITATION_DEFAULT_DAYS} days, at most ${INVITATION_MAX_DAYS} ahead) and admits \`maxUses\` people (default 1). ` +
          'The secret `token` is in this answer only (`Cache-Control: no-store`); `url` is the web app’s page that accepts it. Rate limited per user.',
        tags: ['members'],
        params: CampaignParams,
        body: NewInvitationBody,
        responseHeaders: { 201: ['location', 'cache-control'] },
        response: { 201: CreatedInvitation, ...problems(400, 401, 403, 404, 415, 429) },
      },
    },
    async (request, reply) => {
      const now = new Date();
      const check = new InputChecker();
      let expiresAt = new Date(now.getTime() + INVITATION_DEFAULT_DAYS * DAY_MS).toISOString();
      if (request.body.expiresAt !== undefined) {
        const instant = parseDateTime(request.body.expiresAt);
        if (instant === undefined) check.issues.push({ path: '/expiresAt', message: 'must be an ISO 8601 date-time with a time zone, e.g. 2027-01-31T12:00:00Z' });
        else if (Date.parse(instant) <= now.getTime()) check.issues.push({ path: '/expiresAt', message: 'must be in the future' });
        else if (Date.parse(instant) > now.getTime() + INVITATION_MAX_DAYS * DAY_MS) check.issues.push({ path: '/expiresAt', message: `must be at most ${INVITATION_MAX_DAYS} days ahead` });
        else expiresAt = instant;
      }
      const maxUses = request.body.maxUses ?? 1;
      if (maxUses < 1 || maxUses > INVITATION_MAX_USES) check.issues.push({ path: '/maxUses', message: `must be from 1 to ${INVITATION_MAX_USES}` });
      check.done();
      const view = viewOf(request);
      const campaign = campaignOf(request);
      const created = await invitations.create(campaign.id, { userId: callerOf(request).user.id, role: view.memberRole }, { role: request.body.role, expiresAt, maxUses }, now);
      return reply
        .code(201)
        .header('location', `/api/campaigns/${campaign.slug}/invitations/${created.invitation.id}`)
        .header('cache-control', 'no-store')
        .send({ ...presentInvitation(created.invitation), token: created.token, url: created.url });
    },
  );

  app.get(
    '/campaigns/:campaignSlug/invitations',
    {
      config: { auth: 'campaign', role: 'gm' },
      schema: {
        operationId: 'listInvitations',
        summary: 'Pending invitations',
        description: 'The invitations that can still be accepted (not expired, not used up), newest first, never with their token. Owner and game masters.',
        tags: ['members'],
        params: CampaignParams,
        response: { 200: Type.Array(Invitation), ...problems(401, 403, 404) },
      },
    },
    async (request) => (await listInvitations(database.kysely, campaignOf(request).id, nowIso())).map(presentInvitation),
  );

  app.delete(
    '/campaigns/:campaignSlug/invitations/:id',
    {
      config: { auth: 'campaign', role: 'gm' },
      schema: {
        operationId: 'revokeInvitation',
        summary: 'Revoke an invitation',
        description: 'The link stops working at once (accepting it is then 410 `invitation_unavailable`). The owner revokes any invitation; a game master only those they made (else 403 `role_forbidden`).',
        tags: ['members'],
        params: InvitationParams,
        response: { 204: Type.Null(), ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const id = parseIdText(request.params.id);
      if (id === undefined) throw errors.invalidId('an invitation', request.params.id);
      await deleteInvitation(database, campaignOf(request).id, callerOf(request).user.id, id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/invitations/accept',
    {
      config: { auth: 'user', rateLimited: true },
      schema: {
        operationId: 'acceptInvitation',
        summary: 'Accept an invitation',
        description:
          'Joins the campaign with the invitation’s role, as the signed-in caller. Already a member: 200, and the role is raised to the invitation’s if that is higher, never lowered (no use is counted when nothing changes). ' +
          'Expired, used up, revoked or unknown: 410 `invitation_unavailable`. Failed tries are counted per IP: beyond INVITATION_MAX_FAILURES_PER_IP in 15 minutes, 429.',
        tags: ['members'],
        body: AcceptBody,
        response: { 200: Accepted, ...problems(400, 401, 403, 410, 415, 429) },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const accepted = await invitations.accept(request.body.token.trim(), caller.user.id, request.ip);
      const view = makeView(accepted.campaign, accepted.role, false);
      if (view.players) view.hidden = await loadHiddenRecords(database.kysely, accepted.campaign.id);
      return { campaign: presentCampaign(accepted.campaign, view), role: accepted.role };
    },
  );
}
