// The checks of a `loreforge-campaign` document's values (read.ts): those of the API's requests
// (InputChecker: names, slugs, rich text, properties…) and the document's own (ids unique among
// their kind, references to records of the file), every problem collected with its JSON pointer.
import type { Visibility } from '../../db/schema.js';
import { InputChecker } from '../../domain/input.js';
import type { Property } from '../../domain/properties.js';
import { parseDateTime } from '../../domain/time.js';
import { MAX_ISSUES } from '../plan.js';

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Field checks of one document, collecting every problem. */
export class DocumentChecker extends InputChecker {
  object(value: unknown, path: string): Json {
    if (isObject(value)) return value;
    this.issues.push({ path, message: 'must be an object' });
    return {};
  }

  array(value: unknown, path: string): unknown[] {
    if (Array.isArray(value)) return value;
    this.issues.push({ path, message: 'must be an array' });
    return [];
  }

  timestamp(value: unknown, path: string): string {
    const parsed = typeof value === 'string' ? parseDateTime(value) : undefined;
    if (parsed === undefined) this.issues.push({ path, message: 'must be an RFC 3339 date-time' });
    return parsed ?? new Date(0).toISOString();
  }

  visibility(value: unknown, path: string): Visibility {
    if (value === undefined || value === 'all' || value === 'gm') return value ?? 'all';
    this.issues.push({ path, message: 'must be "all" or "gm"' });
    return 'all';
  }

  /** A record's id: a positive integer, unique among its kind. */
  key(value: unknown, path: string, seen: Set<number>): number {
    const id = this.id(value, path);
    if (id !== 0 && seen.has(id)) this.issues.push({ path, message: `repeats id ${id}` });
    seen.add(id);
    return id;
  }

  reference(value: unknown, path: string, known: Set<number>, what: string): number {
    const id = this.id(value, path);
    if (id !== 0 && !known.has(id)) this.issues.push({ path, message: `names no ${what} of the file` });
    return id;
  }

  uniqueSlug(value: unknown, path: string, seen: Set<string>): string {
    const slug = this.slug(value, path);
    if (slug !== '' && seen.has(slug)) this.issues.push({ path, message: `repeats the slug "${slug}"` });
    seen.add(slug);
    return slug;
  }

  /** Properties, tags and aliases of a record; each absent (a document from before them) is empty. */
  structureOf(record: Json, path: string): { properties: Property[]; tags: string[]; aliases: string[] } {
    return {
      properties: record.properties === undefined ? [] : this.properties(record.properties, `${path}/properties`),
      tags: record.tags === undefined ? [] : this.tags(record.tags, `${path}/tags`),
      aliases: record.aliases === undefined ? [] : this.aliases(record.aliases, `${path}/aliases`),
    };
  }

  full(): boolean {
    return this.issues.length >= MAX_ISSUES;
  }
}
