import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

// Serialized GET responses of a campaign, kept in memory and keyed by the campaign's versions.
// Every write inside a campaign bumps its content_version in the database (beginCampaignWrite),
// and the caller's request already reads the campaign row (auth.ts), so a lookup costs no query
// and an entry can never outlive a write made through any instance.

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Serve this campaign GET route from the response cache and answer If-None-Match with 304.
     * 'record': the route sets the record's own ETag; 'list': the ETag is the campaign's versions.
     */
    cache?: 'list' | 'record';
  }
  interface FastifyRequest {
    responseCacheKey: string | null;
  }
}

interface CachedResponse {
  payload: string;
  etag: string;
  link: string | undefined;
  contentType: string;
}

/** A map that forgets its least recently used entries beyond a total size in bytes. */
export class ResponseCache {
  private readonly entries = new Map<string, CachedResponse>();
  private size = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): CachedResponse | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, entry: CachedResponse): void {
    const bytes = entry.payload.length + key.length;
    if (bytes > this.maxBytes / 4) return; // one huge response must not flush everything else
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.size -= previous.payload.length + key.length;
    }
    this.entries.set(key, entry);
    this.size += bytes;
    for (const [oldKey, old] of this.entries) {
      if (this.size <= this.maxBytes) break;
      this.entries.delete(oldKey);
      this.size -= old.payload.length + oldKey.length;
    }
  }

  get bytes(): number {
    return this.size;
  }
}

function listEtag(campaignId: number, version: number, contentVersion: number): string {
  return `W/"c${campaignId}-${version}-${contentVersion}"`;
}

// RFC 9110 weak comparison: a W/ prefix on either side does not matter for If-None-Match.
function ifNoneMatchAdmits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  if (header.trim() === '*') return true;
  const wanted = bare(etag);
  return header.split(',').some((tag) => bare(tag) === wanted);
}

function notModified(reply: FastifyReply, etag: string): FastifyReply {
  return reply.code(304).header('etag', etag).send();
}

/**
 * Registers the cache hooks; must come after registerAuth so the campaign is known.
 * Routes opt in with `config: { auth: 'campaign', cache: 'list' }` (or 'record').
 */
export function registerResponseCache(app: FastifyInstance, cache: ResponseCache): void {
  app.decorateRequest('responseCacheKey', null);

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const mode = request.routeOptions.config.cache;
    if (request.method !== 'GET' || mode === undefined) return;
    const campaign = request.campaign;
    if (!campaign) return;
    const key = `${campaign.id}:${campaign.version}:${campaign.content_version}:${request.url}`;
    const hit = cache.get(key);
    if (hit) {
      if (ifNoneMatchAdmits(request.headers['if-none-match'], hit.etag)) return notModified(reply, hit.etag);
      void reply.header('content-type', hit.contentType).header('etag', hit.etag);
      if (hit.link !== undefined) void reply.header('link', hit.link);
      return reply.code(200).send(hit.payload);
    }
    request.responseCacheKey = key;
    // A list's version is the campaign's, known before the handler runs.
    if (mode === 'list') {
      const etag = listEtag(campaign.id, campaign.version, campaign.content_version);
      if (ifNoneMatchAdmits(request.headers['if-none-match'], etag)) return notModified(reply, etag);
    }
  });

  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const key = request.responseCacheKey;
    if (key === null || reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    const campaign = request.campaign!;
    let etag = reply.getHeader('etag');
    if (typeof etag !== 'string') {
      etag = listEtag(campaign.id, campaign.version, campaign.content_version);
      void reply.header('etag', etag);
    }
    const link = reply.getHeader('link');
    cache.set(key, {
      payload,
      etag,
      link: typeof link === 'string' ? link : undefined,
      contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
    });
    return payload;
  });
}
