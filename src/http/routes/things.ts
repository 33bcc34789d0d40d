import { Type } from '@sinclair/typebox';
import { thingTypeExists } from '../../db/repositories/thing-types.js';
import { createThing, findVisibleThing, listThings, listThingSummaries, updateThing, type ThingChanges } from '../../db/repositories/things.js';
import { errors } from '../../domain/errors.js';
import { InputChecker } from '../../domain/input.js';
import { nextPageQueryString, parseThingListQuery } from '../../domain/list-cursor.js';
import { callerOf, campaignOf, viewOf } from '../auth.js';
import { trashThing } from '../../history/trash.js';
import type { AppInstance } from '../app-types.js';
import { expectedVersion, recordEtag } from '../conditional.js';
import { atBody } from '../errors.js';
import { shownUpdatedAt } from '../../access/players-see.js';
import { followingPreviousSlug, previousSlugResponses } from '../previous-slug.js';
import { CampaignParams, problems } from '../schemas/common.js';
import { NewThingBody, presentThingSummary, Thing, ThingListQuerystring, ThingParams, ThingSummary, UpdatedThingBody } from '../schemas/thing.js';
import { serializeThings, thingJson } from '../schemas/splice.js';

const FullList = Type.Array(Thing);
const SummaryList = Type.Array(ThingSummary, { description: 'with `fields=summary`' });

export function thingsRoutes(app: AppInstance) {
  const { database } = app;

  app.get(
    '/campaigns/:campaignSlug/things',
    {
      // A summary's ETag differs from the full list's (response-cache.ts): one never confirms the other.
      config: { auth: 'campaign', cache: 'list', cacheVariant: (query) => (query.fields === undefined ? undefined : query.fields === 'summary' ? 'summary' : 'invalid') },
      // The query is parsed in the handler (see domain/list-cursor.ts): a repeated or malformed
      // parameter is answered there as invalid_query, with a pointer into the query object.
      attachValidation: true,
      schema: {
        operationId: 'listThings',
        summary: 'The campaign’s things',
        description: 'Things the caller may see (a player never sees GM-only ones), most recently updated first (then id descending), or with `sort=name` by name (A to Z ignoring case and accents in every script, then id ascending; the same order on SQLite and PostgreSQL: names compared code point by code point once case folded, compatibility forms decomposed and accents removed, so “apple”, “Ärger”, “élise”, “Élise”, “zed”, “Zoë”): `count` of them (1 to 1000, default 20), or up to 1000 with `fetchAll=true` (which wins over `count`); `typeId` filters by type; `tag` (repeatable) keeps the things that have every tag given, ignoring case. With `fields=summary` each thing is only `{id, slug, name, typeId, visibility, updatedAt}` (no text is read: for sidebars and pickers), with the same parameters, order, paging and limits. While more remain, a `Link: <…>; rel="next"` header gives the next page; the body is always a plain array.',
        tags: ['things'],
        params: CampaignParams,
        querystring: ThingListQuerystring,
        responseHeaders: { 200: ['link'] },
        response: { 200: Type.Union([FullList, SummaryList]), ...problems(400, 401, 404) },
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
      const view = viewOf(request);
      const linkAfter = (more: boolean, last: { name: string; id: number; updated_at: string; players_updated_at: string | null } | undefined) => {
        if (!more || !last) return;
        const position = query.sort === 'name' ? { name: last.name, id: last.id } : { updatedAt: shownUpdatedAt(view, last), id: last.id };
        void reply.header('link', `</api/campaigns/${campaign.slug}/things?${nextPageQueryString(query, position)}>; rel="next"`);
      };
      // Serialized by the schema of the variant asked for (the route's union would make the
      // serializer try each branch on every answer); a JSON string is sent as it is.
      // A Buffer: encoded once (a string would be measured for Content-Length, then encoded again
      // as it is written).
      let body: string | Buffer;
      if (query.summary) {
        const page = await listThingSummaries(database.kysely, view, query);
        linkAfter(page.more, page.rows.at(-1));
        body = reply.compileSerializationSchema(SummaryList)(page.rows.map((row) => presentThingSummary(row, view)) as never);
      } else {
        const page = await listThings(database.kysely, view, query);
        linkAfter(page.more, page.rows.at(-1));
        // The stored texts spliced in: the bytes FullList serializes of rows.map(presentThing) (splice.ts).
        body = Buffer.from(serializeThings(page.rows, view));
      }
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );

  app.post(
    '/campaigns/:campaignSlug/things',
    {
      config: { auth: 'campaign' },
      schema: {
        operationId: 'createThing',
        summary: 'Create a thing',
        description: 'Creates a thing of a type of the campaign (400 `invalid_reference` otherwise); its slug is generated from the name (`-2`, `-3`… on a clash). `visibility: "gm"` makes it GM-only. `properties`, `tags` and `aliases` default to none; the thing then also has every key its type declares in `fields` that it lacks (value null, appended in the type’s order). A value of a declared key must match its kind (400 `validation_failed` with a pointer); a link must name a thing or an arc of the campaign (400 `invalid_reference`). Owner and game masters only.',
        tags: ['things'],
        params: CampaignParams,
        body: NewThingBody,
        responseHeaders: { 201: ['location', 'etag'] },
        response: { 201: Thing, ...problems(400, 401, 404, 415) },
      },
    },
    async (request, reply) => {
      const input = request.body.newThing;
      const check = new InputChecker();
      const name = check.name(input.name, '/newThing/name');
      const typeId = check.id(input.typeId, '/newThing/typeId');
      const description = input.description === undefined ? null : check.richTextJson(input.description, '/newThing/description');
      const structure = check.structure(input, '/newThing');
      check.done();
      const campaign = campaignOf(request);
      const view = viewOf(request);
      const row = await atBody('/newThing', createThing(database, campaign.id, { name, typeId, description, visibility: input.visibility, ...structure }));
      return reply
        .code(201)
        .header('location', `/api/campaigns/${campaign.slug}/things/${row.slug}`)
        .header('etag', recordEtag(view, row.id, row.version))
        .type('application/json; charset=utf-8')
        .send(thingJson(row, view) as never);
    },
  );

  app.get(
    '/campaigns/:campaignSlug/things/:thingSlug',
    {
      config: { auth: 'campaign', cache: 'record' },
      schema: {
        operationId: 'getThing',
        summary: 'One thing',
        description: 'The thing with this slug, with its rich-text description. For a player, a GM-only thing is 404 and secret elements (at any depth) and mentions of GM-only records are removed from the description. ' +
          'A slug the thing had before an explicit slug change answers 308 with `Location` of its current URL (404 to a player when the thing is GM-only); a previous slug is released when another thing takes it.',
        tags: ['things'],
        params: ThingParams,
        responseHeaders: { 308: ['location'] },
        response: { 200: Thing, ...previousSlugResponses, ...problems(401, 404) },
      },
    },
    async (request, reply) => {
      const { thingSlug } = request.params;
      const view = viewOf(request);
      return followingPreviousSlug(database.kysely, request, reply, 'thing', thingSlug, async () => {
        const row = await findVisibleThing(database.kysely, view, thingSlug);
        if (!row) throw errors.thingNotFound(thingSlug);
        // The bytes the Thing schema serializes of presentThing(row, view), stored texts spliced in (splice.ts).
        return reply.header('etag', recordEtag(view, row.id, row.version)).type('application/json; charset=utf-8').send(thingJson(row, view) as never);
      });
    },
  );

  app.put(
    '/campaigns/:campaignSlug/things/:thingSlug',
    {
      config: { auth: 'campaign' },
      schema: {
        operationId: 'updateThing',
        summary: 'Change a thing',
        description: 'Changes the fields given; omitted fields keep their value, and a given `properties`, `tags` or `aliases` array replaces the old one (its values checked against the fields of the type the thing will have, its links against the campaign’s records). A new name keeps the slug; only an explicit `slug` changes it (409 if taken). With If-Match, a stale version is 412 and nothing changes.',
        tags: ['things'],
        params: ThingParams,
        body: UpdatedThingBody,
        responseHeaders: { 200: ['etag'] },
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
        changes.description = check.richTextJson(input.description, '/updatedThing/description');
      }
      if (input.visibility !== undefined) changes.visibility = input.visibility;
      Object.assign(changes, check.structure(input, '/updatedThing'));
      check.done();
      const view = viewOf(request);
      const row = await atBody(
        '/updatedThing',
        updateThing(database, campaignOf(request).id, request.params.thingSlug, changes, expectedVersion(request)),
      );
      // The stored text spliced in (splice.ts): the bytes the Thing schema serializes of
      // presentThing(row, view), without parsing the description to serialize it again.
      return reply.header('etag', recordEtag(view, row.id, row.version)).type('application/json; charset=utf-8').send(thingJson(row, view) as never);
    },
  );

  app.delete(
    '/campaigns/:campaignSlug/things/:thingSlug',
    {
      config: { auth: 'campaign' },
      schema: {
        operationId: 'deleteThing',
        summary: 'Delete a thing',
        description: 'Moves the thing, with its links to arcs, to the campaign’s trash (`GET …/trash`), from which it can be restored for TRASH_RETENTION_DAYS (default 30). Its slug is free at once; mentions of it render as missing until it is restored.',
        tags: ['things'],
        params: ThingParams,
        response: { 204: Type.Null(), ...problems(401, 404) },
      },
    },
    async (request, reply) => {
      const { thingSlug } = request.params;
      const { user } = callerOf(request);
      await trashThing(database, campaignOf(request).id, thingSlug, { userId: user.id, name: user.name });
      return reply.code(204).send(null);
    },
  );
}
