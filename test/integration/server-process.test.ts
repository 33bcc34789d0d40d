import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dialect } from '../support/test-db.js';

// The real entry point as a user runs it: settings from the environment, migrations on start,
// listening on 127.0.0.1, and a clean exit on SIGTERM.

const root = path.resolve(import.meta.dirname, '../..');
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

function start(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  const listening = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${output}`));
    });
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, listening, exited, output: () => output };
}

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
      const server = start(env);
      const base = await server.listening;
      const health = await fetch(`${base}/api/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok', database: 'ok' });
      const unauth = await fetch(`${base}/api/campaigns`);
      expect(unauth.status).toBe(401);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      if (dialect === 'sqlite') expect(fs.existsSync(path.join(dataDir, 'loreforge.sqlite'))).toBe(true);
    } finally {
      await database?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses to start on a bad setting, naming it in one line', async () => {
    const server = start({ PORT: 'eighty' });
    await expect(server.listening).rejects.toThrow(/PORT/);
    expect(await server.exited).toBe(1);
  });
});
