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

declare module 'fastify' {
  interface FastifyInstance {
    database: Database;
    config: Config;
    /** Every route as registered: method, URL and auth mode (the authorization tests are generated from it). */
    routeTable: { method: string; url: string; auth: string }[];
  }
}

export type AppInstance = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;
