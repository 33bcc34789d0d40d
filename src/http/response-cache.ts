import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ifNoneMatchAdmits, listEtag, playersEtag } from './conditional.js';
import { viewKey } from '../access/view.js';
import { COMPRESS_THRESHOLD, compressed, negotiatedEncoding, type Encoding } from './compression.js';

// Serialized GET responses of a campaign, kept in memory and keyed by the campaign's versions.
// Every write inside a campaign bumps its content_version in the database (beginCampaignWrite),
// and the caller's request already reads the campaign row (auth.ts), so a lookup costs no query
// and an entry can never outlive a write made through any instance.
//
// A player's ETag is not the campaign's versions (which every write moves, a game master's edit of
// a GM-only record or a secret block too) but a digest of the answer itself (conditional.ts
// playersEtag): what a player reads and what a player's If-None-Match confirms move only when
// something a player can see changes (CONTRACT "Secrets that hold"). After a write, a player's
// request misses the cache and is built again; if the answer is the same, so is its ETag (and a 304
// is still a 304).
//
// An entry also keeps its answer compressed (compression.ts), each encoding made once, when first
// asked for: compressing a 1.4 MB list costs 9-15 ms of CPU, sending it from here almost nothing.

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Serve this campaign GET route from the response cache and answer If-None-Match with 304.
     * 'record': the route sets the record's own ETag; 'list': the ETag is the campaign's versions.
     */
    cache?: 'list' | 'record';
    /**
     * For a 'list': the shape a request asks for when the route has more than one (e.g. `summary`),
     * part of its ETag; undefined for the default shape.
     */
    cacheVariant?: (query: Record<string, unknown>) => string | undefined;
  }
  interface FastifyRequest {
    responseCacheKey: string | null;
    /** This request builds the response other requests for the same key wait for. */
    responseCacheBuilder: boolean;
  }
}

interface CachedResponse {
  /** Bytes, not a string: sent as they are, with no encoding or copy per response. */
  payload: Buffer;
  etag: string;
  link: string | undefined;
  contentType: string;
  /** The payload compressed, by encoding, once asked for (from COMPRESS_THRESHOLD bytes up). */
  encoded?: Partial<Record<Encoding, Promise<Buffer>>>;
  /** The bytes of the compressed payloads made so far (counted in the cache's size). */
  encodedBytes?: number;
}

function sizeOf(key: string, entry: CachedResponse): number {
  return entry.payload.length + (entry.encodedBytes ?? 0) + key.length;
}

/** A map that forgets its least recently used entries beyond a total size in bytes. */
export class ResponseCache {
  private readonly entries = new Map<string, CachedResponse>();
  private size = 0;
  /** The key last read or written: already the most recent, so reading it again moves nothing. */
  private newestKey: string | undefined;

  constructor(private readonly maxBytes: number) {}

  get(key: string): CachedResponse | undefined {
    const entry = this.entries.get(key);
    if (entry && key !== this.newestKey) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      this.newestKey = key;
    }
    return entry;
  }

  set(key: string, entry: CachedResponse): void {
    const bytes = sizeOf(key, entry);
    // Half the budget at most: one huge response must not flush everything else. A large one is
    // still worth keeping: not cached, every request for it is built anew (a 14 MiB arcs list
    // costs 0.3 s of CPU to build and 0.01 s to send).
    if (bytes > this.maxBytes / 2) return;
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.size -= sizeOf(key, previous);
    }
    this.entries.set(key, entry);
    this.newestKey = key;
    this.size += bytes;
    this.evictBeyondBudget(key);
  }

  /** Forgets the least recently used entries until the cache is within its budget, all but `keep`'s. */
  private evictBeyondBudget(keep: string): void {
    for (const [oldKey, old] of this.entries) {
      if (this.size <= this.maxBytes) break;
      if (oldKey === keep) continue;
      this.entries.delete(oldKey);
      this.size -= sizeOf(oldKey, old);
    }
  }

  /**
   * The entry's payload compressed with `encoding`: made once, then kept with the entry and counted
   * in the cache's size, older entries evicted to make room (never this one: it is being served).
   * A copy that would take its entry over half the budget (`set`'s rule) is made for its request
   * only, and made again for the next.
   */
  encoded(key: string, entry: CachedResponse, encoding: Encoding): Promise<Buffer> {
    entry.encoded ??= {};
    let bytes = entry.encoded[encoding];
    if (!bytes) {
      bytes = compressed(entry.payload, encoding);
      entry.encoded[encoding] = bytes;
      void bytes.then(
        (done) => {
          if (sizeOf(key, entry) + done.length > this.maxBytes / 2) {
            delete entry.encoded?.[encoding];
            return;
          }
          entry.encodedBytes = (entry.encodedBytes ?? 0) + done.length;
          // Counted only while the entry is still kept (an evicted one was subtracted without it).
          if (this.entries.get(key) !== entry) return;
          this.size += done.length;
          this.evictBeyondBudget(key);
        },
        () => delete entry.encoded?.[encoding],
      );
    }
    return bytes;
  }

  get bytes(): number {
    return this.size;
  }
}

function notModified(reply: FastifyReply, etag: string): void {
  void reply.code(304).header('etag', etag).send();
}

/** The encoding to send `entry` with (compression.ts sets the Vary and ETag that go with it). */
function encodingFor(request: FastifyRequest, entry: CachedResponse): Encoding | undefined {
  return entry.payload.length >= COMPRESS_THRESHOLD ? negotiatedEncoding(request) : undefined;
}

function serve(request: FastifyRequest, reply: FastifyReply, entry: CachedResponse, cache: ResponseCache, key: string): void {
  if (ifNoneMatchAdmits(request.headers['if-none-match'], entry.etag)) {
    notModified(reply, entry.etag);
    return;
  }
  void reply.header('content-type', entry.contentType).header('etag', entry.etag);
  if (entry.link !== undefined) void reply.header('link', entry.link);
  const encoding = encodingFor(request, entry);
  if (encoding === undefined) {
    void reply.code(200).send(entry.payload);
    return;
  }
  cache.encoded(key, entry, encoding).then(
    (bytes) => void reply.code(200).header('content-encoding', encoding).send(bytes),
    (error: unknown) => void reply.send(error),
  );
}

/** The list's shape this request asks for (the route's cacheVariant), part of a game master's list ETag. */
function listVariant(request: FastifyRequest): string | undefined {
  const variant = request.routeOptions.config.cacheVariant;
  return variant ? variant(typeof request.query === 'object' && request.query !== null ? (request.query as Record<string, unknown>) : {}) : undefined;
}

type Waiter = (entry: CachedResponse | undefined) => void;

/**
 * Registers the cache hooks; must come after registerAuth so the campaign is known.
 * Routes opt in with `config: { auth: 'campaign', cache: 'list' }` (or 'record').
 *
 * Concurrent misses of one key are built once: the first request builds the response, the others
 * wait for it and send the same bytes (also when the response is too large to keep). Fifty
 * clients asking at once for a list that is not cached yet cost one build and one copy in memory,
 * not fifty. If the builder does not answer 200, each waiter builds its own response.
 */
export function registerResponseCache(app: FastifyInstance, cache: ResponseCache): void {
  app.decorateRequest('responseCacheKey', null);
  app.decorateRequest('responseCacheBuilder', false);
  const building = new Map<string, Waiter[]>();

  const finishBuild = (request: FastifyRequest, entry: CachedResponse | undefined) => {
    if (!request.responseCacheBuilder || request.responseCacheKey === null) return;
    request.responseCacheBuilder = false;
    const waiters = building.get(request.responseCacheKey);
    building.delete(request.responseCacheKey);
    for (const waiter of waiters ?? []) waiter(entry);
  };

  // Callback-style hooks: a hit waits for nothing, so no promise per request.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const mode = request.routeOptions.config.cache;
    const campaign = request.campaign;
    const view = request.view;
    if (request.method !== 'GET' || mode === undefined || !campaign || !view) {
      done();
      return;
    }
    // Kept apart per view (access/view.ts): no answer built for one view is served to another.
    const key = `${campaign.id}:${campaign.version}:${campaign.content_version}:${viewKey(view)}:${request.url}`;
    const hit = cache.get(key);
    if (hit) {
      // Answered here: the hook chain stops, `done` is not called.
      serve(request, reply, hit, cache, key);
      return;
    }
    request.responseCacheKey = key;
    // A game master's list's version is the campaign's, known before the handler runs (a player's
    // is known once the answer is built: onSend).
    if (mode === 'list' && !view.players) {
      const etag = listEtag(campaign.id, campaign.version, campaign.content_version, view, listVariant(request));
      if (ifNoneMatchAdmits(request.headers['if-none-match'], etag)) {
        notModified(reply, etag);
        return;
      }
    }
    const waiters = building.get(key);
    if (waiters) {
      waiters.push((entry) => {
        if (entry) serve(request, reply, entry, cache, key);
        else done();
      });
      return;
    }
    building.set(key, []);
    request.responseCacheBuilder = true;
    done();
  });

  app.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
    const key = request.responseCacheKey;
    if (key === null || reply.statusCode !== 200 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) {
      finishBuild(request, undefined);
      done(null, payload);
      return;
    }
    const campaign = request.campaign!;
    const view = request.view!;
    const header = reply.getHeader('link');
    const link = typeof header === 'string' ? header : undefined;
    const bytes = typeof payload === 'string' ? Buffer.from(payload) : payload;
    let etag = reply.getHeader('etag');
    if (view.players) {
      etag = playersEtag(bytes, link);
      void reply.header('etag', etag);
    } else if (typeof etag !== 'string') {
      etag = listEtag(campaign.id, campaign.version, campaign.content_version, view, listVariant(request));
      void reply.header('etag', etag);
    }
    const entry: CachedResponse = {
      payload: bytes,
      etag,
      link,
      contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
    };
    cache.set(key, entry);
    finishBuild(request, entry);
    // A player's list is conditional once built (its ETag is the answer's digest); records are too,
    // for every view.
    if (ifNoneMatchAdmits(request.headers['if-none-match'], etag)) {
      void reply.code(304).removeHeader('content-type').removeHeader('link');
      done(null, '');
      return;
    }
    const encoding = encodingFor(request, entry);
    if (encoding === undefined) {
      done(null, entry.payload);
      return;
    }
    cache.encoded(key, entry, encoding).then(
      (compressedBytes) => {
        void reply.header('content-encoding', encoding);
        done(null, compressedBytes);
      },
      () => done(null, entry.payload),
    );
  });

  // A builder that never reached onSend (its client went away, an error before the reply): the
  // waiters must not wait forever.
  app.addHook('onResponse', (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
    finishBuild(request, undefined);
    done();
  });
  app.addHook('onRequestAbort', (request: FastifyRequest, done: () => void) => {
    finishBuild(request, undefined);
    done();
  });
}
