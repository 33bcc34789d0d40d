import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createTestContext, json, type TestContext } from '../support/app.js';
import { OpenApiCheck } from '../support/openapi-check.js';
import { createTestDatabase, dialect } from '../support/test-db.js';

type Document = {
  info: { license?: unknown };
  servers?: unknown[];
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Record<string, any>>>;
};

let ctx: TestContext;
let document: Document;
beforeAll(async () => {
  ctx = await createTestContext();
  document = json(await ctx.app.inject({ method: 'GET', url: '/api/openapi.json' }));
});
afterAll(() => ctx.close());

function operations(): { method: string; path: string; op: Record<string, any> }[] {
  return Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ method, path, op })));
}

describe(`the served OpenAPI document on ${dialect}`, () => {
  it('gives every operation a unique operationId usable as a method name, a summary, a description and a declared tag', () => {
    const ids = operations().map(({ op }) => op.operationId as string);
    expect(new Set(ids).size).toBe(ids.length);
    const tags = new Set(document.tags?.map((tag) => tag.name));
    for (const { method, path, op } of operations()) {
      const where = `${method} ${path}`;
      expect(op.operationId, where).toMatch(/^[a-z][A-Za-z0-9]*$/);
      expect(op.summary, where).toBeTruthy();
      expect(op.description, where).toBeTruthy();
      for (const tag of op.tags ?? []) expect(tags.has(tag), `${where}: tag ${tag}`).toBe(true);
    }
    for (const tag of document.tags ?? []) expect(tag.description).toBeTruthy();
    // Redocly's operation-4xx-response rule is off for the health check alone (redocly.yaml).
    for (const { op } of operations()) {
      if (!op.operationId.startsWith('getHealth')) expect(Object.keys(op.responses).some((status) => status.startsWith('4')), op.operationId).toBe(true);
    }
    expect(document.servers?.length).toBeGreaterThan(0);
    expect(document.info.license).toBeDefined();
  });

  it('asks no credentials of public routes and both kinds of every other', () => {
    const open = new Set(['getHealth', 'getHealthHead', 'register', 'login', 'resetPassword', 'previewInvitation', 'uploadImage', 'uploadImageForm', 'getImage', 'getImageHead']);
    for (const { op } of operations()) {
      if (open.has(op.operationId)) expect(op.security, op.operationId).toEqual([]);
      else expect(op.security, op.operationId).toEqual([{ bearer: [] }, { session: [] }]);
    }
  });

  it('declares errors as application/problem+json, 304 on conditional reads and If-Match and 412 on record writes', () => {
    for (const { op } of operations()) {
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        // The health check's 503 is its own body ({status: "unavailable", …}), as the CONTRACT says.
        if (op.operationId.startsWith('getHealth') && status === '503') continue;
        if (Number(status) >= 400 && response.content) expect(Object.keys(response.content), `${op.operationId} ${status}`).toEqual(['application/problem+json']);
      }
    }
    const byId = new Map(operations().map(({ op }) => [op.operationId as string, op]));
    for (const id of ['getThing', 'listThings', 'getArc', 'listArcs', 'getCampaign', 'searchCampaign']) {
      expect(Object.keys(byId.get(id)!.responses)).toContain('304');
      expect(byId.get(id)!.parameters.map((p: any) => p.name)).toContain('if-none-match');
      expect(Object.keys(byId.get(id)!.responses['200'].headers)).toContain('etag');
    }
    for (const id of ['updateThing', 'updateArc', 'updateCampaign', 'updateThingType']) {
      expect(Object.keys(byId.get(id)!.responses)).toContain('412');
      expect(byId.get(id)!.parameters.map((p: any) => p.name)).toContain('if-match');
    }
    expect(Object.keys(byId.get('createThing')!.responses['201'].headers)).toEqual(expect.arrayContaining(['location', 'etag']));
    expect(Object.keys(byId.get('listThings')!.responses['200'].headers)).toContain('link');
    expect(Object.keys(byId.get('login')!.responses['429'].headers)).toContain('retry-after');
    expect(Object.keys(byId.get('uploadImage')!.requestBody.content)).toContain('application/octet-stream');
    expect(Object.keys(byId.get('uploadImageForm')!.requestBody.content)).toEqual(['multipart/form-data']);
    expect(Object.keys(byId.get('getImage')!.responses['200'].content)).toContain('image/png');
  });

  it('declares 429 and the RateLimit headers on every authenticated operation when API_RATE_LIMIT is set, and not otherwise', async () => {
    const limited = await createTestContext({ API_RATE_LIMIT: '1000' });
    try {
      const doc: Document = json(await limited.app.inject({ method: 'GET', url: '/api/openapi.json' }));
      const op = doc.paths['/api/campaigns/{campaignSlug}/things']!.get!;
      expect(Object.keys(op.responses)).toContain('429');
      expect(Object.keys(op.responses['200'].headers)).toEqual(expect.arrayContaining(['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']));
    } finally {
      await limited.close();
    }
    expect(Object.keys(document.paths['/api/campaigns/{campaignSlug}/things']!.get!.responses)).not.toContain('429');
  });

  it('is refused at start-up for a route documented without operationId, summary or description', async () => {
    const database = await createTestDatabase();
    const app = await buildApp(loadConfig({ LOG_LEVEL: 'silent' }), { database, logger: false });
    try {
      expect(() => app.get('/api/undocumented', { schema: { summary: 'x', description: 'y' } }, () => ({}))).toThrow(/without operationId/);
    } finally {
      await app.close();
      await database.close();
    }
  });
});

describe('the response check used by every integration test', () => {
  const ok = { method: 'GET', route: '/api/campaigns/:campaignSlug/things/:thingSlug' };
  const thing = { id: 1, slug: 'x', typeId: 1, name: 'X', description: [], visibility: 'all', properties: [], tags: [], aliases: [], campaignId: 1, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' };
  const jsonHeaders = { 'content-type': 'application/json; charset=utf-8', etag: '"1-1"' };

  it('passes a response that matches, and catches each kind of drift', () => {
    const check = new OpenApiCheck(document);
    expect(check.problems({ ...ok, status: 200, headers: jsonHeaders, body: JSON.stringify(thing) })).toEqual([]);
    expect(check.problems({ ...ok, status: 418, headers: jsonHeaders, body: '{}' })[0]).toMatch(/status 418 is not listed/);
    expect(check.problems({ ...ok, status: 200, headers: { ...jsonHeaders, 'x-secret': '1' }, body: JSON.stringify(thing) })[0]).toMatch(
      /header x-secret is not declared/,
    );
    expect(check.problems({ ...ok, status: 200, headers: { ...jsonHeaders, 'content-type': 'text/html' }, body: '<p>' })[0]).toMatch(
      /content type text\/html is not declared/,
    );
    expect(check.problems({ ...ok, status: 404, headers: { 'content-type': 'application/json' }, body: '{}' })[0]).toMatch(
      /content type application\/json is not declared/,
    );
    expect(check.problems({ ...ok, status: 200, headers: jsonHeaders, body: JSON.stringify({ ...thing, id: 'one' }) })[0]).toMatch(
      /does not match the schema: \/id must be integer/,
    );
    expect(check.problems({ ...ok, status: 200, headers: jsonHeaders, body: '' })[0]).toMatch(/an empty body/);
    expect(check.problems({ ...ok, method: 'DELETE', status: 204, headers: { 'content-type': 'text/plain' }, body: 'gone' })[0]).toMatch(/a body where the document declares none/);
    expect(check.problems({ method: 'GET', route: '/api/nowhere', status: 200, headers: {}, body: '' })[0]).toMatch(/not in the OpenAPI document/);
  });
});
