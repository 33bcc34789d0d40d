// The web app as the server serves it (src/http/web-app.ts), on a stand-in build: page paths answer
// the app's HTML (never cached, a strict CSP with a fresh style nonce), hashed assets are immutable,
// and the API under /api keeps its own answers.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { WEB_PAGE_ROUTES } from '../../src/http/web-app.js';
import type { AppInstance } from '../../src/http/app-types.js';
import { buildCheckedApp } from '../support/app.js';
import { createTestDatabase, dialect, type TestDatabase } from '../support/test-db.js';

const HTML = '<!doctype html>\n<html lang="en">\n  <head>\n    <script type="module" crossorigin src="/assets/index-abc123.js"></script>\n  </head>\n  <body><div id="root"></div></body>\n</html>\n';
const SCRIPT = 'console.log("app");\n';

let root: string;
let database: TestDatabase;
let app: AppInstance;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-web-'));
  fs.mkdirSync(path.join(root, 'assets'));
  fs.writeFileSync(path.join(root, 'index.html'), HTML);
  fs.writeFileSync(path.join(root, 'assets', 'index-abc123.js'), SCRIPT);
  database = await createTestDatabase();
  app = await buildCheckedApp(loadConfig({ LOG_LEVEL: 'silent', PUBLIC_BASE_URL: 'https://lore.example.test' }), { database, logger: false, webRoot: root });
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await database.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe(`the web app on ${dialect}`, () => {
  it('answers every page path with the app, uncached, with a strict CSP and a new style nonce each time', async () => {
    expect(WEB_PAGE_ROUTES).toContain('/campaigns/*');
    const nonces = new Set<string>();
    for (const url of ['/', '/sign-in', '/sign-up', '/account', '/campaigns', '/campaigns/lost-mine', '/campaigns/lost-mine/things/gundren', '/campaigns/lost-mine/arcs/a?x=1', '/campaigns/c/types/3', '/campaigns/c/search?q=x']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      const nonce = /<meta name="csp-nonce" content="([A-Za-z0-9+/=]+)">/.exec(res.body)?.[1];
      expect(nonce, url).toBeDefined();
      nonces.add(nonce!);
      expect(res.body).toBe(HTML.replace('</head>', `<meta name="csp-nonce" content="${nonce}">\n  </head>`));
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self';");
      expect(csp).toContain("script-src-attr 'none'");
      expect(csp).toContain(`style-src 'self' 'nonce-${nonce}'`);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("img-src 'self' https: https://lore.example.test");
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    }
    expect(nonces.size).toBe(10);
  });

  it('serves hashed assets immutable, and 404 for a missing one', async () => {
    const res = await app.inject({ method: 'GET', url: '/assets/index-abc123.js' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(SCRIPT);
    expect(res.headers['content-type']).toMatch(/^application\/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['content-security-policy']).toContain("style-src 'self';");
    expect((await app.inject({ method: 'GET', url: '/assets/missing-123.js' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/assets/../index.html' })).statusCode).not.toBe(200);
  });

  it('leaves the API its own answers: unknown API paths are problem documents, not the app', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/campaigns/x/nothing-here' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect((await app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
    const unknown = await app.inject({ method: 'GET', url: '/not-a-page' });
    expect(unknown.statusCode).toBe(404);
  });
});
