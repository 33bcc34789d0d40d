import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

// Every response a test receives from the service is checked against the OpenAPI document the
// service serves: the status is one the operation lists, every meaningful header is declared, the
// content type is declared for that status, and a JSON body is valid against its schema. A route
// that drifts from its document fails the test that called it.

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

/**
 * Headers any response may carry that describe the transport, not the operation: HTTP framing,
 * and the security headers set on every answer (helmet; README "Security headers").
 */
const GENERIC_HEADERS = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'vary',
  'content-security-policy',
  'cross-origin-opener-policy',
  'cross-origin-resource-policy',
  'origin-agent-cluster',
  'referrer-policy',
  'strict-transport-security',
  'x-content-type-options',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-frame-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
]);

interface ResponseSpec {
  /** Declared content by media type; a JSON one has a validator. */
  content: Map<string, ValidateFunction | null>;
  headers: Set<string>;
}

type Operation = Map<number, ResponseSpec>;

export interface ObservedResponse {
  method: string;
  /** The route's URL as Fastify knows it: `/api/campaigns/:campaignSlug`. */
  route: string;
  status: number;
  headers: Record<string, unknown>;
  /** The body as sent; undefined for a stream (not read) or no body. */
  body: string | Buffer | undefined;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: object }>; headers?: Record<string, unknown> }> }>>;
}

/** Fastify's `:name` path parameters as OpenAPI's `{name}`. */
export function openApiPath(route: string): string {
  return route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function isJson(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

export class OpenApiCheck {
  private readonly operations = new Map<string, Operation>();

  constructor(document: unknown) {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(ajv);
    for (const [route, methods] of Object.entries((document as OpenApiDocument).paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const responses: Operation = new Map();
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          const content = new Map<string, ValidateFunction | null>();
          for (const [mediaType, media] of Object.entries(response.content ?? {})) {
            content.set(mediaType, isJson(mediaType) && media.schema ? ajv.compile(media.schema) : null);
          }
          responses.set(Number(status), { content, headers: new Set(Object.keys(response.headers ?? {}).map((h) => h.toLowerCase())) });
        }
        this.operations.set(`${method.toUpperCase()} ${route}`, responses);
      }
    }
  }

  /** What is wrong with the response, by the document; empty when nothing is. */
  problems(observed: ObservedResponse): string[] {
    const where = `${observed.method} ${observed.route} → ${observed.status}`;
    const operation = this.operations.get(`${observed.method} ${openApiPath(observed.route)}`);
    if (!operation) return [`${where}: the operation is not in the OpenAPI document`];
    const spec = operation.get(observed.status);
    if (!spec) return [`${where}: status ${observed.status} is not listed for the operation (listed: ${[...operation.keys()].join(', ')})`];
    const found: string[] = [];
    for (const name of Object.keys(observed.headers)) {
      const header = name.toLowerCase();
      if (!GENERIC_HEADERS.has(header) && !spec.headers.has(header)) found.push(`${where}: header ${header} is not declared`);
    }
    const body = observed.body;
    // A stream (an image) is not read here: its content type is still checked.
    const hasBody = body === undefined || body.length > 0;
    const contentType = observed.headers['content-type'];
    const mediaType = typeof contentType === 'string' ? contentType.split(';')[0]!.trim().toLowerCase() : undefined;
    if (!hasBody) {
      if (spec.content.size > 0) found.push(`${where}: an empty body where the document promises content`);
      return found;
    }
    if (spec.content.size === 0) return [...found, `${where}: a body where the document declares none`];
    if (mediaType === undefined || !spec.content.has(mediaType)) {
      return [...found, `${where}: content type ${String(contentType)} is not declared (declared: ${[...spec.content.keys()].join(', ')})`];
    }
    if (body === undefined) return found;
    const validate = spec.content.get(mediaType);
    if (validate) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString());
      } catch {
        return [...found, `${where}: the body is not JSON`];
      }
      if (!validate(parsed)) {
        const issues = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
        found.push(`${where}: the body does not match the schema: ${issues.join('; ')}`);
      }
    }
    return found;
  }
}

// ---- counting, across the test processes of one run -------------------------------------------

let checked = 0;

/** Where this test process leaves its count for the run's reporter (test/support/openapi-check-reporter.ts). */
export function countsDir(runnerPid: number): string {
  return path.join(os.tmpdir(), 'loreforge-openapi-checks', String(runnerPid));
}

function recordCount(): void {
  if (checked === 0) return;
  const dir = countsDir(process.ppid);
  fs.mkdirSync(dir, { recursive: true });
  fs.appendFileSync(path.join(dir, `${process.env.TEST_DIALECT ?? 'unit'}.log`), `${checked}\n`);
  checked = 0;
}

// ---- the hooks ------------------------------------------------------------------------------------

const payloads = new WeakMap<FastifyRequest, string | Buffer | undefined>();

/**
 * The body as the client reads it. A payload already compressed when this hook sees it (the response
 * cache's) is decoded; @fastify/compress compresses later, a route's own hook after this one.
 */
function decodedBody(payload: string | Buffer | undefined, encoding: unknown): string | Buffer | undefined {
  if (!Buffer.isBuffer(payload) || payload.length === 0) return payload;
  if (encoding === 'br') return zlib.brotliDecompressSync(payload);
  if (encoding === 'gzip') return zlib.gunzipSync(payload);
  return payload;
}

export interface AttachedCheck {
  /** Problems found since the last call (and forgets them). */
  takeProblems(): string[];
  /** Writes this process's count for the run's total. */
  flush(): void;
}

/**
 * Checks every response of `app` against the document it serves. Call before `app.ready()`.
 * Routes the document hides (the docs themselves, preflights) and answers of no route are skipped.
 */
export function attachOpenApiCheck(app: FastifyInstance): AttachedCheck {
  let check: OpenApiCheck | undefined;
  const problems: string[] = [];

  app.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
    const body = typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : payload === null || payload === undefined ? '' : undefined;
    payloads.set(request, decodedBody(body, reply.getHeader('content-encoding')));
    done(null, payload);
  });
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const route = request.routeOptions.url;
    const schema = request.routeOptions.schema;
    if (route === undefined || schema === undefined || schema.hide || !payloads.has(request)) {
      done();
      return;
    }
    check ??= new OpenApiCheck(app.swagger());
    checked += 1;
    problems.push(
      // 204, 304 and HEAD answers carry no body on the wire, whatever the handler passed on.
      ...check.problems({ method: request.method, route, status: reply.statusCode, headers: reply.getHeaders(), body: reply.statusCode === 204 || reply.statusCode === 304 || request.method === 'HEAD' ? '' : payloads.get(request) }),
    );
    done();
  });

  return {
    takeProblems: () => problems.splice(0),
    flush: recordCount,
  };
}
