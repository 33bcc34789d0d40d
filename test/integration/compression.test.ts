// The API's answers compressed when large (src/http/compression.ts): Brotli or gzip by
// Accept-Encoding from 1 KiB up, Vary: accept-encoding on every answer, strong ETags that name the
// encoding and still work as If-Match and If-None-Match, and nothing compressed that should not be.
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPRESS_THRESHOLD } from '../../src/http/compression.js';
import { json, type TestContext, type TestUser } from '../support/app.js';
import { contextWithUsers, createThing, newCampaign, type Problem, type TestCampaign, type ThingBody } from '../support/fixtures.js';
import { dialect } from '../support/test-db.js';

let ctx: TestContext;
let owner: TestUser;
let c: TestCampaign;
let small: ThingBody;
let large: ThingBody;

// A few kilobytes of prose, as a game master writes it (compresses well, like real text).
const LONG_TEXT = Array.from({ length: 40 }, (_, i) => `Session ${i + 1}: the party met Sildar Hallwinter on the Triboar Trail and followed the goblins' tracks to Cragmaw Hideout.`).join(' ');
const LONG_DOC = [{ type: 'paragraph', children: [{ text: LONG_TEXT }] }];

beforeAll(async () => {
  ({ ctx, owner } = await contextWithUsers());
  c = await newCampaign(ctx.app, owner, 'Lost Mine');
  small = await createThing(ctx.app, owner, c, 'Klarg');
  large = await createThing(ctx.app, owner, c, 'Sildar Hallwinter', { description: LONG_DOC });
});
afterAll(() => ctx.close());

const get = (url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') => ctx.app.inject({ method, url, headers: { ...owner.headers, ...headers } });
const thingUrl = (thing: ThingBody) => `${c.base}/things/${thing.slug}`;

/** The body as the client reads it once its HTTP stack has undone the Content-Encoding. */
function decoded(res: LightMyRequestResponse): string {
  const encoding = res.headers['content-encoding'];
  if (encoding === 'br') return zlib.brotliDecompressSync(res.rawPayload).toString('utf8');
  if (encoding === 'gzip') return zlib.gunzipSync(res.rawPayload).toString('utf8');
  expect(encoding).toBeUndefined();
  return res.body;
}

describe(`compressed API answers on ${dialect}`, () => {
  it('compresses a large answer with br, preferred over gzip, and the decoded body is the uncompressed one', async () => {
    const plain = await get(thingUrl(large));
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.length).toBeGreaterThan(COMPRESS_THRESHOLD);
    expect(plain.headers.vary).toMatch(/accept-encoding/);
    for (const [header, encoding] of [
      ['br', 'br'],
      ['gzip, deflate, br, zstd', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0.5, gzip', 'gzip'],
      ['br;q=0, gzip;q=0.1', 'gzip'],
      ['*', 'gzip'],
    ] as const) {
      const res = await get(thingUrl(large), { 'accept-encoding': header });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-encoding'], header).toBe(encoding);
      expect(String(res.headers.vary)).toMatch(/accept-encoding/);
      expect(res.headers['content-type']).toBe(plain.headers['content-type']);
      expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
      expect(res.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
      expect(decoded(res)).toBe(plain.body);
    }
  });

  it('sends as they are: answers under the threshold, and requests that accept no br or gzip', async () => {
    const res = await get(thingUrl(small), { 'accept-encoding': 'br, gzip' });
    expect(res.rawPayload.length).toBeLessThan(COMPRESS_THRESHOLD);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.vary).toMatch(/accept-encoding/);
    expect(json<ThingBody>(res).name).toBe('Klarg');
    for (const header of ['identity', 'br;q=0, gzip;q=0', 'deflate', '']) {
      const big = await get(thingUrl(large), { 'accept-encoding': header });
      expect(big.headers['content-encoding'], header).toBeUndefined();
      expect(big.headers.etag).toBe(`"${large.id}-1"`);
      expect(json<ThingBody>(big).description).toEqual(LONG_DOC);
    }
  });

  it('names the encoding in a strong ETag, answers If-None-Match with 304, and takes the tag back as If-Match', async () => {
    const identity = await get(thingUrl(large));
    const br = await get(thingUrl(large), { 'accept-encoding': 'br' });
    const gzip = await get(thingUrl(large), { 'accept-encoding': 'gzip' });
    const tag = identity.headers.etag as string;
    expect(tag).toMatch(/^"\d+-\d+"$/);
    expect(br.headers.etag).toBe(`${tag.slice(0, -1)}-br"`);
    expect(gzip.headers.etag).toBe(`${tag.slice(0, -1)}-gzip"`);
    // Small answers too: the tag names what the request accepts, so a 304 and a 200 always agree.
    expect((await get(thingUrl(small), { 'accept-encoding': 'br' })).headers.etag).toMatch(/^"\d+-\d+-br"$/);

    for (const [accept, sent] of [['br', br.headers.etag], ['br', tag], ['gzip', gzip.headers.etag]] as const) {
      const notModified = await get(thingUrl(large), { 'accept-encoding': accept, 'if-none-match': sent as string });
      expect(notModified.statusCode).toBe(304);
      expect(notModified.rawPayload.length).toBe(0);
      expect(notModified.headers['content-encoding']).toBeUndefined();
      expect(notModified.headers.etag).toBe(accept === 'br' ? br.headers.etag : gzip.headers.etag);
      expect(notModified.headers.vary).toMatch(/accept-encoding/);
    }

    // The web app's save: PUT with If-Match from the compressed GET, its answer compressed too.
    const put = await ctx.app.inject({
      method: 'PUT',
      url: thingUrl(large),
      headers: { ...owner.headers, 'accept-encoding': 'br', 'if-match': br.headers.etag as string },
      payload: { updatedThing: { name: 'Sildar Hallwinter', description: [...LONG_DOC, { type: 'paragraph', children: [{ text: 'Now a lord.' }] }] } },
    });
    expect(put.statusCode, decoded(put)).toBe(200);
    expect(put.headers['content-encoding']).toBe('br');
    expect(put.headers.etag).toBe(`"${large.id}-2-br"`);
    const stale = await ctx.app.inject({
      method: 'PUT',
      url: thingUrl(large),
      headers: { ...owner.headers, 'accept-encoding': 'gzip', 'if-match': gzip.headers.etag as string },
      payload: { updatedThing: { name: 'Lost' } },
    });
    expect(stale.statusCode).toBe(412);
    expect(stale.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(decoded(stale)).code).toBe('precondition_failed');
    // The new tag, compressed or not, is the current version.
    const after = await get(thingUrl(large), { 'accept-encoding': 'gzip', 'if-none-match': put.headers.etag as string });
    expect(after.statusCode).toBe(304);
    expect(after.headers.etag).toBe(`"${large.id}-2-gzip"`);
  });

  it('leaves weak tags (lists) as they are and answers their If-None-Match under any encoding', async () => {
    for (let i = 0; i < 12; i++) await createThing(ctx.app, owner, c, `Goblin ${i} of the Cragmaw tribe, who guards the hideout's eastern tunnel`);
    const plain = await get(`${c.base}/things?fetchAll=true`);
    const br = await get(`${c.base}/things?fetchAll=true`, { 'accept-encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.etag).toMatch(/^W\//);
    expect(br.headers.etag).toBe(plain.headers.etag);
    expect(decoded(br)).toBe(plain.body);
    // Sent again from the response cache, compressed once: the same bytes.
    const again = await get(`${c.base}/things?fetchAll=true`, { 'accept-encoding': 'br' });
    expect(again.headers['content-encoding']).toBe('br');
    expect(again.headers.vary).toMatch(/accept-encoding/);
    expect(Number(again.headers['content-length'])).toBe(again.rawPayload.length);
    expect(again.rawPayload.equals(br.rawPayload)).toBe(true);
    const gzip = await get(`${c.base}/things?fetchAll=true`, { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(decoded(gzip)).toBe(plain.body);
    const notModified = await get(`${c.base}/things?fetchAll=true`, { 'accept-encoding': 'gzip', 'if-none-match': br.headers.etag as string });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.rawPayload.length).toBe(0);
  });

  it('answers HEAD uncompressed: the identity tag and length, still varying on Accept-Encoding', async () => {
    const identity = await get(thingUrl(large));
    const head = await get(thingUrl(large), { 'accept-encoding': 'br' }, 'HEAD');
    expect(head.statusCode).toBe(200);
    expect(head.rawPayload.length).toBe(0);
    expect(head.headers['content-encoding']).toBeUndefined();
    expect(head.headers.etag).toBe(identity.headers.etag);
    expect(head.headers['content-length']).toBe(String(identity.rawPayload.length));
    expect(head.headers.vary).toMatch(/accept-encoding/);
  });

  it('compresses a large problem document and keeps its type; a small one is sent as it is', async () => {
    // Forty tags that are not strings: one error each, well over the threshold.
    const newThing = { name: 'Nezznar', typeId: c.typeId, tags: Array.from({ length: 40 }, (_, i) => i) };
    const bad = await ctx.app.inject({ method: 'POST', url: `${c.base}/things`, headers: { ...owner.headers, 'accept-encoding': 'br' }, payload: { newThing } });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(bad.headers['content-encoding']).toBe('br');
    const problem = JSON.parse(decoded(bad)) as Problem;
    expect(problem).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(problem.errors).toHaveLength(40);
    const missing = await get(`${c.base}/things/nobody-at-all`, { 'accept-encoding': 'br' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-encoding']).toBeUndefined();
    expect(json(missing)).toMatchObject({ status: 404 });
  });

  it('varies on Accept-Encoding on answers to unknown API paths too', async () => {
    for (const [method, url] of [['GET', '/api/nope'], ['POST', '/api/nope'], ['DELETE', '/api/campaigns'], ['GET', `${c.base}/nowhere`]] as const) {
      const res = await ctx.app.inject({ method, url, headers: { ...owner.headers, 'accept-encoding': 'br' } });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers.vary, url).toMatch(/accept-encoding/);
      expect(json(res)).toMatchObject({ status: 404, code: 'route_not_found' });
    }
  });

  it('never compresses the export zip again; the JSON export is compressed as it streams', async () => {
    const zip = await get(`${c.base}/export`, { 'accept-encoding': 'br, gzip' });
    expect(zip.statusCode).toBe(200);
    expect(zip.headers['content-type']).toBe('application/zip');
    expect(zip.headers['content-encoding']).toBeUndefined();
    expect(zip.rawPayload.subarray(0, 2).toString('latin1')).toBe('PK');
    const plain = await get(`${c.base}/export?format=json`);
    const br = await get(`${c.base}/export?format=json`, { 'accept-encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-disposition']).toBe(plain.headers['content-disposition']);
    const [a, b] = [JSON.parse(plain.body), JSON.parse(decoded(br))] as { exportedAt?: string }[];
    expect({ ...b, exportedAt: undefined }).toEqual({ ...a, exportedAt: undefined });
  });

  it('names in the ETag exactly the encoding the body carries, whatever Accept-Encoding says (fast-check)', async () => {
    // What clients send, and what a hostile one might: parameters other than q, signed and
    // leading-dot q-values, upper case, `*`, `x-gzip`, and whitespace around every separator.
    const coding = fc.constantFrom('br', 'gzip', 'deflate', 'identity', 'zstd', '*', 'x-gzip', 'X-GZIP', 'BR', 'Gzip', 'compress', '');
    const param = fc.constantFrom('q=0', 'q=0.0', 'q=0.001', 'q=0.5', 'q=.5', 'q=1', 'q=1.0', 'q=0.9', 'q=+0.9', 'Q=0.5', 'q =0.5', 'level=0', 'x=0.1', 'x=1');
    const space = fc.constantFrom('', ' ', '  ', '\t');
    const item = fc
      .tuple(coding, fc.array(fc.tuple(space, param, space), { maxLength: 2 }))
      .map(([name, params]) => name + params.map(([before, value, after]) => `${before};${after}${value}`).join(''));
    const header = fc.array(fc.tuple(item, space), { minLength: 0, maxLength: 5 }).map((items) => items.map(([value, after]) => `${value},${after}`).join('').slice(0, -1));
    const thing = await createThing(ctx.app, owner, c, 'Iarno Albrek', { description: LONG_DOC });
    const check = (res: LightMyRequestResponse, accept: string) => {
      const encoding = res.headers['content-encoding'];
      const suffix = /-(br|gzip)"$/.exec(res.headers.etag as string)?.[1];
      expect(suffix, accept).toBe(encoding);
      expect(JSON.parse(decoded(res)).id).toBe(thing.id);
    };
    let version = 1;
    await fc.assert(
      fc.asyncProperty(header, async (accept) => {
        // A write's answer (compressed by @fastify/compress itself) ...
        const description = [...LONG_DOC, { type: 'paragraph', children: [{ text: `Edit ${++version}` }] }];
        const put = await ctx.app.inject({ method: 'PUT', url: thingUrl(thing), headers: { ...owner.headers, 'accept-encoding': accept }, payload: { updatedThing: { name: 'Iarno Albrek', description } } });
        expect(put.statusCode, decoded(put)).toBe(200);
        check(put, accept);
        // ... then the same version read twice: built (and kept), then from the response cache.
        const built = await get(thingUrl(thing), { 'accept-encoding': accept });
        const cached = await get(thingUrl(thing), { 'accept-encoding': accept });
        for (const res of [built, cached]) {
          expect(res.statusCode).toBe(200);
          check(res, accept);
          // One strong tag, one encoding: the same tag always names the same bytes.
          expect(res.headers.etag, accept).toBe(put.headers.etag);
          expect(res.headers['content-encoding'], accept).toBe(put.headers['content-encoding']);
        }
      }),
      { numRuns: 120 },
    );
  });
});
