import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { markCampaignImport } from '../../src/db/repositories/campaign-imports.js';
import { loadConfig } from '../../src/config.js';
import { createDatabase, type Database } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import type { AppInstance } from '../../src/http/app-types.js';
import { buildCheckedApp, createTestUser, json, type TestUser } from '../support/app.js';
import { createTestDatabase, dialect } from '../support/test-db.js';
import { unzip } from '../support/zip.js';

// The command line opens its own connection, so each target is a database another connection can
// reach: a SQLite file in a temporary DATA_DIR, or a PostgreSQL database of the test server.
interface Target {
  env: Record<string, string>;
  /** A connection of our own to the same database. */
  database: Database;
  cleanup(): Promise<void>;
}

const temporaryDirs: string[] = [];

function temporaryDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-cli-'));
  temporaryDirs.push(dir);
  return dir;
}

async function emptyTarget(): Promise<Target> {
  if (dialect === 'postgres') {
    const database = await createTestDatabase({ migrate: false });
    return { env: { DATABASE_URL: database.url!, LOG_LEVEL: 'silent' }, database, cleanup: () => database.close() };
  }
  const dir = temporaryDir();
  const database = createDatabase({ dataDir: dir });
  return { env: { DATA_DIR: dir, LOG_LEVEL: 'silent' }, database, cleanup: () => database.close() };
}

async function cli(args: string[], env: Record<string, string | undefined>) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runCli(args, env, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { status, out: out.join('\n'), err: err.join('\n') };
}

afterAll(() => {
  for (const dir of temporaryDirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe(`cli on ${dialect}`, () => {
  it('migrate applies every pending migration, and a second run applies nothing', async () => {
    const target = await emptyTarget();
    try {
      const first = await cli(['migrate'], target.env);
      expect(first).toMatchObject({ status: 0, err: '' });
      for (const name of Object.keys(migrations)) expect(first.out).toContain(name);
      const tables = (await target.database.kysely.introspection.getTables()).map((t) => t.name);
      expect(tables).toEqual(expect.arrayContaining(['users', 'sessions', 'api_tokens', 'rate_limits', 'campaigns']));

      const second = await cli(['migrate'], target.env);
      expect(second).toMatchObject({ status: 0, err: '' });
      expect(second.out).toMatch(/no pending migrations/i);
      for (const name of Object.keys(migrations)) expect(second.out).not.toContain(name);
    } finally {
      await target.cleanup();
    }
  });

  describe('user premium', () => {
    let target: Target;
    let app: AppInstance;
    let user: TestUser;

    beforeAll(async () => {
      target = await emptyTarget();
      expect((await cli(['migrate'], target.env)).status).toBe(0);
      app = await buildCheckedApp(loadConfig(target.env), { database: target.database, logger: false });
      await app.ready();
      user = await createTestUser(target.database, `Premium-${Date.now()}@Example.com`);
    });
    afterAll(async () => {
      await app?.close();
      await target?.cleanup();
    });

    async function me() {
      // On PostgreSQL the app keeps callers in memory and learns of the command line's changes by
      // notices (src/db/caller-cache.ts), milliseconds later: wait until it has applied them.
      await app.callerCache?.notifications.sync();
      const res = await app.inject({ method: 'GET', url: '/api/auth/me', headers: user.headers });
      expect(res.statusCode).toBe(200);
      return json<{ premium: boolean; premiumUntil: string | null }>(res);
    }

    async function setPremium(until: string | null) {
      await target.database.kysely.updateTable('users').set({ premium_until: until }).where('id', '=', user.id).execute();
    }

    it('--until a date makes the user premium until 00:00 UTC that day, finding the email in any case', async () => {
      await setPremium(null);
      const res = await cli(['user', 'premium', user.email.toLowerCase(), '--until', '2099-01-31'], target.env);
      expect(res).toMatchObject({ status: 0, err: '' });
      expect(res.out).toContain('2099-01-31T00:00:00.000Z');
      expect(await me()).toEqual(expect.objectContaining({ premium: true, premiumUntil: '2099-01-31T00:00:00.000Z' }));
    });

    it('--until takes a date-time with an offset (and the --until=value spelling), stored as UTC', async () => {
      const res = await cli(['user', 'premium', user.email, '--until=2099-06-30T23:30:00.5+02:00'], target.env);
      expect(res.status).toBe(0);
      expect(await me()).toEqual(expect.objectContaining({ premium: true, premiumUntil: '2099-06-30T21:30:00.500Z' }));
    });

    it('--until a past moment is stored but does not make the user premium', async () => {
      const res = await cli(['user', 'premium', user.email, '--until', '2001-01-01'], target.env);
      expect(res.status).toBe(0);
      expect(res.out).toMatch(/past/);
      expect(await me()).toEqual(expect.objectContaining({ premium: false, premiumUntil: '2001-01-01T00:00:00.000Z' }));
    });

    it('--off ends premium', async () => {
      await setPremium('2099-01-01T00:00:00.000Z');
      expect((await me()).premium).toBe(true);
      const res = await cli(['user', 'premium', user.email, '--off'], target.env);
      expect(res).toMatchObject({ status: 0, err: '' });
      expect(await me()).toEqual(expect.objectContaining({ premium: false, premiumUntil: null }));
    });

    it.each([
      ['2099-02-30'],
      ['2099-13-01'],
      ['tomorrow'],
      ['2099-01-01T10:00'],
      ['2099-01-01T10:00:00'],
      ['2099-01-01T25:00:00Z'],
      ['31/01/2099'],
      [''],
    ])('refuses --until %j with exit status 2 and changes nothing', async (value) => {
      await setPremium('2099-01-01T00:00:00.000Z');
      const res = await cli(['user', 'premium', user.email, '--until', value], target.env);
      expect(res.status).toBe(2);
      expect(res.err).toContain('--until');
      expect(res.out).toBe('');
      expect((await me()).premiumUntil).toBe('2099-01-01T00:00:00.000Z');
    });

    it.each([
      [['user', 'premium', 'x@example.com']],
      [['user', 'premium', 'x@example.com', '--until', '2099-01-01', '--off']],
      [['user', 'premium', '--off']],
      [['user', 'premium', 'x@example.com', 'extra', '--off']],
      [['user', 'premium', 'x@example.com', '--until']],
      [['user', 'premium', 'x@example.com', '--offf']],
      [['user']],
      [['migrate', 'now']],
    ])('refuses the command line %j with exit status 2 and the usage text', async (args) => {
      const res = await cli(args, target.env);
      expect(res.status).toBe(2);
      expect(res.err).toContain('Usage: npm run cli -- <command>');
      expect(res.out).toBe('');
    });

    it('answers an unknown email with a message and exit status 1', async () => {
      const res = await cli(['user', 'premium', 'nobody@example.com', '--until', '2099-01-01'], target.env);
      expect(res.status).toBe(1);
      expect(res.err).toContain('nobody@example.com');
      expect(res.err.split('\n')).toHaveLength(1);
      expect((await cli(['user', 'premium', 'nobody@example.com', '--off'], target.env)).status).toBe(1);
    });
  });

  describe('backup', () => {
    it(dialect === 'sqlite' ? 'copies the database while it is in use; the copy serves as DATA_DIR' : 'points to pg_dump on PostgreSQL', async () => {
      const target = await emptyTarget();
      try {
        expect((await cli(['migrate'], target.env)).status).toBe(0);
        const app = await buildCheckedApp(loadConfig(target.env), { database: target.database, logger: false });
        await app.ready();
        const user = await createTestUser(target.database);
        const created = await app.inject({ method: 'POST', url: '/api/campaigns', headers: user.headers, payload: { newCampaign: { name: 'Kept safe' } } });
        expect(created.statusCode).toBe(201);
        const file = path.join(temporaryDir(), 'copy.sqlite');
        const res = await cli(['backup', file], target.env);
        await app.close();
        if (dialect === 'postgres') {
          expect(res.status).toBe(1);
          expect(res.err).toMatch(/^loreforge: backup copies a SQLite database\. On PostgreSQL use pg_dump/);
          expect(fs.existsSync(file)).toBe(false);
          return;
        }
        expect(res).toMatchObject({ status: 0, err: '' });
        expect(res.out).toMatch(/Backed up the database to .*copy\.sqlite \(\d+\.\d MiB\) in \d+\.\d s\./);
        // The copy, as loreforge.sqlite in a folder, is a database the server opens with everything in it.
        const restoredDir = temporaryDir();
        fs.copyFileSync(file, path.join(restoredDir, 'loreforge.sqlite'));
        const restored = createDatabase({ dataDir: restoredDir });
        try {
          const restoredApp = await buildCheckedApp(loadConfig({ DATA_DIR: restoredDir, LOG_LEVEL: 'silent' }), { database: restored, logger: false });
          const list = await restoredApp.inject({ method: 'GET', url: '/api/campaigns', headers: user.headers });
          expect(json<{ name: string }[]>(list).map((c) => c.name)).toEqual(['Kept safe']);
          await restoredApp.close();
        } finally {
          await restored.close();
        }
        // It never overwrites a file.
        const again = await cli(['backup', file], target.env);
        expect(again.status).toBe(1);
        expect(again.err).toMatch(/exists already; backup never overwrites a file/);
      } finally {
        await target.cleanup();
      }
    });

    it('takes exactly one file', async () => {
      for (const args of [['backup'], ['backup', 'a', 'b'], ['backup', '']]) {
        const res = await cli(args, { LOG_LEVEL: 'silent' });
        expect(res.status, args.join(' ')).toBe(2);
        expect(res.err).toMatch(/backup takes one argument: the file to write/);
      }
    });
  });

  describe('export', () => {
    it('writes the campaign as the API exports it, in each format, and never overwrites a file', async () => {
      const target = await emptyTarget();
      try {
        expect((await cli(['migrate'], target.env)).status).toBe(0);
        const app = await buildCheckedApp(loadConfig(target.env), { database: target.database, logger: false });
        await app.ready();
        const user = await createTestUser(target.database);
        const created = json<{ id: number; slug: string }>(await app.inject({ method: 'POST', url: '/api/campaigns', headers: user.headers, payload: { newCampaign: { name: 'Taken out' } } }));
        const dir = temporaryDir();
        // The same bytes as the API's (exportCampaign serves both), but for the moment of the export.
        const sameMoment = (text: string) => text.replace(/"exportedAt":"[^"]+"/, '"exportedAt":""');
        for (const format of ['archive', 'json', 'markdown']) {
          const file = path.join(dir, `out.${format}`);
          const res = await cli(['export', created.slug, '--format', format, '--out', file], target.env);
          expect(res, format).toMatchObject({ status: 0, err: '' });
          expect(res.out).toMatch(new RegExp(`Exported Taken out \\(${format}\\) to .*out\\.${format} \\(\\d+\\.\\d MiB\\) in \\d+\\.\\d s\\.`));
          const bytes = fs.readFileSync(file);
          const api = (await app.inject({ method: 'GET', url: `/api/campaigns/${created.slug}/export?format=${format}`, headers: user.headers })).rawPayload;
          if (format === 'json') {
            expect(JSON.parse(bytes.toString('utf8'))).toMatchObject({ format: 'loreforge-campaign', campaign: { slug: created.slug } });
            expect(sameMoment(bytes.toString('utf8'))).toBe(sameMoment(api.toString('utf8')));
          } else {
            expect(bytes.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
            const entries = async (zip: Buffer) => [...(await unzip(zip))].map(([name, content]) => [name, sameMoment(content.toString('utf8'))]);
            expect(await entries(bytes), format).toEqual(await entries(api));
          }
        }
        await app.close();
        // Each export imports back as a new campaign of the named owner.
        for (const format of ['archive', 'json', 'markdown']) {
          const res = await cli(['import', path.join(dir, `out.${format}`), '--owner', user.email], target.env);
          expect(res, format).toMatchObject({ status: 0, err: '' });
          expect(res.out).toMatch(new RegExp(`Imported Taken out \\(${format}\\) as the campaign taken-out-[a-z0-9]+, owned by ${user.email}: \\d+ thing types?, 0 things, 0 arcs, 0 links, 0 images in \\d+\\.\\d s\\.`));
        }
        // --dry-run says what it would create and creates nothing; --visibility gm makes every record GM-only.
        const countCampaigns = async () => Number((await target.database.kysely.selectFrom('campaigns').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
        const before = await countCampaigns();
        const dry = await cli(['import', path.join(dir, 'out.archive'), '--owner', user.email, '--dry-run'], target.env);
        expect(dry).toMatchObject({ status: 0, err: '' });
        expect(dry.out).toMatch(new RegExp(`Dry run: out\\.archive \\(archive\\) would be imported for ${user.email} with \\d+ thing types?, 0 things, 0 arcs, 0 links, 0 images; nothing was created`));
        expect(await countCampaigns()).toBe(before);
        const hidden = await cli(['import', path.join(dir, 'out.json'), '--owner', user.email, '--visibility', 'gm'], target.env);
        expect(hidden).toMatchObject({ status: 0, err: '' });
        expect(hidden.out).toContain('Every thing and arc is GM-only.');
        expect((await cli(['import', path.join(dir, 'out.json'), '--owner', user.email, '--visibility', 'all'], target.env)).status).toBe(2);
        const nobody = await cli(['import', path.join(dir, 'out.json'), '--owner', 'nobody@example.test'], target.env);
        expect(nobody).toMatchObject({ status: 1, err: 'loreforge: no user has the email address "nobody@example.test"' });
        fs.writeFileSync(path.join(dir, 'bad.json'), '{"format":"other"}');
        const bad = await cli(['import', path.join(dir, 'bad.json'), '--owner', user.email], target.env);
        expect(bad.status).toBe(1);
        expect(bad.err).toBe('loreforge: bad.json: /format must be "loreforge-campaign" (and 1 more problem) (invalid_import)');
        const again = await cli(['export', created.slug, '--out', path.join(dir, 'out.json')], target.env);
        expect(again.status).toBe(1);
        expect(again.err).toMatch(/exists already; export never overwrites a file/);
        const missing = await cli(['export', 'no-such-campaign', '--out', path.join(dir, 'other.zip')], target.env);
        expect(missing.status).toBe(1);
        expect(missing.err).toBe('loreforge: no campaign has the slug "no-such-campaign"');
        expect(fs.existsSync(path.join(dir, 'other.zip'))).toBe(false);
        // A campaign an import is still writing is not there yet, for the command line either.
        await markCampaignImport(target.database.kysely, created.id, [], new Date().toISOString());
        const unfinished = await cli(['export', created.slug, '--out', path.join(dir, 'unfinished.zip')], target.env);
        expect(unfinished).toMatchObject({ status: 1, err: `loreforge: no campaign has the slug "${created.slug}"` });
        expect(fs.existsSync(path.join(dir, 'unfinished.zip'))).toBe(false);
      } finally {
        await target.cleanup();
      }
    });

    it('import needs a file and --owner', async () => {
      for (const args of [['import'], ['import', 'a'], ['import', 'a', 'b', '--owner', 'x@y'], ['import', 'a', '--owner', 'x@y', '--format', 'json']]) {
        const res = await cli(args, { LOG_LEVEL: 'silent' });
        expect(res.status, args.join(' ')).toBe(2);
      }
    });

    it('needs a slug and --out, and a known format', async () => {
      for (const args of [['export'], ['export', 'a'], ['export', 'a', 'b', '--out', 'x'], ['export', 'a', '--out', 'x', '--format', 'pdf'], ['export', 'a', '--out', 'x', '--off']]) {
        const res = await cli(args, { LOG_LEVEL: 'silent' });
        expect(res.status, args.join(' ')).toBe(2);
      }
    });
  });

  describe('which database', () => {
    it('every command says which database it opened, never with a password', async () => {
      const target = await emptyTarget();
      try {
        for (const args of [['migrate'], ['search', 'reindex'], ['user', 'premium', 'nobody@example.com', '--off']]) {
          const res = await cli(args, target.env);
          const first = res.out.split('\n')[0]!;
          if (dialect === 'postgres') {
            const url = new URL(target.env.DATABASE_URL!);
            expect(first).toBe(`Database: PostgreSQL database "${url.pathname.slice(1)}" on ${url.hostname}:${url.port}`);
            expect(res.out + res.err).not.toContain(decodeURIComponent(url.password));
          } else {
            expect(first).toBe(`Database: SQLite file ${path.resolve(target.env.DATA_DIR!, 'loreforge.sqlite')}`);
          }
        }
      } finally {
        await target.cleanup();
      }
    });

    // SQLite only: a PostgreSQL database is never created by opening it.
    if (dialect === 'sqlite') it('refuses to create a new SQLite file for user premium and search reindex, unless told to with --create', async () => {
      const dir = temporaryDir();
      const file = path.join(dir, 'loreforge.sqlite');
      for (const args of [['user', 'premium', 'gm@example.com', '--until', '2099-01-01'], ['search', 'reindex']]) {
        const res = await cli(args, { DATA_DIR: dir, LOG_LEVEL: 'silent' });
        expect(res.status).toBe(1);
        expect(res.out).toBe(`Database: SQLite file ${file}`);
        expect(res.err.split('\n')).toHaveLength(1);
        expect(res.err).toContain(`there is no database at ${file}`);
        expect(res.err).toContain('DATA_DIR');
        expect(res.err).toContain('--create');
        expect(fs.existsSync(file)).toBe(false);
      }
      const reindex = await cli(['search', 'reindex', '--create'], { DATA_DIR: dir, LOG_LEVEL: 'silent' });
      expect(reindex.status).toBe(0);
      expect(fs.existsSync(file)).toBe(true);
      // Now the file exists, the data commands run against it without --create.
      const premium = await cli(['user', 'premium', 'gm@example.com', '--off'], { DATA_DIR: dir, LOG_LEVEL: 'silent' });
      expect(premium.status).toBe(1);
      expect(premium.err).toContain('no user has the email address "gm@example.com"');
    });

    if (dialect === 'sqlite') it('lets migrate create the SQLite file: it is how a database is set up', async () => {
      const dir = temporaryDir();
      const res = await cli(['migrate'], { DATA_DIR: dir, LOG_LEVEL: 'silent' });
      expect(res.status).toBe(0);
      expect(fs.existsSync(path.join(dir, 'loreforge.sqlite'))).toBe(true);
    });
  });

  describe('usage and failures', () => {
    it('help (and --help) prints the usage on stdout with exit status 0', async () => {
      for (const args of [['help'], ['--help'], ['user', 'premium', '-h']]) {
        const res = await cli(args, {});
        expect(res.status).toBe(0);
        expect(res.out).toContain('user premium <email> --until <date>');
        expect(res.err).toBe('');
      }
    });

    it('no command or an unknown one prints the usage on stderr with exit status 2', async () => {
      for (const args of [[], ['frobnicate'], ['user', 'demote', 'x@example.com']]) {
        const res = await cli(args, {});
        expect(res.status).toBe(2);
        expect(res.err).toContain('Usage: npm run cli -- <command>');
        expect(res.out).toBe('');
      }
    });

    it('a bad setting stops with one line naming it and exit status 1', async () => {
      const res = await cli(['migrate'], { PORT: 'eighty', DATA_DIR: temporaryDir() });
      expect(res.status).toBe(1);
      expect(res.err.split('\n')).toHaveLength(1);
      expect(res.err).toContain('PORT');
    });

    it('a database that cannot be opened is a one-line error with exit status 1', async () => {
      const file = path.join(temporaryDir(), 'not-a-directory');
      fs.writeFileSync(file, 'x');
      const res = await cli(['migrate'], { DATA_DIR: file });
      expect(res.status).toBe(1);
      expect(res.err.split('\n')).toHaveLength(1);
      expect(res.err).toMatch(/^loreforge: /);
    });

    // One real process (tsx takes seconds to start): the entry point runs and its status reaches the shell.
    it('runs as `tsx src/cli.ts`, passing the exit status on', async () => {
      const tsx = path.resolve('node_modules/.bin/tsx');
      const failed = await promisify(execFile)(tsx, ['src/cli.ts', 'frobnicate']).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => error,
      );
      expect(failed.code).toBe(2);
      expect(failed.stderr).toContain('unknown command "frobnicate"');
      expect(failed.stderr).toContain('Usage: npm run cli -- <command>');
    });
  });
});
