import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoOfTimestamp, isoOfTimestamptz } from '../../src/db/timestamps.js';

// What the reader replaced: PostgreSQL's text turned into a Date and back.
const viaDate = (text: string) => new Date(text).toISOString();

/** A timestamptz as PostgreSQL writes it in a UTC session (DateStyle ISO): microseconds, trailing zeros dropped. */
function postgresText(date: Date, micros: number): string {
  const iso = date.toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ for years 0–9999
  const fraction = `${iso.slice(20, 23)}${String(micros).padStart(3, '0')}`.replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction === '' ? '' : `.${fraction}`}+00`;
}

const dates = fc.date({ min: new Date('0001-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true });

describe('PostgreSQL timestamps as ISO strings', () => {
  it('gives the instant PostgreSQL wrote for every timestamptz of a UTC session, to the millisecond, as a Date did from year 100 on', () => {
    fc.assert(
      fc.property(dates, fc.integer({ min: 0, max: 999 }), (date, micros) => {
        const text = postgresText(date, micros);
        expect(isoOfTimestamptz(text)).toBe(date.toISOString());
        // V8 reads a non-ISO date string's year below 100 as 19xx or 20xx; from 100 on it read these right.
        if (date.getUTCFullYear() >= 100) expect(isoOfTimestamptz(text)).toBe(viaDate(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads a year below 100 as written (a Date read 0099 as 1999)', () => {
    expect(isoOfTimestamptz('0099-12-31 23:59:59.999+00')).toBe('0099-12-31T23:59:59.999Z');
    expect(viaDate('0099-12-31 23:59:59.999+00')).toBe('1999-12-31T23:59:59.999Z');
  });

  it('reads the forms it does not rewrite through a Date, as before', () => {
    const outcome = (read: () => string) => {
      try {
        return read();
      } catch (error) {
        return error instanceof Error ? error.name : 'thrown';
      }
    };
    for (const text of [
      '2026-11-26 17:00:00.5+01',
      '2026-11-26 10:30:00+05:30',
      '2026-11-26 08:00:00.123456-08',
      '2026-11-26 16:00:00+00:30',
      '0044-03-15 12:00:00+00 BC',
      '12026-11-26 16:00:00+00',
      'infinity',
    ]) {
      expect(outcome(() => isoOfTimestamptz(text))).toBe(outcome(() => viaDate(text)));
    }
    expect(isoOfTimestamptz('2026-11-26 17:00:00.5+01')).toBe('2026-11-26T16:00:00.500Z');
    expect(() => isoOfTimestamptz('infinity')).toThrow(RangeError);
  });

  it('fixes the exact digits of each fraction length', () => {
    expect(isoOfTimestamptz('2026-11-26 16:00:00+00')).toBe('2026-11-26T16:00:00.000Z');
    expect(isoOfTimestamptz('2026-11-26 16:00:00.1+00')).toBe('2026-11-26T16:00:00.100Z');
    expect(isoOfTimestamptz('2026-11-26 16:00:00.12+00')).toBe('2026-11-26T16:00:00.120Z');
    expect(isoOfTimestamptz('2026-11-26 16:00:00.123+00')).toBe('2026-11-26T16:00:00.123Z');
    expect(isoOfTimestamptz('2026-11-26 16:00:00.1239+00')).toBe('2026-11-26T16:00:00.123Z');
    expect(isoOfTimestamptz('2026-11-26 16:00:00.999999+00')).toBe('2026-11-26T16:00:00.999Z');
  });

  it('reads a timestamp without time zone as UTC', () => {
    expect(isoOfTimestamp('2026-11-26 16:00:00.25')).toBe('2026-11-26T16:00:00.250Z');
  });
});
