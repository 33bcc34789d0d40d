import { PASSWORD_RESET_PAGE } from '../accounts/accounts.js';
import { INVITATION_PAGE } from '../sharing/invitations.js';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { Config } from '../config.js';
import type { AppInstance } from './app-types.js';
import { registerCompression } from './compression.js';
import { pageHints, type Manifest } from './page-code.js';

// The game masters' web app (CONTRACT "Web app"): the single-page app that `npm run build` writes
// to dist/web, served at `/` by the same server. Its hashed files under /assets are immutable; a
// page path answers the app's HTML, never cached, so reloads and deep links work. The API stays
// under /api with its own, stricter headers; nothing here is a route of the API.

/** Page paths: everything the app's router shows (web/src/app/routes.tsx). */
export const WEB_PAGE_ROUTES = ['/', '/sign-in', '/sign-up', '/account', '/import', INVITATION_PAGE, PASSWORD_RESET_PAGE, '/campaigns', '/campaigns/*'] as const;

/** Where the built app is: WEB_ROOT, else next to the bundled server (dist/web), or dist/web from the sources. */
export function findWebRoot(configured?: string): string | undefined {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = configured ? [path.resolve(configured)] : [path.join(here, 'web'), path.resolve(here, '../../dist/web')];
  return candidates.find((dir) => fs.existsSync(path.join(dir, 'index.html')));
}

function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/**
 * The pages' Content-Security-Policy: scripts, styles and fonts from this origin only (no inline
 * script, no eval), API calls to this origin and uploads to the image host, images from this
 * origin, the image host and any https: URL (images by URL in rich text). Nothing may frame it.
 * The one inline style element (the dialogs' scroll lock) carries the page's nonce, made anew for
 * every page answer; with no nonce (the assets) no inline style applies at all.
 */
export function webCsp(config: Config, styleNonce?: string): string {
  const imageOrigins = [...new Set([originOf(config.publicBaseUrl), originOf(config.s3?.publicBaseUrl), originOf(config.s3?.endpoint)].filter((o): o is string => o !== undefined))];
  return [
    "default-src 'self'",
    "base-uri 'none'",
    "object-src 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
    "script-src 'self'",
    "script-src-attr 'none'",
    styleNonce ? `style-src 'self' 'nonce-${styleNonce}'` : "style-src 'self'",
    "font-src 'self'",
    ["img-src 'self' https:", ...imageOrigins].join(' '),
    ["connect-src 'self'", ...imageOrigins].join(' '),
    "manifest-src 'self'",
  ].join('; ');
}

/** Serves the app built in `root` (index.html and assets/). */
export async function registerWebApp(app: AppInstance, root: string): Promise<void> {
  const csp = webCsp(app.config);
  const html = fs.readFileSync(path.join(root, 'index.html'), 'utf8');
  if (!html.includes('</head>')) throw new Error(`${path.join(root, 'index.html')} has no </head>`);
  // The code each page needs, named in its HTML (src/http/page-code.ts); a build without a manifest gets none.
  const manifestFile = path.join(root, '.vite', 'manifest.json');
  const hintsFor = fs.existsSync(manifestFile) ? pageHints(JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Manifest) : () => '';

  await app.register(fastifyStatic, {
    root: path.join(root, 'assets'),
    prefix: '/assets/',
    // The build writes file.br and file.gz next to each compressible file (scripts/precompress.mjs):
    // sent by Accept-Encoding (br first), with Vary: accept-encoding, the file's own type, and
    // the compressed file's length and ETag; without them (or for identity) the file itself.
    preCompressed: true,
    // File names carry a hash of their content: a changed file is a new URL.
    immutable: true,
    maxAge: '365d',
    index: false,
    decorateReply: false,
    schemaHide: true,
    setHeaders: (reply) => void reply.header('content-security-policy', csp),
  });

  // The page differs per answer (its nonce), so it cannot be compressed at build time: it is
  // compressed as it is sent, like the API's JSON, when larger than COMPRESS_THRESHOLD.
  await app.register(async (pages) => {
    await registerCompression(pages);
    for (const url of WEB_PAGE_ROUTES) {
      pages.get(url, { schema: { hide: true }, config: { auth: 'none' } }, (request, reply) => {
        // The app reads the nonce from this meta element (web/src/main.tsx) for its style element.
        const nonce = randomBytes(16).toString('base64');
        const hints = hintsFor(request.url.replace(/[?#].*$/, ''));
        const page = html.replace('</head>', `${hints ? `  ${hints}\n    ` : ''}<meta name="csp-nonce" content="${nonce}">\n  </head>`);
        return reply.header('content-security-policy', webCsp(app.config, nonce)).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(page);
      });
    }
  });
}
