import { Type } from '@sinclair/typebox';
import type { AppInstance } from '../app-types.js';
import { version } from '../../version.js';

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  database: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  version: Type.String(),
});

const PROBE_TIMEOUT_MS = 2000;

export function healthRoutes(app: AppInstance) {
  app.get(
    '/health',
    {
      schema: {
        operationId: 'getHealth',
        summary: 'Health of the service and its database',
        description: 'Probes the database with a real query (at most 2 s). 200 `{status: "ok", database: "ok", version}`; 503 `{status: "unavailable", …}` when the database does not answer. Needs no caller.',
        tags: ['health'],
        response: { 200: Health, 503: Type.Object(Health.properties, { description: 'The database does not answer' }) }
      },
    },
    async (request, reply) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('database probe timed out')), PROBE_TIMEOUT_MS);
      });
      try {
        await Promise.race([app.database.ping(), timeout]);
        return { status: 'ok' as const, database: 'ok' as const, version };
      } catch (error) {
        request.log.warn({ err: error }, 'health probe failed');
        return reply.code(503).send({ status: 'unavailable' as const, database: 'unavailable' as const, version });
      } finally {
        clearTimeout(timer);
      }
    },
  );
}
