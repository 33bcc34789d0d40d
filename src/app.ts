import fastifyCookie from '@fastify/cookie';
import fastifyHelmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import { createDatabase, type Database } from './db/database.js';
import type { AppInstance } from './http/app-types.js';
import { registerAuth } from './http/auth.js';
import { registerResponseCache, ResponseCache } from './http/response-cache.js';
import { answerClientError, answerFrameworkError, HttpError, registerErrorHandling } from './http/errors.js';
import { registerApiRoutes } from './http/routes/index.js';
import { sweepExpired } from './db/repositories/housekeeping.js';
import type { ImageHost } from './images/image-host.js';
import { createImageHost } from './images/index.js';
import { LocalImageHost } from './images/local.js';
import { sweepUploads } from './images/uploads.js';
import { localImageRoutes } from './http/routes/images.js';
import { version } from './version.js';

const SWEEP_INTERVAL_MS = 10 * 60_000;
const UPLOAD_SWEEP_INTERVAL_MS = 5 * 60_000;

export interface BuildOptions {
  /** Use this database instead of opening one from the config (tests inject theirs). */
  database?: Database;
  /** Use this image host instead of building one from the config (tests inject failing ones). */
  imageHost?: ImageHost;
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

// /api/docs is swagger-ui's own page: its scripts and styles from this origin (and the inline ones
// swagger-ui lists by hash), nothing else. No upgrade-insecure-requests: the quick start is plain
// http on 127.0.0.1, where upgrading the page's own assets to https would break it.
function docsCsp(hashes: { script: string[]; style: string[] }): string {
  return [
    "default-src 'self'",
    "base-uri 'self'",
    "font-src 'self' data:",
    "frame-ancestors 'self'",
    "img-src 'self' data:",
    "object-src 'none'",
    ["script-src 'self'", ...hashes.script].join(' '),
    "script-src-attr 'none'",
    ["style-src 'self'", ...hashes.style].join(' '),
    "form-action 'self'",
  ].join('; ');
}

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

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<AppInstance> {
  const database =
    options.database ??
    createDatabase({ url: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize });
  const ownsDatabase = options.database === undefined;
  const imageHost = options.imageHost ?? (await createImageHost(config));

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
    return503OnClosing: true,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true } },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('database', database);
  app.decorate('config', config);
  app.decorate('imageHost', imageHost);
  app.decorate('routeTable', [] as { method: string; url: string; auth: string }[]);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      app.routeTable.push({ method, url: route.url, auth: route.config?.auth ?? 'none' });
    }
  });
  if (ownsDatabase) app.addHook('onClose', () => database.close());

  // Graceful shutdown: close() waits for every connection to end, and a keep-alive connection whose
  // request finishes after close() began would otherwise idle for keepAliveTimeout (72 s) first. So
  // while closing, idle connections are closed as they appear: close() ends once the last request
  // in flight is answered. (This hook runs before Fastify's own server close, the onClose below after.)
  let idleCloser: NodeJS.Timeout | undefined;
  app.addHook('preClose', (done) => {
    idleCloser = setInterval(() => app.server.closeIdleConnections(), 100);
    idleCloser.unref();
    done();
  });
  app.addHook('onClose', () => clearInterval(idleCloser));

  // Expired sessions and finished rate-limit windows would otherwise pile up forever.
  const longestWindowMs = Math.max(3_600_000, config.loginWindowMinutes * 60_000);
  let sweeper: NodeJS.Timeout | undefined;
  app.addHook('onReady', () => {
    sweeper = setInterval(() => {
      sweepExpired(database.kysely, new Date(), longestWindowMs).catch((error: unknown) => app.log.warn({ err: error }, 'sweep failed'));
    }, SWEEP_INTERVAL_MS);
    sweeper.unref();
  });
  app.addHook('onClose', () => clearInterval(sweeper));

  // Upload grants never confirmed expire and their bytes go; image removals that failed are retried.
  let uploadSweeper: NodeJS.Timeout | undefined;
  let uploadSweepRunning = false;
  app.addHook('onReady', () => {
    uploadSweeper = setInterval(() => {
      if (uploadSweepRunning) return;
      uploadSweepRunning = true;
      sweepUploads(database, imageHost, new Date(), app.log)
        .catch((error: unknown) => app.log.warn({ err: error }, 'upload sweep failed'))
        .finally(() => (uploadSweepRunning = false));
    }, UPLOAD_SWEEP_INTERVAL_MS);
    uploadSweeper.unref();
  });
  app.addHook('onClose', () => clearInterval(uploadSweeper));
  if (options.imageHost === undefined) app.addHook('onClose', () => imageHost.close());

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

  registerErrorHandling(app);
  // Before the auth hook, so a 401 carries the headers too. (The docs routes replace the CSP.)
  const securityHeaders = await helmetHeaders(API_HELMET);
  app.addHook('onRequest', (_request, reply, done) => {
    const raw = reply.raw;
    for (const [name, value] of securityHeaders) raw.setHeader(name, value);
    done();
  });
  await app.register(fastifyCookie);
  registerAuth(app, database, config);
  if (config.responseCacheMb > 0) registerResponseCache(app, new ResponseCache(config.responseCacheMb * 1024 * 1024));

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Loreforge', version, description: 'Campaign content for game masters: things, thing types, story arcs.' },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          session: { type: 'apiKey', in: 'cookie', name: 'loreforge_session' },
        },
      },
      security: [{ bearer: [] }, { session: [] }],
    },
  });
  await app.register(fastifySwaggerUi, {
    routePrefix: '/api/docs',
    // Replaces the API's CSP on the docs routes only (swagger-ui's hook is scoped to its own routes).
    staticCSP: true,
    transformStaticCSP: () => docsCsp(app.swaggerCSP),
  });

  await app.register(
    (api, _opts, done) => {
      registerApiRoutes(api);
      api.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
      done();
    },
    { prefix: '/api' },
  );
  // The local image host's upload and image URLs (an S3-compatible store serves its own).
  if (imageHost instanceof LocalImageHost) await app.register(localImageRoutes, { host: imageHost });

  return app;
}
