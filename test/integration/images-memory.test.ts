import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../src/db/database.js';
import { setPremiumUntil } from '../../src/db/repositories/users.js';
import { createTestUser } from '../support/app.js';
import { createTestDatabase, dialect } from '../support/test-db.js';
import { memoryOf } from '../../toolkit/processes.js';
import { killAllStarted, startServer, stopServer } from '../../toolkit/server.js';
import { IN_A_YEAR } from '../fixtures/image-app.js';
import { png } from '../fixtures/images.js';

// An upload is streamed to disk, never held in memory: the real server, in its own process, takes
// a large upload while we watch its resident memory. Prints the figures; the assertion only says
// the peak grew by far less than the upload. LOREFORGE_UPLOAD_TEST_MB sets the size (default 256:
// large beside the fixed ~50-65 MiB a streaming server settles at, so holding the upload would show).

const UPLOAD_MB = Number(process.env.LOREFORGE_UPLOAD_TEST_MB ?? 256);
// The warm-up upload also lets V8 grow its young generation to the size streaming settles at (Node 24
// keeps a larger one than Node 20, a fixed ~60 MiB that does not grow with the upload), so the
// measured growth is what the big upload itself holds.
const WARM_UP_MB = Math.min(32, UPLOAD_MB);
afterAll(killAllStarted);

/** PUTs `megabytes` MiB (a PNG followed by filler) in 64 KiB chunks generated on the fly. */
function putLarge(url: string, megabytes: number): Promise<{ status: number; body: string }> {
  const total = megabytes * 1024 * 1024;
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  const head = png();
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'PUT', headers: { 'content-length': String(total), 'content-type': 'image/png' } }, (response) => {
      let body = '';
      response.on('data', (c: Buffer) => (body += c.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    let sent = 0;
    const pump = () => {
      while (sent < total) {
        const piece = sent === 0 ? Buffer.concat([head, chunk.subarray(head.length)]) : chunk.subarray(0, Math.min(chunk.length, total - sent));
        sent += piece.length;
        if (!request.write(piece)) {
          request.once('drain', pump);
          return;
        }
      }
      request.end();
    };
    pump();
  });
}

describe('memory while streaming an upload', () => {
  it(`takes a ${UPLOAD_MB} MiB upload without holding it in memory`, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-memory-'));
    let database: Database;
    let env: Record<string, string> = { DATA_DIR: dataDir, MAX_UPLOAD_BYTES: String(UPLOAD_MB * 1024 * 1024) };
    let testDb: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
    if (dialect === 'postgres') {
      testDb = await createTestDatabase({ migrate: false });
      env = { ...env, DATABASE_URL: testDb.url! };
    }
    const server = await startServer({ env });
    try {
      const base = server.base;
      database = testDb ?? createDatabase({ dataDir });
      const user = await createTestUser(database);
      await setPremiumUntil(database.kysely, user.email, IN_A_YEAR); // a fresh user, never looked up: nothing cached to wait for
      const headers = { ...user.headers, 'content-type': 'application/json' };
      const campaign: any = await (await fetch(`${base}/api/campaigns`, { method: 'POST', headers, body: JSON.stringify({ newCampaign: { name: 'Big' } }) })).json();
      const grant = async () => {
        const res = await fetch(`${base}/api/campaigns/${campaign.slug}/assets/upload-url`, { method: 'POST', headers, body: JSON.stringify({ label: 'big' }) });
        const body: any = await res.json();
        return { imageId: body.imageId as string, url: `${base}${new URL(body.uploadURL as string).pathname}` };
      };

      // Warm up: the upload path's modules loaded and its code compiled before we measure.
      const warm = await grant();
      expect((await putLarge(warm.url, WARM_UP_MB)).status).toBe(200);
      const before = memoryOf(server.pid)!;
      const big = await grant();
      const started = Date.now();
      const res = await putLarge(big.url, UPLOAD_MB);
      const seconds = (Date.now() - started) / 1000;
      expect(res.status, res.body).toBe(200);
      const after = memoryOf(server.pid)!;
      const confirm = await fetch(`${base}/api/campaigns/${campaign.slug}/assets/confirm-upload`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ imageId: big.imageId, label: 'big' }),
      });
      expect(confirm.status).toBe(200);
      const stored = path.join(dataDir, 'images', String(campaign.id), `${big.imageId}.png`);
      expect(fs.statSync(stored).size).toBe(UPLOAD_MB * 1024 * 1024);

      console.log(
        `[upload memory] ${UPLOAD_MB} MiB streamed in ${seconds.toFixed(2)} s; server RSS before ${before.rssMiB.toFixed(1)} MiB (peak so far ${before.peakMiB.toFixed(1)}), ` +
          `after ${after.rssMiB.toFixed(1)} MiB (peak ${after.peakMiB.toFixed(1)} MiB)`,
      );
      expect(after.peakMiB - before.peakMiB).toBeLessThan(Math.max(48, UPLOAD_MB / 3));
      if (!testDb) await database.close();
    } finally {
      await stopServer(server);
      await testDb?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
