import fc from 'fast-check';
import { anyJsonValue, BIG_NUMBERS, hostileString, ODD_TEXT } from './hostile.js';

// Request bodies generated from a route's JSON schema (as the OpenAPI document publishes it): values
// that fit the schema, and the same values with one part broken. Only the schema features the
// service's TypeBox schemas use are understood; anything else is treated as "any JSON value".

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  const?: unknown;
  enum?: unknown[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  $ref?: string;
}

/** Values of the seeded data, so generated references (ids, slugs) sometimes name real records. */
export interface Hints {
  integers: number[];
  strings: string[];
}

// A rich-text leaf or block is what an untyped array item most often is in this API; mostly valid
// ones, so that bodies get past validation often enough to reach the database.
const richNode: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ text: hostileString() }) },
  {
    weight: 1,
    arbitrary: fc.record(
      { text: fc.string({ maxLength: 20 }), bold: fc.boolean(), italic: anyJsonValue, code: fc.boolean() },
      { requiredKeys: ['text'] },
    ),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constantFrom('paragraph', 'heading', 'image', ''), children: fc.constant(null).map(() => [{ text: 'x' }]) }) },
  { weight: 1, arbitrary: anyJsonValue },
);

function integerArbitrary(schema: JsonSchema, hints: Hints): fc.Arbitrary<number> {
  const min = schema.minimum ?? -1_000;
  const max = schema.maximum ?? 2_147_483_647;
  const inRange = hints.integers.filter((n) => n >= min && n <= max);
  return fc.oneof(
    { weight: 3, arbitrary: inRange.length > 0 ? fc.constantFrom(...inRange) : fc.integer({ min, max }) },
    { weight: 2, arbitrary: fc.integer({ min, max: Math.min(max, min + 1_000) }) },
    { weight: 1, arbitrary: fc.integer({ min, max }) },
  );
}

// Strings whose meaning the schema does not say but the property name does.
function namedString(key: string, hints: Hints): fc.Arbitrary<string> | undefined {
  const slugs = hints.strings.filter((s) => /^[a-z0-9]+(-[a-z0-9]+)*$/.test(s));
  if (/email/i.test(key)) return fc.oneof(fc.emailAddress(), fc.constant('gm@example.test'));
  if (/password/i.test(key)) return fc.string({ minLength: 10, maxLength: 40 });
  if (/slug/i.test(key) && slugs.length > 0) return fc.oneof(fc.constantFrom(...slugs), fc.stringMatching(/^[a-z0-9]{1,20}(-[a-z0-9]{1,10}){0,2}$/));
  if (/^imageId$/i.test(key)) return fc.stringMatching(/^[0-9a-f]{32}$/);
  if (/expiresAt/i.test(key)) return fc.date({ min: new Date('2030-01-01T00:00:00Z'), max: new Date('2099-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
  return undefined;
}

function stringArbitrary(schema: JsonSchema, hints: Hints, key: string): fc.Arbitrary<string> {
  const named = namedString(key, hints);
  if (named) return fc.oneof({ weight: 4, arbitrary: named }, { weight: 1, arbitrary: stringArbitrary(schema, hints, '') });
  if (schema.format === 'date-time') {
    return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
  }
  if (schema.pattern !== undefined) {
    const max = Math.min(schema.maxLength ?? 60, 60);
    return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= (schema.minLength ?? 0) && s.length <= max);
  }
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 80, 80);
  return fc.oneof(
    { weight: 3, arbitrary: hints.strings.length > 0 ? fc.constantFrom(...hints.strings) : fc.string({ minLength, maxLength }) },
    { weight: 3, arbitrary: fc.string({ minLength: Math.max(minLength, 1), maxLength, unit: 'grapheme-ascii' }) },
    { weight: 2, arbitrary: fc.string({ minLength, maxLength, unit: 'grapheme' }) },
    { weight: 1, arbitrary: fc.constantFrom(...ODD_TEXT).filter((s) => s.length >= minLength && s.length <= maxLength) },
  );
}

/** Values that match `schema` (references may or may not name real records). */
const ABSENT = Symbol('absent');

/** Values that match `schema` (references may or may not name real records); `key` is the property name, if any. */
export function validValue(schema: JsonSchema | undefined, hints: Hints, depth = 0, key = ''): fc.Arbitrary<unknown> {
  if (schema === undefined || depth > 8) return anyJsonValue;
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices && choices.length > 0) return fc.oneof(...choices.map((choice) => validValue(choice, hints, depth + 1, key)));
  if (schema.allOf && schema.allOf.length > 0) return validValue(schema.allOf[0], hints, depth + 1, key);
  const type = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  if (type.length > 1) return fc.oneof(...type.map((t) => validValue({ ...schema, type: t }, hints, depth + 1, key)));
  switch (type[0] ?? 'any') {
    case 'object': {
      const properties = schema.properties ?? {};
      const required = new Set(schema.required ?? []);
      // An optional property is left out two times in three: a body with every optional field is
      // rarely valid as a whole, and the fuzzer should get past validation often.
      const model = Object.fromEntries(
        Object.entries(properties).map(([name, sub]) => {
          const value = validValue(sub, hints, depth + 1, name);
          return [name, required.has(name) ? value : fc.oneof({ weight: 2, arbitrary: fc.constant<unknown>(ABSENT) }, { weight: 1, arbitrary: value })];
        }),
      );
      return fc.record(model).map((record) => Object.fromEntries(Object.entries(record).filter(([, v]) => v !== ABSENT)));
    }
    case 'array': {
      const item = schema.items && Object.keys(schema.items).length > 0 ? validValue(schema.items, hints, depth + 1) : richNode;
      return fc.array(item, { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, 4) });
    }
    case 'string':
      return stringArbitrary(schema, hints, key);
    case 'integer':
      return integerArbitrary(schema, hints);
    case 'number':
      return fc.oneof(integerArbitrary(schema, hints), fc.double({ noNaN: true, noDefaultInfinity: true }));
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.oneof({ weight: 2, arbitrary: richNode }, { weight: 1, arbitrary: anyJsonValue });
  }
}

type Container = Record<string, unknown> | unknown[];

/** Every container in `value` with the keys it holds, depth first: the places a mutation can hit. */
function places(value: unknown, out: { parent: Container; key: string | number }[] = [], depth = 0): typeof out {
  if (depth > 12 || typeof value !== 'object' || value === null) return out;
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      out.push({ parent: value, key: index });
      places(item, out, depth + 1);
    });
  } else {
    for (const [key, item] of Object.entries(value)) {
      out.push({ parent: value as Record<string, unknown>, key });
      places(item, out, depth + 1);
    }
  }
  return out;
}

function containers(value: unknown, out: Container[] = [], depth = 0): Container[] {
  if (depth > 12 || typeof value !== 'object' || value === null) return out;
  out.push(value as Container);
  for (const item of Object.values(value)) containers(item, out, depth + 1);
  return out;
}

/** Sets an own, enumerable key, even `__proto__`, so JSON.stringify writes it out as given. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function deepValue(depth: number, kind: 'array' | 'object'): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = kind === 'array' ? [value] : { a: value };
  return value;
}

const replacement: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: anyJsonValue },
  { weight: 2, arbitrary: hostileString(200_000) },
  { weight: 1, arbitrary: fc.constantFrom(...BIG_NUMBERS) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 17, max: 3_000 }), fc.constantFrom<'array' | 'object'>('array', 'object')).map(([d, k]) => deepValue(d, k)) },
);

const mutationKind = fc.constantFrom('replace', 'replace', 'replace', 'delete', 'add-key', 'wrap', 'to-string', 'proto-key', 'constructor-key');
const extraKey = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', '', ' ', 'toString', 'id', 'userId', 'campaignId', 'version'), fc.string({ maxLength: 10 }));

/** A schema-shaped value with one part broken: a wrong type, a missing key, an extra or poisoned key, a huge or deep value. */
export function mutatedValue(schema: JsonSchema | undefined, hints: Hints): fc.Arbitrary<unknown> {
  return fc
    .tuple(validValue(schema, hints), fc.array(fc.tuple(mutationKind, fc.nat(), replacement, extraKey), { minLength: 1, maxLength: 3 }))
    .map(([original, mutations]) => {
      let value: unknown = structuredClone(original);
      for (const [kind, pick, newValue, key] of mutations) {
        const spots = places(value);
        const boxes = containers(value);
        if (kind === 'proto-key' || kind === 'constructor-key' || kind === 'add-key') {
          const objects = boxes.filter((box): box is Record<string, unknown> => !Array.isArray(box));
          const target = objects[pick % Math.max(1, objects.length)];
          if (!target) {
            value = newValue;
            continue;
          }
          if (kind === 'proto-key') setOwn(target, '__proto__', { polluted: true, isAdmin: true });
          else if (kind === 'constructor-key') setOwn(target, 'constructor', { prototype: { polluted: true } });
          else setOwn(target, key, newValue);
          continue;
        }
        const spot = spots[pick % Math.max(1, spots.length)];
        if (!spot) {
          value = kind === 'wrap' ? [value] : newValue;
          continue;
        }
        const { parent, key: at } = spot;
        const current = (parent as Record<string | number, unknown>)[at];
        if (kind === 'delete') {
          if (Array.isArray(parent)) parent.splice(at as number, 1);
          else delete parent[at as string];
        } else if (kind === 'wrap') {
          (parent as Record<string | number, unknown>)[at] = [current];
        } else if (kind === 'to-string') {
          (parent as Record<string | number, unknown>)[at] = typeof current === 'string' ? Number(current) || 7 : JSON.stringify(current ?? null);
        } else {
          (parent as Record<string | number, unknown>)[at] = newValue;
        }
      }
      return value;
    });
}
