import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext, type TestUser } from '../support/app.js';
import { seedCampaign, type Seed } from '../support/seed.js';

// The exact header lines (names as sent, order, values) of a representative set of answers, read
// off a real socket: the security headers are set once per request from values computed at start-up
// (src/app.ts), and must stay exactly what @fastify/helmet's own middleware sent. The snapshot was
// recorded with helmet's middleware in place. Values that vary between runs or dialects are masked.

let ctx: TestContext;
let owner: TestUser;
let seed: Seed;
let origin: string;

beforeAll(async () => {
  ctx = await createTestContext();
  owner = await ctx.createUser();
  seed = await seedCampaign(ctx.app, ctx.database, owner.id, owner.headers);
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
});
afterAll(() => ctx.close());

const MASKED = new Set([
  'date',
  'etag',
  'content-length',
  'set-cookie',
  'location',
  'link',
  'last-modified',
  'ratelimit-reset',
  'retry-after',
  'keep-alive',
]);

interface Answer {
  status: number;
  headers: string[];
}

function request(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${origin}${path}`, { method, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => {
        const lines: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i]!;
          // An export's file name carries the campaign's slug (its number depends on the campaigns
          // seeded before, in this process) and the day it was made.
          const value = res.rawHeaders[i + 1]!.replaceAll(seed.params.campaignSlug!, 'CAMPAIGN').replace(/\d{4}-\d{2}-\d{2}/g, 'YYYY-MM-DD');
          lines.push(`${name}: ${MASKED.has(name.toLowerCase()) ? '…' : value}`);
        }
        resolve({ status: res.statusCode!, headers: lines });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

function fill(url: string): string {
  return url.replace(/\*$/, 'index.css').replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(seed.params[name] ?? '1'));
}

describe('security headers on the wire', () => {
  it('are exactly as before on every GET route, for the owner and for no caller, and on a cache hit', async () => {
    const answers: Record<string, Answer> = {};
    const gets = ctx.app.routeTable.filter((route) => route.method === 'GET').sort((a, b) => a.url.localeCompare(b.url));
    for (const route of gets) {
      answers[`GET ${route.url} (owner)`] = await request('GET', fill(route.url), owner.headers);
      answers[`GET ${route.url} (owner, again)`] = await request('GET', fill(route.url), owner.headers);
      answers[`GET ${route.url} (no caller)`] = await request('GET', fill(route.url));
    }
    expect(answers).toMatchSnapshot();
  });

  it('are exactly as before on 304s, HEAD, writes, errors, unknown routes and URLs the router refuses', async () => {
    const base = `/api/campaigns/${seed.params.campaignSlug}`;
    const answers: Record<string, Answer> = {};
    const list = await request('GET', `${base}/things`, owner.headers);
    expect(list.status).toBe(200);
    const listEtag = (await new Promise<string>((resolve, reject) => {
      http
        .get(`${origin}${base}/things`, { headers: owner.headers, agent: false }, (res) => {
          res.resume();
          resolve(String(res.headers.etag));
        })
        .on('error', reject);
    }));
    answers['304 list'] = await request('GET', `${base}/things`, { ...owner.headers, 'if-none-match': listEtag });
    answers['HEAD list'] = await request('HEAD', `${base}/things`, owner.headers);
    answers['POST thing type'] = await request(
      'POST',
      `${base}/thing-types`,
      { ...owner.headers, 'content-type': 'application/json' },
      JSON.stringify({ newThingType: { name: 'Headers' } }),
    );
    answers['POST malformed JSON'] = await request('POST', `${base}/thing-types`, { ...owner.headers, 'content-type': 'application/json' }, '{');
    answers['POST no caller'] = await request('POST', `${base}/thing-types`, { 'content-type': 'application/json' }, '{}');
    answers['bad token'] = await request('GET', `${base}/things`, { authorization: 'Bearer nope' });
    answers['unreadable authorization'] = await request('GET', `${base}/things`, { authorization: 'Basic x' });
    answers['unknown campaign'] = await request('GET', '/api/campaigns/no-such-campaign/things', owner.headers);
    answers['unknown thing'] = await request('GET', `${base}/things/no-such-thing`, owner.headers);
    answers['unknown route'] = await request('GET', '/api/nothing-here', owner.headers);
    answers['outside /api'] = await request('GET', '/', owner.headers);
    answers['undecodable URL'] = await request('GET', '/api/campaigns/%FF', owner.headers);
    answers['over-long segment'] = await request('GET', `/api/campaigns/${'a'.repeat(600)}`, owner.headers);
    answers['docs asset missing'] = await request('GET', '/api/docs/static/nothing.js');
    answers['docs redirect'] = await request('GET', '/api/docs');
    answers['unsupported media type'] = await request('POST', `${base}/thing-types`, { ...owner.headers, 'content-type': 'text/plain' }, 'x');
    answers['OPTIONS'] = await request('OPTIONS', `${base}/things`, owner.headers);
    expect(answers).toMatchSnapshot();
  });
});
