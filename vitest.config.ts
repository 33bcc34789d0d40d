import { defineConfig } from 'vitest/config';

const integration = ['test/integration/**/*.test.ts'];
// The browser journeys: Chromium against the production build (test/e2e/setup.ts builds it once).
const browser = ['test/e2e/**/*.test.ts'];

const freshModules = { poolOptions: { forks: { isolate: true } } };

// Every integration suite runs twice: once per dialect. Test files pick the dialect up through
// test/support/test-db.ts, which reads TEST_DIALECT.
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Leaves time for the PostgreSQL global teardown before vitest gives up and exits anyway.
    teardownTimeout: 30_000,
    pool: 'forks',
    // The files a worker runs share its modules (isolate: false); vitest still runs each project's
    // files apart from the other projects' (one project, then the next). Each integration file
    // builds its own app and database, as every request of a running server shares the process's
    // modules; importing the app afresh for each file was a fifth of the suites' time (235 s of
    // collection in 13 minutes on two cores). A test that depends on what an earlier file did (a
    // counter of test/support, a fake clock left running) is a bug of that test.
    isolate: false,
    reporters: ['default', './test/support/openapi-check-reporter.ts'],
    projects: [
      // The unit and web files still get our modules afresh, each (the worker reloads them before
      // each file; what node_modules holds stays loaded): the web app's modules keep state of the
      // page they run in (the listeners web/src/editor/saver.ts adds to the first window it sees),
      // and each jsdom file has a window of its own. They gained 6 s of 80 without it.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], ...freshModules } },
      // The web app's own logic (the editor's commands, Markdown shortcuts), without a browser.
      { extends: true, test: { name: 'web', include: ['web/src/**/*.test.ts', 'web/src/**/*.test.tsx'], ...freshModules } },
      { extends: true, test: { name: 'sqlite', include: integration, env: { TEST_DIALECT: 'sqlite' } } },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: integration,
          env: { TEST_DIALECT: 'postgres' },
          globalSetup: ['test/support/postgres-global-setup.ts'],
        },
      },
      { extends: true, test: { name: 'browser', include: browser, env: { TEST_DIALECT: 'sqlite' }, globalSetup: ['test/e2e/setup.ts'], testTimeout: 180_000, hookTimeout: 180_000 } },
      // On PostgreSQL too: the main journey, and the record pages' (records.test.ts), where a bug of
      // the app's query cache showed only with PostgreSQL's timings.
      {
        extends: true,
        test: {
          name: 'browser-postgres',
          include: ['test/e2e/journey.test.ts', 'test/e2e/records.test.ts'],
          env: { TEST_DIALECT: 'postgres' },
          globalSetup: ['test/support/postgres-global-setup.ts', 'test/e2e/setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
