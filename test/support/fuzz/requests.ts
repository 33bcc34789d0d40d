import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import type { AppInstance } from '../../../src/http/app-types.js';
import { deepJsonText, encodeAny, hostilePathTail, hostileQuery, hostileSegment, ODD_TEXT } from './hostile.js';
import { mutatedValue, validValue, type Hints, type JsonSchema } from './schema.js';

// One fuzz case for one route: what goes into each path parameter, the query string, the
// credentials, the content type and the body. Path values and credentials are resolved when the
// case runs (`toInject`), because the seeded records they name are replaced as the fuzzer deletes them.

export interface RouteSpec {
  method: string;
  /** Fastify's pattern, e.g. /api/campaigns/:campaignSlug/things. */
  url: string;
  auth: string;
  params: string[];
  queryNames: string[];
  /** The documented query parameters with their schemas. */
  query: { name: string; schema?: JsonSchema }[];
  /** The JSON request body's schema, if the route documents one. */
  body?: JsonSchema;
}

interface OpenApiOperation {
  parameters?: { in: string; name: string; schema?: JsonSchema }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

/** Every route of the app's route table, with its schemas from the OpenAPI document where it has them. */
export function routeSpecs(app: AppInstance): RouteSpec[] {
  const doc = app.swagger() as { paths?: Record<string, Record<string, OpenApiOperation>> };
  return app.routeTable.map((route) => {
    const openApiPath = route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const operation = doc.paths?.[openApiPath]?.[route.method.toLowerCase()];
    const params = [...route.url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
    // A wildcard route (static files) takes a whole path tail; it is fuzzed like a parameter named `*`.
    if (route.url.endsWith('*')) params.push('*');
    const query = (operation?.parameters ?? []).filter((p) => p.in === 'query').map((p) => ({ name: p.name, ...(p.schema ? { schema: p.schema } : {}) }));
    const queryNames = query.map((p) => p.name);
    const body = operation?.requestBody?.content?.['application/json']?.schema;
    return { method: route.method, url: route.url, auth: route.auth, params, queryNames, query, ...(body ? { body } : {}) };
  });
}

export type Segment = { seed: true } | { seed: false; raw: string };
export type Credentials = { owner: true } | { owner: false; headers: Record<string, string> };

export interface FuzzCase {
  /** What the case does to the request, for the statistics and for a failing case's report. */
  label: string;
  segments: Record<string, Segment>;
  query: string;
  credentials: Credentials;
  headers: Record<string, string>;
  body?: { contentType?: string; payload: string | Buffer };
}

// Header values an HTTP client could actually send: visible ASCII and spaces.
const headerText = fc.string({ unit: 'binary-ascii', maxLength: 60 }).map((s) => s.replace(/[^\x20-\x7e]/g, '').trim());

const hostileCredentials: fc.Arbitrary<Record<string, string>> = fc.oneof(
  fc.constant({}),
  fc.constantFrom<Record<string, string>>(
    { authorization: 'Bearer' },
    { authorization: 'Bearer ' },
    { authorization: 'Bearer lf_' },
    { authorization: 'Basic dXNlcjpwYXNz' },
    { authorization: 'bearer lf_not-a-token' },
    { authorization: `Bearer ${'A'.repeat(8000)}` },
    { cookie: 'loreforge_session=' },
    { cookie: 'loreforge_session=lfs_forged' },
    { cookie: 'loreforge_session=%FF%00' },
    { cookie: 'loreforge_session=a; loreforge_session=b' },
    { cookie: '=;=;;' },
  ),
  headerText.map((value) => ({ authorization: `Bearer ${value}` })),
  headerText.map((value) => ({ cookie: value })),
);

const extraHeaders: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({}) },
  { weight: 1, arbitrary: fc.constantFrom('*', '"1-1"', 'W/"1-1"', '"0-0", *', '', '"', 'x'.repeat(2000)).map((v) => ({ 'if-match': v })) },
  { weight: 1, arbitrary: headerText.map((v) => ({ 'if-match': v })) },
  { weight: 1, arbitrary: fc.constantFrom('null', 'http://evil.example', 'http://127.0.0.1:3000').map((v) => ({ origin: v })) },
  { weight: 1, arbitrary: fc.constantFrom('text/html', '*/*', 'application/xml', '').map((v) => ({ accept: v })) },
  { weight: 1, arbitrary: fc.constantFrom('gzip', 'br', 'chunked', 'identity, x').map((v) => ({ 'content-encoding': v })) },
);

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json;charset=UTF-8'];
const OTHER_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/json; charset=utf-16le',
  'application/json; charset=latin1',
  'application/merge-patch+json',
  'application/jsonx',
  ';;;',
  '',
  'application/json, text/plain',
];
const contentType = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...JSON_TYPES) }, { weight: 1, arbitrary: fc.constantFrom(...OTHER_TYPES) });

/** Valid JSON text with invalid UTF-8 bytes (a stray continuation byte, an overlong form, 0xFF) inside a string. */
function withInvalidUtf8(text: string, at: number, bytes: readonly number[]): Buffer {
  const quote = text.indexOf('"', at % Math.max(1, text.length));
  const cut = quote >= 0 ? quote + 1 : text.length;
  return Buffer.concat([Buffer.from(text.slice(0, cut)), Buffer.from(bytes), Buffer.from(text.slice(cut))]);
}

function bodyArbitrary(spec: RouteSpec, hints: Hints): fc.Arbitrary<FuzzCase['body'] & { label: string }> {
  const valid = validValue(spec.body, hints).map((v) => JSON.stringify(v) ?? 'null');
  const json = (label: string, text: fc.Arbitrary<string>) => fc.tuple(contentType, text).map(([type, payload]) => ({ label, contentType: type, payload }));
  const kinds: { weight: number; arbitrary: fc.Arbitrary<FuzzCase['body'] & { label: string }> }[] = [
    { weight: spec.body ? 6 : 1, arbitrary: json('valid', valid) },
    { weight: spec.body ? 7 : 1, arbitrary: json('mutated', mutatedValue(spec.body, hints).map((v) => JSON.stringify(v) ?? 'null')) },
    { weight: 1, arbitrary: json('truncated', fc.tuple(valid, fc.nat()).map(([t, n]) => t.slice(0, n % Math.max(1, t.length)))) },
    {
      weight: 1,
      arbitrary: json(
        'malformed',
        fc.oneof(
          fc.string({ maxLength: 40 }),
          fc.constantFrom('{', '}', '[', '{"a":}', '{,}', "{'a':1}", '{"a":1,}', 'NaN', 'undefined', '{"a":1}{"b":2}', '\ufeff{}', '{"a":"\\x41"}', '{"a":"\\ud800"}'),
          fc.tuple(valid, fc.nat(), fc.constantFrom('"', ',', '}', ']', '\\', '\u0000')).map(([t, n, ch]) => {
            const at = n % Math.max(1, t.length);
            return t.slice(0, at) + ch + t.slice(at);
          }),
        ),
      ),
    },
    {
      weight: 1,
      arbitrary: json(
        'prototype-keys',
        fc.tuple(valid, fc.constantFrom('"__proto__":{"isAdmin":true}', '"constructor":{"prototype":{"isAdmin":true}}', '"__proto__":null', '"__proto__":[]')).map(
          ([t, key]) => (t.startsWith('{') && t.length > 2 ? `{${key},${t.slice(1)}` : `{${key}}`),
        ),
      ),
    },
    {
      weight: 1,
      arbitrary: json(
        'deep-nesting',
        fc.tuple(fc.integer({ min: 100, max: 200_000 }), fc.constantFrom<'array' | 'object'>('array', 'object'), valid).map(([depth, kind, t]) => {
          const deep = deepJsonText(depth, kind);
          // Half the time as the whole body, half the time as an extra field of a real body.
          return t.startsWith('{') && t.length > 2 && depth % 2 === 0 ? `{"deep":${deep},${t.slice(1)}` : deep;
        }),
      ),
    },
    {
      weight: 1,
      arbitrary: json(
        'huge',
        fc.tuple(valid, fc.integer({ min: 50_000, max: 1_100_000 }), fc.constantFrom('x', 'é', '\u0000', '"', '\ud83d\ude00')).map(([t, n, ch]) => {
          const big = ch.repeat(Math.ceil(n / ch.length / 2));
          const i = t.indexOf('":"');
          return i >= 0 ? `${t.slice(0, i + 3)}${JSON.stringify(big).slice(1, -1)}${t.slice(i + 3)}` : JSON.stringify([big]);
        }),
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(contentType, valid, fc.nat(), fc.constantFrom([0xff], [0xc3, 0x28], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82]))
        .map(([type, t, at, bytes]) => ({ label: 'invalid-utf8', contentType: type, payload: withInvalidUtf8(t, at, bytes) })),
    },
    { weight: 1, arbitrary: json('wrong-top-level', fc.constantFrom('[]', '"x"', '42', 'null', 'true', '[{}]', '""', '-0', '1e999')) },
    { weight: 1, arbitrary: json('odd-text', fc.constantFrom(...ODD_TEXT).map((s) => JSON.stringify({ name: s, text: s }))) },
    { weight: 1, arbitrary: fc.constant({ label: 'empty', contentType: 'application/json', payload: '' }) },
    { weight: 1, arbitrary: fc.constantFrom(...OTHER_TYPES).map((type) => ({ label: 'other-type', contentType: type, payload: 'name=x&a=1' })) },
    { weight: 1, arbitrary: valid.map((payload) => ({ label: 'no-content-type', payload })) },
  ];
  return fc.oneof(...kinds);
}

/** Fuzz cases for one route; `hints` are ids and slugs of the seeded records. */
export function caseArbitrary(spec: RouteSpec, hints: Hints): fc.Arbitrary<FuzzCase> {
  const segment = (name: string): fc.Arbitrary<Segment> =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constant<Segment>({ seed: true }) },
      { weight: 1, arbitrary: (name === '*' ? hostilePathTail() : hostileSegment()).map<Segment>((raw) => ({ seed: false, raw })) },
    );
  const segments = fc.record(Object.fromEntries(spec.params.map((name) => [name, segment(name)])));
  const credentials: fc.Arbitrary<Credentials> = fc.oneof(
    { weight: 6, arbitrary: fc.constant<Credentials>({ owner: true }) },
    { weight: 1, arbitrary: hostileCredentials.map<Credentials>((headers) => ({ owner: false, headers })) },
  );
  // The documented parameters with plausible values (so a search gets its `q`), or hostile ones.
  const plausibleValue = (schema: JsonSchema | undefined) =>
    fc.oneof(
      fc.constantFrom('goblin', 'gundren', '20', '1', '100', 'true', 'false', 'thing', 'arc', 'any', ...hints.strings),
      validValue(schema, hints).map((v) => (typeof v === 'string' ? v : JSON.stringify(v) ?? '')),
    );
  const plausibleQuery = fc
    .tuple(...spec.query.map((p) => fc.option(plausibleValue(p.schema).map((v) => `${p.name}=${encodeAny(v)}`), { freq: 2 })))
    .map((pairs) => pairs.filter((p): p is string => p !== null).join('&'));
  const query = fc.oneof(
    { weight: 2, arbitrary: fc.constant('') },
    { weight: spec.query.length > 0 ? 2 : 0, arbitrary: plausibleQuery },
    { weight: 1, arbitrary: hostileQuery(spec.queryNames) },
  );
  const writes = spec.method === 'POST' || spec.method === 'PUT' || spec.method === 'PATCH';
  const body = fc.oneof(
    { weight: writes ? 1 : 6, arbitrary: fc.constant(undefined) },
    { weight: writes ? 12 : 1, arbitrary: bodyArbitrary(spec, hints) },
  );
  return fc.record({ segments, query, credentials, headers: extraHeaders, body }).map(({ body: chosen, ...rest }) => {
    const hostileParts = Object.values(rest.segments).some((s) => !s.seed) ? ['path'] : [];
    if (rest.query !== '') hostileParts.push('query');
    if (!rest.credentials.owner) hostileParts.push('credentials');
    const label = [chosen?.label ?? 'no-body', ...hostileParts].join('+');
    if (!chosen) return { ...rest, label };
    const { label: _bodyLabel, ...bodyOnly } = chosen;
    return { ...rest, label, body: bodyOnly };
  });
}

/** The inject options of a case, with seeded values filled in now. */
export function toInject(spec: RouteSpec, fuzzCase: FuzzCase, seedParams: Record<string, string>, ownerHeaders: Record<string, string>): InjectOptions {
  const valueOf = (name: string, fallback: string) => {
    const segment = fuzzCase.segments[name];
    if (!segment || segment.seed) return encodeAny(seedParams[name] ?? fallback);
    return segment.raw;
  };
  const path = spec.url.replace(/\*$/, () => valueOf('*', 'index.css')).replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => valueOf(name, '1'));
  const headers: Record<string, string> = { ...(fuzzCase.credentials.owner ? ownerHeaders : fuzzCase.credentials.headers), ...fuzzCase.headers };
  if (fuzzCase.body?.contentType !== undefined) headers['content-type'] = fuzzCase.body.contentType;
  return {
    method: spec.method,
    url: fuzzCase.query === '' ? path : `${path}?${fuzzCase.query}`,
    headers,
    ...(fuzzCase.body ? { payload: fuzzCase.body.payload } : {}),
  };
}

/** A short description of a case for a failure message (bodies cut to a readable length). */
export function describeCase(options: InjectOptions): string {
  const payload = options.payload;
  const text = payload === undefined ? '' : typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('latin1') : JSON.stringify(payload);
  const url = typeof options.url === 'string' ? options.url : JSON.stringify(options.url);
  return `${options.method} ${url.length > 300 ? `${url.slice(0, 300)}…` : url} headers=${JSON.stringify(options.headers).slice(0, 300)} body(${text.length})=${JSON.stringify(text.slice(0, 300))}`;
}
