import { Type } from '@sinclair/typebox';
import { errors } from '../../domain/errors.js';
import { EXPORT_FORMATS, exportCampaign, type ExportFormat } from '../../portability/export.js';
import { CampaignDocument } from '../../portability/json-document/schema.js';
import { campaignOf } from '../auth.js';
import type { AppInstance } from '../app-types.js';
import { CampaignParams, problems } from '../schemas/common.js';

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
              'application/json': { schema: CampaignDocument },
            },
          },
          ...problems(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const format = formatOf(request.query);
      const { stream, fileName, contentType } = exportCampaign(database, imageHost, campaignOf(request), format);
      return reply.header('content-disposition', `attachment; filename="${fileName}"`).type(contentType).send(stream as never);
    },
  );
}
