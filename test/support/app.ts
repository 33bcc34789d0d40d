import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp, type BuildOptions } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createDatabase, type Database } from '../../src/db/database.js';
import { createToken } from '../../src/db/repositories/credentials.js';
import { createUser, setPremiumUntil } from '../../src/db/repositories/users.js';
import { hashSecret, newSecret } from '../../src/domain/secrets.js';
import { nowIso } from '../../src/domain/time.js';
import type { AppInstance } from '../../src/http/app-types.js';
import { attachOpenApiCheck } from './openapi-check.js';
import { createTestDatabase } from './test-db.js';

export interface TestUser {
  id: string;
  email: string;
  token: string;
  headers: { authorization: string };
}

export interface TestContext {
  app: AppInstance;
  database: Database & { url?: string };
  config: Config;
  /** Every SQL statement run since the last `queries.length = 0`. */
  queries: string[];
  /** A user with an API token, created straight in the database (no HTTP, no rate limits). */
  createUser(email?: string): Promise<TestUser>;
  close(): Promise<void>;
}

let userCounter = 0;

// The password hash is never checked for these users (they sign in by token), so no argon2 cost.
export async function createTestUser(database: Database, email?: string): Promise<TestUser> {
  userCounter += 1;
  const address = email ?? `user${userCounter}-${Math.random().toString(36).slice(2, 8)}@example.test`;
  const now = nowIso();
  const user = await createUser(database.kysely, { email: address, name: 'Test User', passwordHash: 'not-a-real-hash', now });
  const token = newSecret('lf_');
  await createToken(database.kysely, { userId: user.id, name: 'test', secretHash: hashSecret(token), now, expiresAt: null });
  return { id: user.id, email: address, token, headers: { authorization: `Bearer ${token}` } };
}

/**
 * Sets a user's premium end straight in the database, as the `premium` command does, then waits
 * until `app` has applied the notice of that change (PostgreSQL's caller cache; SQLite has none),
 * so the next request sees it, as a request a moment after the command would.
 */
export async function setPremium(app: AppInstance, database: Database, email: string, until: string | null): Promise<void> {
  await setPremiumUntil(database.kysely, email, until);
  await app.callerCache?.notifications.sync();
}

/**
 * buildApp for tests: every response the app gives (through inject or a real socket) is checked
 * against the OpenAPI document it serves (openapi-check.ts). A response of an inject that does not
 * match fails that inject; one over a socket fails at close(). Call `ready()` or `listen()` after.
 */
export async function buildCheckedApp(config: Config, options: BuildOptions): Promise<AppInstance> {
  const app = await buildApp(config, options);
  const check = attachOpenApiCheck(app);
  const inject = app.inject.bind(app) as (opts: unknown) => Promise<LightMyRequestResponse>;
  const failIfDrifted = () => {
    const problems = check.takeProblems();
    if (problems.length > 0) throw new Error(`The response does not match the OpenAPI document:\n${problems.join('\n')}`);
  };
  (app as { inject: unknown }).inject = async (opts: unknown) => {
    const response = await inject(opts);
    failIfDrifted();
    return response;
  };
  app.addHook('onClose', (_instance, done) => {
    check.flush();
    try {
      failIfDrifted();
      done();
    } catch (error) {
      done(error as Error);
    }
  });
  return app;
}

export interface TestContextOptions {
  /** Called with the app before it is made ready: a test may add hooks here (the routes are declared). */
  beforeReady?: (app: AppInstance) => void;
}

export async function createTestContext(env: Record<string, string> = {}, options: TestContextOptions = {}): Promise<TestContext> {
  const queries: string[] = [];
  const database = await createTestDatabase({ onQuery: (sql) => queries.push(sql) });
  // Suites seed campaigns with members by invitation, many an hour, and fuzz the accept route with
  // tokens that fail, and import often; the limits' own tests set theirs.
  // Search indexing in the background (db/indexes/search-queue.ts) is off: its statements would
  // land in other requests' counts at random; each search indexes what its campaign has queued
  // (the same code). test/integration/search-indexer.test.ts turns it on.
  // Its own data folder (images, spooled imports), never the working copy's ./data: test files run
  // side by side, and one file's images must not move another's counts.
  const dataDir = env.DATA_DIR === undefined ? fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-test-data-')) : undefined;
  const config = loadConfig({ LOG_LEVEL: 'silent', INVITATIONS_MAX_PER_USER_PER_HOUR: '1000000', INVITATION_MAX_FAILURES_PER_IP: '1000000', IMPORTS_MAX_PER_USER_PER_HOUR: '1000000', SEARCH_INDEX_DELAY_MS: '0', ...(dataDir ? { DATA_DIR: dataDir } : {}), ...env });
  const removeDataDir = () => {
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  };
  let app: AppInstance;
  try {
    app = await buildCheckedApp(config, { database, logger: false });
    options.beforeReady?.(app);
    await app.ready();
  } catch (error) {
    await database.close().catch(() => {});
    removeDataDir();
    throw error;
  }
  return {
    app,
    database,
    config,
    queries,
    createUser: (email) => createTestUser(database, email),
    // The data folder goes even when closing fails (a test that stopped the database, say).
    async close() {
      try {
        await app.close();
        await database.close();
      } finally {
        removeDataDir();
      }
    },
  };
}

/** The parsed JSON body of a response (throws with the body text when it is not JSON). */
export function json<T = any>(response: LightMyRequestResponse): T {
  return JSON.parse(response.body) as T;
}

/**
 * A test context with the app as it runs scaled out: on PostgreSQL a second app instance with its
 * own pool of 10 connections on the same database (as behind a load balancer), so writers really
 * run side by side; on SQLite the one app, where requests interleave at every await as in production.
 */
export async function createScaledOutContext(): Promise<TestContext & { apps: AppInstance[] }> {
  const ctx = await createTestContext();
  const apps = [ctx.app];
  let secondDatabase: Database | undefined;
  if (ctx.database.url !== undefined) {
    secondDatabase = createDatabase({ url: ctx.database.url, poolSize: 10 });
    const second = await buildCheckedApp(ctx.config, { database: secondDatabase, logger: false });
    await second.ready();
    apps.push(second);
  }
  return {
    ...ctx,
    apps,
    async close() {
      if (apps.length > 1) await apps[1]!.close();
      await secondDatabase?.close();
      await ctx.close();
    },
  };
}
