import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { arcChangesOf, campaignChangesOf, thingChangesOf } from '../../src/history/revisions.js';
import {
  changedDigests,
  decodeSnapshot,
  encodeSnapshot,
  encodeSnapshotJson,
  fieldDigests,
  serializeWithDigests,
  serializeWrittenThing,
  snapshotCoding,
  thingSnapshot,
  type ArcSnapshot,
  type FieldDigests,
  type ThingSnapshot,
} from '../../src/history/snapshots.js';

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
const label = fc.string({ maxLength: 40 });
// Snapshots as revisions hold them: with or without the fields of issue 25 (a revision kept before
// they existed lacks their keys), empty or not.
const structured: fc.Arbitrary<ThingSnapshot> = fc
  .tuple(thing, fc.option(fc.array(label, { maxLength: 3 }), { nil: undefined }), fc.option(fc.array(label, { maxLength: 3 }), { nil: undefined }))
  .map(([snapshot, tags, aliases]) => ({ ...snapshot, ...(tags === undefined ? {} : { tags }), ...(aliases === undefined ? {} : { aliases }) }));
const parent = fc.option(fc.record({ id: fc.integer({ min: 1, max: 5 }), slug: fc.constantFrom('p', 'q'), name: text }), { nil: null });
const arc: fc.Arbitrary<ArcSnapshot> = fc.record({
  name: text,
  slug: fc.constantFrom('a', 'b'),
  parentArcId: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
  parentArc: parent,
  visibility: fc.constantFrom('all' as const, 'gm' as const),
  hook: richText,
  protagonist: richText,
  antagonist: richText,
  problem: richText,
  key: richText,
  outcome: richText,
  notes: richText,
});

// What a revision's `fields` mean, by value: the fields whose JSON differs, a field a snapshot lacks
// counting as empty (properties, tags, aliases: revisions kept before they existed), the arc's
// shown parent never a change of its own; all of `next`'s for a first revision, in its key order.
const ABSENT_MEANS: Record<string, unknown> = { properties: [], tags: [], aliases: [] };
function changedByValue(previous: object | undefined, next: object): string[] {
  const before = previous as Record<string, unknown> | undefined;
  const after = next as Record<string, unknown>;
  const keys = Object.keys(after).filter((key) => key !== 'parentArc');
  if (before === undefined) return keys;
  for (const key of Object.keys(before)) if (key !== 'parentArc' && !(key in after)) keys.push(key);
  const value = (snapshot: Record<string, unknown>, key: string) => (key in snapshot ? snapshot[key] : ABSENT_MEANS[key]);
  return keys.filter((key) => JSON.stringify(value(before, key)) !== JSON.stringify(value(after, key)));
}

/** The fields keepRevision lists as changed: by the snapshots' digests. */
const changed = (previous: Parameters<typeof fieldDigests>[0] | undefined, next: Parameters<typeof fieldDigests>[0]) =>
  changedDigests(previous && fieldDigests(previous), fieldDigests(next));

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
        const fields = changed(a, b);
        for (const key of Object.keys(b) as (keyof ThingSnapshot)[]) {
          expect(fields.includes(key), key).toBe(JSON.stringify(a[key]) !== JSON.stringify(b[key]));
        }
        expect(changed(a, a)).toEqual([]);
        expect(changed(undefined, b)).toEqual(['name', 'slug', 'typeId', 'visibility', 'description']);
      }),
    );
  });

  it('never counts the shown parent of an arc as a change of its own', () => {
    const arc = { name: 'A', slug: 'a', parentArcId: 3, parentArc: { id: 3, slug: 'p', name: 'Parent' }, visibility: 'all' as const, hook: [], protagonist: [], antagonist: [], problem: [], key: [], outcome: [], notes: [] };
    expect(changed(arc, { ...arc, parentArc: { id: 3, slug: 'p', name: 'Renamed parent' } })).toEqual([]);
    expect(changed(arc, { ...arc, parentArcId: null, parentArc: null })).toEqual(['parentArcId']);
  });

  it('serialize with their digests as JSON.stringify does, and store that as encodeSnapshot does', () => {
    fc.assert(
      fc.property(fc.oneof(structured, arc), fc.boolean(), (snapshot, compress) => {
        snapshotCoding.compress = compress;
        const { json } = serializeWithDigests(snapshot);
        expect(json).toBe(JSON.stringify(snapshot));
        expect(encodeSnapshotJson(json).equals(encodeSnapshot(snapshot))).toBe(true);
      }),
    );
  });

  it('tell by their digests exactly the fields whose values differ, absent and derived fields included', () => {
    // Pairs drawn to share fields often: most of an edit leaves most fields as they were.
    const pair = <T extends object>(one: fc.Arbitrary<T>) =>
      fc.tuple(one, one, fc.array(fc.boolean(), { minLength: 16, maxLength: 16 })).map(([a, b, keep]) => {
        const mixed = { ...b } as Record<string, unknown>;
        Object.keys(a).forEach((key, i) => {
          if (keep[i]) mixed[key] = (a as Record<string, unknown>)[key];
        });
        return [a, mixed as T] as const;
      });
    fc.assert(
      fc.property(fc.oneof(pair(structured), pair(arc)), ([a, b]) => {
        expect(changed(a, b)).toEqual(changedByValue(a, b));
        expect(changed(undefined, b)).toEqual(changedByValue(undefined, b));
        // Stored and read back, as keepRevision does.
        expect(changedDigests(JSON.parse(JSON.stringify(fieldDigests(a))) as FieldDigests, fieldDigests(b))).toEqual(changedByValue(a, b));
      }),
      { numRuns: 500 },
    );
  });

  it('of a thing whose description a write just stored serialize as if that description were read back', () => {
    // What a PUT stores: the request body as JSON.parse read it, serialized by serializeRichText
    // (extra keys of any JSON value included: integer-like keys, __proto__, numbers such as -0 or 1e21).
    const extra = fc.dictionary(fc.oneof(fc.constantFrom('1', '10', '__proto__', 'b', 'a'), fc.string({ maxLength: 4 })), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
    const body = fc.tuple(richText, extra, fc.constantFrom('-0', '1e21', '0.1', '"\\ud800"', 'null')).map(([doc, keys, number]) =>
      JSON.stringify(doc.length === 0 ? [] : [{ ...doc[0], ...keys }, ...doc.slice(1)]).replace(/^\[(\{)/, `[{"n":${number},`),
    );
    fc.assert(
      fc.property(structured, body, fc.constantFrom('[]', '["t"]'), (snapshot, requestBody, tags) => {
        const description = JSON.stringify(JSON.parse(requestBody));
        const row = { name: snapshot.name, slug: snapshot.slug, type_id: snapshot.typeId, visibility: snapshot.visibility, description, properties: '[]', tags, aliases: '[]' };
        const written = serializeWrittenThing(row);
        const readBack = serializeWithDigests(thingSnapshot(row));
        expect(written.json).toBe(readBack.json);
        expect(written.digests).toEqual(readBack.digests);
      }),
      { numRuns: 300 },
    );
  });

  it('keep short fields as their JSON and hash long ones, with a mark no JSON starts with', () => {
    const long = { name: 'A name longer than thirty-two characters', slug: 'a', typeId: 7, visibility: 'gm' as const, description: [], tags: [] };
    const digests = fieldDigests(long);
    expect(digests).toMatchObject({ slug: '"a"', typeId: '7', visibility: '"gm"', description: '[]', tags: '[]' });
    expect(digests.name).toMatch(/^#[A-Za-z0-9+/]{22}$/);
    // A field a revision lacks counts as empty, so a first tags-less revision and [] are the same.
    expect(changedDigests(fieldDigests({ ...long, tags: undefined }), digests)).toEqual([]);
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
