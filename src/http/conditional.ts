// Conditional requests (RFC 9110 §13), in one place: the ETags the service sends, If-Match on writes
// (turned into the ExpectedVersion a repository checks), and If-None-Match on reads (304).
import type { FastifyRequest } from 'fastify';
import type { ExpectedVersion } from '../domain/versions.js';

/** Strong ETag for a record: its id and its version, so a re-created record never matches an old tag. */
export function etagOf(id: number, version: number): string {
  return `"${id}-${version}"`;
}

/**
 * Weak ETag of a list of a campaign: the campaign's own version and its content version, which
 * every write inside the campaign bumps (db/repositories/common.ts beginCampaignWrite).
 */
export function listEtag(campaignId: number, version: number, contentVersion: number): string {
  return `W/"c${campaignId}-${version}-${contentVersion}"`;
}

/** The version a write expects from the request's If-Match (strong comparison), or undefined without one. */
export function expectedVersion(request: FastifyRequest): ExpectedVersion | undefined {
  const header = request.headers['if-match'];
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === '*') return { admits: () => true };
  const tags = value.split(',').map((tag) => tag.trim());
  return { admits: (id, version) => tags.includes(etagOf(id, version)) };
}

/** Whether an If-None-Match header value matches `etag` (weak comparison: W/ on either side does not matter). */
export function ifNoneMatchAdmits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  const wanted = bare(etag);
  return header.split(',').some((tag) => bare(tag) === wanted);
}
