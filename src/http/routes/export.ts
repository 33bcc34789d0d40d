import { Type } from '@sinclair/typebox';
import { Readable } from 'node:stream';
import { errors } from '../../domain/errors.js';
import { campaignArchive, campaignJson, campaignVault, EXPORT_FORMATS, type ExportFormat } from '../../portability/export.js';
import { campaignOf } from '../auth.js';
import type { AppInstance } from '../app-types.js';
import { CampaignParams, problems, Timestamp } from '../schemas/common.js';

export const ExportDocument = Type.Object(
  {
    format: Type.Literal('loreforge-campaign'),
    version: Type.Literal(1),
    exportedAt: Timestamp,
    campaign: Type.Object({}, { additionalProperties: true, description: '{id, slug, name, userId, createdAt, updatedAt, description}' }),
    thingTypes: Type.Array(Type.Object({}, { additionalProperties: true }), { description: '{id, name, createdAt, updatedAt}' }),
    things: Type.Array(Type.Object({}, { additionalProperties: true }), { description: '{id, slug, typeId, name, visibility, createdAt, updatedAt, description}' }),
    arcs: Type.Array(Type.Object({}, { additionalProperties: true }), { description: '{id, slug, name, parentArcId, visibility, createdAt, updatedAt, hook, protagonist, antagonist, problem, key, outcome, notes}' }),
    links: Type.Array(Type.Object({}, { additionalProperties: true }), { description: '{thingId, arcId, createdAt}' }),
    assets: Type.Array(Type.Object({}, { additionalProperties: true }), { description: '{id, imageId, label, url, contentType, byteSize, file, createdAt}; `file` is where an archive holds the bytes' }),
    members: Type.Array(Type.Object({}, { additionalProperties: true }), { description: '{userId, name, email, role, joinedAt}' }),
  },
  { description: 'The `json` export' },
);

function formatOf(query: { format?: unknown }): ExportFormat {
  const value = query.format;
  if (value === undefined) return 'archive';
  if (typeof value === 'string' && (EXPORT_FORMATS as readonly string[]).includes(value)) return value as ExportFormat;
  throw errors.invalidQuery([{ path: '/format', message: Array.isArray(value) ? 'must be given once' : 'must be archive, json or markdown' }]);
}

// Export (CONTRACT "Portability"): the campaign, streamed as a download. Owner and game masters.
// The body is a stream (the schema documents it; nothing is serialized), hence the casts below.
export function exportRoutes(app: AppInstance) {
  const { database, imageHost } = app;

  app.get(
    '/campaigns/:campaignSlug/export',
    {
      config: { auth: 'campaign', role: 'gm' },
      attachValidation: true,
      schema: {
        operationId: 'exportCampaign',
        summary: 'Export the campaign',
        description:
          '`format=archive` (default): a zip of `campaign.json` (as `json`) and `images/` with every uploaded image’s bytes. ' +
          '`format=json`: one document with every record, id, slug, field and timestamp (GM-only records and secret blocks included). ' +
          '`format=markdown`: a zip that opens as an Obsidian vault: `index.md`, `<Type>/<slug>.md` per thing, `Arcs/<slug>.md` per arc, YAML front matter, ' +
          'mentions as relative links that resolve inside the vault, images under `images/`, secrets at any depth kept GM-only: blocks as `> [!secret]` callouts (in list items and quotes too), secret table cells and inline elements in `<span class="secret">`. ' +
          'Streamed, as a download (`Content-Disposition: attachment`). Owner and game masters.',
        tags: ['portability'],
        params: CampaignParams,
        querystring: Type.Object({ format: Type.Optional(Type.String({ description: '`archive` (default), `json` or `markdown`' })) }),
        responseHeaders: { 200: ['content-disposition'] },
        response: {
          200: {
            description: 'The export',
            content: {
              'application/zip': { schema: Type.String({ contentMediaType: 'application/zip' }) },
              'application/json': { schema: ExportDocument },
            },
          },
          ...problems(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const format = formatOf(request.query);
      const campaign = campaignOf(request);
      const exportedAt = new Date().toISOString();
      const day = exportedAt.slice(0, 10);
      if (format === 'json') {
        return reply
          .header('content-disposition', `attachment; filename="${campaign.slug}-${day}.json"`)
          .type('application/json; charset=utf-8')
          .send(Readable.from(campaignJson(database.kysely, campaign, exportedAt)) as never);
      }
      const stream = format === 'archive' ? campaignArchive(database.kysely, campaign, imageHost, exportedAt) : campaignVault(database.kysely, campaign, imageHost);
      const name = format === 'archive' ? `${campaign.slug}-${day}.zip` : `${campaign.slug}-${day}-vault.zip`;
      return reply.header('content-disposition', `attachment; filename="${name}"`).type('application/zip').send(stream as never);
    },
  );
}
