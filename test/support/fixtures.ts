// What the integration suites share: the error body type, a context with two users, and campaigns
// and things made through the API (so every fixture response is checked against the OpenAPI
// document like any other).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { createDatabase, type Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import type { AppInstance } from '../../src/http/app-types.js';
import { createTestContext, json, type TestContext, type TestUser } from './app.js';
import { createTestDatabase, dialect } from './test-db.js';

/** An error response: application/problem+json. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: { path: string; message: string }[];
}

export const problemOf = (res: LightMyRequestResponse): Problem => json<Problem>(res);

/** One request as `user`; a write answered with 400 or more throws with its body (a fixture step that must work). */
export async function sendAs(app: AppInstance, user: TestUser, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown): Promise<LightMyRequestResponse> {
  const res = await app.inject({ method, url, headers: user.headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
  if (res.statusCode >= 400 && method !== 'GET') throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res;
}

/** The JSON pointers an error response names. */
export const errorPathsOf = (res: LightMyRequestResponse): string[] => (problemOf(res).errors ?? []).map((e) => e.path);

/** A test context with two users: the owner of what a test creates, and a stranger to it. */
export async function contextWithUsers(env: Record<string, string> = {}): Promise<{ ctx: TestContext; owner: TestUser; stranger: TestUser }> {
  const ctx = await createTestContext(env);
  return { ctx, owner: await ctx.createUser(), stranger: await ctx.createUser() };
}

/** A campaign made through the API, with its thing types (NPCs, Locations, Items). */
export interface TestCampaign {
  id: number;
  slug: string;
  name: string;
  /** `/api/campaigns/<slug>` */
  base: string;
  types: { id: number; name: string }[];
  /** The first type's id (NPCs). */
  typeId: number;
}

let campaignCounter = 0;

/** POST /api/campaigns (201 expected), then its thing types. `name` defaults to a fresh one. */
export async function newCampaign(app: AppInstance, user: TestUser, name?: string, fields: Record<string, unknown> = {}): Promise<TestCampaign> {
  campaignCounter += 1;
  const res = await app.inject({
    method: 'POST',
    url: '/api/campaigns',
    headers: user.headers,
    payload: { newCampaign: { name: name ?? `Campaign ${campaignCounter}`, ...fields } },
  });
  expect(res.statusCode, res.body).toBe(201);
  const campaign = json<{ id: number; slug: string; name: string }>(res);
  const base = `/api/campaigns/${campaign.slug}`;
  const typesRes = await app.inject({ method: 'GET', url: `${base}/thing-types`, headers: user.headers });
  expect(typesRes.statusCode, typesRes.body).toBe(200);
  const types = json<{ id: number; name: string }[]>(typesRes).map(({ id, name }) => ({ id, name }));
  return { id: campaign.id, slug: campaign.slug, name: campaign.name, base, types, typeId: types[0]!.id };
}

/** A thing as the API answers it. */
export interface ThingBody {
  id: number;
  slug: string;
  typeId: number;
  name: string;
  description: unknown;
  campaignId: number;
  createdAt: string;
  updatedAt: string;
}

/** POST a thing of the campaign's first type unless `fields` names another (201 expected). */
export async function createThing(app: AppInstance, user: TestUser, campaign: TestCampaign, name: string, fields: Record<string, unknown> = {}): Promise<ThingBody> {
  const res = await app.inject({
    method: 'POST',
    url: `${campaign.base}/things`,
    headers: user.headers,
    payload: { newThing: { name, typeId: campaign.typeId, ...fields } },
  });
  expect(res.statusCode, res.body).toBe(201);
  return json<ThingBody>(res);
}

/**
 * A migrated database the command line can open by its settings (`env`), as the server's would be:
 * on SQLite a file in a fresh DATA_DIR, on PostgreSQL a fresh test database by DATABASE_URL.
 */
export async function databaseForCli(): Promise<{ database: Database; env: Record<string, string>; close(): Promise<void> }> {
  if (dialect === 'postgres') {
    const database = await createTestDatabase();
    return { database, env: { DATABASE_URL: database.url!, LOG_LEVEL: 'silent' }, close: () => database.close() };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-cli-'));
  const database = createDatabase({ dataDir: dir });
  await migrateToLatest(database);
  return {
    database,
    env: { DATA_DIR: dir, LOG_LEVEL: 'silent' },
    async close() {
      await database.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
