import { EventEmitter } from 'node:events';
import fc from 'fast-check';
import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { LIST_MARK, noticesOf, payloadsOf } from '../../src/db/announcements.js';
import { CallerCache, type CallerLookup } from '../../src/db/caller-cache.js';

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

// The parser of the release before migration 0028 (src/db/caller-cache.ts at 0d173fc, `invalidate`):
// one notice per payload, split at every colon. What it would do with a payload.
function oldInstanceReads(payload: string): { dropsAll: true } | { dropsAll: false; versions: Map<number, number>; dropsCampaigns: number[] } {
  const [kind = '', first = '', second = ''] = payload.split(':');
  if (!['u', 's', 't', 'c', 'm', 'v'].includes(kind)) return { dropsAll: true };
  const versions = new Map<number, number>();
  const dropsCampaigns: number[] = [];
  if (kind === 'v') {
    if (Number.isSafeInteger(Number(second))) versions.set(Number(first), Number(second));
    else dropsCampaigns.push(Number(first));
  }
  return { dropsAll: false, versions, dropsCampaigns };
}

describe('the announcements, read by this release and by the one before migration 0028', () => {
  const announcement = fc.uniqueArray(fc.tuple(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.integer({ min: 1, max: 2 ** 31 - 1 })), { minLength: 1, maxLength: 1200, selector: ([id]) => id });

  it('an old instance reads each payload exactly or drops everything, never a wrong or missing version (property)', () => {
    fc.assert(
      fc.property(announcement, (items) => {
        for (const payload of payloadsOf(items.map(([id, version]) => `v:${id}:${version}`))) {
          expect(payload.length).toBeLessThanOrEqual(7000);
          const read = oldInstanceReads(payload);
          if (read.dropsAll) continue;
          const notices = noticesOf(payload);
          expect(notices).toHaveLength(1);
          const [, id, version] = notices[0]!.split(':');
          expect([...read.versions]).toEqual([[Number(id), Number(version)]]);
        }
      }),
    );
  });

  it('this release reads every notice sent, in order, in as few payloads as fit', () => {
    fc.assert(
      fc.property(announcement, (items) => {
        const notices = items.map(([id, version]) => `v:${id}:${version}`);
        const payloads = payloadsOf(notices);
        expect(payloads.flatMap(noticesOf)).toEqual(notices);
        if (notices.length > 1) expect(payloads[0]!.startsWith(`${LIST_MARK} v:`)).toBe(true);
      }),
    );
  });

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
