// The physical limit: a bare Fastify server with the settings of Loreforge that matter (same
// Fastify, same logger level, keep-alive and timeouts, the same body limit and JSON parsing)
// answering each benchmarked request with the very status, bytes and content type Loreforge
// answered it with, held in memory. No authentication, no database, no serialization: whatever
// Loreforge does beyond this is its own cost.
//
//   node --import tsx bench/baseline.ts <responses.json> <port> <log level>
//
// responses.json: [{ method?, url, requestBody?, status?, contentType, body (base64) }], url
// including the query string. A GET is answered by its url; a PUT or POST body is parsed as
// Loreforge parses it (UTF-8 checked, then Fastify's JSON parser refusing __proto__ and
// constructor keys), then answered with the response stored for that method, url and body, or,
// when that exact body was not stored (a new name on every POST), for that method and url.
import fs from 'node:fs';
import Fastify from 'fastify';

interface StoredResponse {
  method?: string;
  url: string;
  requestBody?: string;
  status?: number;
  contentType: string;
  body: string;
}

const [file, portText, level = 'warn'] = process.argv.slice(2);
if (!file || !portText) {
  console.error('usage: baseline.ts <responses.json> <port> [log level]');
  process.exit(2);
}

/** Loreforge's default BODY_LIMIT (src/config.ts). */
const BODY_LIMIT = 1024 * 1024;

const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as StoredResponse[];
const key = (method: string, url: string, body?: string) => `${method} ${url}${body === undefined ? '' : `\n${body}`}`;
const responses = new Map<string, { status: number; contentType: string; body: Buffer }>();
for (const r of stored) {
  const response = { status: r.status ?? 200, contentType: r.contentType, body: Buffer.from(r.body, 'base64') };
  const method = r.method ?? 'GET';
  responses.set(key(method, r.url, r.requestBody), response);
  if (r.requestBody !== undefined && !responses.has(key(method, r.url))) responses.set(key(method, r.url), response);
}

// The options of src/http/transport.ts that touch the hot path of a request.
const app = Fastify({
  logger: { level },
  bodyLimit: BODY_LIMIT,
  keepAliveTimeout: 72_000,
  requestTimeout: 30_000,
  connectionTimeout: 30_000,
  forceCloseConnections: 'idle',
  return503OnClosing: true,
  routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
});

// The JSON parsing of src/http/transport.ts; the text is kept to find the stored answer.
const rawBodies = new WeakMap<object, string>();
const parseJson = app.getDefaultJsonParser('error', 'error');
const utf8 = new TextDecoder('utf-8', { fatal: true });
app.removeContentTypeParser('text/plain');
app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
  let text: string;
  try {
    text = typeof body === 'string' ? body : utf8.decode(body);
  } catch {
    done(new Error('malformed UTF-8'), undefined);
    return;
  }
  rawBodies.set(request, text);
  void parseJson(request, text, done);
});

app.get('/__baseline/ready', () => ({ ok: true }));
const answer = (method: string) => (request: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply) => {
  const raw = rawBodies.get(request);
  const response = (raw === undefined ? undefined : responses.get(key(method, request.url, raw))) ?? responses.get(key(method, request.url));
  if (!response) return reply.code(404).send({ error: `no stored response for ${method} ${request.url}` });
  if (method !== 'GET' && (typeof request.body !== 'object' || request.body === null)) return reply.code(400).send({ error: 'a JSON object is required' });
  return reply.code(response.status).header('content-type', response.contentType).send(response.body);
};
app.get('/*', answer('GET'));
app.put('/*', answer('PUT'));
app.post('/*', answer('POST'));

process.on('SIGTERM', () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});

await app.listen({ port: Number(portText), host: '127.0.0.1' });
