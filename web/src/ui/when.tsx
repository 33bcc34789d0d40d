// A moment as people read it: how long ago, and the date and time itself (both shown; the machine
// form in dateTime).
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const absolute = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

/** "5 minutes ago", "yesterday", "just now". */
export function ago(iso: string, now = Date.now(), format: Intl.RelativeTimeFormat = relative): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  for (const [unit, size] of UNITS) if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  return 'just now';
}

export function When({ at }: { at: string }) {
  const date = new Date(at);
  return (
    <time dateTime={at}>
      {ago(at)} <span className="muted">({absolute.format(date)})</span>
    </time>
  );
}
