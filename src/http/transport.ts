import fastifyHelmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyServerOptions } from 'fastify';
import type { Config } from '../config.js';
import type { AppInstance } from './app-types.js';
import { answerClientError, answerFrameworkError, HttpError, registerErrorHandling } from './errors.js';

// The HTTP transport: the Fastify instance with its limits and timeouts, the logger, the body
// parsers, the security headers on every answer and the one error handler. Everything the service
// does is registered on it by buildApp (app.ts).

export interface TransportOptions {
  logger?: FastifyServerOptions['logger'];
  /** Where the configured logger writes (tests capture it to check what a request logs). */
  logStream?: { write(line: string): void };
}

// Secrets never reach a log line: credentials in request and response headers, and a password,
// token or secret field of any logged object or of an object one level inside it (a logged body).
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'headers["set-cookie"]',
  'headers["proxy-authorization"]',
  'password',
  'token',
  'secret',
  '*.password',
  '*.token',
  '*.secret',
];

// Slow-header clients (slowloris) are cut off after this long, checked every CONNECTION_CHECK_MS.
const HEADERS_TIMEOUT_MS = 10_000;
const CONNECTION_CHECK_MS = 1_000;

// The JSON API serves no documents a browser should render: nothing may load, frame or submit.
const API_CSP = {
  useDefaults: false,
  directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
};

type HeaderLine = readonly [name: string, value: number | string | readonly string[]];

// helmet's headers depend on its options alone (no nonces, no per-request CSP directives), yet its
// middleware is rebuilt and run on every request. So they are taken from @fastify/helmet itself,
// once per process, on a throwaway instance: the headers its middleware sets on the raw response,
// names as it spells them, in its order. One hook then sets exactly those on every request. (helmet
// also removes X-Powered-By, which nothing here sets.)
const helmetHeaderCache = new Map<FastifyHelmetOptions, Promise<HeaderLine[]>>();

function helmetHeaders(options: FastifyHelmetOptions): Promise<HeaderLine[]> {
  let headers = helmetHeaderCache.get(options);
  if (!headers) {
    headers = (async () => {
      const probe = Fastify({ logger: false });
      const recorded: HeaderLine[] = [];
      let lines: HeaderLine[] = [];
      // Registered before helmet, so its hook runs first and sees every header helmet sets.
      probe.addHook('onRequest', (_request, reply, done) => {
        const raw = reply.raw;
        const setHeader = raw.setHeader.bind(raw);
        raw.setHeader = (name: string, value: HeaderLine[1]) => {
          recorded.push([name, value]);
          return setHeader(name, value);
        };
        done();
      });
      await probe.register(fastifyHelmet, options);
      // The handler runs after every onRequest hook and before the reply writes its own headers.
      probe.get('/', () => {
        lines = recorded.slice();
        return '';
      });
      await probe.inject({ method: 'GET', url: '/' });
      await probe.close();
      if (lines.length === 0) throw new Error('helmet set no headers');
      return lines;
    })();
    helmetHeaderCache.set(options, headers);
  }
  return headers;
}

const API_HELMET: FastifyHelmetOptions = { contentSecurityPolicy: API_CSP };

export async function createTransport(config: Config, options: TransportOptions = {}): Promise<AppInstance> {
  const app = Fastify({
    logger: options.logger ?? {
      level: config.logLevel,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy,
    requestTimeout: config.requestTimeoutMs,
    // A silent socket is dropped only after the request and header timeouts (checked every
    // CONNECTION_CHECK_MS) have had their turn, so a slow client gets its 408 rather than a bare close.
    connectionTimeout: config.requestTimeoutMs + 2 * CONNECTION_CHECK_MS,
    // Longer than the 60 s idle timeout of common load balancers, so they never reuse a connection we just closed.
    keepAliveTimeout: 72_000,
    http: { headersTimeout: Math.min(HEADERS_TIMEOUT_MS, config.requestTimeoutMs), connectionsCheckingInterval: CONNECTION_CHECK_MS },
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    forceCloseConnections: 'idle',
    // Requests arriving while closing are answered below, as a problem document like every error.
    return503OnClosing: false,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true } },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // An empty body with Content-Type: application/json is "no body" (e.g. a DELETE sent by a client
  // that always sets the header), not malformed JSON; routes that need a body then say so.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // JSON only: Fastify would otherwise accept text/plain bodies as strings.
  app.removeContentTypeParser('text/plain');
  // JSON text is UTF-8 (RFC 8259): invalid bytes are refused as malformed, never silently replaced
  // by U+FFFD and stored.
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = typeof body === 'string' ? body : utf8.decode(body);
    } catch {
      done(new HttpError('malformed_json', 'The request body is not valid UTF-8.'), undefined);
      return;
    }
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    void parseJson(request, text, done);
  });

  // Graceful shutdown: close() waits for every connection to end, and a keep-alive connection whose
  // request finishes after close() began would otherwise idle for keepAliveTimeout (72 s) first. So
  // while closing, idle connections are closed as they appear: close() ends once the last request
  // in flight is answered. (This hook runs before Fastify's own server close, the onClose below after.)
  let idleCloser: NodeJS.Timeout | undefined;
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    idleCloser = setInterval(() => app.server.closeIdleConnections(), 100);
    idleCloser.unref();
    done();
  });
  app.addHook('onClose', () => clearInterval(idleCloser));

  registerErrorHandling(app);
  // Before the auth hook, so a 401 carries the headers too. (The docs routes replace the CSP.)
  const securityHeaders = await helmetHeaders(API_HELMET);
  app.addHook('onRequest', (request, reply, done) => {
    const raw = reply.raw;
    for (const [name, value] of securityHeaders) raw.setHeader(name, value);
    // While closing, a request on a connection still open is refused at once (its client retries
    // elsewhere); the requests already in progress finish. The health check still answers for
    // itself, so a load balancer sees its 503 "unavailable" once the database goes.
    if (closing && request.routeOptions.url !== '/api/health') {
      void reply.header('connection', 'close');
      done(new HttpError('service_unavailable', 'The service is shutting down; try again in a moment.'));
      return;
    }
    done();
  });
  return app;
}
