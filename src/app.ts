import fastifyCookie from '@fastify/cookie';
import type { Config } from './config.js';
import { defaultLeastRole } from './access/policy.js';
import { createDatabase, type Database } from './db/database.js';
import { registerApiDocs } from './http/api-docs.js';
import { requireOperationDocs } from './http/openapi.js';
import type { AppInstance } from './http/app-types.js';
import { registerAuth } from './http/auth.js';
import { registerCompression } from './http/compression.js';
import { routeNotFound } from './http/errors.js';
import { registerResponseCache, ResponseCache } from './http/response-cache.js';
import { registerApiRoutes } from './http/routes/index.js';
import { localImageRoutes } from './http/routes/images.js';
import { createTransport, type TransportOptions } from './http/transport.js';
import { registerWebApp } from './http/web-app.js';
import type { ImageHost } from './images/image-host.js';
import { createImageHost } from './images/index.js';
import { LocalImageHost } from './images/local.js';
import { ImportJobRunner } from './portability/import-jobs.js';
import { registerSweepers } from './sweepers.js';
import { setRevisionMergeSeconds } from './db/repositories/revisions.js';

export interface BuildOptions extends TransportOptions {
  /** Use this database instead of opening one from the config (tests inject theirs). */
  database?: Database;
  /** Use this image host instead of building one from the config (tests inject failing ones). */
  imageHost?: ImageHost;
  /**
   * Serve the web app built in this folder (index.html and assets/) at `/`. The server's entry
   * point passes the build's folder; without it the API is served alone, as in the API suites.
   */
  webRoot?: string;
}

/** The whole service: the transport, its stores, the API and its docs, the image host's URLs and the sweepers. */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<AppInstance> {
  const database =
    options.database ??
    createDatabase({ url: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize });
  const imageHost = options.imageHost ?? (await createImageHost(config));
  setRevisionMergeSeconds(config.revisionMergeSeconds);
  const app = await createTransport(config, options);

  app.decorate('database', database);
  // A write re-run after a deadlock is a lock-order bug to find (db/database.ts reruns).
  database.onRerun ??= (info) => app.log.warn(info, 'write transaction re-run after a PostgreSQL deadlock or serialization failure');
  app.decorate('config', config);
  app.decorate('imageHost', imageHost);
  app.decorate('routeTable', [] as AppInstance['routeTable']);
  app.decorate('importJobs', new ImportJobRunner(database, imageHost, config.importJobStaleMs, app.log));
  app.addHook('onRoute', (route) => {
    requireOperationDocs(route);
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      const auth = route.config?.auth ?? 'none';
      app.routeTable.push({ method, url: route.url, auth, ...(auth === 'campaign' ? { role: route.config?.role ?? defaultLeastRole(method) } : {}) });
    }
  });
  if (options.database === undefined) app.addHook('onClose', () => database.close());

  registerSweepers(app, database, imageHost);
  if (options.imageHost === undefined) app.addHook('onClose', () => imageHost.close());

  await app.register(fastifyCookie);
  registerAuth(app, database, config);
  if (config.responseCacheMb > 0) registerResponseCache(app, new ResponseCache(config.responseCacheMb * 1024 * 1024));
  await registerApiDocs(app);

  await app.register(
    async (api) => {
      await registerCompression(api);
      // Unknown /api paths answered in this scope: varying on Accept-Encoding like every API answer.
      api.setNotFoundHandler(routeNotFound);
      registerApiRoutes(api);
      api.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
    },
    { prefix: '/api' },
  );
  // The local image host's upload and image URLs (an S3-compatible store serves its own).
  if (imageHost instanceof LocalImageHost) await app.register(localImageRoutes, { host: imageHost });
  if (options.webRoot !== undefined) await registerWebApp(app, options.webRoot);

  return app;
}
