import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { arcChangesOf, campaignChangesOf, thingChangesOf } from '../../src/history/revisions.js';
import { changedFields, decodeSnapshot, encodeSnapshot, snapshotCoding, type ThingSnapshot } from '../../src/history/snapshots.js';

// The stored form of a revision's snapshot, and the field lists revisions carry.

const text = fc.string({ unit: 'grapheme', maxLength: 200 });
const richText = fc.array(fc.record({ type: fc.constant('paragraph'), children: fc.array(fc.record({ text }), { minLength: 1, maxLength: 4 }) }), { maxLength: 6 });
const thing: fc.Arbitrary<ThingSnapshot> = fc.record({
  name: text,
  slug: fc.stringMatching(/^[a-z0-9]{1,20}$/),
  typeId: fc.integer({ min: 1, max: 1000 }),
  visibility: fc.constantFrom('all' as const, 'gm' as const),
  description: richText,
});

afterEach(() => {
  snapshotCoding.compress = true;
});

describe('revision snapshots', () => {
  it('decode to what was encoded, compressed or not', () => {
    fc.assert(
      fc.property(thing, fc.boolean(), (snapshot, compress) => {
        snapshotCoding.compress = compress;
        expect(decodeSnapshot(encodeSnapshot(snapshot))).toEqual(snapshot);
      }),
    );
  });

  it('are compressed only when that makes them smaller', () => {
    const short = { name: 'A', slug: 'a', typeId: 1, visibility: 'all' as const, description: [] };
    expect(encodeSnapshot(short)[0]).toBe(0);
    const long = { ...short, description: Array.from({ length: 200 }, (_, i) => ({ type: 'paragraph', children: [{ text: `The goblins of Cragmaw ${i}.` }] })) };
    const encoded = encodeSnapshot(long);
    expect(encoded[0]).toBe(1);
    expect(encoded.length).toBeLessThan(JSON.stringify(long).length / 4);
  });

  it('list as changed exactly the fields whose values differ, and every field of a first revision', () => {
    fc.assert(
      fc.property(thing, thing, (a, b) => {
        const fields = changedFields(a, b);
        for (const key of Object.keys(b) as (keyof ThingSnapshot)[]) {
          expect(fields.includes(key), key).toBe(JSON.stringify(a[key]) !== JSON.stringify(b[key]));
        }
        expect(changedFields(a, a)).toEqual([]);
        expect(changedFields(undefined, b)).toEqual(['name', 'slug', 'typeId', 'visibility', 'description']);
      }),
    );
  });

  it('never counts the shown parent of an arc as a change of its own', () => {
    const arc = { name: 'A', slug: 'a', parentArcId: 3, parentArc: { id: 3, slug: 'p', name: 'Parent' }, visibility: 'all' as const, hook: [], protagonist: [], antagonist: [], problem: [], key: [], outcome: [], notes: [] };
    expect(changedFields(arc, { ...arc, parentArc: { id: 3, slug: 'p', name: 'Renamed parent' } })).toEqual([]);
    expect(changedFields(arc, { ...arc, parentArcId: null, parentArc: null })).toEqual(['parentArcId']);
  });

  it('restore as changes that give the record every field the snapshot has, and leave the others', () => {
    fc.assert(
      fc.property(thing, (snapshot) => {
        expect(thingChangesOf(snapshot)).toEqual({ ...snapshot, description: JSON.stringify(snapshot.description) });
      }),
    );
    // A snapshot from before a field existed leaves that field as it is.
    expect(thingChangesOf({ name: 'Old' })).toEqual({ name: 'Old' });
    expect(arcChangesOf({ parentArcId: null, hook: [] })).toEqual({ parentArcId: null, hook: '[]' });
    expect(campaignChangesOf({ defaultVisibility: 'gm' })).toEqual({ default_visibility: 'gm' });
  });
});
