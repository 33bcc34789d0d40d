import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Announcements, CAMPAIGNS_PER_PAYLOAD, LIST_MARK, noticesOf, PAYLOAD_CHARS } from '../../src/db/announcements.js';
import { Notifications } from '../../src/db/notifications.js';
import { oldInstanceReads } from '../support/old-instance.js';
import { createTestDatabase, dialect, type TestDatabase } from '../support/test-db.js';

// The announcements of content versions (db/announcements.ts), through the real statement: what
// they send, read by this release and by the release before migration 0028.

describe.runIf(dialect === 'postgres')('announcements of content versions, on postgres', () => {
  let database: TestDatabase;
  let listener: Notifications;
  const payloads: string[] = [];
  // A channel of its own: no other listener in the run reads these.
  const channel = `announcements_test_${process.pid}`;
  const largest = 2 ** 31 - 1;

  beforeAll(async () => {
    database = await createTestDatabase();
    listener = new Notifications(() => database.connectClient!(), channel, (payload) => payloads.push(payload), () => {});
    await listener.start();
    expect(listener.listening).toBe(true);
    const now = new Date().toISOString();
    await database.kysely
      .insertInto('users')
      .values({ id: 'an', email: 'an@example.com', email_normalized: 'an@example.com', name: 'An', password_hash: 'x', created_at: now })
      .execute();
    // The longest notices there are: ids and versions of ten digits.
    await database.kysely
      .insertInto('campaigns')
      .values(
        Array.from({ length: 600 }, (_, i) => ({
          id: largest - i,
          slug: `an-${i}`,
          name: `An ${i}`,
          user_id: 'an',
          version: 1,
          content_version: largest - 1000 + i,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
    for (const row of await database.kysely.selectFrom('campaigns').select(['id', 'content_version']).where('user_id', '=', 'an').execute()) {
      versions.set(row.id, row.content_version);
    }
    expect(Math.max(...versions.values()).toString()).toHaveLength(10);
  });
  afterAll(async () => {
    await listener?.close();
    await database?.close();
  });

  // Announces `ids` as writes committed together would, and returns what each got and what was sent.
  async function announce(announcements: Announcements, ids: number[]) {
    payloads.length = 0;
    const results = await Promise.all(ids.map((id) => announcements.add(id)));
    // The listener's own barrier: every notice committed before it has arrived.
    await listener.sync();
    return { results, payloads: [...payloads] };
  }

  // As stored (a campaign's insert bumps its version once more).
  const versions = new Map<number, number>();
  const versionOf = (id: number) => versions.get(id)!;

  it('sends the versions of the campaigns in as few payloads as fit, each read exactly by this release, and exactly or not at all by an old one (property)', async () => {
    const announcements = new Announcements(listener, channel, database.kysely);
    const ids = fc.uniqueArray(fc.integer({ min: largest - 599, max: largest }), { minLength: 1, maxLength: 600, size: 'max' });
    await fc.assert(
      fc.asyncProperty(ids, async (chosen) => {
        const sent = await announce(announcements, chosen);
        expect(sent.results).toEqual(chosen.map((id) => ({ version: versionOf(id) })));
        // Writes that commit together share the announcement: one statement, and payload, a CAMPAIGNS_PER_PAYLOAD.
        expect(sent.payloads).toHaveLength(Math.ceil(chosen.length / CAMPAIGNS_PER_PAYLOAD));
        const notices = sent.payloads.flatMap(noticesOf);
        expect([...notices].sort()).toEqual(chosen.map((id) => `v:${id}:${versionOf(id)}`).sort());
        for (const payload of sent.payloads) {
          expect(payload.length).toBeLessThanOrEqual(PAYLOAD_CHARS);
          if (noticesOf(payload).length > 1) expect(payload.startsWith(`${LIST_MARK} v:`)).toBe(true);
          const read = oldInstanceReads(payload);
          if (read.dropsAll) continue;
          const [notice] = noticesOf(payload);
          const [, id, version] = notice!.split(':');
          expect([...read.versions]).toEqual([[Number(id), Number(version)]]);
        }
      }),
      // Every campaign at once among them: the most payloads, each of the longest notices.
      { numRuns: 15, examples: [[Array.from({ length: 600 }, (_, i) => largest - i)]] },
    );
  });

  it('sends a lone notice as it is, and nothing for a campaign that no longer exists, alone or beside others', async () => {
    const announcements = new Announcements(listener, channel, database.kysely);
    expect(await announce(announcements, [largest])).toEqual({ results: [{ version: versionOf(largest) }], payloads: [`v:${largest}:${versionOf(largest)}`] });
    expect(await announce(announcements, [12345])).toEqual({ results: ['gone'], payloads: [] });
    expect(await announce(announcements, [12345, largest - 2])).toEqual({
      results: ['gone', { version: versionOf(largest - 2) }],
      payloads: [`v:${largest - 2}:${versionOf(largest - 2)}`],
    });
  });

  it('goes through the pool while the listening connection is down, and says when it could not send at all', async () => {
    const down = new Notifications(() => database.connectClient!(), channel, () => {}, () => {});
    expect(await announce(new Announcements(down, channel, database.kysely), [largest - 1])).toEqual({
      results: [{ version: versionOf(largest - 1) }],
      payloads: [`v:${largest - 1}:${versionOf(largest - 1)}`],
    });
    expect(await announce(new Announcements(down, channel, undefined), [largest - 1])).toEqual({ results: ['unsent'], payloads: [] });
  });
});
