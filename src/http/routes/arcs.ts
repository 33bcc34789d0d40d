import { Type } from '@sinclair/typebox';
import {
  createArc,
  findArcDetail,
  listArcsByCampaign,
  listArcTree,
  updateArc,
  type ArcChanges,
  type ArcTexts,
} from '../../db/repositories/arcs.js';
import { ARC_TEXT_FIELDS, type ArcTextField } from '../../domain/arc-fields.js';
import { errors } from '../../domain/errors.js';
import { InputChecker } from '../../domain/input.js';
import { queryObject } from '../../domain/query-params.js';
import { callerOf, campaignOf, viewOf } from '../auth.js';
import { trashArc } from '../../history/trash.js';
import type { AppInstance } from '../app-types.js';
import { arcEtag, expectedVersion } from '../conditional.js';
import { atBody } from '../errors.js';
import { followingPreviousSlug, previousSlugResponses } from '../previous-slug.js';
import { Arc, ArcListQuerystring, ArcParams, ArcWithoutThings, NewArcBody, presentArc, serializeArcs, UpdatedArcBody } from '../schemas/arc.js';
import { CampaignParams, problems } from '../schemas/common.js';

/** The rich-text fields present in `input`, validated (issues under `pointer`) and serialized for storage. */
function checkTexts(check: InputChecker, input: Partial<Record<ArcTextField, unknown>>, pointer: string): ArcTexts {
  const texts: ArcTexts = {};
  for (const field of ARC_TEXT_FIELDS) {
    const value = input[field];
    if (value !== undefined) texts[field] = check.richTextJson(value, `${pointer}/${field}`);
  }
  return texts;
}

export function arcsRoutes(app: AppInstance) {
  const { database } = app;

  app.get(
    '/campaigns/:campaignSlug/arcs',
    {
      // Without things, the ETag differs from the full list's (response-cache.ts): one never confirms the other.
      config: { auth: 'campaign', cache: 'list', cacheVariant: (query) => (query.things === undefined || query.things === 'all' ? undefined : query.things === 'none' ? 'nothings' : 'invalid') },
      // `things` is checked in the handler, as the things list's parameters are (invalid_query with a pointer).
      attachValidation: true,
      schema: {
        operationId: 'listArcs',
        summary: 'The campaign’s arcs',
        description: 'Every arc of the campaign the caller may see, newest first, each with `parentArc`, `childArcs` (oldest first) and its full `things` (in link order). For a player, GM-only arcs and things are absent everywhere (an arc under a GM-only parent reads as top-level) and secret elements (at any depth) and mentions of GM-only records are removed. ' +
          'With `things=none` each arc comes without `things` and without its seven texts (`hook`, `protagonist`, `antagonist`, `problem`, `key`, `outcome`, `notes`); every other field (`properties`, `tags`, `aliases`, `parentArc` and `childArcs` included) is as without it: for navigation, which needs the tree and never the texts (read an arc itself for those).',
        tags: ['arcs'],
        params: CampaignParams,
        querystring: ArcListQuerystring,
        response: { 200: Type.Union([Type.Array(Arc), Type.Array(ArcWithoutThings, { description: 'with `things=none`' })]), ...problems(400, 401, 404) },
      },
    },
    // Written as JSON text directly (serializeArcs: the schema's bytes, without parsing the stored
    // rich text); a string with a JSON content type is sent as it is.
    async (request, reply) => {
      const { things: raw } = queryObject(request.query);
      if (raw !== undefined && raw !== 'all' && raw !== 'none') {
        throw errors.invalidQuery([{ path: '/things', message: typeof raw === 'string' ? 'must be all or none' : 'must be given at most once' }]);
      }
      const view = viewOf(request);
      const body = raw === 'none' ? serializeArcs(await listArcTree(database.kysely, view), view, { things: false }) : serializeArcs(await listArcsByCampaign(database.kysely, view), view);
      // The type provider types send() by the schema's object; this body is that object's JSON.
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );

  app.post(
    '/campaigns/:campaignSlug/arcs',
    {
      config: { auth: 'campaign' },
      schema: {
        operationId: 'createArc',
        summary: 'Create an arc',
        description: 'Creates an arc, optionally under a parent arc of the campaign and with any of the seven narrative fields, `properties`, `tags` and `aliases` (default: none; a link property must name a thing or an arc of the campaign, else 400 `invalid_reference`); its slug is generated from the name.',
        tags: ['arcs'],
        params: CampaignParams,
        body: NewArcBody,
        responseHeaders: { 201: ['location', 'etag'] },
        response: { 201: Arc, ...problems(400, 401, 404, 415) },
      },
    },
    async (request, reply) => {
      const input = request.body.newArc;
      const check = new InputChecker();
      const name = check.name(input.name, '/newArc/name');
      const texts = checkTexts(check, input, '/newArc');
      const structure = check.structure(input, '/newArc');
      check.done();
      const campaign = campaignOf(request);
      const detail = await atBody('/newArc', createArc(database, campaign.id, { ...texts, ...structure, name, parentArcId: input.parentArcId ?? null, visibility: input.visibility }));
      const view = viewOf(request);
      const answer = presentArc(detail, view);
      return reply
        .code(201)
        .header('location', `/api/campaigns/${campaign.slug}/arcs/${detail.arc.slug}`)
        .header('etag', arcEtag(view, detail.arc, answer))
        .send(answer);
    },
  );

  app.get(
    '/campaigns/:campaignSlug/arcs/:arcSlug',
    {
      config: { auth: 'campaign', cache: 'record' },
      schema: {
        operationId: 'getArc',
        summary: 'One arc',
        description:
          'The arc with its narrative fields, `parentArc`, `childArcs` and linked `things`. ' +
          'Its ETag moves whenever this answer does: when the arc changes, and when a thing is linked to it or unlinked from it, a linked thing, its parent or a child changes. ' +
          'A slug the arc had before an explicit slug change answers 308 with `Location` of its current URL (404 to a player when the arc is GM-only); a previous slug is released when another arc takes it.',
        tags: ['arcs'],
        params: ArcParams,
        responseHeaders: { 308: ['location'] },
        response: { 200: Arc, ...previousSlugResponses, ...problems(401, 404) },
      },
    },
    async (request, reply) => {
      const view = viewOf(request);
      return followingPreviousSlug(database.kysely, request, reply, 'arc', request.params.arcSlug, async () => {
        const detail = await findArcDetail(database.kysely, view, request.params.arcSlug);
        const answer = presentArc(detail, view);
        return reply.header('etag', arcEtag(view, detail.arc, answer)).send(answer);
      });
    },
  );

  app.put(
    '/campaigns/:campaignSlug/arcs/:arcSlug',
    {
      config: { auth: 'campaign' },
      schema: {
        operationId: 'updateArc',
        summary: 'Change an arc',
        description: 'Changes the fields given; omitted fields keep their value, and a given `properties`, `tags` or `aliases` array replaces the old one. `parentArcId` must name another arc of the campaign (400 `invalid_reference`) and may not make a loop (400 `arc_cycle`); null makes the arc top-level. With If-Match, a stale version of the arc is 412; a tag read before a link, an unlink or a change of another record the answer shows (which move the ETag, not the arc’s version) still matches.',
        tags: ['arcs'],
        params: ArcParams,
        body: UpdatedArcBody,
        responseHeaders: { 200: ['etag'] },
        response: { 200: Arc, ...problems(400, 401, 404, 409, 412, 415) },
      },
    },
    async (request, reply) => {
      const input = request.body.updatedArc;
      const check = new InputChecker();
      const changes: ArcChanges = {};
      if (input.slug !== undefined) changes.slug = check.slug(input.slug, '/updatedArc/slug');
      if (input.name !== undefined) changes.name = check.name(input.name, '/updatedArc/name');
      if (input.parentArcId !== undefined) changes.parentArcId = input.parentArcId;
      if (input.visibility !== undefined) changes.visibility = input.visibility;
      Object.assign(changes, checkTexts(check, input, '/updatedArc'), check.structure(input, '/updatedArc'));
      check.done();
      const detail = await atBody(
        '/updatedArc',
        updateArc(database, campaignOf(request).id, request.params.arcSlug, changes, expectedVersion(request)),
      );
      const view = viewOf(request);
      const answer = presentArc(detail, view);
      return reply.header('etag', arcEtag(view, detail.arc, answer)).send(answer);
    },
  );

  app.delete(
    '/campaigns/:campaignSlug/arcs/:arcSlug',
    {
      config: { auth: 'campaign' },
      schema: {
        operationId: 'deleteArc',
        summary: 'Delete an arc',
        description: 'Moves the arc, with its links to things, to the campaign’s trash (`GET …/trash`), from which it can be restored for TRASH_RETENTION_DAYS (default 30); its child arcs become top-level (a restore moves back those still top-level). Its slug is free at once.',
        tags: ['arcs'],
        params: ArcParams,
        response: { 204: Type.Null(), ...problems(401, 404) },
      },
    },
    async (request, reply) => {
      const { user } = callerOf(request);
      await trashArc(database, campaignOf(request).id, request.params.arcSlug, { userId: user.id, name: user.name });
      return reply.code(204).send(null);
    },
  );
}
