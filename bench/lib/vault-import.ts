// The vault part of `npm run bench:export`: imports a generated vault of BENCH_VAULT_NOTES notes
// (6,000; bench/lib/vault.ts) over HTTP while another client keeps asking the same server for
// GET /api/health and a small write in another campaign, one request after the other, and prints
// the import's time, things per second, peak RSS, and how long those other requests waited (max,
// p99) meanwhile: what an import costs everyone else (CONTRACT "Hostile input": no other request
// waits more than one second).
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { ZipFile } from 'yazl';
import { generateVault } from './vault.js';

function zipTo(file: string, entries: { name: string; data: Buffer | string }[]): Promise<void> {
  const zip = new ZipFile();
  for (const entry of entries) zip.addBuffer(typeof entry.data === 'string' ? Buffer.from(entry.data, 'utf8') : entry.data, entry.name, { mtime: new Date('2026-01-02T03:04:05Z') });
  zip.end();
  return new Promise((resolve, reject) => {
    zip.outputStream.pipe(fs.createWriteStream(file)).on('finish', resolve).on('error', reject);
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

function request(port: number, token: string, method: string, url: string, body?: unknown): Promise<{ status: number; text: string }> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method, path: url, agent, headers: { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export interface Waits {
  requests: number;
  maxMs: number;
  p99Ms: number;
  p50Ms: number;
}

function summary(latencies: number[]): Waits {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { requests: sorted.length, maxMs: sorted.at(-1) ?? 0, p99Ms: at(0.99), p50Ms: at(0.5) };
}

/**
 * Keeps asking for GET /api/health and creating a thing in campaign `other` (type `typeId`), one
 * request at a time with a 20 ms pause after each pair, until `stop()`; returns the latencies of each kind.
 */
export function probe(port: number, token: string, other: { slug: string; typeId: number }): { stop: () => Promise<{ health: Waits; write: Waits }> } {
  const health: number[] = [];
  const write: number[] = [];
  let running = true;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      let started = performance.now();
      const h = await request(port, token, 'GET', '/api/health');
      health.push(performance.now() - started);
      if (h.status !== 200) throw new Error(`health: ${h.status} ${h.text}`);
      started = performance.now();
      const w = await request(port, token, 'POST', `/api/campaigns/${other.slug}/things`, { newThing: { name: `Probe ${i}`, typeId: other.typeId } });
      write.push(performance.now() - started);
      if (w.status !== 201) throw new Error(`write: ${w.status} ${w.text}`);
      // About fifty requests a second: a busy instance, not one flooded by this client alone.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { health: summary(health), write: summary(write) };
    },
  };
}

/** Writes the generated vault's zip to `dir`; returns its path. */
export async function writeBenchVault(dir: string, notes: number, image: Buffer, badYaml: boolean): Promise<string> {
  const file = path.join(dir, `vault-${notes}.zip`);
  await zipTo(file, generateVault(notes, image, { badYaml }));
  return file;
}

export const formatWaits = (w: Waits) => `max ${w.maxMs.toFixed(0)} ms, p99 ${w.p99Ms.toFixed(0)} ms, p50 ${w.p50Ms.toFixed(1)} ms over ${w.requests}`;
