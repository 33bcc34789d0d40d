import type { PostgresTestServer } from './postgres-global-setup.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Provided by test/support/postgres-global-setup.ts to the `postgres` project only. */
    postgres: PostgresTestServer;
  }
}
