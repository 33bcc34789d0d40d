import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import type { FieldIssue } from '../../src/domain/errors.js';
import { checkAliases, checkProperties, checkTags, foldKey, PROPERTIES_MAX_BYTES, type Property, type PropertyLink } from '../../src/domain/properties.js';
import { OWN_KEYS, structureFrontMatter, structureFromFrontMatter } from '../../src/portability/front-matter.js';

// A record's properties, tags and aliases as a vault's YAML front matter and back
// (portability/front-matter.ts): whatever they are, our own vault gives them back as they were;
// whatever another vault's front matter holds, what comes out is valid as the API checks it.

// Links as the export writes them (a wikilink to a note) and as the import resolves them.
const linkText = (link: PropertyLink) => `[[${link.targetType === 'thing' ? 'Things' : 'Arcs'}/${link.targetId}|Name ${link.targetId}]]`;
const resolve = (reference: string): PropertyLink | undefined => {
  const match = /^(Things|Arcs)\/(\d+)$/.exec(reference);
  return match ? { targetType: match[1] === 'Things' ? 'thing' : 'arc', targetId: Number(match[2]) } : undefined;
};

/** Front matter as our export writes it: its own keys first, then the structure's entries; read back by the yaml library. */
function roundTrip(structure: { properties: Property[]; tags: string[]; aliases: string[] }) {
  const own: [string, unknown][] = [
    ['id', 7],
    ['slug', 'meepo'],
    ['name', 'Meepo'],
    ['type', 'NPCs'],
    ['createdAt', '2026-01-01T00:00:00.000Z'],
  ];
  const yaml = toYaml(new Map([...own, ...structureFrontMatter(structure, linkText)]), { lineWidth: 0 });
  // As the vault's import reads it: maps as Maps, which keep their keys' order.
  const meta = parseYaml(yaml, { maxAliasCount: 100, mapAsMap: true }) as Map<unknown, unknown>;
  return structureFromFrontMatter(meta, OWN_KEYS, resolve);
}

// eslint-disable-next-line no-control-regex
const label = (max: number) => fc.string({ unit: 'grapheme', minLength: 1, maxLength: max }).map((s) => s.trim()).filter((s) => s !== '' && !/[\u0000-\u001f\u007f]/.test(s) && [...s].length <= max);
const keyArb = fc.oneof(label(100), fc.constantFrom('name', 'Type', 'tags', 'aliases', 'alias', '__proto__', 'constructor', 'loreforge-gm-only', 'id', 'createdAt', '123', 'true', 'null', 'a: b', '- x', '#x'));
const textArb = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }).filter((s) => !s.includes('\u0000')),
  fc.constantFrom('', ' lead', 'trail ', 'yes', 'no', 'null', '~', '42', '0x1F', '1e3', '2026-11-24', 'a: b', '- x', '# not a comment', "'quoted'", '"dq"', 'line\nbreak', '\t', '[[Nowhere]]', '{a: 1}'),
);
const scalarArb = fc.oneof(
  textArb,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
  fc.boolean(),
  fc.constant(null),
  fc.record({ targetType: fc.constantFrom('thing' as const, 'arc' as const), targetId: fc.integer({ min: 1, max: 2 ** 31 }) }),
);
const propertiesArb = fc.uniqueArray(fc.record({ key: keyArb, value: fc.oneof(scalarArb, fc.array(scalarArb, { maxLength: 5 })), gmOnly: fc.boolean() }), {
  selector: (property) => foldKey(property.key),
  maxLength: 8,
});
const labelsArb = (max: number) => fc.uniqueArray(label(max), { selector: foldKey, maxLength: 5 });

describe('front matter', () => {
  it('gives our own properties, tags and aliases back as they were, whatever their keys and values', () => {
    fc.assert(
      fc.property(fc.record({ properties: propertiesArb, tags: labelsArb(50).map((tags) => tags.filter((tag) => !tag.startsWith('#'))), aliases: labelsArb(255) }), (structure) => {
        expect(roundTrip(structure)).toEqual(structure);
      }),
      { numRuns: 300 },
    );
  });

  it('makes valid properties, tags and aliases of any front matter, never throwing', () => {
    const yamlish = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.string({ unit: 'binary', maxLength: 30 }),
        fc.double(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.date(),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(fc.string({ maxLength: 8 }), tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    fc.assert(
      fc.property(fc.dictionary(fc.oneof(fc.string({ unit: 'binary', maxLength: 120 }), fc.constantFrom('tags', 'tag', 'aliases', 'alias', 'loreforge-gm-only', 'loreforge-properties')), yamlish, { maxKeys: 8 }), (meta) => {
        const out = structureFromFrontMatter(Object.entries(meta), new Set(), () => undefined);
        const issues: FieldIssue[] = [];
        expect(checkProperties(out.properties, '/properties', issues)).toEqual(out.properties);
        expect(checkTags(out.tags, '/tags', issues)).toEqual(out.tags);
        expect(checkAliases(out.aliases, '/aliases', issues)).toEqual(out.aliases);
        expect(issues).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('leaves out properties past PROPERTIES_MAX_BYTES in all, however YAML aliases (as many as the reader allows) repeat a value', () => {
    const long = 'x'.repeat(10_000);
    const yaml = [`a: &long ${long}`, 'list: &list [*long, *long, *long, *long, *long, *long, *long, *long, *long, *long]', ...Array.from({ length: 8 }, (_, i) => `p${i}: *list`)].join('\n');
    const out = structureFromFrontMatter(parseYaml(yaml, { mapAsMap: true, maxAliasCount: 100 }) as Map<unknown, unknown>, new Set(), () => undefined);
    // 64 KiB of YAML (the most read) reads as 900,000 characters: a, list and p0 fit, no more.
    expect(out.properties.map((p) => p.key)).toEqual(['a', 'list', 'p0']);
    expect(Buffer.byteLength(JSON.stringify(out.properties))).toBeLessThanOrEqual(PROPERTIES_MAX_BYTES);
    const issues: FieldIssue[] = [];
    checkProperties(out.properties, '/properties', issues);
    expect(issues).toEqual([]);
  });

  it('reads what other vaults write: tag strings, single aliases, dates, maps', () => {
    const meta = parseYaml(['tags: "#npc, #kobold villain"', 'alias: Meepo', 'met: 2024-05-01', 'stats: {str: 8}', 'list: [a, [b]]', 'big: .inf'].join('\n'), { mapAsMap: true }) as Map<unknown, unknown>;
    expect(structureFromFrontMatter([...meta, ['when', new Date('2024-05-01T00:00:00Z')]], new Set(), () => undefined)).toEqual({
      tags: ['npc', 'kobold', 'villain'],
      aliases: ['Meepo'],
      properties: [
        { key: 'met', value: '2024-05-01', gmOnly: false },
        { key: 'stats', value: '{"str":8}', gmOnly: false },
        { key: 'list', value: ['a', '["b"]'], gmOnly: false },
        { key: 'big', value: 'Infinity', gmOnly: false },
        { key: 'when', value: '2024-05-01', gmOnly: false },
      ],
    });
  });
});
