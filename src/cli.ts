import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { pipeline } from 'node:stream/promises';
import { Accounts } from './accounts/accounts.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createImageHost } from './images/index.js';
import { EXPORT_FORMATS, exportCampaign, type ExportFormat } from './portability/export.js';
import { createDatabase, describeDatabase, isPostgresUrl, sqliteFileOf, type Database } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { vacuumInto } from './db/repositories/backup.js';
import { findCampaignBySlug } from './db/repositories/campaign-export.js';
import { findUserByEmail, setPremiumUntil } from './db/repositories/users.js';
import { ImportBudget } from './portability/budget.js';
import { dryRunImport, fileKind, importCampaign } from './portability/import.js';
import type { ImportCounts } from './portability/write-plan.js';
import { parseDateTime } from './domain/time.js';
import { rebuildMentionsIndex } from './db/indexes/mentions.js';
import { rebuildSearchIndex } from './db/indexes/search.js';

// The admin command line: `npm run cli -- <command>`, against the same settings as the server.
// runCli does the work and returns the exit status, so tests run it in-process.

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

export const USAGE = `Usage: npm run cli -- <command>

Commands:
  migrate                                  apply pending database migrations
  user premium <email> --until <date>      make the user premium until <date>: an ISO 8601 date
                                           (2027-01-31, meaning 00:00 UTC that day) or date-time
                                           with a time zone (2027-01-31T18:00:00Z, …+01:00)
  user premium <email> --off               end the user's premium
  user reset-password <email>              print a one-time link to the web app's page for setting
                                           a new password, valid one hour (PUBLIC_BASE_URL/
                                           reset-password#…); give it to the user privately
  search reindex                           rebuild the search and mentions indexes of every campaign
                                           from its records
  backup <file>                            a consistent copy of the SQLite database, taken while the
                                           server runs (restore: put it in a folder as
                                           loreforge.sqlite and point DATA_DIR there, with the
                                           images/ folder copied along); on PostgreSQL use pg_dump
  export <campaign-slug> --out <file> [--format archive|json|markdown]
                                           export a campaign (default: archive, a zip of
                                           campaign.json and its images; json; or markdown, an
                                           Obsidian vault); never overwrites a file
  import <file> --owner <email> [--dry-run] [--visibility gm]
                                           import a campaign from an export (archive, json or
                                           markdown) or a Markdown vault made elsewhere, as a new
                                           campaign owned by that user; all or nothing. --dry-run:
                                           read and check it, say what it would create, create
                                           nothing. --visibility gm: every thing and arc GM-only
  help                                     show this text

Settings are read from the same environment variables as the server: DATABASE_URL (PostgreSQL), or
else DATA_DIR (the SQLite file DATA_DIR/loreforge.sqlite; default ./data). Every command first says
which database it opened. Commands that work on existing data (user premium, user reset-password, search reindex, backup, export, import) refuse
to create a new SQLite file: give the server's DATA_DIR, or add --create to start an empty database.
Pending migrations are applied before every command.
Exit status: 0 done, 1 failed (bad setting, unknown user, database error), 2 bad command line.`;

type Command =
  | { kind: 'help' }
  | { kind: 'migrate' }
  | { kind: 'premium'; email: string; until: string | null; create: boolean }
  | { kind: 'reset-password'; email: string; create: boolean }
  | { kind: 'reindex'; create: boolean }
  | { kind: 'backup'; file: string; create: false }
  | { kind: 'export'; slug: string; format: ExportFormat; out: string; create: false }
  | { kind: 'import'; file: string; owner: string; create: boolean; dryRun: boolean; visibility: 'gm' | undefined };

class UsageError extends Error {}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** An ISO 8601 date (midnight UTC) or date-time with a zone, as the UTC instant with milliseconds. */
export function parseUntil(value: string): string | undefined {
  const date = DATE_ONLY.exec(value);
  return parseDateTime(date ? `${value}T00:00:00Z` : value);
}

function parseCommand(argv: string[]): Command {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        until: { type: 'string' },
        off: { type: 'boolean' },
        create: { type: 'boolean' },
        format: { type: 'string' },
        out: { type: 'string' },
        owner: { type: 'string' },
        'dry-run': { type: 'boolean' },
        visibility: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { positionals, values } = parsed;
  const [name, ...rest] = positionals;
  if (values.help || name === 'help') return { kind: 'help' };
  if (name === undefined) throw new UsageError('no command given');
  const noOptions =
    values.until === undefined && values.off === undefined && values.format === undefined && values.out === undefined && values.owner === undefined && values['dry-run'] === undefined && values.visibility === undefined;
  const create = values.create === true;

  if (name === 'migrate') {
    if (rest.length > 0 || !noOptions || create) throw new UsageError('migrate takes no arguments');
    return { kind: 'migrate' };
  }
  if (name === 'search' && rest[0] === 'reindex') {
    if (rest.length > 1 || !noOptions) throw new UsageError('search reindex takes no arguments but --create');
    return { kind: 'reindex', create };
  }
  if (name === 'backup') {
    if (rest.length !== 1 || rest[0]!.trim() === '' || !noOptions || create) throw new UsageError('backup takes one argument: the file to write');
    return { kind: 'backup', file: rest[0]!, create: false };
  }
  if (name === 'export') {
    if (rest.length !== 1 || rest[0]!.trim() === '') throw new UsageError('export takes one argument: the campaign’s slug');
    if (values.until !== undefined || values.off !== undefined || create) throw new UsageError('export takes only --format and --out');
    if (values.out === undefined || values.out.trim() === '') throw new UsageError('export needs --out <file>');
    const format = values.format ?? 'archive';
    if (!(EXPORT_FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format must be archive, json or markdown, got "${format}"`);
    return { kind: 'export', slug: rest[0]!.trim(), format: format as ExportFormat, out: values.out, create: false };
  }
  if (name === 'import') {
    if (rest.length !== 1 || rest[0]!.trim() === '') throw new UsageError('import takes one argument: the file to import');
    if (values.until !== undefined || values.off !== undefined || values.format !== undefined || values.out !== undefined) {
      throw new UsageError('import takes only --owner, --dry-run, --visibility gm (and --create)');
    }
    if (values.owner === undefined || values.owner.trim() === '') throw new UsageError('import needs --owner <email>: the user who will own the campaign');
    if (values.visibility !== undefined && values.visibility !== 'gm') throw new UsageError(`--visibility takes gm (every imported thing and arc GM-only), not "${values.visibility}"`);
    return { kind: 'import', file: rest[0]!, owner: values.owner.trim(), create, dryRun: values['dry-run'] === true, visibility: values.visibility === 'gm' ? 'gm' : undefined };
  }
  if (name === 'user' && rest[0] === 'reset-password') {
    const [, email, ...extra] = rest;
    if (email === undefined || email.trim() === '') throw new UsageError('user reset-password needs an email address');
    if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
    if (!noOptions) throw new UsageError('user reset-password takes no options but --create');
    return { kind: 'reset-password', email: email.trim(), create };
  }
  if (name === 'user' && rest[0] === 'premium') {
    const [, email, ...extra] = rest;
    if (email === undefined || email.trim() === '') throw new UsageError('user premium needs an email address');
    if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
    if (values.off && values.until !== undefined) throw new UsageError('give either --until <date> or --off, not both');
    if (values.off) return { kind: 'premium', email: email.trim(), until: null, create };
    if (values.until === undefined) throw new UsageError('user premium needs --until <date> or --off');
    const until = parseUntil(values.until.trim());
    if (until === undefined) {
      throw new UsageError(
        `--until must be an ISO 8601 date (2027-01-31) or date-time with a time zone (2027-01-31T18:00:00Z), got "${values.until}"`,
      );
    }
    return { kind: 'premium', email: email.trim(), until, create };
  }
  throw new UsageError(`unknown command "${positionals.join(' ')}"`);
}

function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describeError(error.errors[0]);
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const message = error.message || error.name;
    return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
  }
  return String(error);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; seconds: string }> {
  const started = Date.now();
  const result = await work();
  return { result, seconds: ((Date.now() - started) / 1000).toFixed(1) };
}

async function execute(command: Exclude<Command, { kind: 'help' }>, database: Database, config: Config, io: CliIo): Promise<number> {
  const applied = await migrateToLatest(database);
  if (applied.length > 0) io.out(`Applied ${plural(applied.length, 'migration')}: ${applied.join(', ')}`);
  switch (command.kind) {
    case 'migrate':
      if (applied.length === 0) io.out('No pending migrations: the database is up to date.');
      return 0;
    case 'reindex': {
      const search = await timed(() => rebuildSearchIndex(database));
      io.out(`Rebuilt the search index: ${plural(search.result.campaigns, 'campaign')}, ${plural(search.result.documents, 'document')} in ${search.seconds} s.`);
      const mentions = await timed(() => rebuildMentionsIndex(database));
      io.out(`Rebuilt the mentions index: ${plural(mentions.result.campaigns, 'campaign')}, ${plural(mentions.result.mentions, 'mention')} in ${mentions.seconds} s.`);
      return 0;
    }
    case 'backup':
      return backup(database, command.file, io);
    case 'export':
      return exportToFile(database, config, command, io);
    case 'import':
      return importFromFile(database, config, command, io);
    case 'reset-password': {
      const issued = await new Accounts(database, config).issuePasswordReset(command.email);
      if (!issued) {
        io.err(`loreforge: no user has the email address "${command.email}"`);
        return 1;
      }
      io.out(`A one-time link for ${issued.user.email} to set a new password, valid until ${issued.expiresAt}:`);
      io.out(issued.url);
      io.out('It works once; a newer link replaces it. Give it to the user privately: whoever has it can take over the account.');
      return 0;
    }
    case 'premium': {
      if (!(await setPremiumUntil(database.kysely, command.email, command.until))) {
        io.err(`loreforge: no user has the email address "${command.email}"`);
        return 1;
      }
      if (command.until === null) io.out(`${command.email} is no longer premium.`);
      else {
        const past = Date.parse(command.until) <= Date.now() ? ' (a moment already past: the user is not premium)' : '';
        io.out(`${command.email} is premium until ${command.until}${past}.`);
      }
      return 0;
    }
  }
}

/**
 * `backup <file>`: SQLite's VACUUM INTO, which reads the database in one transaction while the
 * server goes on writing, and writes a compact, consistent copy. A file that exists is never
 * overwritten. PostgreSQL has its own tool for this.
 */
async function backup(database: Database, file: string, io: CliIo): Promise<number> {
  if (database.dialect === 'postgres') {
    io.err('loreforge: backup copies a SQLite database. On PostgreSQL use pg_dump, for example: pg_dump --format=custom "$DATABASE_URL" > loreforge.dump');
    return 1;
  }
  const target = path.resolve(file);
  if (fs.existsSync(target)) {
    io.err(`loreforge: ${target} exists already; backup never overwrites a file.`);
    return 1;
  }
  const { seconds } = await timed(() => vacuumInto(database.kysely, target));
  const bytes = fs.statSync(target).size;
  io.out(`Backed up the database to ${target} (${(bytes / 1024 / 1024).toFixed(1)} MiB) in ${seconds} s.`);
  io.out('To restore it: copy it into a folder as loreforge.sqlite, copy the images/ folder of DATA_DIR along, and start the server with DATA_DIR set to that folder.');
  return 0;
}

/** `export <slug> --out <file>`: the same export as the API's, streamed into a new file. */
async function exportToFile(database: Database, config: Config, command: Extract<Command, { kind: 'export' }>, io: CliIo): Promise<number> {
  const campaign = await findCampaignBySlug(database.kysely, command.slug);
  if (!campaign) {
    io.err(`loreforge: no campaign has the slug "${command.slug}"`);
    return 1;
  }
  const target = path.resolve(command.out);
  let file: fs.WriteStream;
  try {
    // 'wx': fails when the file exists, in the same step that creates it.
    file = fs.createWriteStream(target, { flags: 'wx' });
    await new Promise<void>((resolve, reject) => file.once('open', () => resolve()).once('error', reject));
  } catch (error) {
    io.err((error as { code?: string }).code === 'EEXIST' ? `loreforge: ${target} exists already; export never overwrites a file.` : `loreforge: ${describeError(error)}`);
    return 1;
  }
  const imageHost = await createImageHost(config);
  try {
    const { stream } = exportCampaign(database, imageHost, campaign, command.format);
    const { seconds } = await timed(() => pipeline(stream, file));
    io.out(`Exported ${campaign.name} (${command.format}) to ${target} (${(fs.statSync(target).size / 1024 / 1024).toFixed(1)} MiB) in ${seconds} s.`);
    return 0;
  } catch (error) {
    fs.rmSync(target, { force: true });
    throw error;
  } finally {
    await imageHost.close();
  }
}

/** `import <file> --owner <email>`: the same import as the API's (the operator may store images without premium). */
async function importFromFile(database: Database, config: Config, command: Extract<Command, { kind: 'import' }>, io: CliIo): Promise<number> {
  const owner = await findUserByEmail(database.kysely, command.owner);
  if (!owner) {
    io.err(`loreforge: no user has the email address "${command.owner}"`);
    return 1;
  }
  const file = path.resolve(command.file);
  let kind: 'zip' | 'json';
  try {
    kind = await fileKind(file);
  } catch (error) {
    io.err(`loreforge: ${describeError(error)}`);
    return 1;
  }
  const imageHost = await createImageHost(config);
  try {
    const source = { file, kind, fileName: path.basename(file), label: path.basename(file) };
    const importer = { ownerId: owner.id, mayStoreImages: true };
    const options = { visibility: command.visibility };
    const budget = new ImportBudget(config.importMaxExpandedBytes);
    const described = (counts: ImportCounts) =>
      `${plural(counts.thingTypes, 'thing type')}, ${plural(counts.things, 'thing')}, ${plural(counts.arcs, 'arc')}, ${plural(counts.links, 'link')}, ${plural(counts.assets, 'image')}`;
    let report;
    if (command.dryRun) {
      const { result, seconds } = await timed(() => dryRunImport(database, imageHost, source, importer, config.maxUploadBytes, budget, options));
      report = result;
      io.out(`Dry run: ${path.basename(file)} (${report.format}) would be imported for ${owner.email} with ${described(report.counts)}; nothing was created (${seconds} s).`);
    } else {
      const { result, seconds } = await timed(() => importCampaign(database, imageHost, source, importer, config.maxUploadBytes, budget, options));
      report = result.report;
      io.out(`Imported ${result.campaign.name} (${report.format}) as the campaign ${result.campaign.slug}, owned by ${owner.email}: ${described(report.counts)} in ${seconds} s.`);
    }
    if (command.visibility === 'gm') io.out('Every thing and arc is GM-only.');
    for (const warning of report.warnings) io.out(`Note: ${warning.entry}: ${warning.problem}`);
    return 0;
  } finally {
    await imageHost.close();
  }
}

/** Runs one command line (without the `node script` part); resolves to the exit status. */
export async function runCli(argv: string[], env: Record<string, string | undefined>, io: CliIo): Promise<number> {
  let command: Command;
  try {
    command = parseCommand(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`loreforge: ${error.message}`);
    io.err('');
    io.err(USAGE);
    return 2;
  }
  if (command.kind === 'help') {
    io.out(USAGE);
    return 0;
  }

  let config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.err(`loreforge: ${error.message}`);
    return 1;
  }

  const target = { url: config.databaseUrl, dataDir: config.dataDir };
  io.out(`Database: ${describeDatabase(target)}`);
  // A mistyped or missing DATA_DIR would otherwise open a new, empty database and report that the
  // user does not exist: commands on existing data need the file to be there.
  if (command.kind !== 'migrate' && !command.create && !isPostgresUrl(config.databaseUrl)) {
    const file = path.resolve(sqliteFileOf(target));
    if (!fs.existsSync(file)) {
      io.err(
        `loreforge: there is no database at ${file}. Run the command with the server's settings (DATA_DIR, or DATABASE_URL for PostgreSQL), or add --create to start a new, empty database there.`,
      );
      return 1;
    }
  }

  let database: Database | undefined;
  try {
    database = createDatabase(target);
    return await execute(command, database, config, io);
  } catch (error) {
    io.err(`loreforge: ${describeError(error)}`);
    return 1;
  } finally {
    await database?.close();
  }
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return import.meta.url === pathToFileURL(fs.realpathSync(script)).href;
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  const io: CliIo = { out: (line) => process.stdout.write(`${line}\n`), err: (line) => process.stderr.write(`${line}\n`) };
  runCli(process.argv.slice(2), process.env, io).then(
    (status) => {
      process.exitCode = status;
    },
    (error: unknown) => {
      io.err(`loreforge: ${describeError(error)}`);
      process.exitCode = 1;
    },
  );
}
