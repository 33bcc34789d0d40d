import { Type } from '@sinclair/typebox';
import {
  countThingsByType,
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
import { expectedVersion, thingTypeEtag } from '../conditional.js';
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
        description: 'Every thing type of the campaign, oldest first (ids ascending), each with its declared `fields` and its `thingCount` (the things of the type the caller sees: a player’s count leaves out GM-only things).',
        tags: ['thing types'],
        params: CampaignParams,
        response: { 200: Type.Array(ThingType), ...problems(401, 404) },
      },
    },
    async (request) => {
      const rows = await listThingTypes(database.kysely, campaignOf(request).id);
      const counts = await countThingsByType(database.kysely, viewOf(request));
      return rows.map((row) => presentThingType(row, counts.get(row.id) ?? 0));
    },
  );

  app.post(
    '/campaigns/:campaignSlug/thing-types',
    {
      config: { auth: 'campaign' },
      schema: {
        operationId: 'createThingType',
        summary: 'Create a thing type',
        description: 'Creates a thing type; names are unique within the campaign ignoring case (409 `name_taken`). `fields` (default none) declares keys that every new thing of the type starts with and whose values must match their kind.',
        tags: ['thing types'],
        params: CampaignParams,
        body: NewThingTypeBody,
        responseHeaders: { 201: ['location', 'etag'] },
        response: { 201: ThingType, ...problems(400, 401, 404, 409, 415) },
      },
    },
    async (request, reply) => {
      const check = new InputChecker();
      const input = request.body.newThingType;
      const name = check.name(input.name, '/newThingType/name');
      const fields = input.fields === undefined ? [] : check.fields(input.fields, '/newThingType/fields');
      check.done();
      const campaign = campaignOf(request);
      const row = await createThingType(database, campaign.id, name, fields);
      return reply
        .code(201)
        .header('location', `/api/campaigns/${campaign.slug}/thing-types/${row.id}`)
        .header('etag', thingTypeEtag(viewOf(request), row, 0))
        .send(presentThingType(row, 0));
    },
  );

  app.get(
    '/campaigns/:campaignSlug/thing-types/:thingTypeId',
    {
      config: { auth: 'campaign', cache: 'record' },
      schema: {
        operationId: 'getThingType',
        summary: 'One thing type',
        description: 'The thing type with this id, with its `fields` and `thingCount` (in the caller’s view); a malformed id is 400 `invalid_id`.',
        tags: ['thing types'],
        params: ThingTypeParams,
        response: { 200: ThingType, ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const id = parseThingTypeId(request.params.thingTypeId);
      const row = await findThingType(database.kysely, campaignOf(request).id, id);
      if (!row) throw errors.thingTypeNotFound(id);
      const view = viewOf(request);
      const count = (await countThingsByType(database.kysely, view, row.id)).get(row.id) ?? 0;
      return reply.header('etag', thingTypeEtag(view, row, count)).send(presentThingType(row, count));
    },
  );

  app.put(
    '/campaigns/:campaignSlug/thing-types/:thingTypeId',
    {
      config: { auth: 'campaign' },
      schema: {
        operationId: 'updateThingType',
        summary: 'Rename a thing type or change its fields',
        description: 'Renames the type (409 if another type of the campaign has the name, ignoring case) and/or replaces its `fields`. New fields apply to things created from then on and to values written from then on; existing things keep their properties as they are. An `id` in the body must equal the path (400 `id_mismatch`). With If-Match, a stale version is 412.',
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
      if (input.fields !== undefined) changes.fields = check.fields(input.fields, '/updatedThingType/fields');
      check.done();
      if (input.id !== undefined && input.id !== id) {
        throw errors.idMismatch(input.id, id, '/updatedThingType/id');
      }
      const row = await updateThingType(database, campaignOf(request).id, id, changes, expectedVersion(request));
      const view = viewOf(request);
      const count = (await countThingsByType(database.kysely, view, row.id)).get(row.id) ?? 0;
      return reply.header('etag', thingTypeEtag(view, row, count)).send(presentThingType(row, count));
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
