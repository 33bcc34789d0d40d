import { findVisibleArc } from '../../db/repositories/arcs.js';
import { listBacklinks, renderStoredFields, renderStoredRecord } from '../../db/repositories/mentions.js';
import { findVisibleThing } from '../../db/repositories/things.js';
import type { View } from '../../access/view.js';
import { ARC_TEXT_FIELDS } from '../../domain/arc-fields.js';
import { errors } from '../../domain/errors.js';
import { RENDER_FORMATS, type RenderFormat } from '../../render/index.js';
import { campaignOf, viewOf } from '../auth.js';
import type { AppInstance } from '../app-types.js';
import { ArcParams } from '../schemas/arc.js';
import { CampaignParams, problems } from '../schemas/common.js';
import { Backlinks, RenderedArc, RenderedCampaign, RenderedQuerystring, RenderedThing } from '../schemas/rich-content.js';
import { ThingParams } from '../schemas/thing.js';
import { followingPreviousSlug, previousSlugResponses } from '../previous-slug.js';

// Rendered rich text and backlinks (CONTRACT "Rich content"). Their answers depend on other records
// (a mentioned record's name, an asset's label), so they are cached and conditional as lists are:
// keyed by the campaign's content version, which every write in the campaign changes.

/** The `format` query parameter: exactly one of RENDER_FORMATS, html when absent. */
function formatOf(query: { format?: unknown }): RenderFormat {
  const value = query.format;
  if (value === undefined) return 'html';
  if (typeof value === 'string' && (RENDER_FORMATS as readonly string[]).includes(value)) return value as RenderFormat;
  throw errors.invalidQuery([{ path: '/format', message: Array.isArray(value) ? 'must be given once' : 'must be html or markdown' }]);
}

const RENDERED_DESCRIPTION =
  'Every rich-text field rendered as HTML (default) or Markdown (`?format=markdown`). Mentions link to the web app’s page of their target ' +
  'with their label, or the target’s current name when they have none (a missing target renders its label, or nothing, as plain text); an image of an asset of the campaign takes the asset’s URL, its label as ' +
  'alt text and as a caption, and (HTML) the asset’s `width` and `height` when known, so a browser reserves its box. Secret elements, at any depth, are shown marked where they sit to the owner and game masters: a block in a `section.secret` ' +
  '(Markdown: a `> [!secret]` callout, in a list item or quote too), a list item as `li.secret`, a table cell as `td.secret`/`th.secret`, an inline element in a `span.secret` ' +
  '(Markdown: that inline HTML span); for players they are left out with everything inside them, and a mention of a GM-only record is removed whole. ' +
  'Any other text is literal; a `[[kind#slug]]` link to a slug its target had before resolves to it. ' +
  'A thing’s and an arc’s answer also has `properties` rendered (empty when it has none): HTML a `<dl class="properties">` (key as `<dt>`, value as `<dd>`; a list as a `<ul>`, a boolean as yes/no, a link as a mention with the target’s current name; ' +
  'a GM-only property’s `<dt>` and `<dd>` with `class="secret"`), Markdown a list of `- **key**: value` (a list’s values comma-separated, a link as `[current name](href)`, a GM-only property in a `<span class="secret">`). ' +
  'Players get no GM-only property and no link to a record hidden from them. Cached and conditional like a list: the weak ETag changes with every write in the campaign (a player’s only with what players see).';

const BACKLINKS_DESCRIPTION =
  'Every thing, arc and campaign description whose rich text mentions this record, by a `mention` element or a `[[kind#slug]]` link, or whose link property names it (field `properties.<key>`), ' +
  'with the fields that do, most recently updated first (a link to one of its previous slugs counts). For a player, GM-only sources, mentions made only inside secret elements (at any depth) and GM-only properties are left out. Cached and conditional like a list.';

export function richContentRoutes(app: AppInstance) {
  const { database } = app;
  const render = <F extends string>(campaign: { id: number; slug: string }, view: View, fields: Record<F, string | null>, format: RenderFormat) =>
    renderStoredFields(database.kysely, database.dialect, campaign, fields, format, view);
  const renderRecord = <F extends string>(campaign: { id: number; slug: string }, view: View, fields: Record<F, string | null>, properties: string, format: RenderFormat) =>
    renderStoredRecord(database.kysely, database.dialect, campaign, fields, properties, format, view);

  app.get(
    '/campaigns/:campaignSlug/rendered',
    {
      config: { auth: 'campaign', cache: 'list' },
      attachValidation: true,
      schema: {
        operationId: 'renderCampaign',
        summary: 'The campaign’s description, rendered',
        description: RENDERED_DESCRIPTION,
        tags: ['rich content'],
        params: CampaignParams,
        querystring: RenderedQuerystring,
        response: { 200: RenderedCampaign, ...problems(400, 401, 404) },
      },
    },
    async (request) => {
      const format = formatOf(request.query);
      const campaign = campaignOf(request);
      return { format, fields: await render(campaign, viewOf(request), { description: campaign.description }, format) };
    },
  );

  app.get(
    '/campaigns/:campaignSlug/things/:thingSlug/rendered',
    {
      config: { auth: 'campaign', cache: 'list' },
      attachValidation: true,
      schema: {
        operationId: 'renderThing',
        summary: 'A thing’s description, rendered',
        description: RENDERED_DESCRIPTION,
        tags: ['rich content'],
        params: ThingParams,
        querystring: RenderedQuerystring,
        responseHeaders: { 308: ['location'] },
        response: { 200: RenderedThing, ...previousSlugResponses, ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const format = formatOf(request.query);
      const campaign = campaignOf(request);
      const view = viewOf(request);
      return followingPreviousSlug(database.kysely, request, reply, 'thing', request.params.thingSlug, async () => {
        const thing = await findVisibleThing(database.kysely, view, request.params.thingSlug);
        if (!thing) throw errors.thingNotFound(request.params.thingSlug);
        return { format, ...(await renderRecord(campaign, view, { description: thing.description }, thing.properties, format)) };
      });
    },
  );

  app.get(
    '/campaigns/:campaignSlug/arcs/:arcSlug/rendered',
    {
      config: { auth: 'campaign', cache: 'list' },
      attachValidation: true,
      schema: {
        operationId: 'renderArc',
        summary: 'An arc’s narrative fields, rendered',
        description: RENDERED_DESCRIPTION,
        tags: ['rich content'],
        params: ArcParams,
        querystring: RenderedQuerystring,
        responseHeaders: { 308: ['location'] },
        response: { 200: RenderedArc, ...previousSlugResponses, ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const format = formatOf(request.query);
      const campaign = campaignOf(request);
      const view = viewOf(request);
      return followingPreviousSlug(database.kysely, request, reply, 'arc', request.params.arcSlug, async () => {
        const arc = await findVisibleArc(database.kysely, view, request.params.arcSlug);
        if (!arc) throw errors.arcNotFound(request.params.arcSlug);
        const fields = Object.fromEntries(ARC_TEXT_FIELDS.map((field) => [field, arc[field]])) as Record<(typeof ARC_TEXT_FIELDS)[number], string | null>;
        return { format, ...(await renderRecord(campaign, view, fields, arc.properties, format)) };
      });
    },
  );

  app.get(
    '/campaigns/:campaignSlug/things/:thingSlug/backlinks',
    {
      config: { auth: 'campaign', cache: 'list' },
      schema: {
        operationId: 'listThingBacklinks',
        summary: 'Where a thing is mentioned',
        description: BACKLINKS_DESCRIPTION,
        tags: ['rich content'],
        params: ThingParams,
        responseHeaders: { 308: ['location'] },
        response: { 200: Backlinks, ...previousSlugResponses, ...problems(401, 404) },
      },
    },
    async (request, reply) => {
      const view = viewOf(request);
      return followingPreviousSlug(database.kysely, request, reply, 'thing', request.params.thingSlug, async () => {
        const thing = await findVisibleThing(database.kysely, view, request.params.thingSlug);
        if (!thing) throw errors.thingNotFound(request.params.thingSlug);
        return listBacklinks(database.kysely, view, 'thing', thing);
      });
    },
  );

  app.get(
    '/campaigns/:campaignSlug/arcs/:arcSlug/backlinks',
    {
      config: { auth: 'campaign', cache: 'list' },
      schema: {
        operationId: 'listArcBacklinks',
        summary: 'Where an arc is mentioned',
        description: BACKLINKS_DESCRIPTION,
        tags: ['rich content'],
        params: ArcParams,
        responseHeaders: { 308: ['location'] },
        response: { 200: Backlinks, ...previousSlugResponses, ...problems(401, 404) },
      },
    },
    async (request, reply) => {
      const view = viewOf(request);
      return followingPreviousSlug(database.kysely, request, reply, 'arc', request.params.arcSlug, async () => {
        const arc = await findVisibleArc(database.kysely, view, request.params.arcSlug);
        if (!arc) throw errors.arcNotFound(request.params.arcSlug);
        return listBacklinks(database.kysely, view, 'arc', arc);
      });
    },
  );
}
