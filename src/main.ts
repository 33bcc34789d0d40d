import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { createDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { findWebRoot } from './http/web-app.js';

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`loreforge: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }

  const database = createDatabase({ url: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize });
  await migrateToLatest(database);
  const webRoot = findWebRoot(config.webRoot);
  const app = await buildApp(config, { database, webRoot });
  if (!webRoot) app.log.warn(`the web app is not built (no index.html in ${config.webRoot ?? 'dist/web'}): run npm run build; serving the API alone`);
  app.addHook('onClose', () => database.close());

  // SIGTERM: stop accepting, let in-flight requests finish, close the database, exit.
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
}

main().catch((error: unknown) => {
  console.error('loreforge: failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
