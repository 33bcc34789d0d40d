import { Type } from '@sinclair/typebox';
import {
  createThingType,
  findThingType,
  listThingTypes,
  updateThingType,
  type ThingTypeChanges,
} from '../../db/repositories/thing-types.js';
import { errors } from '../../domain/errors.js';
import { InputChecker } from '../../domain/input.js';
import { callerOf, campaignOf, viewOf } from '../auth.js';
import { trashThingType } from '../../history/trash.js';
import type { AppInstance } from '../app-types.js';
import { expectedVersion, recordEtag } from '../conditional.js';
import { parseIdText } from '../../domain/ids.js';
import { CampaignParams, problems } from '../schemas/common.js';
import { NewThingTypeBody, presentThingType, ThingType, ThingTypeParams, UpdatedThingTypeBody } from '../schemas/thing-type.js';

/** A record id from the path: malformed is 400; well-formed but out of range simply names nothing (404 later). */
function parseThingTypeId(value: string): number {
  const id = parseIdText(value);
  if (id === undefined) throw errors.invalidId('a thing type', value);
  return id;
}

export function thingTypesRoutes(app: AppInstance) {
  const { database } = app;

  app.get(
    '/campaigns/:campaignSlug/thing-types',
    {
      config: { auth: 'campaign', cache: 'list' },
      schema: {
        operationId: 'listThingTypes',
        summary: 'The campaign’s thing types',
        description: 'Every thing type of the campaign, oldest first (ids ascending).',
        tags: ['thing types'],
        params: CampaignParams,
        response: { 200: Type.Array(ThingType), ...problems(401, 404) },
      },
    },
    async (request) => {
      const rows = await listThingTypes(database.kysely, campaignOf(request).id);
      return rows.map(presentThingType);
    },
  );

  app.post(
    '/campaigns/:campaignSlug/thing-types',
    {
      config: { auth: 'campaign' },
      schema: {
        operationId: 'createThingType',
        summary: 'Create a thing type',
        description: 'Creates a thing type; names are unique within the campaign ignoring case (409 `name_taken`).',
        tags: ['thing types'],
        params: CampaignParams,
        body: NewThingTypeBody,
        responseHeaders: { 201: ['location', 'etag'] },
        response: { 201: ThingType, ...problems(400, 401, 404, 409, 415) },
      },
    },
    async (request, reply) => {
      const check = new InputChecker();
      const name = check.name(request.body.newThingType.name, '/newThingType/name');
      check.done();
      const campaign = campaignOf(request);
      const row = await createThingType(database, campaign.id, name);
      return reply
        .code(201)
        .header('location', `/api/campaigns/${campaign.slug}/thing-types/${row.id}`)
        .header('etag', recordEtag(viewOf(request), row.id, row.version))
        .send(presentThingType(row));
    },
  );

  app.get(
    '/campaigns/:campaignSlug/thing-types/:thingTypeId',
    {
      config: { auth: 'campaign', cache: 'record' },
      schema: {
        operationId: 'getThingType',
        summary: 'One thing type',
        description: 'The thing type with this id; a malformed id is 400 `invalid_id`.',
        tags: ['thing types'],
        params: ThingTypeParams,
        response: { 200: ThingType, ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const id = parseThingTypeId(request.params.thingTypeId);
      const row = await findThingType(database.kysely, campaignOf(request).id, id);
      if (!row) throw errors.thingTypeNotFound(id);
      return reply.header('etag', recordEtag(viewOf(request), row.id, row.version)).send(presentThingType(row));
    },
  );

  app.put(
    '/campaigns/:campaignSlug/thing-types/:thingTypeId',
    {
      config: { auth: 'campaign' },
      schema: {
        operationId: 'updateThingType',
        summary: 'Rename a thing type',
        description: 'Renames the type (409 if another type of the campaign has the name, ignoring case). An `id` in the body must equal the path (400 `id_mismatch`). With If-Match, a stale version is 412.',
        tags: ['thing types'],
        params: ThingTypeParams,
        body: UpdatedThingTypeBody,
        responseHeaders: { 200: ['etag'] },
        response: { 200: ThingType, ...problems(400, 401, 404, 409, 412, 415) },
      },
    },
    async (request, reply) => {
      const id = parseThingTypeId(request.params.thingTypeId);
      const input = request.body.updatedThingType;
      const check = new InputChecker();
      const changes: ThingTypeChanges = {};
      if (input.name !== undefined) changes.name = check.name(input.name, '/updatedThingType/name');
      check.done();
      if (input.id !== undefined && input.id !== id) {
        throw errors.idMismatch(input.id, id, '/updatedThingType/id');
      }
      const row = await updateThingType(database, campaignOf(request).id, id, changes, expectedVersion(request));
      return reply.header('etag', recordEtag(viewOf(request), row.id, row.version)).send(presentThingType(row));
    },
  );

  app.delete(
    '/campaigns/:campaignSlug/thing-types/:thingTypeId',
    {
      config: { auth: 'campaign' },
      schema: {
        operationId: 'deleteThingType',
        summary: 'Delete a thing type',
        description: 'Deletes the type together with all its things and their arc links: they go to the campaign’s trash as one entry (`GET …/trash`, `with` counts them) and come back together when the type is restored (for TRASH_RETENTION_DAYS, default 30).',
        tags: ['thing types'],
        params: ThingTypeParams,
        response: { 204: Type.Null(), ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const id = parseThingTypeId(request.params.thingTypeId);
      const { user } = callerOf(request);
      await trashThingType(database, campaignOf(request).id, id, { userId: user.id, name: user.name });
      return reply.code(204).send(null);
    },
  );
}
