import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { AppInstance } from './app-types.js';
import { documentRoute, documentService } from './openapi.js';
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

const DESCRIPTION = [
  'Campaign content for game masters: campaigns hold things, thing types, story arcs and images.',
  '',
  'Bodies are `application/json; charset=utf-8`; errors are RFC 9457 problem documents (`application/problem+json`) with a stable `code`.',
  'Answers of 1 KiB or more are compressed (`Content-Encoding: br` or `gzip`) when `Accept-Encoding` allows it (br preferred, q-values honoured); every answer under `/api` but the readable docs at `/api/docs` carries `Vary: accept-encoding`, a 404 for an unknown path included (not those refused before any route, below). Request bodies are read as sent, never decompressed.',
  'A strong `ETag` answered to a request that accepts br or gzip names that encoding (`"12-3-br"`, RFC 9110 §8.8.3), on a 304 too; If-Match and If-None-Match take it as the same version as the tag without (`"12-3"`). HEAD answers are not compressed and carry the tag without.',
  'Requests the HTTP parser refuses before any route (a malformed request line, headers over the limit, a request not received within REQUEST_TIMEOUT_MS, a URL that does not decode) are answered 400, 408, 414 or 431 with a problem document as well.',
].join('\n');

/** The OpenAPI document (built from the route schemas) and swagger-ui's readable docs at /api/docs. */
export async function registerApiDocs(app: AppInstance): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Loreforge',
        version,
        description: DESCRIPTION,
        license: { name: 'Proprietary: all rights reserved', identifier: 'LicenseRef-Proprietary' },
        contact: { name: 'Loreforge' },
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'An API token (`lf_…`) from POST /api/auth/tokens.' },
          session: { type: 'apiKey', in: 'cookie', name: 'loreforge_session', description: 'The session cookie set by register and login.' },
        },
      },
    },
    // HEAD is answered for every GET (Fastify's exposeHeadRoutes), so the document lists it too.
    exposeHeadRoutes: true,
    transform: documentRoute(app.config),
    transformObject: (document) => documentService('openapiObject' in document ? document.openapiObject : document.swaggerObject),
  });
  await app.register(fastifySwaggerUi, {
    routePrefix: '/api/docs',
    // Replaces the API's CSP on the docs routes only (swagger-ui's hook is scoped to its own routes).
    staticCSP: true,
    transformStaticCSP: () => docsCsp(app.swaggerCSP),
  });

}
