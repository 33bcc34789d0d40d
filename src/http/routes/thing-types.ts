import { Type } from '@sinclair/typebox';
import {
  createThingType,
  deleteThingType,
  findThingType,
  listThingTypes,
  updateThingType,
  type ThingTypeChanges,
} from '../../db/repositories/thing-types.js';
import { errors } from '../../domain/errors.js';
import { InputChecker } from '../../domain/input.js';
import { campaignOf } from '../auth.js';
import type { AppInstance } from '../app-types.js';
import { etagOf, expectedVersion } from '../conditional.js';
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
        tags: ['thing types'],
        summary: "The campaign's thing types, oldest first (ids ascending)",
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
        tags: ['thing types'],
        summary: 'Create a thing type; names are unique within the campaign, ignoring case',
        params: CampaignParams,
        body: NewThingTypeBody,
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
        .header('etag', etagOf(row.id, row.version))
        .send(presentThingType(row));
    },
  );

  app.get(
    '/campaigns/:campaignSlug/thing-types/:thingTypeId',
    {
      config: { auth: 'campaign', cache: 'record' },
      schema: { tags: ['thing types'], params: ThingTypeParams, response: { 200: ThingType, ...problems(400, 401, 404) } },
    },
    async (request, reply) => {
      const id = parseThingTypeId(request.params.thingTypeId);
      const row = await findThingType(database.kysely, campaignOf(request).id, id);
      if (!row) throw errors.thingTypeNotFound(id);
      return reply.header('etag', etagOf(row.id, row.version)).send(presentThingType(row));
    },
  );

  app.put(
    '/campaigns/:campaignSlug/thing-types/:thingTypeId',
    {
      config: { auth: 'campaign' },
      schema: {
        tags: ['thing types'],
        summary: 'Rename a thing type; an `id` in the body must equal the path. Honours If-Match.',
        params: ThingTypeParams,
        body: UpdatedThingTypeBody,
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
      return reply.header('etag', etagOf(row.id, row.version)).send(presentThingType(row));
    },
  );

  app.delete(
    '/campaigns/:campaignSlug/thing-types/:thingTypeId',
    {
      config: { auth: 'campaign' },
      schema: {
        tags: ['thing types'],
        summary: 'Delete a thing type together with all its things and their arc links',
        params: ThingTypeParams,
        response: { 204: Type.Null(), ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const id = parseThingTypeId(request.params.thingTypeId);
      if (!(await deleteThingType(database, campaignOf(request).id, id))) throw errors.thingTypeNotFound(id);
      return reply.code(204).send(null);
    },
  );
}
