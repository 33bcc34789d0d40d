import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ResponseCache } from '../../src/http/response-cache.js';

type Entry = Parameters<ResponseCache['set']>[1];

function entry(size: number): Entry {
  return { payload: Buffer.alloc(size, 'x'), etag: 'W/"1"', link: undefined, contentType: 'application/json; charset=utf-8' };
}

// Keys of one character, payloads of 99: every entry counts 100 bytes.
describe('ResponseCache', () => {
  it('forgets the least recently used entries beyond its size, a read counting as a use', () => {
    const cache = new ResponseCache(400);
    for (const key of ['a', 'b', 'c', 'd']) cache.set(key, entry(99));
    expect(cache.bytes).toBe(400);
    expect(cache.get('a')).toBeDefined(); // a is now the newest: b is the oldest
    expect(cache.get('a')).toBeDefined(); // read twice in a row: still the newest
    cache.set('e', entry(99));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.bytes).toBe(400);
    // Reading the newest entry again, then an older one, then the newest: order follows the reads.
    expect(cache.get('e')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
    expect(cache.get('e')).toBeDefined();
    cache.set('f', entry(99)); // evicts d, the oldest (c, a and e were read after it)
    expect(cache.get('d')).toBeUndefined();
    cache.set('g', entry(99)); // evicts a
    expect([...['a', 'c', 'e', 'f', 'g'].map((key) => cache.get(key) !== undefined)]).toEqual([false, true, true, true, true]);
  });

  it('replaces an entry in place of its size, and keeps out one entry over half the budget', () => {
    const cache = new ResponseCache(400);
    cache.set('a', entry(99));
    cache.set('a', entry(49));
    expect(cache.bytes).toBe(50);
    cache.set('b', entry(201));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.bytes).toBe(50);
    cache.set('c', entry(199)); // exactly half: kept
    expect(cache.get('c')).toBeDefined();
    expect(cache.bytes).toBe(250);
  });

  it('compresses an entry once per encoding, keeps it with the entry and counts it in its size', async () => {
    const cache = new ResponseCache(100_000);
    const kept = { ...entry(4999), payload: Buffer.from(JSON.stringify(Array.from({ length: 300 }, (_, i) => ({ id: i, name: `Goblin ${i}` })))) };
    cache.set('a', kept);
    const before = cache.bytes;
    const br = await cache.encoded('a', kept, 'br');
    expect(zlib.brotliDecompressSync(br).equals(kept.payload)).toBe(true);
    expect(await cache.encoded('a', kept, 'br')).toBe(br);
    const gzip = await cache.encoded('a', kept, 'gzip');
    expect(zlib.gunzipSync(gzip).equals(kept.payload)).toBe(true);
    expect(cache.bytes).toBe(before + br.length + gzip.length);
    cache.set('a', entry(9));
    expect(cache.bytes).toBe(10);
    // An entry no longer kept is compressed for its request, and counts for nothing.
    await cache.encoded('a', kept, 'br');
    expect(cache.bytes).toBe(10);
  });

  it('stays within its budget as it keeps compressed copies, evicting the oldest entries but never the one being served', async () => {
    const cache = new ResponseCache(100_000);
    // Incompressible payloads (random bytes): each copy is as large as the payload, a little more.
    const entries = Array.from({ length: 10 }, () => ({ ...entry(0), payload: randomBytes(9_999) }));
    entries.forEach((kept, i) => cache.set(String(i), kept));
    expect(cache.bytes).toBe(100_000);
    // The oldest entry served: the next oldest makes room for its copy, not itself.
    await cache.encoded('0', entries[0]!, 'br');
    expect(cache.bytes).toBeLessThanOrEqual(100_000);
    expect(cache.get('1')).toBeUndefined();
    expect(cache.get('0')).toBe(entries[0]);
    for (const [i, kept] of entries.entries()) {
      for (const encoding of ['br', 'gzip'] as const) {
        if (cache.get(String(i)) !== kept) continue; // evicted by an earlier copy
        const bytes = await cache.encoded(String(i), kept, encoding);
        expect(bytes.length).toBeGreaterThan(kept.payload.length);
        expect(cache.bytes).toBeLessThanOrEqual(100_000);
        expect(cache.get(String(i))).toBe(kept);
      }
    }
    // The size counts what is kept: every entry still there, with both its copies.
    const still = entries.filter((kept, i) => cache.get(String(i)) === kept);
    expect(still.length).toBeGreaterThan(0);
    expect(still.every((kept) => kept.encoded?.br !== undefined && kept.encoded.gzip !== undefined)).toBe(true);
    expect(cache.bytes).toBe(still.reduce((sum, kept) => sum + 1 + kept.payload.length + (kept.encodedBytes ?? 0), 0));
  });

  it('does not keep a copy that would take its entry over half the budget (it is made for its request only)', async () => {
    const cache = new ResponseCache(100_000);
    const small = { ...entry(0), payload: randomBytes(999) };
    const large = { ...entry(0), payload: randomBytes(39_999) };
    cache.set('s', small);
    cache.set('l', large);
    const before = cache.bytes;
    const br = await cache.encoded('l', large, 'br');
    expect(zlib.brotliDecompressSync(br).equals(large.payload)).toBe(true);
    expect(cache.bytes).toBe(before);
    expect(cache.get('s')).toBe(small); // nothing evicted for it
    expect(await cache.encoded('l', large, 'br')).not.toBe(br); // made again for the next request
  });
});
