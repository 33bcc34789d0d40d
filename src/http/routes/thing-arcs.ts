import { Type } from '@sinclair/typebox';
import { linkThingToArc, listArcsOfThing, unlinkThingFromArc } from '../../db/repositories/arc-links.js';
import { campaignOf, viewOf } from '../auth.js';
import type { AppInstance } from '../app-types.js';
import { LinkArcBody, LinkedArcSchema, LinkMessage, presentLinkedArc, ThingArcParams } from '../schemas/arc.js';
import { ThingParams } from '../schemas/thing.js';
import { problems } from '../schemas/common.js';
import { followingPreviousSlug, previousSlugResponses } from '../previous-slug.js';

export function thingArcsRoutes(app: AppInstance) {
  const { database } = app;

  app.get(
    '/campaigns/:campaignSlug/things/:thingSlug/arcs',
    {
      config: { auth: 'campaign', cache: 'list' },
      schema: {
        operationId: 'listThingArcs',
        summary: 'The arcs of a thing',
        description:
          'The arcs the thing is linked to, in the order it was linked to them, with the fields the spec lists for this route. A previous slug of the thing answers 308 to this route of its current slug.',
        tags: ['arcs'],
        params: ThingParams,
        responseHeaders: { 308: ['location'] },
        response: { 200: Type.Array(LinkedArcSchema), ...previousSlugResponses, ...problems(401, 404) },
      },
    },
    async (request, reply) => {
      const view = viewOf(request);
      return followingPreviousSlug(database.kysely, request, reply, 'thing', request.params.thingSlug, async () => {
        const rows = await listArcsOfThing(database.kysely, view, request.params.thingSlug);
        return rows.map((row) => presentLinkedArc(row, view));
      });
    },
  );

  app.post(
    '/campaigns/:campaignSlug/things/:thingSlug/arcs',
    {
      config: { auth: 'campaign' },
      schema: {
        operationId: 'linkThingToArc',
        summary: 'Link a thing to an arc',
        description: 'Links the thing to the arc named by `arcSlug`; linking a pair that is already linked also succeeds. Neither record’s version changes, so If-Match of either still matches; the arc’s ETag (and the arcs list’s) moves, as its `things` do.',
        tags: ['arcs'],
        params: ThingParams,
        body: LinkArcBody,
        response: { 200: LinkMessage, ...problems(400, 401, 404, 415) },
      },
    },
    async (request) => {
      const { thingName, arcName } = await linkThingToArc(database, campaignOf(request).id, request.params.thingSlug, request.body.arcSlug);
      return { message: `Added ${thingName} to ${arcName} successfully.` };
    },
  );

  app.delete(
    '/campaigns/:campaignSlug/things/:thingSlug/arcs/:arcSlug',
    {
      config: { auth: 'campaign' },
      schema: {
        operationId: 'unlinkThingFromArc',
        summary: 'Unlink a thing from an arc',
        description: 'Removes the link; a pair that is not linked is 404 `link_not_found`. Neither record’s version changes, so If-Match of either still matches; the arc’s ETag (and the arcs list’s) moves, as its `things` do.',
        tags: ['arcs'],
        params: ThingArcParams,
        response: { 204: Type.Null(), ...problems(401, 404) },
      },
    },
    async (request, reply) => {
      await unlinkThingFromArc(database, campaignOf(request).id, request.params.thingSlug, request.params.arcSlug);
      return reply.code(204).send(null);
    },
  );
}
