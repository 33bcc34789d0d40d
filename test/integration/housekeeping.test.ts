import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession } from '../../src/db/repositories/credentials.js';
import { sweepExpired } from '../../src/db/repositories/housekeeping.js';
import { createTestContext, type TestContext } from '../support/app.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe('housekeeping', () => {
  it('removes expired sessions and finished rate-limit windows, and nothing else', async () => {
    const user = await ctx.createUser();
    const now = new Date('2026-11-20T12:00:00.000Z');
    const kysely = ctx.database.kysely;
    await createSession(kysely, { userId: user.id, secretHash: 'expired', now: '2026-10-01T00:00:00.000Z', expiresAt: '2026-11-20T11:59:59.999Z' });
    await createSession(kysely, { userId: user.id, secretHash: 'live', now: '2026-11-01T00:00:00.000Z', expiresAt: '2026-12-01T00:00:00.000Z' });
    await kysely
      .insertInto('rate_limits')
      .values([
        { key: 'old', window_start: '2026-11-20T10:00:00.000Z', hits: 3 },
        { key: 'current', window_start: '2026-11-20T11:30:00.000Z', hits: 3 },
      ])
      .execute();

    expect(await sweepExpired(kysely, now, 3_600_000)).toEqual({ sessions: 1, rateLimitWindows: 1 });
    expect((await kysely.selectFrom('sessions').select('secret_hash').execute()).map((r) => r.secret_hash)).toEqual(['live']);
    expect((await kysely.selectFrom('rate_limits').select('key').execute()).map((r) => r.key)).toEqual(['current']);
    expect(await sweepExpired(kysely, now, 3_600_000)).toEqual({ sessions: 0, rateLimitWindows: 0 });
  });
});
