import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { Announcements, CAMPAIGNS_PER_PAYLOAD } from '../../src/db/announcements.js';
import type { Notifications } from '../../src/db/notifications.js';
import type { DB } from '../../src/db/schema.js';

// Announcements of more campaigns than one payload holds go in several statements
// (src/db/announcements.ts); when one of them fails, only its own campaigns are 'unsent', and the
// pool is tried for them first. The real statement is tested on PostgreSQL in
// test/integration/announcements.test.ts; here the connections are stand-ins that fail on cue.

type Answer = { rows: { ids: number[]; versions: number[] }[] };
const versionOf = (id: number) => 1000 + id;
const answer = (ids: number[]): Answer => ({ rows: [{ ids, versions: ids.map(versionOf) }] });

function listening(failChunk: (ids: number[], call: number) => boolean) {
  const calls: number[][] = [];
  const notifications = {
    query(config: { values: [string, number[]] }): Promise<Answer> {
      const ids = config.values[1];
      calls.push(ids);
      return failChunk(ids, calls.length) ? Promise.reject(new Error('connection lost')) : Promise.resolve(answer(ids));
    },
  } as unknown as Notifications;
  return { notifications, calls };
}

function pool(works: boolean) {
  const calls: number[][] = [];
  const db = {
    executeQuery(query: { parameters: readonly unknown[] }): Promise<Answer> {
      const ids = query.parameters[1] as number[];
      calls.push(ids);
      return works ? Promise.resolve(answer(ids)) : Promise.reject(new Error('pool down'));
    },
  } as unknown as Kysely<DB>;
  return { db, calls };
}

const ids = Array.from({ length: CAMPAIGNS_PER_PAYLOAD * 2 + 10 }, (_, i) => i + 1);

describe('announcements of more campaigns than one payload holds', () => {
  it('sends every campaign once, in payloads of CAMPAIGNS_PER_PAYLOAD', async () => {
    const { notifications, calls } = listening(() => false);
    const announcements = new Announcements(notifications, 'ch', undefined);
    const results = await Promise.all(ids.map((id) => announcements.add(id)));
    expect(results).toEqual(ids.map((id) => ({ version: versionOf(id) })));
    expect(calls.map((chunk) => chunk.length)).toEqual([CAMPAIGNS_PER_PAYLOAD, CAMPAIGNS_PER_PAYLOAD, 10]);
    expect(calls.flat().sort((a, b) => a - b)).toEqual(ids);
  });

  it('reports unsent only the campaigns of the payload that failed, when the pool fails too', async () => {
    const { notifications } = listening((_, call) => call === 2);
    const { db, calls: poolCalls } = pool(false);
    const announcements = new Announcements(notifications, 'ch', db);
    const results = await Promise.all(ids.map((id) => announcements.add(id)));
    const unsent = ids.filter((_, i) => results[i] === 'unsent');
    expect(unsent).toHaveLength(CAMPAIGNS_PER_PAYLOAD);
    expect(poolCalls).toEqual([unsent]);
    for (const [i, id] of ids.entries()) if (!unsent.includes(id)) expect(results[i]).toEqual({ version: versionOf(id) });
  });

  it('sends the failed payload through the pool when it can', async () => {
    const { notifications } = listening((_, call) => call === 1);
    const { db, calls: poolCalls } = pool(true);
    const announcements = new Announcements(notifications, 'ch', db);
    const results = await Promise.all(ids.map((id) => announcements.add(id)));
    expect(results).toEqual(ids.map((id) => ({ version: versionOf(id) })));
    expect(poolCalls).toHaveLength(1);
    expect(poolCalls[0]).toHaveLength(CAMPAIGNS_PER_PAYLOAD);
  });
});
