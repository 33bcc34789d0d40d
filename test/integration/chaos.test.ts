import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/database.js';
import { runChaos } from '../support/chaos.js';
import { killAllStarted } from '../../toolkit/server.js';
import { createTestDatabase, dialect } from '../support/test-db.js';

// The short pass of the crash test (`npm run chaos` is the long one): writers against the real
// server process, SIGKILLed at random moments and restarted; after each restart every acknowledged
// write is there and correct, the requests in flight are wholly applied or not at all, and the
// database passes its integrity checks. See test/support/chaos.ts.

const KILLS = Number(process.env.CHAOS_KILLS ?? 3);

afterAll(() => killAllStarted());

describe('crash durability', () => {
  it(`keeps every acknowledged write through ${KILLS} SIGKILLs under concurrent writers`, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-chaos-'));
    let testDb: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
    const env: Record<string, string> = { DATA_DIR: dataDir };
    if (dialect === 'postgres') {
      testDb = await createTestDatabase({ migrate: false });
      env.DATABASE_URL = testDb.url!;
    }
    try {
      const report = await runChaos({
        kills: KILLS,
        writers: 6,
        env,
        openDatabase: () => (testDb?.url ? createDatabase({ url: testDb.url, poolSize: 2 }) : createDatabase({ dataDir })),
        minRunMs: 300,
        maxRunMs: 1_500,
      });
      console.log(
        `chaos (${dialect}): ${report.kills} kills, ${report.acknowledgedWrites} acknowledged writes verified, ` +
          `${report.recordsVerified} record checks, in flight at a kill: ${report.inFlightApplied} applied whole, ${report.inFlightNotApplied} not applied; ${report.searchQueuedAtKill ?? 0} records left queued for search indexing, all indexed by the restarts`,
      );
      expect(report.problems).toEqual([]);
      expect(report.kills).toBe(KILLS);
      // There was real load to survive.
      expect(report.acknowledgedWrites).toBeGreaterThanOrEqual(KILLS * 3);
    } finally {
      await testDb?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
