import fc from 'fast-check';
import { FormatRegistry, Kind, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { parseDateTime } from '../../src/domain/time.js';
import type { JsonDocument } from '../../src/portability/json-document/parse.js';
import { planFromDocument } from '../../src/portability/json-document/read.js';
import { CampaignDocument } from '../../src/portability/json-document/schema.js';
import { premiumUser } from '../fixtures/image-app.js';
import { png } from '../fixtures/images.js';
import { p, t } from '../fixtures/rich-text.js';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { sendAs } from '../support/fixtures.js';
import { joinCampaign } from '../support/sharing.js';
import { dialect } from '../support/test-db.js';
import { unzip } from '../support/zip.js';

// The `loreforge-campaign` document has one schema (src/portability/json-document/schema.ts) for
// the OpenAPI document, the writer and the reader. The writer's output passes it; the reader reads
// exactly its keys (but those an import has no use for), and refuses a document whose value at any
// key it reads is of a kind the schema refuses, naming that key.

FormatRegistry.Set('date-time', (value) => parseDateTime(value) !== undefined);

/** Keys of the schema an import does not read: where the records came from, not what they are. */
const NOT_READ = ['exportedAt', 'campaign.id', 'campaign.userId', 'assets[].imageId', 'assets[].contentType', 'assets[].byteSize', ...['userId', 'name', 'email', 'role', 'joinedAt'].map((k) => `members[].${k}`)];

/** The schema's keys: the document's, the campaign's, and each array's records', as `things[].name`. */
function schemaKeys(): string[] {
  const keys: string[] = [];
  const objectKeys = (schema: TSchema) => Object.keys((schema as unknown as { properties: Record<string, TSchema> }).properties);
  for (const key of objectKeys(CampaignDocument)) {
    keys.push(key);
    const value = (CampaignDocument.properties as Record<string, TSchema>)[key]!;
    if (value[Kind] === 'Object') keys.push(...objectKeys(value).map((k) => `${key}.${k}`));
    if (value[Kind] === 'Array') keys.push(...objectKeys(value.items as TSchema).map((k) => `${key}[].${k}`));
  }
  return keys;
}

/** A document held in memory, as the off-thread reader hands it over, noting every key read. */
function recordingDocument(doc: Record<string, unknown>, read: Set<string>): JsonDocument {
  const watch = (value: unknown, prefix: string): unknown =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? new Proxy(value, {
          get(target, key, receiver) {
            // `then`: an async generator's yield asks whether the record is a promise.
            if (typeof key === 'string' && key !== 'then') read.add(`${prefix}${key}`);
            return Reflect.get(target, key, receiver) as unknown;
          },
        })
      : value;
  const arrayKeys = Object.keys(doc).filter((key) => Array.isArray(doc[key]));
  const head = Object.fromEntries(Object.entries(doc).filter(([key]) => !arrayKeys.includes(key)).map(([key, value]) => [key, watch(value, `${key}.`)]));
  class Arrays extends Map<string, number> {
    override get(key: string) {
      read.add(key);
      return super.get(key);
    }
  }
  return {
    head: watch(head, ''),
    arrays: new Arrays(arrayKeys.map((key) => [key, (doc[key] as unknown[]).length])),
    records(key: string) {
      read.add(key);
      // As the off-thread reader does, a record at a time.
      return Readable.from((doc[key] as unknown[]).map((record) => watch(record, `${key}[].`)));
    },
    close() {},
  };
}

let ctx: TestContext;
let owner: TestUser;
let written: Record<string, any>;

beforeAll(async () => {
  ctx = await createTestContext();
  owner = await premiumUser(ctx);
  const send = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) => sendAs(ctx.app, owner, method, url, payload);
  const campaign = json<{ slug: string }>(await send('POST', '/api/campaigns', { newCampaign: { name: 'Schema: every kind of record' } }));
  const base = `/api/campaigns/${campaign.slug}`;
  const gods = json<{ id: number }>(await send('POST', `${base}/thing-types`, { newThingType: { name: 'Gods', fields: [{ key: 'Domain', kind: 'text' }, { key: 'Rival', kind: 'link' }] } }));
  const granted = json<{ imageId: string; uploadURL: string }>(await send('POST', `${base}/assets/upload-url`, { label: 'Map' }));
  await ctx.app.inject({ method: 'PUT', url: new URL(granted.uploadURL).pathname, payload: png(), headers: { 'content-type': 'image/png' } });
  const asset = json<{ asset: { id: number } }>(await send('POST', `${base}/assets/confirm-upload`, { imageId: granted.imageId, label: 'Map' })).asset;
  const bane = json<{ id: number; slug: string }>(await send('POST', `${base}/things`, { newThing: { name: 'Bane', typeId: gods.id, tags: ['evil'], aliases: ['The Black Hand'] } }));
  const lolth = json<{ id: number; slug: string }>(await send('POST', `${base}/things`, {
    newThing: {
      name: 'Lolth',
      typeId: gods.id,
      visibility: 'gm',
      properties: [{ key: 'Domain', value: 'spiders' }, { key: 'Rival', value: { targetType: 'thing', targetId: bane.id }, gmOnly: true }, { key: 'Worshippers', value: [1, 'drow', null] }],
      description: [p(t('Queen of '), t('spiders', { bold: true })), { type: 'image', assetId: asset.id, children: [t('')] }, { type: 'paragraph', isSecret: true, children: [t('secret')] }],
    },
  }));
  const arc = json<{ id: number; slug: string }>(await send('POST', `${base}/arcs`, { newArc: { name: 'Web', hook: [p(t('Find '), { type: 'mention', targetType: 'thing', targetId: lolth.id, children: [t('')] })], tags: ['main'] } }));
  await send('POST', `${base}/arcs`, { newArc: { name: 'Strand', parentArcId: arc.id, visibility: 'gm', properties: [{ key: 'Part of', value: { targetType: 'arc', targetId: arc.id } }] } });
  await send('POST', `${base}/things/${lolth.slug}/arcs`, { arcSlug: arc.slug });
  await send('PUT', base, { updatedCampaign: { description: [p(t('Below.'))] } });
  await joinCampaign(ctx.app, owner, campaign.slug, await ctx.createUser(), 'player');
  written = json(await send('GET', `${base}/export?format=json`));
  const archive = await unzip((await send('GET', `${base}/export?format=archive`)).rawPayload);
  expect({ ...JSON.parse(archive.get('campaign.json')!.toString('utf8')), exportedAt: '' }).toEqual({ ...written, exportedAt: '' });
});
afterAll(async () => {
  await ctx.close();
});

describe(`the campaign document's one schema, on ${dialect}`, () => {
  it('holds what the writer writes: every kind of record, each key present', () => {
    expect([...Value.Errors(CampaignDocument, written)].map((e) => `${e.path}: ${e.message}`)).toEqual([]);
    expect(Value.Check(CampaignDocument, written)).toBe(true);
    // And no key the schema lacks (its objects allow more keys, so Value.Check would not say).
    const keys = new Set(schemaKeys());
    const writtenKeys = Object.entries(written).flatMap(([key, value]) =>
      Array.isArray(value) ? [key, ...value.flatMap((record) => Object.keys(record).map((k) => `${key}[].${k}`))] : typeof value === 'object' ? [key, ...Object.keys(value).map((k) => `${key}.${k}`)] : [key],
    );
    expect(writtenKeys.filter((key) => !keys.has(key))).toEqual([]);
    for (const key of ['thingTypes', 'things', 'arcs', 'links', 'assets', 'members']) expect(written[key].length, key).toBeGreaterThan(key === 'thingTypes' ? 3 : 0);
    // Optional keys (absent in older documents) are written all the same.
    const thing = written.things.find((x: { name: string }) => x.name === 'Lolth');
    expect(Object.keys(thing)).toEqual(['id', 'slug', 'typeId', 'name', 'visibility', 'properties', 'tags', 'aliases', 'createdAt', 'updatedAt', 'description']);
    expect(Object.keys(written.arcs[1])).toEqual(['id', 'slug', 'name', 'parentArcId', 'visibility', 'properties', 'tags', 'aliases', 'createdAt', 'updatedAt', 'hook', 'protagonist', 'antagonist', 'problem', 'key', 'outcome', 'notes']);
  });

  it('has every key the reader reads, and the reader reads every key but those an import has no use for', async () => {
    const read = new Set<string>();
    const plan = await planFromDocument(recordingDocument(written, read), 'campaign.json', true);
    expect(plan.things).toHaveLength(written.things.length);
    const keys = schemaKeys();
    expect([...read].filter((key) => !keys.includes(key))).toEqual([]);
    expect(keys.filter((key) => !read.has(key) && !NOT_READ.includes(key))).toEqual([]);
    expect(NOT_READ.filter((key) => read.has(key))).toEqual([]);
  });

  it('refuses, naming the key, a value of a kind the schema refuses at any key the reader reads', async () => {
    // Not a refusal of the reader: a url of another kind is taken as no url (image blocks keep theirs).
    const lenient = new Set(['assets[].url']);
    const keys = schemaKeys().filter((key) => key.includes('.') && !NOT_READ.includes(key) && !lenient.has(key));
    expect(keys.length).toBeGreaterThan(40);
    let refusals = 0;
    for (const key of keys) {
      for (const wrong of [{}, true, 'text', -1]) {
        const doc = structuredClone(written);
        const [outer, inner] = key.split('.') as [string, string];
        const path = outer.endsWith('[]') ? `/${outer.slice(0, -2)}/0/${inner}` : `/${outer}/${inner}`;
        const record = outer.endsWith('[]') ? doc[outer.slice(0, -2)][0] : doc[outer];
        record[inner] = wrong;
        if (Value.Check(CampaignDocument, doc)) continue;
        const refused = await planFromDocument(recordingDocument(doc, new Set()), 'campaign.json', true).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(refused, `${key} = ${JSON.stringify(wrong)}`).toBeInstanceOf(AppError);
        expect((refused as AppError).issues!.map((issue) => issue.path), `${key} = ${JSON.stringify(wrong)}`).toContain(`campaign.json#${path}`);
        refusals += 1;
      }
    }
    expect(refusals).toBeGreaterThan(3 * keys.length);
  });

  it('refuses any value the schema refuses at a key of a record, as random values go', async () => {
    // Near misses too: strings (not slugs, not dates), integers, lists of strings and of field-like objects.
    const nearMisses = fc.oneof(
      fc.anything({ withNullPrototype: false }),
      fc.string(),
      fc.integer(),
      fc.double(),
      fc.array(fc.oneof(fc.string(), fc.record({ key: fc.string(), kind: fc.constantFrom('text', 'link', 'nope') }, { requiredKeys: [] }))),
    );
    // Properties are left out: an import takes an item's `gmOnly` absent (false), as the API does.
    const keys = schemaKeys().filter((key) => key.includes('.') && !NOT_READ.includes(key) && key !== 'assets[].url' && !key.endsWith('.properties'));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...keys), nearMisses, async (key, wrong) => {
        const doc = structuredClone(written);
        const [outer, inner] = key.split('.') as [string, string];
        const record = outer.endsWith('[]') ? doc[outer.slice(0, -2)][0] : doc[outer];
        record[inner] = wrong;
        fc.pre(!Value.Check(CampaignDocument, doc));
        const path = outer.endsWith('[]') ? `/${outer.slice(0, -2)}/0/${inner}` : `/${outer}/${inner}`;
        const refused = await planFromDocument(recordingDocument(doc, new Set()), 'campaign.json', true).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(refused).toBeInstanceOf(AppError);
        expect((refused as AppError).issues!.map((issue) => issue.path.startsWith(`campaign.json#${path}`)), JSON.stringify(wrong)).toContain(true);
      }),
      { numRuns: Number(process.env.RUNS ?? 300) },
    );
  });
});
