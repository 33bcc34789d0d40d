import { Type } from '@sinclair/typebox';
import { thingTypeExists } from '../../db/repositories/thing-types.js';
import { createThing, deleteThing, findThingBySlug, listThings, updateThing, type ThingChanges } from '../../db/repositories/things.js';
import { errors } from '../../domain/errors.js';
import { InputChecker } from '../../domain/input.js';
import { nextPageQueryString, parseThingListQuery } from '../../domain/list-cursor.js';
import { serializeRichText } from '../../domain/rich-text.js';
import { campaignOf } from '../auth.js';
import type { AppInstance } from '../app-types.js';
import { etagOf, expectedVersion } from '../conditional.js';
import { atBody } from '../errors.js';
import { CampaignParams, problems } from '../schemas/common.js';
import { NewThingBody, presentThing, Thing, ThingListQuerystring, ThingParams, UpdatedThingBody } from '../schemas/thing.js';

export function thingsRoutes(app: AppInstance) {
  const { database } = app;

  app.get(
    '/campaigns/:campaignSlug/things',
    {
      config: { auth: 'campaign', cache: 'list' },
      // The query is parsed in the handler (see domain/list-cursor.ts): a repeated or malformed
      // parameter is answered there as invalid_query, with a pointer into the query object.
      attachValidation: true,
      schema: {
        tags: ['things'],
        summary: 'Things of the campaign, most recently updated first',
        description:
          'Returns `count` things (default 20), or up to 1000 with `fetchAll=true` (which wins over `count`). ' +
          'When more remain, a `Link: <…>; rel="next"` header gives the next page; the body is always a plain array.',
        params: CampaignParams,
        querystring: ThingListQuerystring,
        response: { 200: Type.Array(Thing), ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const parsed = parseThingListQuery(request.query);
      if (!parsed.ok) throw errors.invalidQuery(parsed.issues);
      const query = parsed.value;
      const campaign = campaignOf(request);
      if (query.typeId !== undefined && !(await thingTypeExists(database.kysely, campaign.id, query.typeId))) {
        throw errors.unknownThingType(query.typeId, '/typeId');
      }
      const page = await listThings(database.kysely, campaign.id, { limit: query.limit, typeId: query.typeId, after: query.after });
      const last = page.rows.at(-1);
      if (page.more && last) {
        const next = nextPageQueryString(query, { updatedAt: last.updated_at, id: last.id });
        void reply.header('link', `</api/campaigns/${campaign.slug}/things?${next}>; rel="next"`);
      }
      return page.rows.map(presentThing);
    },
  );

  app.post(
    '/campaigns/:campaignSlug/things',
    {
      config: { auth: 'campaign' },
      schema: {
        tags: ['things'],
        summary: 'Create a thing; its slug is generated from the name',
        params: CampaignParams,
        body: NewThingBody,
        response: { 201: Thing, ...problems(400, 401, 404, 415) },
      },
    },
    async (request, reply) => {
      const input = request.body.newThing;
      const check = new InputChecker();
      const name = check.name(input.name, '/newThing/name');
      const typeId = check.id(input.typeId, '/newThing/typeId');
      const description = input.description === undefined ? null : serializeRichText(check.richText(input.description, '/newThing/description'));
      check.done();
      const campaign = campaignOf(request);
      const row = await atBody('/newThing', createThing(database, campaign.id, { name, typeId, description }));
      return reply
        .code(201)
        .header('location', `/api/campaigns/${campaign.slug}/things/${row.slug}`)
        .header('etag', etagOf(row.id, row.version))
        .send(presentThing(row));
    },
  );

  app.get(
    '/campaigns/:campaignSlug/things/:thingSlug',
    {
      config: { auth: 'campaign', cache: 'record' },
      schema: { tags: ['things'], params: ThingParams, response: { 200: Thing, ...problems(401, 404) } },
    },
    async (request, reply) => {
      const { thingSlug } = request.params;
      const row = await findThingBySlug(database.kysely, campaignOf(request).id, thingSlug);
      if (!row) throw errors.thingNotFound(thingSlug);
      return reply.header('etag', etagOf(row.id, row.version)).send(presentThing(row));
    },
  );

  app.put(
    '/campaigns/:campaignSlug/things/:thingSlug',
    {
      config: { auth: 'campaign' },
      schema: {
        tags: ['things'],
        summary: 'Change some fields of a thing; omitted fields keep their value. A new name keeps the slug. Honours If-Match.',
        params: ThingParams,
        body: UpdatedThingBody,
        response: { 200: Thing, ...problems(400, 401, 404, 409, 412, 415) },
      },
    },
    async (request, reply) => {
      const input = request.body.updatedThing;
      const check = new InputChecker();
      const changes: ThingChanges = {};
      if (input.slug !== undefined) changes.slug = check.slug(input.slug, '/updatedThing/slug');
      if (input.name !== undefined) changes.name = check.name(input.name, '/updatedThing/name');
      if (input.typeId !== undefined) changes.typeId = check.id(input.typeId, '/updatedThing/typeId');
      if (input.description !== undefined) {
        changes.description = serializeRichText(check.richText(input.description, '/updatedThing/description'));
      }
      check.done();
      const row = await atBody(
        '/updatedThing',
        updateThing(database, campaignOf(request).id, request.params.thingSlug, changes, expectedVersion(request)),
      );
      return reply.header('etag', etagOf(row.id, row.version)).send(presentThing(row));
    },
  );

  app.delete(
    '/campaigns/:campaignSlug/things/:thingSlug',
    {
      config: { auth: 'campaign' },
      schema: {
        tags: ['things'],
        summary: 'Delete a thing and its arc links',
        params: ThingParams,
        response: { 204: Type.Null(), ...problems(401, 404) },
      },
    },
    async (request, reply) => {
      const { thingSlug } = request.params;
      if (!(await deleteThing(database, campaignOf(request).id, thingSlug))) throw errors.thingNotFound(thingSlug);
      return reply.code(204).send(null);
    },
  );
}
