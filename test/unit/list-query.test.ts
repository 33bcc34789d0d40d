import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextPageQueryString, parseThingListQuery, type ThingListQuery } from '../../src/domain/list-cursor.js';

// The things list's `fields` parameter (CONTRACT "The web app, phase 3": navigation never downloads
// texts): `summary` or absent, anything else an issue at /fields; the next page's link keeps it.

/** A query string as Fastify's parser hands it over: a repeated parameter as an array. */
function queryOf(text: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const seen = out[key];
    out[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return out;
}
const parsed = (raw: unknown): ThingListQuery => {
  const result = parseThingListQuery(raw);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.value;
};

describe('fields in the things list query', () => {
  it('is summary, or absent; any other value is an issue at /fields and only there', () => {
    expect(parsed({}).summary).toBeUndefined();
    expect(parsed({ fields: 'summary' }).summary).toBe(true);
    fc.assert(
      fc.property(fc.string().filter((value) => value !== 'summary'), (value) => {
        const result = parseThingListQuery({ fields: value, count: '5' });
        expect(result.ok).toBe(false);
        if (!result.ok) expect(result.issues.map((issue) => issue.path)).toEqual(['/fields']);
      }),
    );
    const repeated = parseThingListQuery({ fields: ['summary', 'summary'] });
    expect(repeated.ok ? [] : repeated.issues.map((issue) => issue.path)).toEqual(['/fields']);
  });

  it('survives into the next page’s query string with every other parameter', () => {
    const parameters = fc.record(
      {
        count: fc.integer({ min: 1, max: 1000 }).map(String),
        fetchAll: fc.constantFrom('true', 'false'),
        typeId: fc.integer({ min: 1, max: 2 ** 31 - 1 }).map(String),
        sort: fc.constantFrom('updatedAt', 'name'),
        fields: fc.constant('summary'),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(parameters, fc.array(fc.string({ minLength: 1, maxLength: 20 }).filter((tag) => tag.trim() === tag && tag !== ''), { maxLength: 3 }), fc.integer({ min: 1, max: 2 ** 31 - 1 }), (params, tags, id) => {
        const query = parsed({ ...params, ...(tags.length === 1 ? { tag: tags[0] } : tags.length > 1 ? { tag: tags } : {}) });
        const position = query.sort === 'name' ? { name: 'Zed', id } : { updatedAt: '2026-11-24T12:00:00.000Z', id };
        const next = parsed(queryOf(nextPageQueryString(query, position)));
        expect(next.summary).toBe(query.summary);
        expect({ ...next, after: undefined, afterName: undefined }).toEqual({ ...query, after: undefined, afterName: undefined });
      }),
    );
  });
});
