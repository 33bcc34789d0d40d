// The OpenAPI document, made exact in one place. A route declares what is its own (operationId,
// summary, description, its success and route-specific error responses, the headers those carry);
// everything that follows from how the service works is added here from the route's config and
// shape, so no route can forget it: who may call it (security, 401, 403, 404), bodies (400, 413,
// 415), conditional requests (ETag, If-None-Match and 304; If-Match and 412), rate limits (429,
// Retry-After, RateLimit-*), the sliding session cookie, and that any route may fail (500). Errors
// are documented as what they are served as, application/problem+json.
//
// All of this is documentation only (@fastify/swagger's `transform`): the schemas Fastify validates
// and serializes with are the routes' own. Tests check every response they receive against the
// served document (test/support/openapi-check.ts), so a route that drifts fails the suite.
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifySchema, RouteOptions } from 'fastify';
import type { Config } from '../config.js';
import { Problem } from './schemas/common.js';
import { defaultLeastRole } from '../access/policy.js';
import { VIEW_HEADER } from '../access/view.js';

/** Headers a response may carry, each described once. */
export const RESPONSE_HEADERS = {
  etag: { type: 'string', description: 'The version of what was answered: send it back as If-Match (writes) or If-None-Match (reads). A player’s is a digest of their answer: it moves only with what players can see.' },
  location: { type: 'string', description: 'The URL of the record created (201), the current URL of a record named by a previous slug (308), or of an import job (202).' },
  link: { type: 'string', description: '`</api/…?cursor=…>; rel="next"`: the next page, present while more remain.' },
  'cache-control': { type: 'string', description: 'How long a cache may keep the answer.' },
  'set-cookie': {
    type: 'string',
    description: 'The session cookie (`loreforge_session`, HttpOnly, SameSite=Lax): set by sign-in, cleared by logout, renewed at most hourly while in use (sliding expiry).',
  },
  'retry-after': { type: 'string', description: 'Whole seconds until the limit’s window ends (429); on an unfinished import job, seconds to wait before asking about it again.' },
  'preference-applied': { type: 'string', description: '`respond-async` (RFC 7240): the request was answered asynchronously, as its `Prefer` header asked.' },
  'ratelimit-limit': { type: 'string', description: 'Requests allowed per minute (only with API_RATE_LIMIT set).' },
  'ratelimit-remaining': { type: 'string', description: 'Requests left in this minute (only with API_RATE_LIMIT set).' },
  'ratelimit-reset': { type: 'string', description: 'Seconds until the minute ends (only with API_RATE_LIMIT set).' },
  'content-disposition': { type: 'string', description: '`attachment; filename="…"`: a download, named after the campaign and the day.' },
  'access-control-allow-origin': { type: 'string', description: '`*`: any page may send an upload and read an image.' },
} as const;
export type ResponseHeaderName = keyof typeof RESPONSE_HEADERS;

declare module 'fastify' {
  interface FastifySchema {
    /** Headers each response status of this route carries besides those added here (documentation). */
    responseHeaders?: Partial<Record<number, readonly ResponseHeaderName[]>>;
    /** The request body as documented when Fastify does not parse it (the image host's raw uploads). */
    documentedBody?: { contentTypes: readonly string[]; schema: TSchema; description: string };
  }
  interface FastifyContextConfig {
    /** The route counts attempts against a limit of its own (register, login, new tokens): 429. */
    rateLimited?: boolean;
  }
}

const STATUS_DESCRIPTIONS: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'Done; no body',
  308: 'Permanent Redirect: the slug in the path is one the record had before; `Location` is its current URL',
  304: 'Not Modified: the If-None-Match given names the current version; no body',
  400: 'The request is not valid: `validation_failed` (with `errors`, JSON pointers into the body), `malformed_json`, `invalid_query`, `invalid_id`, `invalid_reference`, `invalid_password`, …',
  401: '`unauthenticated`: no valid session cookie or API token',
  403: '`role_forbidden`: the caller’s role in the campaign does not allow this (players read only; some routes are the owner’s); `cross_site_request`: a write signed in by cookie from another site; `premium_required` on uploads; `session_required`: creating an API token with a token',
  404: '`campaign_not_found` (also for a campaign of another user), or the record named in the path',
  409: 'A conflict: `slug_taken`, `name_taken`, `email_taken`, `owner_of_shared_campaign`, …',
  410: '`invitation_unavailable`: the invitation has expired, been used up or revoked; `cursor_expired`: the changes cursor is older than the deletions kept; `reset_token_unavailable`: a password reset link used, expired or unknown',
  412: '`precondition_failed`: the If-Match given no longer names the record’s version; nothing changed',
  413: '`payload_too_large`: the body is over BODY_LIMIT',
  415: '`unsupported_media_type`: a body that is not application/json',
  429: '`rate_limited`: try again after Retry-After seconds',
  500: '`internal_error`: an unexpected fault (logged; no details in the body)',
  503: '`service_unavailable`: this instance is shutting down; try again (another instance will answer)',
};

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const SECURED = [{ bearer: [] }, { session: [] }];

interface DocResponse {
  description: string;
  type?: 'null';
  content?: Record<string, { schema: TSchema }>;
  headers?: Record<string, unknown>;
}

function describedResponse(status: number, schema: TSchema): DocResponse {
  const description = STATUS_DESCRIPTIONS[status] ?? `Status ${status}`;
  if (schema === Problem) return { description, content: { 'application/problem+json': { schema: Problem } } };
  if ((schema as { type?: unknown }).type === 'null') return { description: schema.description ?? description, type: 'null' };
  const content = (schema as { content?: DocResponse['content'] }).content;
  if (content) return { description: schema.description ?? description, content };
  return { description: schema.description ?? description, content: { 'application/json': { schema } } };
}

const problem = (status: number): DocResponse => describedResponse(status, Problem);

function methodsOf(route: RouteOptions): string[] {
  return Array.isArray(route.method) ? route.method : [route.method];
}

/**
 * Checks at start-up that a documented route says what it is: an operationId (the method name of a
 * generated client), a summary and a description. A route without them fails the build of the app.
 */
export function requireOperationDocs(route: RouteOptions): void {
  const schema = route.schema;
  if (!schema || schema.hide || methodsOf(route).every((method) => method === 'HEAD' || method === 'OPTIONS')) return;
  for (const key of ['operationId', 'summary', 'description'] as const) {
    if (typeof schema[key] !== 'string' || schema[key] === '') {
      throw new Error(`route ${methodsOf(route).join(',')} ${route.url} is documented without ${key}`);
    }
  }
}

/** @fastify/swagger's per-route transform: the route's schema as the document shows it. */
export function documentRoute(config: Pick<Config, 'apiRateLimit'>) {
  return ({ schema, url, route }: { schema: FastifySchema; url: string; route: RouteOptions }): { schema: FastifySchema; url: string } => {
    if (schema.hide) return { schema, url };
    const auth = route.config?.auth ?? 'none';
    const cached = route.config?.cache !== undefined;
    const methods = methodsOf(route);
    const writes = methods.some((method) => WRITE_METHODS.has(method));
    const honoursIfMatch = route.config?.ifMatch ?? (methods.includes('PUT') && auth === 'campaign');
    const apiLimited = config.apiRateLimit !== undefined && auth !== 'none';

    const responses: Record<number, DocResponse> = {};
    for (const [status, declared] of Object.entries((schema.response ?? {}) as Record<string, TSchema>)) {
      responses[Number(status)] = describedResponse(Number(status), declared);
    }
    const add = (status: number) => (responses[status] ??= problem(status));
    if (auth !== 'none') add(401);
    const leastRole = route.config?.role ?? defaultLeastRole(methods[0] ?? 'GET');
    if (auth !== 'none' && (writes || (auth === 'campaign' && leastRole !== 'player'))) add(403);
    if (auth === 'campaign') add(404);
    if (writes && !schema.documentedBody) [400, 413, 415].forEach(add);
    if (honoursIfMatch) add(412);
    if (route.config?.rateLimited || apiLimited) add(429);
    add(500);
    // Any request that arrives while the instance shuts down (the health check answers for itself).
    if (!(schema.operationId ?? '').startsWith('getHealth')) add(503);
    if (cached) responses[304] = { description: STATUS_DESCRIPTIONS[304]!, type: 'null' };

    for (const [key, response] of Object.entries(responses)) {
      const status = Number(key);
      const names = new Set<ResponseHeaderName>(schema.responseHeaders?.[status] ?? []);
      if (auth !== 'none') names.add('set-cookie');
      if (apiLimited) ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'].forEach((name) => names.add(name as ResponseHeaderName));
      if (status === 429) names.add('retry-after');
      if (cached && (status === 200 || status === 304)) names.add('etag');
      if (names.size > 0) response.headers = Object.fromEntries([...names].sort().map((name) => [name, RESPONSE_HEADERS[name]]));
    }

    // Fastify answers HEAD for every GET: the same statuses and headers, never a body.
    const head = methods.includes('HEAD');
    if (head) {
      for (const response of Object.values(responses)) {
        delete response.content;
        response.type = 'null';
      }
    }

    const requestHeaders: Record<string, TSchema> = {};
    if (auth === 'campaign' || route.url === '/api/campaigns') {
      requestHeaders[VIEW_HEADER] = Type.Optional(
        Type.Literal('player', {
          description: 'See the campaign as its players do (no GM-only records, no secret blocks), read-only: every write is 403 `role_forbidden`, the member routes’ included (leaving too). Lets an owner or game master check what players see.',
        }),
      );
    }
    if (cached) {
      requestHeaders['if-none-match'] = Type.Optional(
        Type.String({ description: 'The ETag of a copy you hold: an unchanged answer is 304 with no body.' }),
      );
    }
    if (honoursIfMatch) {
      requestHeaders['if-match'] = Type.Optional(
        Type.String({ description: 'The ETag you last read: the write happens only if the record is still at that version (else 412). Without it, the last write wins.' }),
      );
    }

    const documented: Record<string, unknown> = {
      ...schema,
      // @fastify/swagger names a HEAD operation `<operationId>-head`: not a method name a client can use.
      ...(head && typeof schema.operationId === 'string' ? { operationId: schema.operationId.replace(/-head$/, 'Head'), summary: `${schema.summary ?? ''} (headers only)` } : {}),
      security: auth === 'none' ? [] : SECURED,
      response: responses,
    };
    delete documented.responseHeaders;
    delete documented.documentedBody;
    if (Object.keys(requestHeaders).length > 0) documented.headers = Type.Object(requestHeaders);
    if (schema.documentedBody) {
      documented.body = { ...schema.documentedBody.schema, description: schema.documentedBody.description };
      documented.consumes = schema.documentedBody.contentTypes;
    }
    return { schema: documented, url };
  };
}

const TAGS = [
  { name: 'health', description: 'Whether the service and its database answer.' },
  { name: 'auth', description: 'Accounts, sessions (the `loreforge_session` cookie) and API tokens (`Authorization: Bearer …`).' },
  { name: 'campaigns', description: 'A game master’s campaigns: everything else lives inside one.' },
  { name: 'thing types', description: 'The kinds of things of a campaign (NPCs, Locations, Items and your own).' },
  { name: 'things', description: 'The people, places and objects of a campaign, with a rich-text description.' },
  { name: 'arcs', description: 'Story arcs with seven narrative fields; they nest and link to things.' },
  { name: 'assets', description: 'Uploaded images of a campaign (premium).' },
  { name: 'search', description: 'Full-text search over a campaign’s names and rich text.' },
  { name: 'members', description: 'Sharing a campaign: members with roles (owner, gm, player), invitations, transfer.' },
  { name: 'portability', description: 'Taking a campaign out: export as an archive, a JSON document or a Markdown vault.' },
  { name: 'changes', description: 'The changes feed: what changed in a campaign since a cursor, deletions included.' },
  { name: 'trash', description: 'Deleted records and campaigns, kept TRASH_RETENTION_DAYS for a restore, then erased.' },
  { name: 'rich content', description: 'Rich text rendered to HTML or Markdown, and backlinks: where a thing or an arc is mentioned.' },
  { name: 'images', description: 'The local image host: upload URLs and stored images (not under /api).' },
];

/** @fastify/swagger's transformObject: the document-wide parts. */
export function documentService<T extends object>(openapiObject: T): T {
  return {
    ...openapiObject,
    servers: [{ url: '/', description: 'This service (the API is under /api)' }],
    tags: TAGS,
  };
}
