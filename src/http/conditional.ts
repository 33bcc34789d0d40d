// Conditional requests (RFC 9110 §13), in one place: the ETags the service sends, If-Match on writes
// (turned into the ExpectedVersion a repository checks), and If-None-Match on reads (304).
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { ExpectedVersion } from '../domain/versions.js';
import { viewKey, type View } from '../access/view.js';

/** The suffix compression.ts gives a strong tag on an answer to a request accepting br or gzip. */
const ENCODED_TAG = /-(?:br|gzip)"$/;

/** Strong ETag for a record: its id and its version, so a re-created record never matches an old tag. */
export function etagOf(id: number, version: number): string {
  return `"${id}-${version}"`;
}

/**
 * The ETag of a thing, arc or thing type as this view reads it. A game master's is the record's own
 * (what If-Match takes). A player's differs: what a player reads of a record depends on other
 * records too (a mention of a record made GM-only loses its target), so the record's version alone
 * cannot name it. On a cached GET the response cache replaces a player's with playersEtag.
 */
export function recordEtag(view: View, id: number, version: number): string {
  return view.players ? `W/"p${id}-${version}-${view.contentVersion}"` : etagOf(id, version);
}

/**
 * An arc's ETag. Its answer shows other records too (its linked `things`, `parentArc`, `childArcs`),
 * which change without the arc's version (a link, an unlink, a linked thing's edit), so a game
 * master's tag is the arc's id and version and a digest of the answer (`"12-3-a<hex>"`): it moves
 * whenever the answer does. If-Match takes it as the arc's own version (expectedVersion), as a thing
 * type's count: a link made since the client's read is no lost update of the arc's fields.
 */
export function arcEtag(view: View, arc: { id: number; version: number }, answer: unknown): string {
  if (view.players) return recordEtag(view, arc.id, arc.version);
  const digest = createHash('sha256').update(JSON.stringify(answer)).digest('hex').slice(0, 16);
  return `"${arc.id}-${arc.version}-a${digest}"`;
}

/**
 * A thing type's ETag: its version and its `thingCount`, which other records' writes move (so a
 * 304 never confirms a stale count). If-Match takes it as the type's own version.
 */
export function thingTypeEtag(view: View, type: { id: number; version: number }, thingCount: number): string {
  return view.players ? recordEtag(view, type.id, type.version) : `"${type.id}-${type.version}-n${thingCount}"`;
}

/** The campaign record's ETag: it carries the caller's `role`, so the role is part of its version. */
export function campaignEtag(view: View, campaign: { id: number; version: number }): string {
  return view.players ? recordEtag(view, campaign.id, campaign.version) : `"${campaign.id}-${campaign.version}-${view.role}"`;
}

/**
 * Weak ETag of a list of a campaign: the campaign's own version and its content version, which
 * every write inside the campaign bumps (db/repositories/common.ts beginCampaignWrite), and the view;
 * a `variant` (a list's other shape: `fields=summary`, `things=none`) is part of it, so a tag of one
 * shape never confirms the other.
 */
export function listEtag(campaignId: number, version: number, contentVersion: number, view: View, variant?: string): string {
  return `W/"c${campaignId}-${version}-${contentVersion}-${viewKey(view)}${variant === undefined ? '' : `-${variant}`}"`;
}

/**
 * A player's ETag on every cached campaign GET: a digest of the answer's bytes (and its Link header),
 * so it moves exactly when what the player reads does, and never with a game master's edit of
 * GM-only records or secret blocks (CONTRACT "Secrets that hold"). Weak: the same answer under
 * another representation is no concern here. Never equal to a game master's tags (`p` prefix).
 */
export function playersEtag(payload: Buffer, link: string | undefined): string {
  const digest = createHash('sha256').update(payload);
  if (link !== undefined) digest.update(`\n${link}`);
  return `W/"p-${digest.digest('base64url').slice(0, 32)}"`;
}

/** The version a write expects from the request's If-Match (strong comparison), or undefined without one. */
export function expectedVersion(request: FastifyRequest): ExpectedVersion | undefined {
  const header = request.headers['if-match'];
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === '*') return { admits: () => true };
  // A campaign's tag carries the role it was read with (campaignEtag), a thing type's its count
  // (thingTypeEtag), an arc's a digest of its answer (arcEtag), a compressed answer's its encoding
  // (compression.ts); any writer's names the version.
  const tags = value.split(',').map((tag) => withoutEncoding(tag.trim()).replace(/-(owner|gm|n\d+|a[0-9a-f]{16})"$/, '"'));
  return { admits: (id, version) => tags.includes(etagOf(id, version)) };
}

/**
 * A strong tag as the service made it, before compression.ts named the answer's encoding in it
 * (`"12-3-br"` is `"12-3"`). Weak tags never carry an encoding (a player's digest may end in `-br`).
 */
function withoutEncoding(tag: string): string {
  return tag.startsWith('"') ? tag.replace(ENCODED_TAG, '"') : tag;
}

/**
 * Whether an If-None-Match header value matches `etag` (weak comparison: W/ on either side does not
 * matter, nor the encoding a strong tag names: the same version under any encoding is the same content).
 */
export function ifNoneMatchAdmits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const bare = (tag: string) => withoutEncoding(tag.trim()).replace(/^W\//, '');
  const wanted = bare(etag);
  return header.split(',').some((tag) => bare(tag) === wanted);
}
