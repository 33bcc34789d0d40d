import { Type } from '@sinclair/typebox';
import { listTags } from '../../db/repositories/tags.js';
import { viewOf } from '../auth.js';
import type { AppInstance } from '../app-types.js';
import { CampaignParams, problems } from '../schemas/common.js';

const TagCountSchema = Type.Object({
  tag: Type.String({ description: 'the tag as most records spell it (tags that differ only in case are one tag)' }),
  things: Type.Integer({ minimum: 0, description: 'things the caller sees with this tag' }),
  arcs: Type.Integer({ minimum: 0, description: 'arcs the caller sees with this tag' }),
});

export function tagsRoutes(app: AppInstance) {
  const { database } = app;

  app.get(
    '/campaigns/:campaignSlug/tags',
    {
      config: { auth: 'campaign', cache: 'list' },
      schema: {
        operationId: 'listTags',
        summary: 'The campaign’s tags',
        description:
          'Every tag of the things and arcs the caller sees, ordered by tag ignoring case, with how many things and arcs carry it (a player’s counts leave out GM-only records; a tag only GM-only records carry is not listed for players). ' +
          'Filter a list by tag with `GET …/things?tag=…`.',
        tags: ['things'],
        params: CampaignParams,
        response: { 200: Type.Array(TagCountSchema), ...problems(401, 404) },
      },
    },
    async (request) => listTags(database.kysely, viewOf(request)),
  );
}
