// How long ago, as the Trash page and the History panel say it.
import { describe, expect, it } from 'vitest';
import { ago } from './when';

const now = Date.parse('2026-11-24T12:00:00Z');
const before = (seconds: number) => new Date(now - seconds * 1000).toISOString();
// The app says it in the browser's language; here in English, whatever the machine's.
const english = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

describe('ago', () => {
  it('says "just now" under a minute, then the largest whole unit', () => {
    expect(ago(before(20), now, english)).toBe('just now');
    expect(ago(before(5 * 60), now, english)).toBe('5 minutes ago');
    expect(ago(before(3 * 3600), now, english)).toBe('3 hours ago');
    expect(ago(before(26 * 3600), now, english)).toBe('yesterday');
    expect(ago(before(15 * 24 * 3600), now, english)).toBe('2 weeks ago');
    expect(ago(before(400 * 24 * 3600), now, english)).toBe('last year');
  });
});
