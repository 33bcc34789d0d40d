// The OpenAPI document the server serves at /api/openapi.json, built from the route schemas on an
// in-memory SQLite database. Used by `npm run openapi`, the Redocly lint of `npm test` and the
// generation of the web app's API client.
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';

/** The served document, as the running service builds it. */
export async function servedDocument(): Promise<unknown> {
  const database = createDatabase({ sqliteFile: ':memory:' });
  await migrateToLatest(database);
  const app = await buildApp(loadConfig({ LOG_LEVEL: 'silent' }), { database, logger: false });
  try {
    await app.ready();
    const res = await app.inject({ method: 'GET', url: '/api/openapi.json' });
    if (res.statusCode !== 200) throw new Error(`GET /api/openapi.json answered ${res.statusCode}`);
    return JSON.parse(res.body) as unknown;
  } finally {
    await app.close();
    await database.close();
  }
}
