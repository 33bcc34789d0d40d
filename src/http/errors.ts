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
  method_not_allowed: { status: 405, title: 'Method Not Allowed' },
  conflict: { status: 409, title: 'Conflict' },
  slug_taken: { status: 409, title: 'Conflict' },
  name_taken: { status: 409, title: 'Conflict' },
  email_taken: { status: 409, title: 'Conflict' },
  precondition_failed: { status: 412, title: 'Precondition Failed' },
  payload_too_large: { status: 413, title: 'Content Too Large' },
  unsupported_media_type: { status: 415, title: 'Unsupported Media Type' },
  rate_limited: { status: 429, title: 'Too Many Requests' },
  internal_error: { status: 500, title: 'Internal Server Error' },
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

export function problem(code: keyof typeof errorCatalogue, detail: string, errors?: FieldIssue[]): ProblemBody {
  const { status, title } = errorCatalogue[code];
  return { type: 'about:blank', title, status, detail, code, ...(errors && errors.length > 0 ? { errors } : {}) };
}

// Ajv reports where in the request a value failed; turn that into a JSON pointer into the body
// (or into the query object / path parameters, which are documented as such).
function ajvIssues(error: FastifyError): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const v of error.validation ?? []) {
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
