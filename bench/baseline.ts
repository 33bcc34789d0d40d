// The physical limit: a bare Fastify server with the settings of Loreforge that matter (same
// Fastify, same logger level, keep-alive and timeouts) answering each benchmarked GET with the
// very bytes and content type Loreforge answered it with, held in memory. No authentication, no
// database, no serialization: whatever Loreforge does beyond this is its own cost.
//
//   node --import tsx bench/baseline.ts <responses.json> <port> <log level>
//
// responses.json: [{ url, contentType, body (base64) }], url including the query string.
import fs from 'node:fs';
import Fastify from 'fastify';

interface StoredResponse {
  url: string;
  contentType: string;
  body: string;
}

const [file, portText, level = 'warn'] = process.argv.slice(2);
if (!file || !portText) {
  console.error('usage: baseline.ts <responses.json> <port> [log level]');
  process.exit(2);
}

const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as StoredResponse[];
const responses = new Map(stored.map((r) => [r.url, { contentType: r.contentType, body: Buffer.from(r.body, 'base64') }]));

// The options of src/app.ts that touch the hot path of a request.
const app = Fastify({
  logger: { level },
  keepAliveTimeout: 72_000,
  requestTimeout: 30_000,
  connectionTimeout: 30_000,
  forceCloseConnections: 'idle',
  return503OnClosing: true,
  routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
});

app.get('/__baseline/ready', () => ({ ok: true }));
app.get('/*', (request, reply) => {
  const response = responses.get(request.url);
  if (!response) return reply.code(404).send({ error: `no stored response for ${request.url}` });
  return reply.header('content-type', response.contentType).send(response.body);
});

process.on('SIGTERM', () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});

await app.listen({ port: Number(portText), host: '127.0.0.1' });
