import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startProcess } from '../../toolkit/processes.js';
import { killAllStarted, repoRoot, startServer, stopServer } from '../../toolkit/server.js';
import { createTestDatabase, dialect } from '../support/test-db.js';

// The real entry point as a user runs it: settings from the environment, migrations on start,
// listening on 127.0.0.1, and a clean exit on SIGTERM.

afterAll(killAllStarted);

describe('the server process', () => {
  it('starts with migrations applied, serves, and exits cleanly on SIGTERM', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-proc-'));
    let env: Record<string, string> = { DATA_DIR: dataDir };
    let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
    if (dialect === 'postgres') {
      database = await createTestDatabase({ migrate: false });
      env = { ...env, DATABASE_URL: database.url! };
    }
    try {
      const server = await startServer({ env });
      const base = server.base;
      const health = await fetch(`${base}/api/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok', database: 'ok' });
      const unauth = await fetch(`${base}/api/campaigns`);
      expect(unauth.status).toBe(401);
      expect(await stopServer(server, 'SIGTERM')).toBe(0);
      if (dialect === 'sqlite') expect(fs.existsSync(path.join(dataDir, 'loreforge.sqlite'))).toBe(true);
    } finally {
      await database?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses to start on a bad setting, naming it in one line', async () => {
    const server = startProcess('loreforge', process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: repoRoot,
      env: { ...process.env, HOST: '127.0.0.1', PORT: 'eighty' },
    });
    expect((await server.exited).code).toBe(1);
    const lines = server.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/PORT/);
  });
});
