// Previous slugs on the wire (CONTRACT "Secrets that hold"): a GET of a thing or an arc by a slug
// it had before answers 308 with the current URL, to callers who may see the record (the others
// get the 404 they would get for any unknown slug). The sub-routes (…/rendered, …/backlinks)
// redirect to the same sub-route of the current slug, with the query string kept. Writes do not
// follow previous slugs: they name the record by its current slug.
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/database.js';
import { currentSlugOf, type SlugKind } from '../db/repositories/previous-slugs.js';
import { AppError } from '../domain/errors.js';
import { viewOf } from './auth.js';

/** The 308 of a GET route of a thing or an arc, as the OpenAPI document shows it. */
export const PreviousSlugRedirect = Type.Null({
  description:
    'Permanent Redirect: the slug in the path is one the record had before an explicit slug change; `Location` is the same URL with its current slug (query string kept). Only to callers who may see the record; others get 404.',
});

/** The response schema entries and headers of a GET route that answers to previous slugs. */
export const previousSlugResponses = { 308: PreviousSlugRedirect } as const;

/** `url` with the path segment after `/{collection}/` that reads `from` made `to`. */
function withSlug(url: string, collection: 'things' | 'arcs', from: string, to: string): string {
  const question = url.indexOf('?');
  const path = question === -1 ? url : url.slice(0, question);
  const query = question === -1 ? '' : url.slice(question);
  const segments = path.split('/');
  const at = segments.findIndex((segment, index) => index > 0 && segments[index - 1] === collection && segment === from);
  if (at !== -1) segments[at] = to;
  return segments.join('/') + query;
}

/**
 * Runs a GET handler of a thing or an arc; when it finds no record the view sees by that slug
 * (the kind's 404), answers 308 to the current URL if the slug is a previous slug of a record the
 * view sees, and the 404 otherwise. Costs a statement only on the 404 path.
 */
export async function followingPreviousSlug<T>(
  db: Db,
  request: FastifyRequest,
  reply: FastifyReply,
  kind: SlugKind,
  slug: string,
  handler: () => Promise<T>,
): Promise<T | FastifyReply> {
  try {
    return await handler();
  } catch (error) {
    if (!(error instanceof AppError && error.code === `${kind}_not_found`)) throw error;
    const current = await currentSlugOf(db, viewOf(request), kind, slug);
    if (current === undefined) throw error;
    return reply.code(308).header('location', withSlug(request.url, kind === 'thing' ? 'things' : 'arcs', slug, current)).send();
  }
}
