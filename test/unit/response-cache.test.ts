import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ResponseCache } from '../../src/http/response-cache.js';

function entry(size: number) {
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
});
