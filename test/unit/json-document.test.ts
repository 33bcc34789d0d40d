import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ImportBudget } from '../../src/portability/budget.js';
import { openJsonDocument, RECORD_MAX_BYTES, type JsonDocument } from '../../src/portability/json-document/parse.js';

// json-worker.mjs reads a document's bytes itself, record by record, instead of JSON.parse of the
// whole: whatever the JSON (any values, strings with escapes and any characters, white space
// anywhere, a byte-order mark), what it hands over is what JSON.parse makes of the document; what
// JSON.parse refuses, it refuses.

/** The document as JSON.parse would have it, rebuilt from the reader's head and records. */
async function readAll(document: JsonDocument): Promise<unknown> {
  try {
    if (typeof document.head !== 'object' || document.head === null || Array.isArray(document.head)) return document.head;
    const value = { ...(document.head as Record<string, unknown>) };
    for (const key of document.arrays.keys()) {
      const records: unknown[] = [];
      for await (const record of document.records(key)) records.push(record);
      expect(records.length).toBe(document.arrays.get(key));
      value[key] = records;
    }
    return value;
  } finally {
    document.close();
  }
}

async function read(text: string): Promise<unknown> {
  return readAll(await openJsonDocument(Buffer.from(text, 'utf8'), 'campaign.json', new ImportBudget(Number.POSITIVE_INFINITY)));
}

const space = fc.constantFrom('', ' ', '\n', '\t', '\r\n  ');

/** JSON text of `value` with white space between every token. */
function spaced(value: unknown, pad: () => string): string {
  if (Array.isArray(value)) return `${pad()}[${pad()}${value.map((v) => spaced(v, pad)).join(`${pad()},`)}${pad()}]${pad()}`;
  if (typeof value === 'object' && value !== null) {
    const members = Object.entries(value).map(([k, v]) => `${pad()}${JSON.stringify(k)}${pad()}:${spaced(v, pad)}`);
    return `${pad()}{${members.join(',')}${pad()}}${pad()}`;
  }
  return `${pad()}${JSON.stringify(value)}${pad()}`;
}

describe('reading a JSON document record by record', () => {
  it('hands over what JSON.parse makes of any object document, spaced any way', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.string({ unit: 'grapheme', maxLength: 6 }), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 6 }),
        fc.array(space, { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        async (document, spaces, bom) => {
          let turn = 0;
          const text = `${bom ? '\uFEFF' : ''}${spaced(document, () => spaces[turn++ % spaces.length]!)}`;
          expect(await read(text)).toEqual(JSON.parse(text.replace(/^\uFEFF/, '')));
        },
      ),
      { numRuns: 100 },
    );
  }, 120_000);

  it('refuses what JSON.parse refuses, as 400 invalid_import', async () => {
    const broken = [
      '{',
      '{"things":[1,2',
      '{"things":[1,]}',
      '{"things":[1 2]}',
      '{"a":1,}',
      '{"a" 1}',
      '{a:1}',
      '{"a":"unterminated}',
      '{"a":tru}',
      '{"a":[{"b":1]}]}',
      '{"a":1} {"b":2}',
      '{"a":1}x',
      '{"things":[{"a":"\\x"}]}',
    ];
    for (const text of broken) {
      expect(() => JSON.parse(text), text).toThrow();
      await expect(read(text), text).rejects.toMatchObject({ code: 'invalid_import' });
    }
  });

  it('refuses bytes that are not UTF-8, and a record larger than a record may be, naming it', async () => {
    const bad = Buffer.concat([Buffer.from('{"things":[{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}]}')]);
    await expect(openJsonDocument(bad, 'campaign.json', new ImportBudget(Infinity))).rejects.toMatchObject({ message: 'campaign.json: the file is not UTF-8 text' });
    const large = Buffer.from(`{"things":[{"id":1},{"name":"${'a'.repeat(RECORD_MAX_BYTES)}"}]}`);
    await expect(openJsonDocument(large, 'campaign.json', new ImportBudget(Infinity))).rejects.toMatchObject({
      message: expect.stringMatching(/^campaign\.json#\/things\/1: is \d+ bytes of JSON; a record may be at most/) as unknown,
    });
  });
});
