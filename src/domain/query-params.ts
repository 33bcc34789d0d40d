// Query strings parsed by hand (the things list, search, and every route with options): each bad
// value gets a message and a JSON pointer into the query object, and a repeated parameter is refused
// rather than guessed at.
import type { FieldIssue } from './errors.js';
import { TAG_MAX_LENGTH, TAGS_MAX } from './properties.js';

export type Parsed<T> = { ok: true; value: T } | { ok: false; issues: FieldIssue[] };

/** The query object as Fastify's parser hands it over (anything else reads as empty). */
export function queryObject(raw: unknown): Record<string, unknown> {
  return typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
}

/** A parameter's one value: a string, absent, or (repeated) an issue. */
export function singleValue(query: Record<string, unknown>, name: string, issues: FieldIssue[]): string | undefined {
  const value = Object.hasOwn(query, name) ? query[name] : undefined;
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    issues.push({ path: `/${name}`, message: 'must be given at most once' });
    return undefined;
  }
  return value;
}

/** A parameter that may repeat: its values in order (none when absent). */
export function repeatedValues(query: Record<string, unknown>, name: string): string[] {
  const value = Object.hasOwn(query, name) ? query[name] : undefined;
  if (value === undefined) return [];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return typeof value === 'string' ? [value] : [];
}

/** The `tag` filter (repeatable: all must match): trimmed tags of 1 to 50 characters, or issues. */
export function tagFilter(query: Record<string, unknown>, issues: FieldIssue[]): string[] {
  const tags = repeatedValues(query, 'tag');
  const out: string[] = [];
  if (tags.length > TAGS_MAX) issues.push({ path: '/tag', message: `must be given at most ${TAGS_MAX} times` });
  tags.forEach((tag, index) => {
    const trimmed = tag.trim();
    const path = tags.length === 1 ? '/tag' : `/tag/${index}`;
    if (trimmed.length === 0) issues.push({ path, message: 'must not be blank' });
    else if ([...trimmed].length > TAG_MAX_LENGTH) issues.push({ path, message: `must be at most ${TAG_MAX_LENGTH} characters` });
    else out.push(trimmed);
  });
  return out;
}
