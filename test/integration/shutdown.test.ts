import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../src/db/database.js';
import { api, isNetworkError, registerWithToken } from '../../toolkit/http.js';
import { integrityProblems } from '../support/integrity.js';
import { killAllStarted, startServer } from '../../toolkit/server.js';
import { createTestDatabase, dialect } from '../support/test-db.js';

// SIGTERM under load, against the real server process: every request the server accepted is
// answered (the ones it is still working on complete, later ones on open connections get 503), it
// exits 0, and what it acknowledged is stored. A request the server never accepted fails on the
// client's side, and then it must not have been applied either.

afterAll(() => killAllStarted());

const WRITERS = 24;
const ACKS_BEFORE_SIGTERM = 150;

describe('graceful shutdown', () => {
  it('answers every accepted request when SIGTERM arrives under load, stores every acknowledged write, and exits 0', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-shutdown-'));
    let testDb: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
    const env: Record<string, string> = { DATA_DIR: dataDir };
    if (dialect === 'postgres') {
      testDb = await createTestDatabase({ migrate: false });
      env.DATABASE_URL = testDb.url!;
    }
    let verifier: Database | undefined;
    try {
      const server = await startServer({ env });
      const token = await registerWithToken(server.base, 'shutdown@example.test');
      const campaign = await api(server.base, 'POST', '/api/campaigns', { token, json: { newCampaign: { name: 'Shutdown' } } });
      expect(campaign.status).toBe(201);
      const types = await api(server.base, 'GET', `/api/campaigns/${campaign.body.slug}/thing-types`, { token });
      const typeId = types.body[0].id as number;

      const acknowledged = new Map<string, string>(); // name → slug
      const refused: string[] = []; // answered 503: the server was closing
      const failed: string[] = []; // no answer at all
      const other: string[] = [];
      let sigtermSent = false;
      let sigtermAt = 0;
      const startedAt = Date.now();
      let acks = 0;

      const writer = async (w: number) => {
        for (let n = 0; ; n++) {
          const name = `Writer ${w} thing ${n}`;
          try {
            const res = await api(server.base, 'POST', `/api/campaigns/${campaign.body.slug}/things`, { token, json: { newThing: { name, typeId } }, timeoutMs: 15_000 });
            if (res.status === 201) {
              acknowledged.set(name, res.body.slug as string);
              acks += 1;
              if (acks >= ACKS_BEFORE_SIGTERM && !sigtermSent) {
                sigtermSent = true;
                sigtermAt = Date.now();
                server.kill('SIGTERM');
              }
            } else if (res.status === 503) {
              // Refused like every error: a problem document, with the connection closed.
              expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
              expect(res.body).toMatchObject({ status: 503, code: 'service_unavailable' });
              refused.push(name);
              return;
            } else {
              other.push(`${name}: ${res.status} ${JSON.stringify(res.body)}`);
              return;
            }
          } catch (error) {
            if (!isNetworkError(error)) throw error;
            failed.push(name);
            return;
          }
        }
      };
      await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
      const writersDoneAt = Date.now();
      expect(sigtermSent).toBe(true);
      expect(await server.exited).toBe(0);
      const exitedAt = Date.now();
      // Not after the 72 s keep-alive timeout of the clients' idle connections: as soon as the last
      // request in flight is answered (the bound is generous for a loaded machine).
      expect(exitedAt - sigtermAt).toBeLessThan(15_000);
      expect(other).toEqual([]);

      verifier = testDb ?? createDatabase({ dataDir });
      const stored = await verifier.kysely.selectFrom('things').select(['name', 'slug']).where('campaign_id', '=', campaign.body.id as number).execute();
      const storedByName = new Map(stored.map((row) => [row.name, row.slug]));
      // Every acknowledged write is there, as acknowledged.
      for (const [name, slug] of acknowledged) expect(storedByName.get(name), name).toBe(slug);
      // Nothing is there that was not acknowledged: no request was carried out and then left unanswered.
      for (const row of stored) expect(acknowledged.has(row.name), `${row.name} was stored but never acknowledged`).toBe(true);
      expect(stored.length).toBe(acknowledged.size);
      expect(await integrityProblems(verifier.kysely, verifier.dialect)).toEqual([]);
      console.log(
        `shutdown (${dialect}): ${acknowledged.size} writes acknowledged and stored, ${refused.length} answered 503 while closing, ` +
          `${failed.length} never accepted (connection refused or closed); load ${sigtermAt - startedAt} ms, ` +
          `writers done ${writersDoneAt - sigtermAt} ms and exit ${exitedAt - sigtermAt} ms after SIGTERM`,
      );
    } finally {
      if (verifier !== testDb) await verifier?.close();
      await testDb?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
