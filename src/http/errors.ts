import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { classifyDatabaseError } from '../db/errors.js';
import { DomainError, type DomainErrorCode } from '../domain/errors.js';

// One catalogue: every error code the API can answer with, its HTTP status and title.
export const errorCatalogue = {
  validation_failed: { status: 400, title: 'Bad Request' },
  malformed_json: { status: 400, title: 'Bad Request' },
  invalid_query: { status: 400, title: 'Bad Request' },
  invalid_id: { status: 400, title: 'Bad Request' },
  invalid_reference: { status: 400, title: 'Bad Request' },
  arc_cycle: { status: 400, title: 'Bad Request' },
  id_mismatch: { status: 400, title: 'Bad Request' },
  bad_request: { status: 400, title: 'Bad Request' },
  image_id_not_issued: { status: 400, title: 'Bad Request' },
  upload_expired: { status: 400, title: 'Bad Request' },
  upload_not_completed: { status: 400, title: 'Bad Request' },
  upload_rejected: { status: 400, title: 'Bad Request' },
  unauthenticated: { status: 401, title: 'Unauthorized' },
  invalid_credentials: { status: 401, title: 'Unauthorized' },
  premium_required: { status: 403, title: 'Forbidden' },
  cross_site_request: { status: 403, title: 'Forbidden' },
  route_not_found: { status: 404, title: 'Not Found' },
  campaign_not_found: { status: 404, title: 'Not Found' },
  thing_not_found: { status: 404, title: 'Not Found' },
  thing_type_not_found: { status: 404, title: 'Not Found' },
  arc_not_found: { status: 404, title: 'Not Found' },
  link_not_found: { status: 404, title: 'Not Found' },
  token_not_found: { status: 404, title: 'Not Found' },
  asset_not_found: { status: 404, title: 'Not Found' },
  upload_url_not_found: { status: 404, title: 'Not Found' },
  image_not_found: { status: 404, title: 'Not Found' },
  method_not_allowed: { status: 405, title: 'Method Not Allowed' },
  conflict: { status: 409, title: 'Conflict' },
  slug_taken: { status: 409, title: 'Conflict' },
  name_taken: { status: 409, title: 'Conflict' },
  email_taken: { status: 409, title: 'Conflict' },
  upload_already_received: { status: 409, title: 'Conflict' },
  request_timeout: { status: 408, title: 'Request Timeout' },
  precondition_failed: { status: 412, title: 'Precondition Failed' },
  payload_too_large: { status: 413, title: 'Content Too Large' },
  image_too_large: { status: 413, title: 'Content Too Large' },
  uri_too_long: { status: 414, title: 'URI Too Long' },
  unsupported_media_type: { status: 415, title: 'Unsupported Media Type' },
  unsupported_image_type: { status: 415, title: 'Unsupported Media Type' },
  rate_limited: { status: 429, title: 'Too Many Requests' },
  header_fields_too_large: { status: 431, title: 'Request Header Fields Too Large' },
  internal_error: { status: 500, title: 'Internal Server Error' },
  upload_verification_failed: { status: 500, title: 'Internal Server Error' },
  service_unavailable: { status: 503, title: 'Service Unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof errorCatalogue | DomainErrorCode;

export interface FieldIssue {
  path: string;
  message: string;
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: FieldIssue[];
  success?: false;
}

/** An error the HTTP layer answers as a problem document. */
export class HttpError extends Error {
  constructor(
    readonly code: keyof typeof errorCatalogue,
    detail: string,
    readonly errors?: FieldIssue[],
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
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

export function problem(code: keyof typeof errorCatalogue, detail: string, errors?: FieldIssue[]): ProblemBody {
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

export function registerErrorHandling(app: FastifyInstance): void {
  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    return sendProblem(reply, problem('route_not_found', `No route ${request.method} ${request.url.split('?')[0] ?? ''}.`));
  });

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof HttpError) {
      return sendProblem(reply, problem(error.code, error.message, error.errors), error.headers);
    }
    if (error instanceof DomainError) {
      return sendProblem(reply, problem(error.code, error.message, error.issues));
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
  const code: keyof typeof errorCatalogue =
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
