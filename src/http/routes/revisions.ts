// History (CONTRACT "# Phase 3" › "History and trash"): the revisions of a thing, an arc and the
// campaign itself, for its owner and game masters (players 403: history holds GM-only text).
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { findArcBySlug } from '../../db/repositories/arcs.js';
import { findRevision, listRevisions, nameRevision } from '../../db/repositories/revisions.js';
import { findThingBySlug } from '../../db/repositories/things.js';
import { errors } from '../../domain/errors.js';
import { isStorableId, parseIdText } from '../../domain/ids.js';
import type { RevisionKind } from '../../history/snapshots.js';
import { restoreArcRevision, restoreCampaignRevision, restoreThingRevision } from '../../history/revisions.js';
import { campaignOf, viewOf } from '../auth.js';
import type { AppInstance } from '../app-types.js';
import { arcEtag, campaignEtag, expectedVersion, recordEtag } from '../conditional.js';
import { followingPreviousSlug, previousSlugResponses } from '../previous-slug.js';
import { Arc, presentArc } from '../schemas/arc.js';
import { Campaign, presentCampaign } from '../schemas/campaign.js';
import { problems } from '../schemas/common.js';
import {
  ArcRevisionRecord,
  CampaignRevisionRecord,
  NameRevisionBody,
  presentRevision,
  presentRevisionSummary,
  RevisionIdParam,
  RevisionSummarySchema,
  revisionWith,
  ThingRevisionRecord,
} from '../schemas/revision.js';
import { presentThing, Thing } from '../schemas/thing.js';

const NAME_MAX = 100;

const WHO = 'Owner and game masters only: players (and a game master viewing as a player) get 403 `role_forbidden`, since history holds GM-only text.';

interface Family {
  kind: RevisionKind;
  /** The path of the record's revisions. */
  path: string;
  params: Record<string, TSchema>;
  /** Capitalised kind for operation ids: listThingRevisions… */
  op: 'Thing' | 'Arc' | 'Campaign';
  record: TSchema;
  /** The record's own answer, for restore. */
  answer: TSchema;
  tag: string;
  /** A path parameter naming a thing or an arc whose previous slugs GETs follow. */
  slugParam?: 'thingSlug' | 'arcSlug';
}

const FAMILIES: Family[] = [
  { kind: 'thing', path: '/campaigns/:campaignSlug/things/:thingSlug/revisions', params: { thingSlug: Type.String() }, op: 'Thing', record: ThingRevisionRecord, answer: Thing, tag: 'things', slugParam: 'thingSlug' },
  { kind: 'arc', path: '/campaigns/:campaignSlug/arcs/:arcSlug/revisions', params: { arcSlug: Type.String() }, op: 'Arc', record: ArcRevisionRecord, answer: Arc, tag: 'arcs', slugParam: 'arcSlug' },
  { kind: 'campaign', path: '/campaigns/:campaignSlug/revisions', params: {}, op: 'Campaign', record: CampaignRevisionRecord, answer: Campaign, tag: 'campaigns' },
];

type Params = Record<string, string>;

function revisionIdOf(params: Params): number {
  const text = params.revisionId ?? '';
  const id = parseIdText(text);
  if (id === undefined) throw errors.invalidId('a revision', text);
  // A number no row can have names no revision.
  if (!isStorableId(id)) throw errors.revisionNotFound(text);
  return id;
}

export function revisionsRoutes(app: AppInstance) {
  const { database } = app;

  /** The id of the record the path names (as a game master sees: every record). */
  async function recordIdOf(family: Family, request: FastifyRequest): Promise<number> {
    const campaign = campaignOf(request);
    const params = request.params as Params;
    if (family.kind === 'campaign') return campaign.id;
    if (family.kind === 'thing') {
      const thing = await findThingBySlug(database.kysely, campaign.id, params.thingSlug ?? '');
      if (!thing) throw errors.thingNotFound(params.thingSlug ?? '');
      return thing.id;
    }
    const arc = await findArcBySlug(database.kysely, campaign.id, params.arcSlug ?? '');
    if (!arc) throw errors.arcNotFound(params.arcSlug ?? '');
    return arc.id;
  }

  /** A GET of a thing's or an arc's revisions answers to its previous slugs as the record's own GET does. */
  function following<T>(family: Family, request: FastifyRequest, reply: FastifyReply, handler: () => Promise<T>) {
    if (family.slugParam === undefined) return handler();
    const slug = (request.params as Params)[family.slugParam] ?? '';
    return followingPreviousSlug(database.kysely, request, reply, family.kind as 'thing' | 'arc', slug, handler);
  }

  for (const family of FAMILIES) {
    const listParams = Type.Object({ campaignSlug: Type.String(), ...family.params });
    const oneParams = Type.Object({ campaignSlug: Type.String(), ...family.params, revisionId: RevisionIdParam });
    const followsSlugs = family.slugParam !== undefined;
    const slugNote = followsSlugs
      ? ` A slug the ${family.kind} had before an explicit slug change answers 308 with \`Location\` of the same URL under its current slug.`
      : '';
    const missing = family.kind === 'campaign' ? '' : ` A ${family.kind} that does not exist is 404 \`${family.kind}_not_found\`;`;

    app.get(
      family.path,
      {
        config: { auth: 'campaign', role: 'gm' },
        schema: {
          operationId: `list${family.op}Revisions`,
          summary: `The ${family.kind}’s revisions`,
          description:
            `Every revision kept of the ${family.kind}, newest first: when, by whom (\`author\` is null when no signed-in user made the change), its name, and which fields changed from the revision before. ` +
            'A burst of saves by one author within `REVISION_MERGE_SECONDS` (default 300) is one revision; a save that changes nothing adds none. Unnamed revisions are thinned: all are kept for 30 days, then the newest of each day to 90 days, then the newest of each week; named ones are kept for ever. ' +
            `${WHO}${slugNote}`,
        tags: [family.tag],
        params: listParams,
        ...(followsSlugs ? { responseHeaders: { 308: ['location'] } } : {}),
        response: { 200: Type.Array(RevisionSummarySchema), ...(followsSlugs ? previousSlugResponses : {}), ...problems(401, 403, 404) },
        },
      },
      async (request, reply) =>
        following(family, request, reply, async () => {
          const revisions = await listRevisions(database.kysely, { campaignId: campaignOf(request).id, kind: family.kind, recordId: await recordIdOf(family, request) });
          return reply.send(revisions.map(presentRevisionSummary));
        }),
    );

    app.get(
      `${family.path}/:revisionId`,
      {
        config: { auth: 'campaign', role: 'gm' },
        schema: {
          operationId: `get${family.op}Revision`,
          summary: `One revision of the ${family.kind}`,
          description:
            `The revision with \`record\`: the ${family.kind}’s fields as its GET answered them to a game master after that change (secret blocks included). ` +
            `A revision id of another record or campaign is 404 \`revision_not_found\`;${missing} a malformed id is 400 \`invalid_id\`. ${WHO}${slugNote}`,
          tags: [family.tag],
          params: oneParams,
          ...(followsSlugs ? { responseHeaders: { 308: ['location'] } } : {}),
          response: { 200: revisionWith(family.record), ...(followsSlugs ? previousSlugResponses : {}), ...problems(400, 401, 403, 404) },
        },
      },
      async (request, reply) =>
        following(family, request, reply, async () => {
          const id = revisionIdOf(request.params);
          const revision = await findRevision(database.kysely, { campaignId: campaignOf(request).id, kind: family.kind, recordId: await recordIdOf(family, request) }, id);
          if (!revision) throw errors.revisionNotFound(id);
          return reply.send(presentRevision(revision));
        }),
    );

    app.put(
      `${family.path}/:revisionId`,
      {
        // Naming changes no record: no version to compare.
        config: { auth: 'campaign', role: 'gm', ifMatch: false },
        schema: {
          operationId: `name${family.op}Revision`,
          summary: `Name a revision of the ${family.kind}`,
          description:
            `Names the revision (\`{"name": "Before the heist"}\`, 1 to 100 characters after trimming): a named revision is kept for ever and never merged into. \`{"name": null}\` takes the name away. Another name is 400 \`validation_failed\`. ` +
            `Answers the revision without its record.${missing} a revision of another record is 404 \`revision_not_found\`. ${WHO}`,
          tags: [family.tag],
          params: oneParams,
          body: NameRevisionBody,
          response: { 200: RevisionSummarySchema, ...problems(400, 401, 403, 404, 415) },
        },
      },
      async (request) => {
        const id = revisionIdOf(request.params);
        const raw = request.body.name;
        let name: string | null = null;
        if (raw !== null) {
          name = raw.trim();
          const length = [...name].length;
          if (length === 0 || length > NAME_MAX || name.includes('\u0000')) {
            throw errors.validationFailed([{ path: '/name', message: `must be 1 to ${NAME_MAX} characters after trimming (no NUL), or null` }]);
          }
        }
        const summary = await nameRevision(database, { campaignId: campaignOf(request).id, kind: family.kind, recordId: await recordIdOf(family, request) }, id, name);
        return presentRevisionSummary(summary);
      },
    );

    app.post(
      `${family.path}/:revisionId/restore`,
      {
        config: { auth: 'campaign', role: 'gm', ifMatch: true },
        schema: {
          operationId: `restore${family.op}Revision`,
          summary: `Restore a revision of the ${family.kind}`,
          description:
            `Gives the ${family.kind} the revision’s fields again, as a new change (so it makes a revision of its own; the history keeps everything in between). ` +
            `Answers 200 with the ${family.kind} exactly as its GET and PUT answer it, with its \`ETag\`. With If-Match, the tag is compared with the ${family.kind} as it is now: a stale one is 412 and nothing changes. ` +
            (family.kind === 'thing'
              ? 'A slug another thing has taken since keeps the thing’s current slug; a thing type that no longer exists keeps its current type. '
              : family.kind === 'arc'
                ? 'A slug another arc has taken since keeps the arc’s current slug; a parent arc that no longer exists, or that would now make a loop, keeps its current parent. '
                : 'A slug another campaign has taken since keeps the current slug. ') +
            `A revision of another record is 404 \`revision_not_found\`. ${WHO}`,
          tags: [family.tag],
          params: oneParams,
          responseHeaders: { 200: ['etag'] },
          response: { 200: family.answer, ...problems(400, 401, 403, 404, 412) },
        },
      },
      async (request, reply) => {
        const params = request.params as Params;
        const id = revisionIdOf(params);
        const campaign = campaignOf(request);
        const view = viewOf(request);
        const expected = expectedVersion(request);
        if (family.kind === 'thing') {
          const row = await restoreThingRevision(database, campaign.id, params.thingSlug ?? '', id, expected);
          return reply.header('etag', recordEtag(view, row.id, row.version)).send(presentThing(row, view));
        }
        if (family.kind === 'arc') {
          const detail = await restoreArcRevision(database, campaign.id, params.arcSlug ?? '', id, expected);
          const answer = presentArc(detail, view);
          return reply.header('etag', arcEtag(view, detail.arc, answer)).send(answer);
        }
        const row = await restoreCampaignRevision(database, campaign, id, expected);
        return reply.header('etag', campaignEtag(view, row)).send(presentCampaign(row, view));
      },
    );
  }
}
