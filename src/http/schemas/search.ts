import { Type } from '@sinclair/typebox';
import type { SearchOutcome } from '../../db/repositories/search.js';
import { presentMatches, type WordMatch } from '../../search/excerpt.js';
import { presentedScore } from '../../search/ranking.js';
import { Slug } from './common.js';

// Strings, not a number and an enum: ajv coercion is off, and the handler parses each value itself
// so a bad one gets a precise message (see search/params.ts).
export const SearchQuerystring = Type.Object({
  q: Type.Optional(Type.String({ description: 'the text to search for; any characters, searched as text' })),
  query: Type.Optional(Type.String({ description: 'another name for q' })),
  type: Type.Optional(Type.String({ description: '`thing`, `arc` or `any` (default; includes the campaign description)' })),
  limit: Type.Optional(Type.String({ description: 'an integer from 1 to 100; default 20' })),
  tag: Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.String())], {
      description: 'only things and arcs with this tag (ignoring case; the campaign description has none); repeat it for records with every one of the tags',
    }),
  ),
});

export const SearchResult = Type.Object({
  type: Type.Union([Type.Literal('thing'), Type.Literal('arc'), Type.Literal('campaign')], {
    description: '`campaign`: a match in the campaign’s own description (only with type=any)',
  }),
  id: Type.Integer(),
  slug: Slug,
  name: Type.String(),
  alias: Type.Optional(
    Type.String({ description: 'the other name (alias) of the record the query matched, when it matched more query words there than in the name' }),
  ),
  excerpt: Type.String({ description: 'a short plain-text passage around the best match (… where cut); empty when the record has no text' }),
  highlights: Type.Array(Type.String(), { description: 'the matched words as they are written in the name, aliases, text, tags and property values, each once' }),
  score: Type.Number({
    description: 'higher is better; results come in descending order. The integer part is the tier: 3 the name is the query, 2 every query word is in the name or an alias, 1 otherwise',
  }),
});

export const SearchResults = Type.Object({ results: Type.Array(SearchResult) });

export function presentSearch(outcome: SearchOutcome) {
  // Each matched vocabulary word, with the query word it stands for (the first, when several).
  const matches = new Map<string, WordMatch>();
  for (const expansion of outcome.expansions) {
    if (!matches.has(expansion.term)) matches.set(expansion.term, { query: expansion.queryIndex, prefix: expansion.match === 'prefix' });
  }
  const terms = outcome.termCount;
  return {
    results: outcome.hits.map((hit) => {
      const { excerpt, highlights, alias } = presentMatches(hit.name, hit.texts, matches, hit.aliases);
      return {
        type: hit.kind,
        id: hit.id,
        slug: hit.slug,
        name: hit.name,
        ...(alias !== undefined ? { alias } : {}),
        excerpt,
        highlights,
        score: presentedScore(hit.keys, terms),
      };
    }),
  };
}
