import fs from 'node:fs';
import path from 'node:path';
import { SQLite, type SQLiteDatabase, type SQLiteStatement } from './sqlite-driver.js';
import { AsyncResource } from 'node:async_hooks';
import { Kysely, PostgresAdapter, PostgresDialect, SqliteDialect, sql, type LogEvent, type Transaction } from 'kysely';
import pg from 'pg';
import { databaseErrorCode } from './errors.js';
import { GroupCommit } from './group-commit.js';
import { currentWriteScope } from './write-scope.js';
import { pipelineTransactions } from './pipeline.js';
import { isStalePlan, prepareRepeatedStatements, StatementNames } from './prepared.js';
import type { DB } from './schema.js';
import { isoOfTimestamp, isoOfTimestamptz } from './timestamps.js';

export type Dialect = 'sqlite' | 'postgres';

/** What a repository function runs on: the database, or a transaction of it. */
export type Db = Kysely<DB> | Transaction<DB>;

export interface WriteOptions {
  /**
   * PostgreSQL: the transaction announces its campaign's new content_version itself once committed
   * (repositories/common.ts campaignWrite, migration 0028) and sends no notice of its own for it.
   * Any other write may send notices of its own: its request's answer waits for this instance to
   * apply them (write-scope.ts).
   */
  announced?: boolean;
}

export interface Database {
  kysely: Kysely<DB>;
  dialect: Dialect;
  /**
   * Runs `fn` in a write transaction: committed if it returns, rolled back if it throws. On SQLite,
   * writes that wait together share one commit (group-commit.ts); on PostgreSQL each is its own.
   *
   * The one way into a write transaction: every write of the service goes through it, so group
   * commit sees them all (a second way in would wait behind a group for SQLite's one connection,
   * or hold it while a group waits). Migrations are the exception: Kysely's Migrator opens its
   * own transaction, before any request is served. `fn` runs in its caller's asynchronous context
   * (the request's actor, access/acting.ts), whichever write started the transaction.
   */
  write<T>(fn: (trx: Transaction<DB>) => Promise<T>, options?: WriteOptions): Promise<T>;
  /**
   * PostgreSQL: how many transactions were re-run after a deadlock (40P01) or a serialization
   * failure (40001), a safety net for the lock order (repositories/common.ts WriteMode): a write
   * that hits one is rolled back and run again, up to WRITE_ATTEMPTS times in all, so `fn` must
   * touch only the database. Always 0 on SQLite.
   */
  readonly reruns: number;
  /** Called on each re-run (the app logs it at warn). */
  onRerun?: ((info: { code: string; attempt: number }) => void) | undefined;
  /** Called after each write transaction commits (the search indexer wakes on it: db/indexes/search-queue.ts). */
  onCommit?: (() => void) | undefined;
  /** PostgreSQL only: a new client of the same database, outside the pool (LISTEN, db/notifications.ts). */
  connectClient?: () => pg.Client;
  /** Cheap round trip used by the health check. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** `postgres://…` selects PostgreSQL; anything else (or unset) selects SQLite. */
  url?: string | undefined;
  /** SQLite file, or ':memory:'. Defaults to `<dataDir>/loreforge.sqlite`. */
  sqliteFile?: string;
  dataDir?: string;
  /** Called with the SQL text of every statement executed (tests count queries with it). */
  onQuery?: (sqlText: string) => void;
  /** PostgreSQL pool size. */
  poolSize?: number;
}

/** The dialect a database handle or transaction speaks. */
export function dialectOf(db: Db): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

export function isPostgresUrl(url: string | undefined): url is string {
  return url !== undefined && /^postgres(ql)?:\/\//.test(url);
}

// PostgreSQL hands back int8 (counts) as strings and timestamptz as Date objects; we want plain
// numbers and the same ISO strings SQLite stores, so both dialects look alike above this layer.
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20) return (value: string) => Number(value);
    if (oid === 1184) return isoOfTimestamptz;
    if (oid === 1114) return isoOfTimestamp;
    return pg.types.getTypeParser(oid, format) as (value: string) => unknown;
  },
};

function logger(onQuery: ((sqlText: string) => void) | undefined) {
  if (!onQuery) return undefined;
  return (event: LogEvent) => {
    if (event.level === 'query') onQuery(event.query.sql);
  };
}

/** Attempts of one PostgreSQL write transaction, the first included (see Database.reruns). */
export const WRITE_ATTEMPTS = 4;
const RERUN_CODES = new Set(['40P01', '40001']);

function rerunCode(error: unknown): string | undefined {
  const code = databaseErrorCode(error);
  return code !== undefined && RERUN_CODES.has(code) ? code : undefined;
}

/**
 * `fn` bound to the asynchronous context of its caller (AsyncResource.bind, without the deprecated
 * `asyncResource` property that costs two wrapped accessors on every call on Node 20).
 */
function inCallersContext<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  const resource = new AsyncResource('loreforge.write');
  return (...args: A) => resource.runInAsyncScope(fn, undefined, ...args);
}

const STATEMENT_CACHE_SIZE = 500;
/**
 * Longer SQL texts are prepared each time, not kept: they are multi-row inserts (thousands of bound
 * parameters), whose row counts vary so their texts seldom repeat, and each compiled one holds
 * megabytes: an import's index slices kept hundreds of them, +400 MiB of resident memory.
 */
const CACHED_SQL_MAX_LENGTH = 4096;

// Kysely prepares every statement anew; SQLite compiles it each time. Our SQL texts are few and
// parameterised, so keeping the compiled statements by their text saves that work on every request.
// Safe because better-sqlite3 runs each statement to completion before the next one starts.
function withStatementCache(sqlite: SQLiteDatabase) {
  const statements = new Map<string, SQLiteStatement>();
  return {
    prepare(sqlText: string) {
      if (sqlText.length > CACHED_SQL_MAX_LENGTH) return sqlite.prepare(sqlText);
      let statement = statements.get(sqlText);
      if (!statement) {
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
        statement = sqlite.prepare(sqlText);
        statements.set(sqlText, statement);
      }
      return statement;
    },
    close() {
      statements.clear();
      sqlite.close();
    },
  };
}

/** The SQLite file the options select (only meaningful when they do not select PostgreSQL). */
export function sqliteFileOf(options: Pick<DatabaseOptions, 'sqliteFile' | 'dataDir'>): string {
  return options.sqliteFile ?? path.join(options.dataDir ?? 'data', 'loreforge.sqlite');
}

/** Which database the options select, for people: the SQLite file's full path, or PostgreSQL's host, port and database (never the credentials). */
export function describeDatabase(options: Pick<DatabaseOptions, 'url' | 'sqliteFile' | 'dataDir'>): string {
  if (isPostgresUrl(options.url)) {
    const url = new URL(options.url);
    const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || '(default)';
    return `PostgreSQL database "${database}" on ${url.hostname}:${url.port || '5432'}`;
  }
  const file = sqliteFileOf(options);
  return file === ':memory:' ? 'SQLite in memory' : `SQLite file ${path.resolve(file)}`;
}

export function createDatabase(options: DatabaseOptions): Database {
  const log = logger(options.onQuery);
  if (isPostgresUrl(options.url)) {
    // Pipeline mode: BEGIN and COMMIT go out with the statements next to them (pipeline.ts).
    const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 10, types: pgTypes, pipeline: true });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    pool.on('error', () => {});
    // Nor may a client that is checked out (inside a transaction, between two statements) when its
    // connection drops: pg emits 'error' on it with no listener attached, an uncaught exception.
    // Handled here, the client is marked unusable, its next statement fails (that request gets a
    // 5xx), and the pool discards it on release.
    // Repeated statements are prepared once per connection (prepared.ts).
    const names = new StatementNames();
    pool.on('connect', (client) => {
      client.on('error', () => {});
      prepareRepeatedStatements(client, names, pipelineTransactions(client, options.onQuery));
    });
    const kysely = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), ...(log ? { log } : {}) });
    const database: Database = {
      kysely,
      dialect: 'postgres',
      reruns: 0,
      // Bound to the caller's asynchronous context (access/acting.ts), as on SQLite.
      async write(fn, options) {
        // Unless it announces its campaign's version itself, a write may send notices from its
        // transaction: the request's answer then waits for this instance to apply them (write-scope.ts).
        if (!options?.announced) currentWriteScope()?.unannounced();
        const bound = inCallersContext(fn);
        for (let attempt = 1; ; attempt += 1) {
          try {
            const result = await kysely.transaction().execute(bound);
            database.onCommit?.();
            return result;
          } catch (error) {
            // A prepared statement whose plan went stale is sent unnamed from then on (prepared.ts).
            const code = rerunCode(error) ?? (isStalePlan(error) ? '0A000' : undefined);
            if (code === undefined || attempt >= WRITE_ATTEMPTS) throw error;
            (database as { reruns: number }).reruns += 1;
            database.onRerun?.({ code, attempt });
          }
        }
      },
      connectClient: () => new pg.Client({ connectionString: options.url, types: pgTypes, application_name: 'loreforge-listener', keepAlive: true }),
      async ping() {
        await sql`select 1`.execute(kysely);
      },
      close: () => kysely.destroy(),
    };
    return database;
  }

  const file = sqliteFileOf(options);
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new SQLite(file);
  // WAL lets readers run beside the single writer; synchronous=FULL makes every acknowledged
  // commit durable across power loss, not only across a process crash.
  if (file !== ':memory:') sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const kysely = new Kysely<DB>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }), ...(log ? { log } : {}) });
  const groupCommit = new GroupCommit(kysely, () => sqlite.inTransaction);
  const database: Database = {
    kysely,
    dialect: 'sqlite',
    reruns: 0,
    // The group runs each function in the context of the request that asked for it, not of the
    // request whose write started the group: what access/acting.ts reads there is its own.
    async write(fn) {
      const result = await groupCommit.run(inCallersContext(fn));
      database.onCommit?.();
      return result;
    },
    async ping() {
      await sql`select 1`.execute(kysely);
    },
    close: () => kysely.destroy(),
  };
  return database;
}
