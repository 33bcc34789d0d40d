import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';

let ctx: TestContext;
let owner: TestUser;

beforeAll(async () => {
  ctx = await createTestContext({ BODY_LIMIT: '2048' });
  owner = await ctx.createUser();
});
afterAll(() => ctx.close());

function expectProblem(res: LightMyRequestResponse, status: number, code: string) {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = json(res);
  expect(body).toMatchObject({ type: 'about:blank', status, code });
  expect(typeof body.title).toBe('string');
  expect(typeof body.detail).toBe('string');
  expect(res.body).not.toMatch(/\bat .*\.(ts|js):\d+|select |insert into|SQLITE|stack/i);
  return body;
}

async function campaignCount() {
  return (await ctx.database.kysely.selectFrom('campaigns').select('id').execute()).length;
}

describe('wire format and errors', () => {
  it('answers malformed JSON with 400 malformed_json and stores nothing', async () => {
    const before = await campaignCount();
    for (const payload of ['{bad', '{"newCampaign": {"name": "x"}', '[1,2', 'nul', '{"a":1}}']) {
      const res = await ctx.app.inject({ method: 'POST', url: '/api/campaigns', headers: { ...owner.headers, 'content-type': 'application/json' }, payload });
      expectProblem(res, 400, 'malformed_json');
    }
    expect(await campaignCount()).toBe(before);
  });

  it('refuses prototype-polluting keys as malformed', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/campaigns',
      headers: { ...owner.headers, 'content-type': 'application/json' },
      payload: '{"newCampaign": {"name": "x", "__proto__": {"admin": true}}}',
    });
    expectProblem(res, 400, 'malformed_json');
  });

  it('answers another content type with 415', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await ctx.app.inject({ method: 'POST', url: '/api/campaigns', headers: { ...owner.headers, 'content-type': type }, payload: 'name=x' });
      expectProblem(res, 415, 'unsupported_media_type');
    }
  });

  it('answers a body over the limit with 413', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/campaigns',
      headers: owner.headers,
      payload: { newCampaign: { name: 'x', description: [{ type: 'paragraph', children: [{ text: 'y'.repeat(4096) }] }] } },
    });
    expectProblem(res, 413, 'payload_too_large');
  });

  it('answers a missing body with 400 naming the wrapper key', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/api/campaigns', headers: owner.headers });
    const body = expectProblem(res, 400, 'validation_failed');
    expect(body.errors).toBeDefined();
    const empty = await ctx.app.inject({ method: 'POST', url: '/api/campaigns', headers: { ...owner.headers, 'content-type': 'application/json' }, payload: '' });
    expectProblem(empty, 400, 'validation_failed');
  });

  it('answers a body of the wrong JSON type with 400', async () => {
    for (const payload of ['[]', '"x"', '42', 'null', 'true']) {
      const res = await ctx.app.inject({ method: 'POST', url: '/api/campaigns', headers: { ...owner.headers, 'content-type': 'application/json' }, payload });
      expectProblem(res, 400, 'validation_failed');
    }
  });

  it('answers unknown routes with a 404 problem', async () => {
    expectProblem(await ctx.app.inject({ method: 'GET', url: '/api/nothing-here' }), 404, 'route_not_found');
    expectProblem(await ctx.app.inject({ method: 'PATCH', url: '/api/campaigns' }), 404, 'route_not_found');
  });

  it('serves JSON as application/json; charset=utf-8 with ISO timestamps', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/api/campaigns', headers: owner.headers, payload: { newCampaign: { name: 'Émile Zola’s Campaign' } } });
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = json(res);
    expect(body.slug).toBe('emile-zolas-campaign');
    expect(new Date(body.createdAt).toISOString()).toBe(body.createdAt);
  });

  it('falls back to a generated slug when nothing of the name transliterates', async () => {
    const body = json(await ctx.app.inject({ method: 'POST', url: '/api/campaigns', headers: owner.headers, payload: { newCampaign: { name: '!!! ??? !!!' } } }));
    expect(body.slug).toMatch(/^campaign(-[a-z0-9]{6})?$/);
  });
});

describe('health', () => {
  it('answers 200 with a database probe', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/health' });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual({ status: 'ok', database: 'ok', version: expect.any(String) as string });
  });

  it('answers 503 when the database does not answer', async () => {
    const other = await createTestContext();
    await other.database.close();
    const res = await other.app.inject({ method: 'GET', url: '/api/health' });
    expect(res.statusCode).toBe(503);
    expect(json(res)).toMatchObject({ status: 'unavailable', database: 'unavailable' });
    await other.app.close();
  });
});

describe('API documentation', () => {
  it('serves an OpenAPI 3 document generated from the route schemas', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = json(res);
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/campaigns', '/api/campaigns/{campaignSlug}', '/api/health']));
    expect(doc.paths['/api/campaigns'].post.requestBody).toBeDefined();
  });

  it('serves readable docs at /api/docs', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });
});
