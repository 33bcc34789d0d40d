import { Type } from '@sinclair/typebox';
import { findArcDetail } from '../../db/repositories/arcs.js';
import { listTrashEntries } from '../../db/repositories/trash.js';
import { eraseTrashedCampaign, listTrashedCampaigns, restoreTrashedCampaign } from '../../db/repositories/trashed-campaigns.js';
import { errors } from '../../domain/errors.js';
import { isStorableId, parseIdText } from '../../domain/ids.js';
import { eraseFromTrash, TRASH_KINDS } from '../../history/trash.js';
import { restoreFromTrash, type RestoreOutcome } from '../../history/trash-restore.js';
import { removeQueuedImages } from '../../images/uploads.js';
import { makeView, type View } from '../../access/view.js';
import type { Database } from '../../db/database.js';
import type { TrashKind } from '../../db/schema.js';
import { callerOf, campaignOf, viewOf } from '../auth.js';
import type { AppInstance } from '../app-types.js';
import { presentArc } from '../schemas/arc.js';
import { presentAsset } from '../schemas/asset.js';
import { presentCampaign } from '../schemas/campaign.js';
import { CampaignParams, problems } from '../schemas/common.js';
import { presentThing } from '../schemas/thing.js';
import { presentThingType } from '../schemas/thing-type.js';
import { countThingsByType } from '../../db/repositories/thing-types.js';
import {
  presentTrashedCampaign,
  presentTrashEntry,
  RestoredCampaign,
  RestoredFromTrash,
  TrashedCampaignParams,
  TrashedCampaignSchema,
  TrashEntry,
  TrashParams,
} from '../schemas/trash.js';

function trashTarget(params: { kind: string; id: string }): { kind: TrashKind; id: number } {
  const kind = TRASH_KINDS.find((k) => k === params.kind);
  if (kind === undefined) throw errors.trashEntryNotFound(params.kind, params.id);
  const id = parseIdText(params.id);
  if (id === undefined) throw errors.invalidId('a record', params.id);
  if (!isStorableId(id)) throw errors.trashEntryNotFound(kind, params.id);
  return { kind, id };
}

function trashedCampaignId(raw: string): number {
  const id = parseIdText(raw);
  if (id === undefined) throw errors.invalidId('a campaign', raw);
  if (!isStorableId(id)) throw errors.trashedCampaignNotFound(raw);
  return id;
}

async function presentRestored(database: Database, view: View, outcome: RestoreOutcome) {
  const { record } = outcome;
  switch (record.kind) {
    case 'thing':
      return presentThing(record.row, view);
    case 'arc':
      return presentArc(await findArcDetail(database.kysely, view, record.row.slug), view);
    case 'thing-type':
      return presentThingType(record.row, (await countThingsByType(database.kysely, view, record.row.id)).get(record.row.id) ?? 0);
    case 'asset':
      return presentAsset(record.row);
  }
}

const TRASH_DESCRIPTION = `Deleted things, arcs, thing types and assets stay here for TRASH_RETENTION_DAYS (default 30), then are erased for good (stored images included). Owner and game masters only (players 403: the trash holds GM-only records).`;

export function trashRoutes(app: AppInstance) {
  const { database } = app;

  app.get(
    '/campaigns/:campaignSlug/trash',
    {
      config: { auth: 'campaign', role: 'gm' },
      schema: {
        operationId: 'listTrash',
        summary: 'The campaign’s trash',
        description: `${TRASH_DESCRIPTION} Newest first; \`with\` counts what each delete took along (a type’s things, links).`,
        tags: ['trash'],
        params: CampaignParams,
        response: { 200: Type.Array(TrashEntry), ...problems(401, 403, 404) },
      },
    },
    async (request) => (await listTrashEntries(database.kysely, campaignOf(request).id)).map(presentTrashEntry),
  );

  app.post(
    '/campaigns/:campaignSlug/trash/:kind/:id/restore',
    {
      config: { auth: 'campaign', role: 'gm' },
      schema: {
        operationId: 'restoreFromTrash',
        summary: 'Restore from the trash',
        description:
          'Brings the record back as it was, with everything its delete took: a type’s things and their links, an arc’s children moved back under it (unless they were moved since), its links (one whose other end is in the trash too comes back with that end, in either order); mentions and backlinks resolve again. It comes back as a change (a new version, updated now). A slug taken meanwhile gets the next free `-2`, `-3`… (`slugChanged`); a thing type’s name taken meanwhile gets “(restored)”. A thing whose type is in the trash is 409 `restore_container_first`. Owner and game masters only.',
        tags: ['trash'],
        params: TrashParams,
        response: { 200: RestoredFromTrash, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { kind, id } = trashTarget(request.params);
      const outcome = await restoreFromTrash(database, campaignOf(request).id, kind, id);
      return {
        record: await presentRestored(database, viewOf(request), outcome),
        kind,
        slug: outcome.slug,
        slugChanged: outcome.previousSlug !== null,
        restored: outcome.restored,
      };
    },
  );

  app.delete(
    '/campaigns/:campaignSlug/trash/:kind/:id',
    {
      config: { auth: 'campaign', role: 'gm' },
      schema: {
        operationId: 'eraseFromTrash',
        summary: 'Erase from the trash now',
        description: 'Erases the entry for good, with its revisions and (an asset) its stored image; a thing type’s entry takes the entries of its things deleted before it. Owner and game masters only.',
        tags: ['trash'],
        params: TrashParams,
        response: { 204: Type.Null(), ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { kind, id } = trashTarget(request.params);
      const removals = await eraseFromTrash(database, campaignOf(request).id, kind, id);
      // After the commit: a host that fails leaves the bytes queued for the sweeper.
      await removeQueuedImages(database, app.imageHost, removals, request.log);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/trash/campaigns',
    {
      config: { auth: 'user' },
      schema: {
        operationId: 'listTrashedCampaigns',
        summary: 'Your deleted campaigns',
        description: 'The campaigns you own that were deleted, most recently deleted first; each is erased TRASH_RETENTION_DAYS after its delete. While here a campaign is 404 for every member. `slug` is the one it had.',
        tags: ['trash'],
        response: { 200: Type.Array(TrashedCampaignSchema), ...problems(401) },
      },
    },
    async (request) => (await listTrashedCampaigns(database.kysely, callerOf(request).user.id)).map(presentTrashedCampaign),
  );

  app.post(
    '/trash/campaigns/:id/restore',
    {
      config: { auth: 'user' },
      schema: {
        operationId: 'restoreCampaignFromTrash',
        summary: 'Restore a deleted campaign',
        description: 'Brings the campaign back with everything in it, its members included. Its slug, unless another campaign took it meanwhile: then `-2`, `-3`… (`slugChanged`). The owner only (404 for anyone else).',
        tags: ['trash'],
        params: TrashedCampaignParams,
        response: { 200: RestoredCampaign, ...problems(400, 401, 404) },
      },
    },
    async (request) => {
      const { campaign, previousSlug } = await restoreTrashedCampaign(database, callerOf(request).user.id, trashedCampaignId(request.params.id));
      return { record: presentCampaign(campaign, makeView(campaign, 'owner', false)), slug: campaign.slug, slugChanged: previousSlug !== null };
    },
  );

  app.delete(
    '/trash/campaigns/:id',
    {
      config: { auth: 'user' },
      schema: {
        operationId: 'eraseCampaignFromTrash',
        summary: 'Erase a deleted campaign now',
        description: 'Erases the campaign and everything in it for good, stored images included. The owner only (404 for anyone else).',
        tags: ['trash'],
        params: TrashedCampaignParams,
        response: { 204: Type.Null(), ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const removals = await eraseTrashedCampaign(database, callerOf(request).user.id, trashedCampaignId(request.params.id));
      await removeQueuedImages(database, app.imageHost, removals, request.log);
      return reply.code(204).send(null);
    },
  );
}
