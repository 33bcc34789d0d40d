import { Type } from '@sinclair/typebox';
import {
  createCampaign,
  listCampaignsByMember,
  updateCampaign,
  type CampaignChanges,
} from '../../db/repositories/campaigns.js';
import { trashCampaign } from '../../db/repositories/trashed-campaigns.js';
import { InputChecker } from '../../domain/input.js';
import { makeView, VIEW_HEADER } from '../../access/view.js';
import { loadHiddenRecordsOf } from '../../db/repositories/visible.js';
import { callerOf, campaignOf, viewOf } from '../auth.js';
import type { AppInstance } from '../app-types.js';
import { campaignEtag, expectedVersion } from '../conditional.js';
import { Campaign, NewCampaignBody, presentCampaign, UpdatedCampaignBody } from '../schemas/campaign.js';
import { CampaignParams, problems } from '../schemas/common.js';

export function campaignRoutes(app: AppInstance) {
  const { database } = app;

  app.get(
    '/campaigns',
    {
      config: { auth: 'user' },
      schema: {
        operationId: 'listCampaigns',
        summary: 'The caller’s campaigns',
        description: 'Every campaign the caller is a member of (owner, game master or player), most recently updated first, each with the caller’s `role`; a player reads each description without its secret elements (at any depth) and mentions of GM-only records.',
        tags: ['campaigns'],
        response: { 200: Type.Array(Campaign), ...problems(401) },
      },
    },
    async (request, reply) => {
      const rows = await listCampaignsByMember(database.kysely, callerOf(request).user.id);
      const asPlayer = request.headers[VIEW_HEADER] === 'player';
      void reply.header('vary', 'Loreforge-View');
      const views = rows.map((row) => makeView(row, row.role, asPlayer));
      // Only a player's view needs the campaign's GM-only records (for mentions in the description): one statement for all.
      const hidden = await loadHiddenRecordsOf(database.kysely, views.filter((view) => view.players).map((view) => view.campaignId));
      return rows.map((row, i) => {
        const view = views[i]!;
        if (view.players) view.hidden = hidden.get(row.id);
        return presentCampaign(row, view);
      });
    },
  );

  app.post(
    '/campaigns',
    {
      config: { auth: 'user' },
      schema: {
        operationId: 'createCampaign',
        summary: 'Create a campaign',
        description: 'Creates a campaign with the thing types NPCs, Locations and Items, in that order. Its slug is generated from the name and unique across the service (a short random suffix on a clash).',
        tags: ['campaigns'],
        body: NewCampaignBody,
        responseHeaders: { 201: ['location', 'etag'] },
        response: { 201: Campaign, ...problems(400, 401, 415) },
      },
    },
    async (request, reply) => {
      const input = request.body.newCampaign;
      const check = new InputChecker();
      const name = check.name(input.name, '/newCampaign/name');
      const description = input.description === undefined ? null : check.richTextJson(input.description, '/newCampaign/description');
      check.done();
      const row = await createCampaign(database, callerOf(request).user.id, { name, description });
      const view = makeView(row, 'owner', false);
      return reply.code(201).header('location', `/api/campaigns/${row.slug}`).header('etag', campaignEtag(view, row)).send(presentCampaign(row, view));
    },
  );

  app.get(
    '/campaigns/:campaignSlug',
    {
      config: { auth: 'campaign', cache: 'record' },
      schema: {
        operationId: 'getCampaign',
        summary: 'One campaign',
        description: 'The campaign with its rich-text description. A campaign of another user is 404, exactly like one that does not exist.',
        tags: ['campaigns'],
        params: CampaignParams,
        response: { 200: Campaign, ...problems(401, 404) },
      },
    },
    async (request, reply) => {
      const campaign = campaignOf(request);
      const view = viewOf(request);
      return reply.header('etag', campaignEtag(view, campaign)).send(presentCampaign(campaign, view));
    },
  );

  app.put(
    '/campaigns/:campaignSlug',
    {
      config: { auth: 'campaign' },
      schema: {
        operationId: 'updateCampaign',
        summary: 'Change a campaign',
        description: 'Changes the fields given (`slug`, `name`, `description`, `defaultVisibility`); omitted fields keep their value. Owner and game masters (players 403 `role_forbidden`). A taken slug is 409. With If-Match, a stale version is 412 and nothing changes.',
        tags: ['campaigns'],
        params: CampaignParams,
        body: UpdatedCampaignBody,
        responseHeaders: { 200: ['etag'] },
        response: { 200: Campaign, ...problems(400, 401, 404, 409, 412, 415) },
      },
    },
    async (request, reply) => {
      const input = request.body.updatedCampaign;
      const check = new InputChecker();
      const changes: CampaignChanges = {};
      if (input.slug !== undefined) changes.slug = check.slug(input.slug, '/updatedCampaign/slug');
      if (input.name !== undefined) changes.name = check.name(input.name, '/updatedCampaign/name');
      if (input.description !== undefined) {
        changes.description = check.richTextJson(input.description, '/updatedCampaign/description');
      }
      if (input.defaultVisibility !== undefined) changes.default_visibility = input.defaultVisibility;
      check.done();
      const row = await updateCampaign(database, campaignOf(request), changes, expectedVersion(request));
      const view = viewOf(request);
      return reply.header('etag', campaignEtag(view, row)).send(presentCampaign(row, view));
    },
  );

  app.delete(
    '/campaigns/:campaignSlug',
    {
      config: { auth: 'campaign', role: 'owner' },
      schema: {
        operationId: 'deleteCampaign',
        summary: 'Delete a campaign',
        description:
          'Moves the campaign, with everything in it, to the owner’s trash (`GET /api/trash/campaigns`): it is 404 for every member at once and its slug is free; it can be restored for TRASH_RETENTION_DAYS (default 30), then it is erased with its stored images. The owner only.',
        tags: ['campaigns'],
        params: CampaignParams,
        response: { 204: Type.Null(), ...problems(401, 404) },
      },
    },
    async (request, reply) => {
      await trashCampaign(database, campaignOf(request).id, callerOf(request).user.id);
      return reply.code(204).send(null);
    },
  );
}
