import net from 'node:net';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { AppInstance } from '../../src/http/app-types.js';
import { buildCheckedApp, createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { seedCampaign, type Seed } from '../support/seed.js';
import { createDatabase } from '../../src/db/database.js';
import { createTestDatabase, dialect } from '../support/test-db.js';

// Security headers on every response, the per-caller API limit, request size and time limits over
// real sockets, strict UTF-8, and secrets kept out of the logs.

let ctx: TestContext;
let owner: TestUser;
let seed: Seed;

beforeAll(async () => {
  ctx = await createTestContext();
  owner = await ctx.createUser();
  seed = await seedCampaign(ctx.app, ctx.database, owner.id, owner.headers);
});
afterAll(() => ctx.close());

// What helmet sets on every answer of the API (and what answers that never reach a route carry too).
const CORE_SECURITY_HEADERS = [
  'content-security-policy',
  'x-content-type-options',
  'x-frame-options',
  'referrer-policy',
  'strict-transport-security',
  'cross-origin-opener-policy',
  'cross-origin-resource-policy',
];

function expectSecurityHeaders(res: LightMyRequestResponse | Response, where: string) {
  const get = (name: string) => (res instanceof Response ? res.headers.get(name) : (res.headers[name] as string | undefined)) ?? undefined;
  for (const name of CORE_SECURITY_HEADERS) expect(get(name), `${where}: ${name}`).toBeDefined();
  expect(get('x-content-type-options'), where).toBe('nosniff');
  expect(get('x-powered-by'), where).toBeUndefined();
  const csp = get('content-security-policy')!;
  expect(csp, where).not.toMatch(/unsafe-inline|unsafe-eval/);
  return csp;
}

function fill(url: string): string {
  return url.replace(/\*$/, 'index.css').replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(seed.params[name] ?? '1'));
}

describe('security headers', () => {
  it('are on every answer of every route, for the owner and for no caller', async () => {
    for (const route of ctx.app.routeTable) {
      // GETs only for the owner: a DELETE here would take the seed away from the next route.
      const callers = route.method === 'GET' ? [owner.headers, {}] : [{}];
      for (const headers of callers) {
        const options: InjectOptions = { method: route.method, url: fill(route.url), headers };
        const res = await ctx.app.inject(options);
        const where = `${route.method} ${route.url} → ${res.statusCode}`;
        const csp = expectSecurityHeaders(res, where);
        if (route.url.startsWith('/api/docs')) expect(csp, where).toContain("script-src 'self'");
        else expect(csp, where).toContain("default-src 'none'");
      }
    }
  });

  it('are on answers that never reach a route: unknown routes, undecodable URLs, over-long segments', async () => {
    for (const url of ['/api/nothing-here', '/api/campaigns/%FF', `/api/campaigns/${'a'.repeat(600)}`, '/api/docs/static/%E0%A4%A']) {
      const res = await ctx.app.inject({ method: 'GET', url, headers: owner.headers });
      expect(res.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(res.headers['content-type'], url).toMatch(/^application\/problem\+json/);
      expectSecurityHeaders(res, url);
    }
  });

  it('let /api/docs render: the page, its scripts and styles load under its own CSP', async () => {
    const page = await ctx.app.inject({ method: 'GET', url: '/api/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const csp = expectSecurityHeaders(page, '/api/docs/');
    expect(csp).toMatch(/script-src 'self'/);
    expect(csp).toMatch(/style-src 'self'/);
    // No inline script the CSP would block: every script is a file from this origin.
    expect(page.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const assets = [...page.body.matchAll(/(?:src|href)="(\.\/static\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      const res = await ctx.app.inject({ method: 'GET', url: `/api/docs/${asset.slice(2)}` });
      expect(res.statusCode, asset).toBe(200);
      expect(res.headers['content-security-policy'], asset).toBe(page.headers['content-security-policy']);
    }
    const spec = await ctx.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(spec.statusCode).toBe(200);
    expect(json(spec).openapi).toMatch(/^3\./);
  });
});

describe('the per-caller API limit (API_RATE_LIMIT)', () => {
  it('sends RateLimit headers on every authenticated answer and 429 with Retry-After past the limit', async () => {
    const limited = await createTestContext({ API_RATE_LIMIT: '3' });
    try {
      const gm = await limited.createUser();
      const bystander = await limited.createUser();
      for (let i = 1; i <= 3; i++) {
        const res = await limited.app.inject({ method: 'GET', url: '/api/campaigns', headers: gm.headers });
        expect(res.statusCode).toBe(200);
        expect(res.headers['ratelimit-limit']).toBe('3');
        expect(res.headers['ratelimit-remaining']).toBe(String(3 - i));
        expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
        expect(Number(res.headers['ratelimit-reset'])).toBeLessThanOrEqual(60);
      }
      const refused = await limited.app.inject({ method: 'POST', url: '/api/campaigns', headers: gm.headers, payload: { newCampaign: { name: 'Too many' } } });
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(json(refused)).toMatchObject({ status: 429, code: 'rate_limited' });
      const retryAfter = refused.headers['retry-after'] as string;
      expect(retryAfter).toMatch(/^[1-9]\d*$/);
      expect(Number(retryAfter)).toBeLessThanOrEqual(60);
      expect(refused.headers['ratelimit-remaining']).toBe('0');
      expect(refused.headers['ratelimit-reset']).toBe(retryAfter);
      // The refused write stored nothing, and the limit is per caller.
      expect(await limited.database.kysely.selectFrom('campaigns').select('id').execute()).toEqual([]);
      expect((await limited.app.inject({ method: 'GET', url: '/api/campaigns', headers: bystander.headers })).statusCode).toBe(200);
      // Routes without a caller are not counted and carry no RateLimit headers.
      const health = await limited.app.inject({ method: 'GET', url: '/api/health' });
      expect(health.statusCode).toBe(200);
      expect(health.headers['ratelimit-limit']).toBeUndefined();
    } finally {
      await limited.close();
    }
  });
});

describe('input the service refuses whole', () => {
  it('refuses a JSON body that is not valid UTF-8 instead of storing U+FFFD', async () => {
    const before = await ctx.database.kysely.selectFrom('campaigns').select('id').execute();
    for (const bytes of [[0xff], [0xc3, 0x28], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82]]) {
      const payload = Buffer.concat([Buffer.from('{"newCampaign":{"name":"bad '), Buffer.from(bytes), Buffer.from('"}}')]);
      const res = await ctx.app.inject({ method: 'POST', url: '/api/campaigns', headers: { ...owner.headers, 'content-type': 'application/json' }, payload });
      expect(res.statusCode, JSON.stringify(bytes)).toBe(400);
      expect(json(res).code).toBe('malformed_json');
    }
    expect(await ctx.database.kysely.selectFrom('campaigns').select('id').execute()).toEqual(before);
    // Valid multi-byte UTF-8 is of course fine.
    const ok = await ctx.app.inject({ method: 'POST', url: '/api/campaigns', headers: owner.headers, payload: { newCampaign: { name: 'Ærøskøbing 日本' } } });
    expect(ok.statusCode).toBe(201);
    expect(json(ok).name).toBe('Ærøskøbing 日本');
  });

  it('answers a campaign slug that cannot be a slug (NUL, control characters) with 404, like any unknown campaign', async () => {
    for (const slug of ['%00', 'a%00b', '%01', '%7F', '%C2%80']) {
      const res = await ctx.app.inject({ method: 'GET', url: `/api/campaigns/${slug}/things`, headers: owner.headers });
      expect(res.statusCode, `${slug}: ${res.body}`).toBe(404);
      expect(json(res).code).toBe('campaign_not_found');
    }
  });

  it('keeps answers short whatever was sent: no echo of a huge value, at most 20 listed issues', async () => {
    const hugeSlug = await ctx.app.inject({
      method: 'POST',
      url: `/api/campaigns/${seed.params.campaignSlug}/things/${seed.params.thingSlug}/arcs`,
      headers: owner.headers,
      payload: { arcSlug: 'é'.repeat(200_000) },
    });
    expect(hugeSlug.statusCode).toBe(404);
    expect(hugeSlug.body.length).toBeLessThan(2_000);
    const manyIssues = await ctx.app.inject({
      method: 'POST',
      url: '/api/campaigns',
      headers: { ...owner.headers, 'content-type': 'application/json' },
      payload: `{"newCampaign":{"name":"x","description":[${Array(100_000).fill('1').join(',')}]}}`,
    });
    expect(manyIssues.statusCode).toBe(400);
    expect(json(manyIssues).errors.length).toBeLessThanOrEqual(20);
    expect(manyIssues.body.length).toBeLessThan(4_000);
    // Reported by the rich-text walk, which stops at its limit: the request schema checks no node,
    // so the schema validator (which lists every error) never builds 100,000 error objects.
    expect(json(manyIssues).errors[0]).toEqual({ path: '/newCampaign/description/0', message: 'must be a block object' });
    expect(await ctx.database.kysely.selectFrom('campaigns').select('id').where('name', '=', 'x').execute()).toEqual([]);
  });
});

/** Sends raw bytes on a new connection and returns everything the server writes until it closes (or `ms` pass). */
function rawExchange(port: number, chunks: string[], ms: number): Promise<{ text: string; closed: boolean; elapsedMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false, elapsedMs: Date.now() - started });
    }, ms);
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk);
    });
    socket.on('data', (data) => (text += data.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true, elapsedMs: Date.now() - started });
    });
    socket.on('timeout', () => reject(new Error('socket timeout')));
  });
}

function problemOfRaw(text: string): { status: number; headers: string; body: Record<string, unknown> } {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  return { status, headers: head.toLowerCase(), body: JSON.parse(body) as Record<string, unknown> };
}

describe('size and time limits on real connections', () => {
  let app: AppInstance;
  let port: number;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await buildCheckedApp(loadConfig({ LOG_LEVEL: 'silent', REQUEST_TIMEOUT_MS: '1000', BODY_LIMIT: '2048' }), { database, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it('are configured: request, header, idle and keep-alive timeouts', () => {
    expect(app.server.requestTimeout).toBe(1000);
    expect(app.server.headersTimeout).toBe(1000);
    // A silent socket outlives the request timeout, so a slow client gets a 408 before the socket goes.
    expect(app.server.timeout).toBe(3000);
    expect(app.server.keepAliveTimeout).toBe(72_000);
    // The defaults of a production start.
    const defaults = ctx.app.server;
    expect(defaults.requestTimeout).toBe(30_000);
    expect(defaults.headersTimeout).toBe(10_000);
    expect(defaults.keepAliveTimeout).toBe(72_000);
    expect(defaults.timeout).toBe(32_000);
    expect(defaults.headersTimeout).toBeLessThanOrEqual(defaults.requestTimeout);
  });

  it('keep connections alive between requests and say for how long', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/api/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get('connection')).toBe('keep-alive');
    expect(res.headers.get('keep-alive')).toBe('timeout=72');
    expectSecurityHeaders(res, 'health over HTTP');
  });

  it('cut off a client that sends its headers too slowly, with a 408 problem', async () => {
    const result = await rawExchange(port, ['GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n'], 8_000);
    expect(result.closed).toBe(true);
    // headersTimeout 1 s, checked every second.
    expect(result.elapsedMs).toBeLessThan(5_000);
    const answer = problemOfRaw(result.text);
    expect(answer.status).toBe(408);
    expect(answer.headers).toContain('content-type: application/problem+json');
    expect(answer.headers).toContain('x-content-type-options: nosniff');
    expect(answer.body).toMatchObject({ status: 408, code: 'request_timeout' });
  });

  it('cut off a client that sends its body too slowly, with a 408 problem', async () => {
    const result = await rawExchange(
      port,
      ['POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email":'],
      8_000,
    );
    expect(result.closed).toBe(true);
    expect(result.elapsedMs).toBeLessThan(5_000);
    expect(problemOfRaw(result.text).status).toBe(408);
  });

  it('refuse headers over 16 KiB with a 431 problem', async () => {
    const result = await rawExchange(port, [`GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`], 5_000);
    const answer = problemOfRaw(result.text);
    expect(answer.status).toBe(431);
    expect(answer.body).toMatchObject({ status: 431, code: 'header_fields_too_large' });
  });

  it('answer a request that is not HTTP with a 400 problem', async () => {
    const result = await rawExchange(port, ['HELLO THERE\r\n\r\n'], 5_000);
    const answer = problemOfRaw(result.text);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ status: 400, code: 'bad_request' });
    expect(answer.headers).toContain('content-security-policy');
  });

  it('refuse a body over BODY_LIMIT with a 413 problem, even when it is streamed in chunks', async () => {
    const big = JSON.stringify({ email: 'x'.repeat(4000), password: 'y' });
    const declared = await fetch(`http://127.0.0.1:${port}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(declared.status).toBe(413);
    const chunked = await rawExchange(
      port,
      [
        'POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
        ...Array.from({ length: 6 }, () => `3e8\r\n${'x'.repeat(1000)}\r\n`),
        '0\r\n\r\n',
      ],
      5_000,
    );
    expect(problemOfRaw(chunked.text).status).toBe(413);
  });
});

describe('logs', () => {
  it('never contain a password, a token, a session secret or a cookie', async () => {
    const lines: string[] = [];
    const database = await createTestDatabase();
    const app = await buildApp(loadConfig({ LOG_LEVEL: 'trace' }), { database, logStream: { write: (line: string) => void lines.push(line) } });
    // A route that logs the whole request the careless way, as a future handler might.
    app.post('/test/echo-log', (request, reply) => {
      request.log.info({ headers: request.headers, body: request.body }, 'request as received');
      return reply.code(204).send();
    });
    await app.ready();
    try {
      const password = 'Tr0ub4dor&3-horse-battery';
      const register = await app.inject({ method: 'POST', url: '/api/auth/register', payload: { email: 'log@example.test', password } });
      expect(register.statusCode).toBe(201);
      const sessionCookie = /loreforge_session=([^;]+)/.exec(String(register.headers['set-cookie']))![1]!;
      const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'log@example.test', password } });
      expect(login.statusCode).toBe(200);
      const wrong = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'log@example.test', password: `${password}-wrong` } });
      expect(wrong.statusCode).toBe(401);
      const cookie = `loreforge_session=${sessionCookie}`;
      const created = await app.inject({ method: 'POST', url: '/api/auth/tokens', headers: { cookie }, payload: { name: 'logs' } });
      expect(created.statusCode).toBe(201);
      const token = json(created).token as string;
      expect((await app.inject({ method: 'GET', url: '/api/campaigns', headers: { authorization: `Bearer ${token}` } })).statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/api/auth/me', headers: { cookie } })).statusCode).toBe(200);
      const echoed = await app.inject({
        method: 'POST',
        url: '/test/echo-log',
        headers: { authorization: `Bearer ${token}`, cookie, 'proxy-authorization': `Basic ${password}` },
        payload: { password, token, secret: sessionCookie },
      });
      expect(echoed.statusCode).toBe(204);

      const log = lines.join('');
      expect(lines.length).toBeGreaterThan(10);
      for (const secret of [password, token, sessionCookie, token.slice(3), sessionCookie.slice(4)]) {
        expect(log.includes(secret), `a log line contains ${secret.slice(0, 6)}…`).toBe(false);
      }
      const echo = lines.map((l) => JSON.parse(l) as { msg?: string; headers?: Record<string, string>; body?: Record<string, unknown> }).find((l) => l.msg === 'request as received')!;
      expect(echo.headers?.authorization).toBe('[redacted]');
      expect(echo.headers?.cookie).toBe('[redacted]');
      expect(echo.body?.password).toBe('[redacted]');
    } finally {
      await app.close();
      await database.close();
    }
  });
});

/** A TCP proxy on 127.0.0.1 in front of `target`, which the test can cut and restore (the database "goes away"). */
async function tcpProxy(target: { host: string; port: number }) {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  const open = () =>
    new Promise<void>((resolve, reject) => {
      server = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as net.AddressInfo).port;
        resolve();
      });
    });
  const cut = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      sockets.clear();
      if (server) server.close(() => resolve());
      else resolve();
      server = undefined;
    });
  await open();
  return { port: () => port, cut, restore: open };
}

describe('GET /api/health when the database goes away and comes back', () => {
  // SQLite is a file the process holds open: it cannot become unreachable while the process runs
  // (a renamed or deleted file stays readable through the open handle), so there is nothing to probe
  // but the file itself. The 503 of a closed SQLite handle is tested in wire-format.test.ts.
  it.runIf(dialect === 'postgres')('answers 503 while PostgreSQL is unreachable and 200 again once it is back, without a restart', async () => {
    const real = await createTestDatabase();
    const target = new URL(real.url!);
    const proxy = await tcpProxy({ host: target.hostname, port: Number(target.port) });
    const viaProxy = new URL(real.url!);
    viaProxy.port = String(proxy.port());
    const database = createDatabase({ url: viaProxy.toString(), poolSize: 4 });
    const app = await buildCheckedApp(loadConfig({ LOG_LEVEL: 'silent' }), { database, logger: false });
    await app.ready();
    const health = () => app.inject({ method: 'GET', url: '/api/health' });
    const pollHealth = async (status: number) => {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const res = await health();
        if (res.statusCode === status || Date.now() > deadline) return res;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    try {
      expect((await health()).statusCode).toBe(200);
      // Warm the pool: several idle connections that will all die at once.
      await Promise.all(Array.from({ length: 4 }, () => health()));

      await proxy.cut();
      const down = await pollHealth(503);
      expect(down.statusCode).toBe(503);
      expect(json(down)).toMatchObject({ status: 'unavailable', database: 'unavailable' });
      // Meanwhile an API request fails cleanly: a problem document, no hang.
      const during = await app.inject({ method: 'GET', url: '/api/campaigns', headers: { authorization: 'Bearer lf_x' } });
      expect(during.statusCode).toBeGreaterThanOrEqual(500);
      expect(during.headers['content-type']).toMatch(/^application\/problem\+json/);

      await proxy.restore();
      const up = await pollHealth(200);
      expect(up.statusCode).toBe(200);
      expect(json(up)).toMatchObject({ status: 'ok', database: 'ok' });
      // Not just the probe: ordinary queries work again on the same pool.
      const after = await app.inject({ method: 'GET', url: '/api/campaigns', headers: { authorization: 'Bearer lf_x' } });
      expect(after.statusCode).toBe(401);
    } finally {
      await app.close();
      await database.close();
      await proxy.cut();
      await real.close();
    }
  });
});
