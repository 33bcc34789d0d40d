// PostgreSQL's timestamps, as the ISO strings SQLite stores (`2026-11-26T16:00:00.123Z`).
//
// node-postgres hands a `timestamptz` over as text in PostgreSQL's ISO output style,
// `2026-11-26 16:00:00.123456+00` when the session's TimeZone is UTC. Turning that into a Date and
// back with toISOString() cost about 0.65 µs a value, most of it V8 parsing a date string that is
// not ISO 8601, and two or three values of every row read (docs/performance.md). The common form is
// rewritten as text here instead (about a third of that); any other (another offset, a year past
// 9999 or BC, `infinity`) still goes through a Date, as before. The result is toISOString()'s,
// digit for digit: Date keeps milliseconds and drops the digits past them. From year 100 on that is
// what the Date path gave; below it V8 read the year as 19xx or 20xx, which this does not
// (test/unit/timestamps.test.ts).

const UTC_TIMESTAMP = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\+00$/;

function viaDate(text: string): string {
  return new Date(text).toISOString();
}

/** A `timestamptz` value as PostgreSQL writes it, as the ISO string toISOString() gives of it. */
export function isoOfTimestamptz(text: string): string {
  const match = UTC_TIMESTAMP.exec(text);
  if (match === null) return viaDate(text);
  const fraction = match[3];
  const millis = fraction === undefined ? '000' : fraction.length >= 3 ? fraction.slice(0, 3) : fraction.padEnd(3, '0');
  return `${match[1]}T${match[2]}.${millis}Z`;
}

/** A `timestamp` (without time zone) value, read as UTC, as an ISO string. */
export function isoOfTimestamp(text: string): string {
  return viaDate(`${text}Z`);
}
