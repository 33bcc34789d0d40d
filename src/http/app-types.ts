import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import type { Role } from '../db/schema.js';
import type { ImageHost } from '../images/image-host.js';
import type { ImportJobRunner } from '../portability/import-jobs.js';

declare module 'fastify' {
  interface FastifyInstance {
    database: Database;
    config: Config;
    /** Where uploaded image bytes live (local files or an S3-compatible store). */
    imageHost: ImageHost;
    /**
     * Every route as registered: method, URL, auth mode and, on a campaign route, the least role that
     * may call it (the authorization and leak tests are generated from it).
     */
    routeTable: { method: string; url: string; auth: string; role?: Role }[];
    /** The import jobs this instance holds (the import routes run them, the sweepers spare them). */
    importJobs: ImportJobRunner;
  }
}

export type AppInstance = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;
