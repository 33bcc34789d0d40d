import { EventEmitter } from 'node:events';
import fc from 'fast-check';
import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { LIST_MARK, noticesOf } from '../../src/db/announcements.js';
import { CallerCache, type CallerLookup } from '../../src/db/caller-cache.js';
import { oldInstanceReads } from '../support/old-instance.js';

// The caller cache's bookkeeping is bounded one record at a time (db/caller-cache.ts), and the
// announcements' payloads read safely by instances of the release before migration 0028.

class AnsweringClient extends EventEmitter {
  connect = () => Promise.resolve();
  query = () => Promise.resolve({ rows: [] });
  escapeIdentifier = (name: string) => `"${name}"`;
  end = () => Promise.resolve();
}

const caches: CallerCache[] = [];
afterEach(async () => {
  for (const cache of caches.splice(0)) await cache.notifications.close();
});

async function listeningCache(maxEntries: number): Promise<CallerCache> {
  const cache = new CallerCache(() => new AnsweringClient() as unknown as pg.Client, { maxEntries, ttlMs: 60_000 });
  caches.push(cache);
  await cache.notifications.start();
  expect(cache.notifications.fresh).toBe(true);
  return cache;
}

function lookupOf(userId: string, campaignId: number, contentVersion = 1): CallerLookup {
  const user = { id: userId, email: '', email_normalized: '', name: '', password_hash: '', premium_until: null, created_at: '' };
  const campaign = { id: campaignId, slug: `c${campaignId}`, name: 'x', description: null, user_id: userId, version: 1, content_version: contentVersion, default_visibility: 'all' as const, created_at: '', updated_at: '', players_updated_at: null, deleted_at: null, deleted_by: null, trashed_slug: null };
  return { user, campaign, role: 'owner', expiresAt: null };
}

/** Looks `key` up; `during` runs while the load is under way. Whether it was loaded from the database. */
async function lookup(cache: CallerCache, key: string, value: CallerLookup, during: () => void = () => {}): Promise<{ loaded: boolean; value: CallerLookup | undefined }> {
  let loaded = false;
  const found = await cache.lookup('token', key, value.campaign!.slug, Date.now(), () => {
    loaded = true;
    during();
    return Promise.resolve(value);
  });
  return { loaded, value: found };
}

describe('the bounded bookkeeping', () => {
  it('forgets the oldest records one at a time: what is kept stays kept past the bound', async () => {
    const cache = await listeningCache(4);
    await lookup(cache, 'kept', lookupOf('alice', 1));
    for (let i = 0; i < 50; i += 1) cache.invalidate(i % 2 ? `u:other-${i}` : `v:${100 + i}:${i + 2}`);
    expect(cache.size).toBe(1);
    expect((await lookup(cache, 'kept', lookupOf('alice', 1))).loaded).toBe(false);
  });

  it('keeps no lookup whose own notice was forgotten while it was under way', async () => {
    const cache = await listeningCache(4);
    await lookup(cache, 'raced', lookupOf('alice', 1), () => {
      cache.invalidate('u:alice');
      for (let i = 0; i < 10; i += 1) cache.invalidate(`u:other-${i}`);
    });
    expect((await lookup(cache, 'raced', lookupOf('alice', 1))).loaded).toBe(true);
    expect((await lookup(cache, 'raced', lookupOf('alice', 1))).loaded).toBe(false);
  });

  it("keeps no lookup with an old content version when its campaign's announced version was forgotten meanwhile", async () => {
    const cache = await listeningCache(4);
    await lookup(cache, 'stale', lookupOf('alice', 1, 5), () => {
      cache.invalidate('v:1:9');
      cache.invalidate(`${LIST_MARK} v:2:3 v:3:3 v:4:3 v:5:3 v:6:3`);
    });
    const next = await lookup(cache, 'stale', lookupOf('alice', 1, 9));
    expect(next.loaded).toBe(true);
    expect(next.value!.campaign!.content_version).toBe(9);
  });

  it('drops the least recently used entry first when full', async () => {
    const cache = await listeningCache(2);
    await lookup(cache, 'a', lookupOf('alice', 1));
    await lookup(cache, 'b', lookupOf('bob', 2));
    expect((await lookup(cache, 'a', lookupOf('alice', 1))).loaded).toBe(false);
    await lookup(cache, 'c', lookupOf('carol', 3));
    expect(cache.size).toBe(2);
    expect((await lookup(cache, 'a', lookupOf('alice', 1))).loaded).toBe(false);
    expect((await lookup(cache, 'b', lookupOf('bob', 2))).loaded).toBe(true);
  });

  it('never keeps a lookup a notice about its user, campaign or membership arrived during, whatever else arrives (property)', async () => {
    const notice = fc.oneof(
      fc.constantFrom('u', 's', 't').chain((kind) => fc.integer({ min: 0, max: 6 }).map((user) => `${kind}:user-${user}`)),
      fc.integer({ min: 0, max: 6 }).map((campaign) => `c:${campaign}`),
      fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 6 })).map(([campaign, user]) => `m:${campaign}:user-${user}`),
      fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 1, max: 40 })).map(([campaign, version]) => `v:${campaign}:${version}`),
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5 }), fc.array(notice, { maxLength: 20 }), fc.array(notice, { maxLength: 40 }), async (maxEntries, before, during) => {
        const cache = await listeningCache(maxEntries);
        for (const item of before) cache.invalidate(item);
        // The database's answer already holds every version announced before the lookup started
        // (an instance announces after its commit, and the heartbeat reads committed rows).
        const read = Math.max(1, ...before.filter((item) => item.startsWith('v:0:')).map((item) => Number(item.split(':')[2])));
        const value = lookupOf('user-0', 0, read);
        await lookup(cache, 'k', value, () => {
          for (const item of during) cache.invalidate(item);
        });
        const again = await lookup(cache, 'k', value);
        const touched = during.some((item) => ['u:user-0', 's:user-0', 't:user-0', 'c:0', 'm:0:user-0'].includes(item));
        if (touched) expect(again.loaded).toBe(true);
        // What it kept carries at least every version announced for its campaign meanwhile.
        const announced = Math.max(1, ...during.filter((item) => item.startsWith('v:0:')).map((item) => Number(item.split(':')[2])));
        if (!again.loaded) expect(again.value!.campaign!.content_version).toBeGreaterThanOrEqual(announced);
        await cache.notifications.close();
      }),
      { numRuns: 200 },
    );
  });
});

// The payloads the real statement sends: test/integration/announcements.test.ts.
describe('the announcements, read by this release and by the one before migration 0028', () => {
  it('the bare list of the first 0028 release misleads an old instance (why the mark), and this release still reads it', () => {
    const bare = 'v:1:5 v:2:7';
    expect(oldInstanceReads(bare)).toEqual({ dropsAll: false, versions: new Map(), dropsCampaigns: [1] });
    expect(oldInstanceReads(`${LIST_MARK} ${bare}`)).toEqual({ dropsAll: true });
    expect(noticesOf(bare)).toEqual(['v:1:5', 'v:2:7']);
    expect(noticesOf('v:1:5')).toEqual(['v:1:5']);
    expect(noticesOf('m:3:user-1')).toEqual(['m:3:user-1']);
  });

  it('a cache of this release applies a marked list and an old single notice alike', async () => {
    const cache = await listeningCache(10);
    await lookup(cache, 'one', lookupOf('alice', 1, 1));
    await lookup(cache, 'two', lookupOf('bob', 2, 1));
    cache.invalidate(`${LIST_MARK} v:1:5 v:2:7`);
    cache.invalidate('v:2:8');
    const one = await lookup(cache, 'one', lookupOf('alice', 1, 1));
    const two = await lookup(cache, 'two', lookupOf('bob', 2, 1));
    expect([one.loaded, one.value!.campaign!.content_version, two.loaded, two.value!.campaign!.content_version]).toEqual([false, 5, false, 8]);
  });
});

// What a write's request does with its announcement (caller-cache.ts requestWrites, announce).
describe("a write's announcement", () => {
  // Answers the announcement statement from `versions` (or fails it), and echoes the barrier's notices.
  class AnnouncingClient extends AnsweringClient {
    readonly versions = new Map<number, number>();
    failing = false;
    barriers = 0;
    override query = ((config: string | pg.QueryConfig, values?: unknown[]) => {
      if (typeof config === 'object' && config.name === 'loreforge_announce') {
        if (this.failing) return Promise.reject(new Error('connection lost'));
        const ids = (config.values![1] as number[]).filter((id) => this.versions.has(id));
        return Promise.resolve({ rows: ids.length ? [{ ids, versions: ids.map((id) => this.versions.get(id)) }] : [] });
      }
      if (typeof config === 'string' && config.startsWith('SELECT pg_notify')) {
        this.barriers += 1;
        setImmediate(() => this.emit('notification', { channel: values![0], payload: values![1] }));
      }
      return Promise.resolve({ rows: [] });
    }) as unknown as () => Promise<{ rows: never[] }>;
  }

  async function announcingCache(): Promise<{ cache: CallerCache; client: AnnouncingClient }> {
    const client = new AnnouncingClient();
    const cache = new CallerCache(() => client as unknown as pg.Client, { maxEntries: 10, ttlMs: 60_000 });
    caches.push(cache);
    await cache.notifications.start();
    return { cache, client };
  }

  it('applies the version read after the commit, and answers without the barrier', async () => {
    const { cache, client } = await announcingCache();
    await lookup(cache, 'k', lookupOf('alice', 1, 3));
    client.versions.set(1, 7);
    const writes = cache.requestWrites();
    writes.committed(1, false);
    await writes.settled();
    const again = await lookup(cache, 'k', lookupOf('alice', 1, 3));
    expect([again.loaded, again.value!.campaign!.content_version, client.barriers]).toEqual([false, 7, 0]);
  });

  it('waits for the barrier when the campaign is gone (its erasure was noticed), or the write sent notices itself', async () => {
    const { cache, client } = await announcingCache();
    const gone = cache.requestWrites();
    gone.committed(1, false);
    await gone.settled();
    expect(client.barriers).toBe(1);
    client.versions.set(2, 4);
    const notified = cache.requestWrites();
    notified.committed(2, true);
    await notified.settled();
    expect(client.barriers).toBe(2);
  });

  it('drops what it keeps of the campaign when the announcement could not be sent (its version is not known)', async () => {
    const { cache, client } = await announcingCache();
    await lookup(cache, 'k', lookupOf('alice', 1, 3));
    await lookup(cache, 'other', lookupOf('bob', 2, 3));
    client.failing = true;
    const writes = cache.requestWrites();
    writes.committed(1, false);
    await writes.settled();
    expect((await lookup(cache, 'k', lookupOf('alice', 1, 3))).loaded).toBe(true);
    expect((await lookup(cache, 'other', lookupOf('bob', 2, 3))).loaded).toBe(false);
  });
});
