import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, startServer, stopServer, type ServerProcess } from '../../toolkit/server.js';
import { createTestDatabase, dialect, type TestDatabase } from '../support/test-db.js';

// Every example of the README is a script under docs/examples/, quoted in the README word for word,
// and run here in order, in one shell, against a real server: an example that stops working, or a
// README that stops quoting it, fails the suite. A new example is a new numbered file.

const examplesDir = path.join(repoRoot, 'docs', 'examples');
const examples = fs
  .readdirSync(examplesDir)
  .filter((name) => /^\d\d-.*\.sh$/.test(name))
  .sort();

describe('the README’s examples', () => {
  it('are each quoted in the README exactly, after a marker naming the file', () => {
    const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    expect(examples.length).toBeGreaterThan(0);
    for (const name of examples) {
      const marker = `<!-- example: docs/examples/${name} -->`;
      const at = readme.indexOf(marker);
      expect(at, `${name} is not quoted in the README`).toBeGreaterThan(-1);
      const block = /^```sh\n([\s\S]*?)^```$/m.exec(readme.slice(at + marker.length));
      expect(block?.[1], `${name}: the README's block differs from the script`).toBe(fs.readFileSync(path.join(examplesDir, name), 'utf8'));
    }
  });

  describe(`run against a real server on ${dialect}`, () => {
    let server: ServerProcess;
    let database: TestDatabase | undefined;
    let dataDir: string;
    let workDir: string;
    const settings: Record<string, string> = {};

    beforeAll(async () => {
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-examples-data-'));
      settings.DATA_DIR = dataDir;
      if (dialect === 'postgres') {
        database = await createTestDatabase();
        settings.DATABASE_URL = database.url!;
      }
      server = await startServer({ env: settings });
      // The scripts run where a reader runs them, in the checkout (for `npm run cli`), but write their
      // files (the cookie jar, the image) into a folder of their own.
      workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-examples-'));
      for (const entry of ['package.json', 'node_modules', 'src', 'tsconfig.json']) {
        fs.symlinkSync(path.join(repoRoot, entry), path.join(workDir, entry));
      }
    });
    afterAll(async () => {
      if (server) await stopServer(server);
      await database?.close();
      for (const dir of [dataDir, workDir]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    it('run in order in one shell, every call answered with success', async () => {
      const script = ['set -euo pipefail', ...examples.map((name) => `echo "== ${name}"; . ${JSON.stringify(path.join(examplesDir, name))}`)].join('\n');
      const run = await promisify(execFile)('bash', ['-c', script], {
        cwd: workDir,
        env: { ...process.env, ...settings, B: server.base, EMAIL: `gm-${Date.now()}@example.com`, LOG_LEVEL: 'silent' },
        timeout: 120_000,
        maxBuffer: 16 * 1024 * 1024,
      }).catch((error: { code?: number; stdout?: string; stderr?: string }) => {
        throw new Error(`an example failed (exit ${error.code}):\n${error.stdout ?? ''}\n${error.stderr ?? ''}`);
      });
      for (const name of examples) expect(run.stdout).toContain(`== ${name}`);
      // A few answers the guide promises.
      expect(run.stdout).toContain('"name":"Gundren Rockseeker, the missing"');
      expect(run.stdout).toContain('"slug":"gundren-rockseeker"');
      expect(run.stdout).toContain('200 image/png');
      expect(run.stdout).toContain('"label":"Map of Phandalin"');
      expect(run.stdout).toMatch(/Database: (SQLite file|PostgreSQL database)/);
      expect(run.stdout).toMatch(/"type":"thing","id":\d+,"slug":"sildar-hallwinter","name":"Sildar Hallwinter","fields":\["description"\]/);
      expect(run.stdout).toMatch(/<a class=\\"mention\\" data-type=\\"thing\\" data-id=\\"\d+\\" href=\\"\/campaigns\/[a-z0-9-]+\/things\/gundren-rockseeker\\">Gundren Rockseeker, the missing<\/a>/);
      expect(run.stdout).toContain('Travels with [Gundren Rockseeker, the missing](/campaigns/');
      // Sharing: the player reads Sildar without his secret block, never sees Nezznar, cannot write.
      expect(run.stdout).toContain('"role": "player"');
      const asPlayer = run.stdout.split('\n').filter((line) => line.startsWith('[{"type":"paragraph","children":[{"text":"Travels with '));
      expect(asPlayer).toHaveLength(2);
      for (const line of asPlayer) expect(line).not.toContain('Secretly');
      expect(run.stdout).toContain('"role_forbidden"');
      expect(run.stdout).toMatch(/\n404\n[\s\S]*\[\]\n/);
      expect(run.stdout).toContain('{"name":"Pip","role":"player"}');
      // The changes feed: after the first pages, one created-then-deleted thing is one tombstone, and
      // its type is listed once (its thingCount moved).
      expect(run.stdout).toMatch(/== 06-changes\.sh\n\d+\n\{"kind":"thing-type","op":"upsert"\}\n\{"kind":"thing","op":"delete"\}\n/);
      // Export and import: the archive comes back as a new campaign; a bad document is a 400 naming it.
      expect(run.stdout).toMatch(/== 07-export-import\.sh\n\{"slug":"[a-z0-9-]+-[a-z0-9]{6}","import":\{"format":"archive","things":\d+,"arcs":\d+,"links":\d+,"assets":\d+\}\}\n/);
      expect(run.stdout).toContain('{"code":"invalid_import","detail":"the request body: /version must be 1 (the only version this service reads)"}');
      expect(run.stdout).toContain('\\*not\\* a [Gundren Rockseeker, the missing]');
      expect(run.stdout).toContain("> [!secret]\n> Secretly a Lords' Alliance agent.");
      // Records with structure: declared fields, a link property as a backlink, what players get, tags.
      expect(run.stdout).toMatch(/== 10-properties\.sh\n\{"fields":\[\{"key":"species","kind":"text"\},\{"key":"level","kind":"number"\}\],"thingCount":\d+\}\n/);
      expect(run.stdout).toMatch(
        /\[\{"key":"species","value":"elf"\},\{"key":"employer","value":\{"targetType":"thing","targetId":\d+\}\},\{"key":"watches","value":\{"targetType":"thing","targetId":\d+\}\},\{"key":"secret","value":"a Harper agent"\},\{"key":"level","value":null\}\]\n\["species","employer","level"\]\n/,
      );
      expect(run.stdout).toContain('{"slug":"sister-garaele","fields":["properties.employer"]}');
      expect(run.stdout).toContain('"/newThing/properties/0/value"\n["Sister Garaele"]\n[{"tag":"ally","things":1,"arcs":0},{"tag":"Harpers","things":1,"arcs":0}]\n');
      expect(run.stdout).toContain('[{"name":"Sister Garaele","alias":"Lady Silverleaf"}]');
      // History: the named revision is not merged into; its text comes back by a restore.
      expect(run.stdout).toMatch(/== 09-history\.sh\n[\s\S]*\[\{"name":null,"fields":\["description"\]\},\{"name":"Before the session",[\s\S]*\{"text":"Travels with "\}\n\{"text":"Travels with "\}\n/);
    });
  });
});
