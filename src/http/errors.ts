import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { classifyDatabaseError } from '../db/errors.js';
import { AppError, errorCatalogue, type ErrorCode, type FieldIssue } from '../domain/errors.js';

export type { FieldIssue };

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: FieldIssue[];
  success?: false;
}

/** Codes of failures of the transport itself: the request never reached a rule of the domain. */
export type TransportErrorCode =
  | 'malformed_json'
  | 'bad_request'
  | 'unauthenticated'
  | 'cross_site_request'
  | 'route_not_found'
  | 'method_not_allowed'
  | 'request_timeout'
  | 'payload_too_large'
  | 'uri_too_long'
  | 'unsupported_media_type'
  | 'header_fields_too_large'
  | 'rate_limited'
  | 'internal_error'
  | 'service_unavailable';

/** A failure of the HTTP exchange itself (credentials, encoding, routing, limits); domain failures are errors.* builders. */
export class HttpError extends AppError {
  constructor(code: TransportErrorCode, detail: string, issues?: FieldIssue[], retryAfterSeconds?: number) {
    super(code, detail, issues, retryAfterSeconds);
  }
}

/**
 * Runs a service or repository call whose field errors name fields relative to a record (`typeId`)
 * and places them under the request body's pointer (`/updatedThing/typeId`).
 */
export async function atBody<T>(pointer: string, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof AppError && error.issues?.some((issue) => !issue.path.startsWith('/'))) {
      const issues = error.issues.map((issue) => (issue.path.startsWith('/') ? issue : { ...issue, path: `${pointer}/${issue.path}` }));
      throw new AppError(error.code, error.message, issues, error.retryAfterSeconds);
    }
    throw error;
  }
}

// A detail may quote what the client sent (a slug, a name); a quote of a huge value is cut short
// rather than echoed back whole (a 400 KB arcSlug made a 400 KB answer).
const MAX_DETAIL_CHARACTERS = 500;

function shortened(detail: string): string {
  if (detail.length <= MAX_DETAIL_CHARACTERS) return detail;
  const characters = [...detail];
  return characters.length <= MAX_DETAIL_CHARACTERS ? detail : `${characters.slice(0, MAX_DETAIL_CHARACTERS).join('')}…`;
}

export function problem(code: ErrorCode, detail: string, errors?: FieldIssue[]): ProblemBody {
  const { status, title } = errorCatalogue[code];
  return { type: 'about:blank', title, status, detail: shortened(detail), code, ...(errors && errors.length > 0 ? { errors } : {}) };
}

// Enough to show a client what is wrong; a body of 300,000 wrong array items would otherwise be
// answered with 300,000 issues (a 600 KB request made a 20 MB answer).
const MAX_REPORTED_ISSUES = 20;

// Ajv reports where in the request a value failed; turn that into a JSON pointer into the body
// (or into the query object / path parameters, which are documented as such).
function ajvIssues(error: FastifyError): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const v of (error.validation ?? []).slice(0, MAX_REPORTED_ISSUES)) {
    let path = v.instancePath;
    const params = v.params;
    if (v.keyword === 'required' && typeof params.missingProperty === 'string') {
      path = `${path}/${params.missingProperty.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    }
    issues.push({ path: path === '' ? '/' : path, message: v.message ?? 'is invalid' });
  }
  return issues;
}

function sendProblem(reply: FastifyReply, body: ProblemBody, headers?: Record<string, string>): FastifyReply {
  if (reply.request.routeOptions.config?.problemSuccessFlag) body.success = false;
  if (headers) void reply.headers(headers);
  return reply.code(body.status).type('application/problem+json; charset=utf-8').send(body);
}

function fromFastifyError(error: FastifyError): { body: ProblemBody; headers?: Record<string, string> } | undefined {
  if (error.validation) {
    return { body: problem('validation_failed', 'The request is not valid.', ajvIssues(error)) };
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { body: problem('malformed_json', 'The request body is not valid JSON.') };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { body: problem('payload_too_large', 'The request body is larger than this service accepts.') };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
        ? { body: problem('unsupported_media_type', 'Request bodies must be sent as application/json.') }
        : { body: problem('bad_request', 'The Content-Length header does not match the body.') };
    default:
      break;
  }
  // secure-json-parse rejects __proto__ / constructor.prototype keys with a SyntaxError.
  if (error instanceof SyntaxError) return { body: problem('malformed_json', 'The request body is not valid JSON.') };
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    const status = error.statusCode;
    const code = status === 413 ? 'payload_too_large' : status === 415 ? 'unsupported_media_type' : 'bad_request';
    const body = problem(code, error.message || 'The request is not valid.');
    body.status = status;
    return { body };
  }
  return undefined;
}

/** The answer to a request no route takes (also set on the API's scope, so its hooks run for it: compression.ts). */
export function routeNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendProblem(reply, problem('route_not_found', `No route ${request.method} ${request.url.split('?')[0] ?? ''}.`));
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setNotFoundHandler(routeNotFound);

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof AppError) {
      const headers = error.retryAfterSeconds === undefined ? undefined : { 'retry-after': String(error.retryAfterSeconds) };
      return sendProblem(reply, problem(error.code, error.message, error.issues), headers);
    }
    const database = classifyDatabaseError(error);
    if (database === 'unique') {
      return sendProblem(reply, problem('conflict', 'The change conflicts with an existing record.'));
    }
    if (database === 'invalid_value') {
      return sendProblem(reply, problem('bad_request', 'A value in the request is out of range or of the wrong form.'));
    }
    if (database === 'foreign_key' || database === 'check' || database === 'not_null') {
      return sendProblem(reply, problem('invalid_reference', 'The change refers to a record that does not exist.'));
    }
    const mapped = fromFastifyError(error);
    if (mapped) return sendProblem(reply, mapped.body, mapped.headers);
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(reply, problem('internal_error', 'Something went wrong on our side; the error has been logged.'));
  });
}

// The security headers of an answer that never reaches a route, so helmet's hooks do not run for it:
// a URL the router cannot decode, or a request the HTTP parser refuses before Fastify sees it.
export const BARE_SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/**
 * Fastify's `frameworkErrors` option: errors the router raises before any route or hook runs
 * (a percent-encoding that does not decode, a path segment over maxParamLength). Without it Fastify
 * answers them with its own JSON shape instead of a problem document.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  void reply.headers(BARE_SECURITY_HEADERS);
  if (error.code === 'FST_ERR_BAD_URL') {
    void sendProblem(reply, problem('bad_request', 'The URL is not valid: a percent-encoded part does not decode.'));
  } else if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void sendProblem(reply, problem('uri_too_long', 'A part of the URL is longer than any record name this service uses.'));
  } else {
    request.log.error({ err: error }, 'router error');
    void sendProblem(reply, problem('internal_error', 'Something went wrong on our side; the error has been logged.'));
  }
}

/**
 * Fastify's `clientErrorHandler`: a request the HTTP parser refuses (malformed, headers too large,
 * headers or body not received in time) gets a problem document too, then the connection closes.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const code: ErrorCode =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'request_timeout' : error.code === 'HPE_HEADER_OVERFLOW' ? 'header_fields_too_large' : 'bad_request';
  const detail =
    code === 'request_timeout'
      ? 'The request was not received in time.'
      : code === 'header_fields_too_large'
        ? 'The request headers are larger than this service accepts.'
        : 'The request is not valid HTTP.';
  const body = JSON.stringify(problem(code, detail));
  // Never write into the middle of a response that has already started on this connection.
  const current = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !current?.headersSent) {
    const { status, title } = errorCatalogue[code];
    const headers = {
      'content-type': 'application/problem+json; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
      connection: 'close',
      ...BARE_SECURITY_HEADERS,
    };
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
    socket.write(`HTTP/1.1 ${status} ${title}\r\n${head}\r\n${body}`);
  }
  socket.destroy(error);
}
