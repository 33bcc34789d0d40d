import { searchCampaign } from '../../db/repositories/search.js';
import { parseSearchParams } from '../../search/params.js';
import { campaignOf, viewOf } from '../auth.js';
import type { AppInstance } from '../app-types.js';
import { errors } from '../../domain/errors.js';
import { CampaignParams, problems } from '../schemas/common.js';
import { presentSearch, SearchQuerystring, SearchResults } from '../schemas/search.js';

export function searchRoutes(app: AppInstance) {
  const { database } = app;

  app.get(
    '/campaigns/:campaignSlug/search',
    {
      config: { auth: 'campaign', cache: 'list' },
      // The query is parsed in the handler (see search/params.ts): a repeated or malformed
      // parameter is answered there as invalid_query, with a pointer into the query object.
      attachValidation: true,
      schema: {
        operationId: 'searchCampaign',
        summary: 'Search a campaign',
        description:
          'Searches the names and every rich-text field of the campaign’s things and arcs, and its description. ' +
          'A record’s aliases count as its names (an alias match ranks like a name match, and `alias` says which one matched), ' +
          'and its tags and property values (text, numbers, booleans, dates; not keys, not links) as its text. ' +
          '`tag` keeps only records with every given tag. ' +
          'Finds words as written, other word forms (harper → Harpers), prefixes (nezz → Nezznar), words with typos ' +
          '(one edit for words of 4–5 letters, two from 6; golbin → goblin), with case and accents ignored, in any script. ' +
          'A `campaign` result is a match in the campaign’s description (type=any only). ' +
          'Exact name matches come first, then records whose name has every query word, then text matches; within each, ' +
          'more query words matched, fewer typos, then BM25 relevance. Any text is a valid query; an empty one is refused. ' +
          'A player’s search neither matches nor shows GM-only records or the text of secret elements (at any depth), never shows a mention of a GM-only record, does not match mention labels, and neither matches nor shows GM-only properties.',
        tags: ['search'],
        params: CampaignParams,
        querystring: SearchQuerystring,
        response: { 200: SearchResults, ...problems(400, 401, 404) },
      },
    },
    async (request) => {
      const parsed = parseSearchParams(request.query);
      if (!parsed.ok) throw errors.invalidQuery(parsed.issues);
      return presentSearch(await searchCampaign(database, campaignOf(request), viewOf(request), parsed.value));
    },
  );
}
