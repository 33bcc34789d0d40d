import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { AppInstance } from './app-types.js';
import { version } from '../version.js';

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

/** The OpenAPI document (built from the route schemas) and swagger-ui's readable docs at /api/docs. */
export async function registerApiDocs(app: AppInstance): Promise<void> {
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

}
