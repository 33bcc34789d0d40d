import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/database.js';
import { extendSession, findSessionUser, findTokenUser, touchToken } from '../db/repositories/credentials.js';
import type { CampaignRow, Role, UserRow } from '../db/schema.js';
import { actingAs } from '../access/acting.js';
import { atLeast, defaultLeastRole, type Actor } from '../access/policy.js';
import { makeView, VIEW_HEADER, type View } from '../access/view.js';
import { loadHiddenRecords } from '../db/repositories/visible.js';
import type { Config } from '../config.js';
import { takeSlot } from '../db/repositories/rate-limits.js';
import { limitKeys, MINUTE_MS } from '../domain/rate-limit.js';
import { hashSecret } from '../domain/secrets.js';
import { isValidSlug } from '../domain/slugs.js';
import { CallerCache } from '../db/caller-cache.js';
import { inWriteScope } from '../db/write-scope.js';
import { addMs, nowIso } from '../domain/time.js';
import { errors } from '../domain/errors.js';
import { HttpError } from './errors.js';

export const SESSION_COOKIE = 'loreforge_session';
const TOKEN_TOUCH_INTERVAL_MS = 60_000;
const SESSION_REFRESH_INTERVAL_MS = 60 * 60_000;

export type AuthMode = 'none' | 'user' | 'campaign';

export interface Caller {
  user: UserRow;
  via: 'cookie' | 'token';
  sessionSecretHash?: string;
  /** The campaign named in the path, when the caller is a member (looked up in the same query). */
  campaign?: CampaignRow | undefined;
  /** The caller's role in that campaign. */
  role?: Role | undefined;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route: anyone, any signed-in user, or the campaign's owner. */
    auth?: AuthMode;
    /** The asset routes add `success: false` to their problem bodies. */
    problemSuccessFlag?: boolean;
    /**
     * On a campaign route, the least role that may call it (access/policy.ts): reads default to
     * `player`, writes to `gm`. A member below it gets 403 role_forbidden before the body is read.
     */
    role?: Role;
    /**
     * Whether the route honours If-Match (412 on a stale tag), for the OpenAPI document: by default
     * the PUTs of campaign routes do; a route says otherwise here.
     */
    ifMatch?: boolean;
  }
  interface FastifyInstance {
    /** PostgreSQL only: the kept lookups of callers (db/caller-cache.ts); undefined on SQLite. */
    callerCache: CallerCache | undefined;
  }
  interface FastifyRequest {
    caller: Caller | null;
    campaign: CampaignRow | null;
    /** What the caller may see of the campaign (access/view.ts); set on every campaign route. */
    view: View | null;
    /** Whom a write to the campaign acts for, checked again inside its transaction (access/acting.ts). */
    actor: Actor | null;
  }
}

export function sessionCookieOptions(config: Config, maxAgeSeconds: number) {
  return { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: config.cookieSecure, maxAge: maxAgeSeconds };
}

function bearerToken(request: FastifyRequest): string | null | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

// Requests arriving in the same millisecond share one formatted time: toISOString is not free,
// and under load several requests start within a millisecond.
let lastNowMs = Number.NaN;
let lastNowIso = '';
function isoAt(ms: number): string {
  if (ms !== lastNowMs) {
    lastNowIso = nowIso(new Date(ms));
    lastNowMs = ms;
  }
  return lastNowIso;
}

async function resolveCaller(
  database: Database,
  cache: CallerCache | undefined,
  config: Config,
  request: FastifyRequest,
  reply: FastifyReply,
  campaignSlug: string | undefined,
): Promise<Caller | null> {
  const nowMs = Date.now();
  const nowString = isoAt(nowMs);
  const token = bearerToken(request);
  if (token === null) return null; // an Authorization header we cannot read is a failed credential, not an absent one
  if (token !== undefined) {
    const tokenHash = hashSecret(token);
    const load = () => findTokenUser(database.kysely, tokenHash, nowString, campaignSlug);
    const found = cache ? await cache.lookup('token', tokenHash, campaignSlug, nowMs, load) : await load();
    if (!found) return null;
    if (found.lastUsedAt === null || nowMs - Date.parse(found.lastUsedAt) > TOKEN_TOUCH_INTERVAL_MS) {
      await touchToken(database.kysely, found.tokenId, nowString);
      // A touch notifies no one (migration 0026): the next request reads the new last use.
      cache?.forget('token', tokenHash);
    }
    return { user: found.user, via: 'token', campaign: found.campaign, role: found.role };
  }
  const cookie = request.cookies[SESSION_COOKIE];
  if (!cookie) return null;
  const secretHash = hashSecret(cookie);
  const load = () => findSessionUser(database.kysely, secretHash, nowString, campaignSlug);
  const found = cache ? await cache.lookup('session', secretHash, campaignSlug, nowMs, load) : await load();
  if (!found) return null;
  // Sliding expiry, written at most once an hour per session to keep reads cheap.
  const lifetimeMs = config.sessionDays * 86_400_000;
  if (Date.parse(found.expiresAt) < nowMs + lifetimeMs - SESSION_REFRESH_INTERVAL_MS) {
    await extendSession(database.kysely, found.sessionId, addMs(nowString, lifetimeMs));
    cache?.forget('session', secretHash);
    void reply.setCookie(SESSION_COOKIE, cookie, sessionCookieOptions(config, lifetimeMs / 1000));
  }
  return { user: found.user, via: 'cookie', sessionSecretHash: secretHash, campaign: found.campaign, role: found.role };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The cross-origin write guard for requests a session cookie authenticates (CONTRACT "Accounts and
 * authentication"). Fetch Metadata first: a browser says in Sec-Fetch-Site where the request comes
 * from, and only `same-origin` and `none` (typed, bookmarked) may write. A browser too old for it
 * still sends Origin with a cross-origin write, which must then be this service's origin. A request
 * with neither header is not from a browser's page (curl, scripts, server-side clients) and passes.
 */
export function passesCrossSiteGuard(method: string, headers: FastifyRequest['headers'], publicOrigin: string): boolean {
  if (SAFE_METHODS.has(method)) return true;
  const site = headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin' || site === 'none';
  const origin = headers.origin;
  return origin === undefined || origin === publicOrigin;
}

/**
 * Resolves the caller (and the campaign) for every route according to its `config.auth`, in that
 * order: 401, then 404. On PostgreSQL the lookup is kept in memory while it is safe
 * (db/caller-cache.ts: invalidated by LISTEN/NOTIFY); on SQLite every request reads it, since
 * another process (the CLI) may change tokens and members in the file and tells no one.
 */
export function registerAuth(app: FastifyInstance, database: Database, config: Config): void {
  const publicOrigin = new URL(config.publicBaseUrl).origin;
  const cache = database.connectClient ? new CallerCache(database.connectClient, undefined, database.kysely) : undefined;
  // The writes of each campaign write request, as its answer waits for them (db/write-scope.ts).
  const writes = new WeakMap<FastifyRequest, ReturnType<CallerCache['requestWrites']>>();
  app.decorate('callerCache', cache);
  if (cache) {
    // Serving waits for the first attempt to listen (a failed one retries; the cache stays unused meanwhile).
    app.addHook('onReady', () => cache.notifications.start());
    app.addHook('onClose', () => cache.notifications.close());
    // A successful write answers once its content versions are announced and, if it may have sent
    // notices of its own, once this instance has applied them.
    app.addHook('onSend', async (request, reply, payload) => {
      if (!SAFE_METHODS.has(request.method) && reply.statusCode < 400) await (writes.get(request)?.settled() ?? cache.settle());
      return payload;
    });
  }
  app.decorateRequest('caller', null);
  app.decorateRequest('campaign', null);
  app.decorateRequest('view', null);
  app.decorateRequest('actor', null);

  // onRequest, before the body is even read: no caller gets a 401 whatever it sent.
  app.addHook('onRequest', async (request, reply) => {
    const mode = request.routeOptions.config.auth ?? 'none';
    if (mode === 'none') return;
    const slug = mode === 'campaign' ? ((request.params as { campaignSlug?: string }).campaignSlug ?? '') : undefined;
    // Before any other check, even before the cookie is looked up: a cross-site caller learns nothing.
    const byCookie = request.headers.authorization === undefined && request.cookies[SESSION_COOKIE] !== undefined;
    if (byCookie && !passesCrossSiteGuard(request.method, request.headers, publicOrigin)) {
      throw new HttpError('cross_site_request', 'A write signed in by cookie must come from a page of this service, not from another site.');
    }
    // A slug that cannot exist (malformed, NUL bytes…) is looked up as no campaign at all.
    const caller = await resolveCaller(database, cache, config, request, reply, slug !== undefined && isValidSlug(slug) ? slug : undefined);
    if (!caller) throw new HttpError('unauthenticated', 'Sign in, or send a valid API token as "Authorization: Bearer <token>".');
    request.caller = caller;
    if (config.apiRateLimit !== undefined) await applyApiRateLimit(database, config.apiRateLimit, caller, reply);
    if (mode === 'campaign') {
      if (!caller.campaign || !caller.role) throw errors.campaignNotFound(slug ?? '');
      request.campaign = caller.campaign;
      const view = makeView(caller.campaign, caller.role, request.headers[VIEW_HEADER] === 'player');
      request.view = view;
      // The answer depends on the view asked for: no HTTP cache may give one view's answer to the other.
      void reply.header('vary', 'Loreforge-View');
      const least = request.routeOptions.config.role ?? defaultLeastRole(request.method);
      const writes = !SAFE_METHODS.has(request.method);
      const asPlayer = request.headers[VIEW_HEADER] === 'player';
      // Viewing as a player is read-only: every write is refused, the member routes' too (leaving
      // included), whoever sends the header (CONTRACT "Authorization holds for the whole request").
      if (writes && asPlayer) throw errors.roleForbidden('you are viewing the campaign as a player, which is read-only.');
      if (!atLeast(view.role, least)) {
        throw errors.roleForbidden(
          view.memberRole === view.role ? `it needs the role ${least}, and yours is ${view.role}.` : `it needs the role ${least}, and you are viewing the campaign as a player.`,
        );
      }
      if (writes) request.actor = { userId: caller.user.id, campaignId: caller.campaign.id, least, asPlayer };
    }
  });

  // The gate above ran on the headers, before the body arrived. The handler of a write runs on
  // behalf of its actor, whom every campaign write transaction checks again as the membership is
  // at commit (db/repositories/common.ts beginCampaignWrite). Entered here, after the body is read:
  // its reading runs in the socket's context, not the request's.
  app.addHook('preHandler', (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    const actor = request.actor;
    if (!actor) return done();
    if (!cache) return actingAs(actor, done);
    const scope = cache.requestWrites();
    writes.set(request, scope);
    inWriteScope(scope, () => actingAs(actor, done));
  });

  // A player's view needs the campaign's GM-only records before anything is presented. Loaded here,
  // after the response cache had its chance (a cached answer needs nothing), for every route.
  // Callback style: a game master's request (most of them) waits for nothing, no promise made.
  app.addHook('preHandler', (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    const view = request.view;
    if (!view?.players || view.hidden) {
      done();
      return;
    }
    loadHiddenRecords(database.kysely, view.campaignId).then(
      (hidden) => {
        view.hidden = hidden;
        done();
      },
      (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
    );
  });
}

/** The view of the request's campaign (set on every campaign route by registerAuth). */
export function viewOf(request: FastifyRequest): View {
  if (!request.view) throw errors.campaignNotFound();
  return request.view;
}

// The general per-caller limit (API_RATE_LIMIT requests per minute), off unless configured.
// Counted in the database like the auth limits, so it holds across instances.
async function applyApiRateLimit(database: Database, max: number, caller: Caller, reply: FastifyReply) {
  const decision = await takeSlot(database.kysely, { key: limitKeys.apiByUser(caller.user.id), max, windowMs: MINUTE_MS });
  void reply.headers({
    'ratelimit-limit': String(max),
    'ratelimit-remaining': String(decision.remaining),
    'ratelimit-reset': String(decision.resetSeconds),
  });
  if (decision.limited) {
    throw new HttpError('rate_limited', `Too many requests: at most ${max} a minute. Try again in ${decision.resetSeconds} s.`, undefined, decision.resetSeconds);
  }
}

/** The caller of a route whose config.auth is 'user' or 'campaign' (set by the onRequest hook). */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new HttpError('unauthenticated', 'Sign in first.');
  return request.caller;
}

export function campaignOf(request: FastifyRequest): CampaignRow {
  if (!request.campaign) throw errors.campaignNotFound();
  return request.campaign;
}
