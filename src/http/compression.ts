import fastifyCompress from '@fastify/compress';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

// Answers compressed when large (CONTRACT "The web app, phase 3"): the API's JSON (and problem
// documents) and the app's page HTML, Brotli or gzip by the request's Accept-Encoding, from
// COMPRESS_THRESHOLD bytes up. The hashed static files are compressed at build time instead
// (scripts/precompress.mjs, served by @fastify/static's preCompressed); images and export zips are
// never compressed again (their types are not compressible), and neither is a 206 or a 304.
//
// ETags (RFC 9110 §8.8.3): a strong tag must differ between a compressed and an uncompressed
// answer. So a strong tag names the encoding the request accepts: `"12-3"` becomes `"12-3-br"`
// (or `-gzip`) on every answer to a request that accepts it, a 304 included, and whether or not
// that answer was large enough to compress (the same version is always the same size, so the same
// tag always names the same bytes). If-Match and If-None-Match read the record's version from
// either form (conditional.ts), so a PUT with the tag a compressed GET gave succeeds. HEAD answers
// are never compressed, so theirs name none. Weak tags
// (lists, a player's answers) are left as they are: they already say "the same content".

/** Answers smaller than this many bytes are sent as they are. */
export const COMPRESS_THRESHOLD = 1024;

/** Encodings offered, in the server's order of preference. */
const ENCODINGS = ['br', 'gzip'] as const;
export type Encoding = (typeof ENCODINGS)[number];

// Brotli at quality 4 (@fastify/compress's default: 11 costs far more CPU for a few per cent),
// gzip at zlib's default level 6.
const BROTLI_OPTIONS = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } };
const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** `payload` compressed as @fastify/compress would, off the main thread (the response cache keeps the result). */
export function compressed(payload: Buffer, encoding: Encoding): Promise<Buffer> {
  return encoding === 'br' ? brotli(payload, BROTLI_OPTIONS) : gzip(payload);
}

// @fastify/compress's own negotiator, loaded from where @fastify/compress loads it (not a direct
// dependency of ours): the same code, the same version, so the two can never disagree.
const requireFromCompress = createRequire(createRequire(import.meta.url).resolve('@fastify/compress'));
const { negotiate } = requireFromCompress('@fastify/accept-negotiator') as { negotiate: (header: string, supported: Encoding[]) => Encoding | null };
const SUPPORTED: Encoding[] = [...ENCODINGS];

/**
 * The encoding @fastify/compress picks for this request, or undefined for identity: its
 * negotiator called exactly as it calls it (index.js getEncodingHeader): the header in lower
 * case, `*` and `x-gzip` read as gzip, our encodings in our order. Its reading of the header is
 * its own (`br;level=0` is not br at q=1), and ours is the same by construction, so a strong tag
 * that names an encoding names the one the body is sent with.
 */
export function negotiatedEncoding(request: FastifyRequest): Encoding | undefined {
  const header = request.headers['accept-encoding'];
  if (header === undefined || request.headers['x-no-compression'] !== undefined) return undefined;
  return negotiate(header.toLowerCase().replace(/\*|x-gzip/gu, 'gzip'), SUPPORTED) ?? undefined;
}

function addVary(reply: FastifyReply): void {
  const current = reply.getHeader('vary');
  if (current === undefined) {
    void reply.header('vary', 'accept-encoding');
    return;
  }
  const value = Array.isArray(current) ? current.join(', ') : String(current);
  if (!/(?:^|,)\s*(?:accept-encoding|\*)\s*(?:,|$)/i.test(value)) void reply.header('vary', `${value}, accept-encoding`);
}

/**
 * Compresses the answers of the routes registered on `instance` from here on (and of its children).
 * Request bodies are not decompressed: the body limit counts the bytes as they arrive.
 */
export async function registerCompression(instance: FastifyInstance): Promise<void> {
  // Runs before @fastify/compress's own onSend (a route's hooks run after its context's).
  instance.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
    // Every answer here may be compressed, so every answer varies on Accept-Encoding (a shared
    // cache must not give a small identity answer's successor, compressed, to a client without br).
    addVary(reply);
    const etag = reply.getHeader('etag');
    // A HEAD answer describes the uncompressed body (Fastify answers it before any compression):
    // its tag and Content-Length are those of identity.
    if (typeof etag === 'string' && etag.startsWith('"') && request.method !== 'HEAD' && reply.statusCode !== 206) {
      const encoding = negotiatedEncoding(request);
      if (encoding !== undefined) void reply.header('etag', `${etag.slice(0, -1)}-${encoding}"`);
    }
    done(null, payload);
  });
  await instance.register(fastifyCompress, {
    encodings: [...ENCODINGS],
    threshold: COMPRESS_THRESHOLD,
    brotliOptions: BROTLI_OPTIONS,
    // JSON answers and the page's HTML; anything else only if mime-db calls it compressible.
    customTypes: /^(?:application\/(?:[\w.-]+\+)?json|text\/html)(?:;|$)/u,
    globalDecompression: false,
  });
}
