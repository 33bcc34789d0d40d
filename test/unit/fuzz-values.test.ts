import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyJsonValue } from '../support/fuzz/hostile.js';
import { mutatedValue, type JsonSchema } from '../support/fuzz/schema.js';

// The route fuzzer's own values (test/support/fuzz). Its mutations write into the values they
// insert, so no generated container may be shared between two values, or one body's mutation
// leaks into the next (a shared `{}` once got a key pointing at itself, and every later body that
// used it could no longer be written as JSON).

/** Every object and array inside `value`, by identity. */
function containersOf(value: unknown, out: object[] = []): object[] {
  if (typeof value !== 'object' || value === null) return out;
  out.push(value);
  for (const item of Object.values(value)) containersOf(item, out);
  return out;
}

describe('the fuzzer\'s generated values', () => {
  it('never share a container between two values', () => {
    const seen = new Set<object>();
    for (const value of fc.sample(anyJsonValue, { numRuns: 5_000, seed: 7 })) {
      for (const container of containersOf(value)) {
        expect(seen.has(container)).toBe(false);
        seen.add(container);
      }
    }
  });

  it('mutated bodies can always be written as JSON', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: { name: { type: 'string' }, description: { type: 'array', items: {} }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['name'],
    };
    for (const value of fc.sample(mutatedValue(schema, { integers: [1], strings: ['goblin'] }), { numRuns: 5_000, seed: 1 })) {
      expect(() => JSON.stringify(value)).not.toThrow();
    }
  });
});
