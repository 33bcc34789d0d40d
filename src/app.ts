import fastifyCookie from '@fastify/cookie';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import { createDatabase, type Database } from './db/database.js';
import type { AppInstance } from './http/app-types.js';
import { registerAuth } from './http/auth.js';
import { registerResponseCache, ResponseCache } from './http/response-cache.js';
import { registerErrorHandling } from './http/errors.js';
import { registerApiRoutes } from './http/routes/index.js';
import { sweepExpired } from './db/repositories/housekeeping.js';
import { version } from './version.js';

const SWEEP_INTERVAL_MS = 10 * 60_000;

export interface BuildOptions {
  /** Use this database instead of opening one from the config (tests inject theirs). */
  database?: Database;
  logger?: FastifyServerOptions['logger'];
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<AppInstance> {
  const database =
    options.database ??
    createDatabase({ url: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize });
  const ownsDatabase = options.database === undefined;

  const app = Fastify({
    logger: options.logger ?? {
      level: config.logLevel,
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'], censor: '[redacted]' },
    },
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy,
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.requestTimeoutMs,
    keepAliveTimeout: 72_000,
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true } },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('database', database);
  app.decorate('config', config);
  app.decorate('routeTable', [] as { method: string; url: string; auth: string }[]);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      app.routeTable.push({ method, url: route.url, auth: route.config?.auth ?? 'none' });
    }
  });
  if (ownsDatabase) app.addHook('onClose', () => database.close());

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

  // An empty body with Content-Type: application/json is "no body" (e.g. a DELETE sent by a client
  // that always sets the header), not malformed JSON; routes that need a body then say so.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // JSON only: Fastify would otherwise accept text/plain bodies as strings.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    void parseJson(request, text, done);
  });

  registerErrorHandling(app);
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
  await app.register(fastifySwaggerUi, { routePrefix: '/api/docs' });

  await app.register(
    (api, _opts, done) => {
      registerApiRoutes(api);
      api.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
      done();
    },
    { prefix: '/api' },
  );

  return app;
}
