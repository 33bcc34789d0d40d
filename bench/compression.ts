// What compression saves and costs: `npx tsx bench/compression.ts` (builds, starts the production
// server on SQLite, seeds the bench campaign: 1,000 things, 100 arcs).
//   1. Bytes on the wire of the initial page load (HTML, the entry script and stylesheet, as
//      index.html names them) and of GET /things?fetchAll=true, identity vs gzip vs br.
//   2. The server's CPU time per request of that list answered from the response cache, with
//      Accept-Encoding none, gzip and br (autocannon, BENCH_SECONDS each, 4 connections): the
//      difference is what compressing it on the fly costs.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { seedCampaign } from './seed.js';
import { measure } from './lib/load.js';
import { num, table } from './lib/format.js';
import { Api, createAccount } from '../toolkit/http.js';
import { buildServer, startServer, stopServer, tempDir } from '../toolkit/server.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ENCODINGS = ['identity', 'gzip', 'br'] as const;

/** Status, Content-Encoding and the bytes as sent (not decoded). */
function wire(url: string, headers: Record<string, string>): Promise<{ status: number; encoding: string; bytes: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, encoding: String(res.headers['content-encoding'] ?? 'identity'), bytes: body.length, body });
        });
      })
      .on('error', reject);
  });
}

const entry = await buildServer();
const dir = tempDir('loreforge-bench-z-');
const server = await startServer({ entry, env: { DATA_DIR: path.join(dir, 'data') } });
try {
  const account = await createAccount(server.base, 'compression');
  const api = new Api(server.base).withToken(account.token);
  console.log('seeding 1,000 things, 100 arcs…');
  const campaign = await seedCampaign(api, 'Benchmark campaign', { things: 1000, arcs: 100, linksPerArc: 10 }, 8);

  const html = (await wire(`${server.base}/`, {})).body.toString('utf8');
  const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
  const pageRows: string[][] = [];
  const totals: Record<string, number> = {};
  for (const url of ['/', ...assets]) {
    const row = [url];
    for (const encoding of ENCODINGS) {
      const res = await wire(`${server.base}${url}`, { 'accept-encoding': encoding });
      if (res.status !== 200 || res.encoding !== encoding && res.bytes >= 1024) throw new Error(`${url} (${encoding}): ${res.status} ${res.encoding}`);
      totals[encoding] = (totals[encoding] ?? 0) + res.bytes;
      row.push(`${num(res.bytes, 0)} (${res.encoding})`);
    }
    pageRows.push(row);
  }
  pageRows.push(['initial load', ...ENCODINGS.map((e) => num(totals[e], 0))]);
  console.log('\nInitial page load, bytes on the wire:');
  console.log(table(['file', ...ENCODINGS], pageRows, ['l', 'r', 'r', 'r']));

  const list = `/api/campaigns/${campaign.slug}/things?fetchAll=true`;
  const auth = { authorization: `Bearer ${account.token}` };
  const listRows: string[][] = [];
  for (const encoding of ENCODINGS) {
    const res = await wire(`${server.base}${list}`, { ...auth, 'accept-encoding': encoding });
    listRows.push([encoding, res.encoding, num(res.bytes, 0)]);
  }
  console.log(`\nGET ${list}:`);
  console.log(table(['Accept-Encoding', 'sent as', 'bytes'], listRows, ['l', 'l', 'r']));

  const cpuRows: string[][] = [];
  for (const encoding of ENCODINGS) {
    const stats = await measure({
      url: server.base,
      connections: 4,
      duration: SECONDS,
      warmup: 2,
      headers: { ...auth, 'accept-encoding': encoding },
      requests: [{ method: 'GET', path: list }],
      cpu: { server: () => [server.pid] },
    });
    const cpuMs = stats.cpuMs.server ?? 0;
    cpuRows.push([encoding, num(stats.rps, 0), num(stats.p50, 1), num(stats.p99, 1), num(cpuMs / Math.max(1, stats.requests), 2)]);
  }
  console.log(`\nThe list from the response cache, 4 connections, ${SECONDS} s each:`);
  console.log(table(['Accept-Encoding', 'req/s', 'p50 ms', 'p99 ms', 'server CPU ms/req'], cpuRows, ['l', 'r', 'r', 'r', 'r']));
} finally {
  await stopServer(server);
  fs.rmSync(dir, { recursive: true, force: true });
}
