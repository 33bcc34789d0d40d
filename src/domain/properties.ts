// Records with structure (CONTRACT "# Phase 3" › "Records: properties, tags, aliases"): the shapes of
// a thing's or an arc's properties, tags and aliases and of a thing type's fields, their rules, and
// how they are stored (JSON text in the record's own row; migrations/2026-11-24-0018-properties.ts).
// Pure: the HTTP layer, the repositories, search, rendering and portability all read these.
import type { FieldIssue } from './errors.js';

export interface PropertyLink {
  targetType: 'thing' | 'arc';
  targetId: number;
}
export type PropertyScalar = string | number | boolean | null | PropertyLink;
export type PropertyValue = PropertyScalar | PropertyScalar[];

export interface Property {
  key: string;
  value: PropertyValue;
  gmOnly: boolean;
}

export const FIELD_KINDS = ['text', 'number', 'boolean', 'date', 'link', 'list'] as const;
export type FieldKind = (typeof FIELD_KINDS)[number];

export interface TypeField {
  key: string;
  kind: FieldKind;
}

export const PROPERTY_KEY_MAX = 100;
export const PROPERTY_TEXT_MAX = 10_000;
export const PROPERTY_LIST_MAX = 100;
export const PROPERTIES_MAX = 200;
/** All of a record's properties together, as stored (JSON, UTF-8): the same bound as one rich-text field. */
export const PROPERTIES_MAX_BYTES = 256 * 1024;
export const TAG_MAX_LENGTH = 50;
export const TAGS_MAX = 100;
export const ALIAS_MAX_LENGTH = 255;
export const ALIASES_MAX = 20;
export const FIELDS_MAX = 100;

const length = (text: string) => [...text].length;
// Control characters (tabs and line breaks included) have no place in a key, a tag or an alias.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
// A lone surrogate is no character: stored, it would turn into U+FFFD and match another text.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})?)?$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The key under which keys, tags and aliases are compared: case-insensitive, Unicode-aware. */
export function foldKey(text: string): string {
  return text.normalize('NFC').toLowerCase();
}

/** Whether a value is a link `{targetType, targetId}`. */
export function isPropertyLink(value: unknown): value is PropertyLink {
  return isObject(value) && (value.targetType === 'thing' || value.targetType === 'arc') && typeof value.targetId === 'number';
}

/** Whether text is an ISO 8601 date (`2026-11-24`), optionally with a time, naming a real day. */
export function isIsoDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** A key, tag or alias: trimmed, of 1 to `max` characters, without control characters. */
function checkLabel(value: unknown, path: string, max: number, issues: FieldIssue[]): string | undefined {
  if (typeof value !== 'string') {
    issues.push({ path, message: 'must be a string' });
    return undefined;
  }
  const trimmed = value.trim();
  if (trimmed.length === 0) issues.push({ path, message: 'must not be blank' });
  else if (length(trimmed) > max) issues.push({ path, message: `must be at most ${max} characters` });
  else if (CONTROL.test(trimmed)) issues.push({ path, message: 'must not contain control characters (line breaks, tabs, NUL)' });
  else if (LONE_SURROGATE.test(trimmed)) issues.push({ path, message: 'must be well-formed Unicode (no lone surrogate)' });
  else return trimmed;
  return undefined;
}

function checkScalar(value: unknown, path: string, issues: FieldIssue[]): PropertyScalar | undefined {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return value;
    issues.push({ path, message: 'must be a finite number' });
    return undefined;
  }
  if (typeof value === 'string') {
    if (length(value) > PROPERTY_TEXT_MAX) issues.push({ path, message: `must be at most ${PROPERTY_TEXT_MAX} characters` });
    else if (value.includes('\u0000')) issues.push({ path, message: 'must not contain NUL characters' });
    else if (LONE_SURROGATE.test(value)) issues.push({ path, message: 'must be well-formed Unicode (no lone surrogate)' });
    else return value;
    return undefined;
  }
  if (isObject(value)) {
    const keys = Object.keys(value);
    if (keys.length === 2 && (value.targetType === 'thing' || value.targetType === 'arc') && typeof value.targetId === 'number' && Number.isSafeInteger(value.targetId) && value.targetId > 0) {
      return { targetType: value.targetType, targetId: value.targetId };
    }
    issues.push({ path, message: 'a link must be exactly {"targetType": "thing" or "arc", "targetId": a positive integer}' });
    return undefined;
  }
  issues.push({ path, message: 'must be a string, a number, a boolean, null, a link {targetType, targetId} or a list of these' });
  return undefined;
}

function checkValue(value: unknown, path: string, issues: FieldIssue[]): PropertyValue | undefined {
  if (!Array.isArray(value)) return checkScalar(value, path, issues);
  if (value.length > PROPERTY_LIST_MAX) {
    issues.push({ path, message: `a list must have at most ${PROPERTY_LIST_MAX} values` });
    return undefined;
  }
  const out: PropertyScalar[] = [];
  const before = issues.length;
  value.forEach((item, index) => {
    if (Array.isArray(item)) issues.push({ path: `${path}/${index}`, message: 'a list must not hold lists' });
    else {
      const checked = checkScalar(item, `${path}/${index}`, issues);
      if (checked !== undefined) out.push(checked);
    }
  });
  return issues.length === before ? out : undefined;
}

/**
 * A list of keyed objects (`[{key, …attributes}]`): an array of at most `max` objects with only
 * these attributes and a key unique ignoring case. Calls `each` for every object with its key
 * (undefined when the key is bad) and its pointer; issues are pushed with pointers.
 */
function eachKeyed(
  value: unknown,
  path: string,
  shape: { attributes: readonly string[]; max: number; what: string },
  issues: FieldIssue[],
  each: (item: Record<string, unknown>, key: string | undefined, at: string) => void,
): value is unknown[] {
  const form = `{${shape.attributes.join(', ')}}`;
  if (!Array.isArray(value)) {
    issues.push({ path, message: `must be an array of ${form}` });
    return false;
  }
  if (value.length > shape.max) {
    issues.push({ path, message: `must have at most ${shape.max} ${shape.what}` });
    return false;
  }
  const seen = new Set<string>();
  value.forEach((item, index) => {
    const at = `${path}/${index}`;
    if (!isObject(item)) {
      issues.push({ path: at, message: `must be an object ${form}` });
      return;
    }
    const extra = Object.keys(item).find((name) => !shape.attributes.includes(name));
    if (extra !== undefined) issues.push({ path: `${at}/${extra}`, message: `is not one of ${shape.attributes.join(', ')}` });
    const key = checkLabel(item.key, `${at}/key`, PROPERTY_KEY_MAX, issues);
    if (key !== undefined) {
      if (seen.has(foldKey(key))) issues.push({ path: `${at}/key`, message: `repeats the key "${key}" (keys are unique, ignoring case)` });
      seen.add(foldKey(key));
    }
    each(item, key, at);
  });
  return true;
}

/** Properties as a request gives them: `[{key, value, gmOnly?}]`. Issues are pushed with pointers. */
export function checkProperties(value: unknown, path: string, issues: FieldIssue[]): Property[] {
  const out: Property[] = [];
  const shape = { attributes: ['key', 'value', 'gmOnly'], max: PROPERTIES_MAX, what: 'properties' };
  const isList = eachKeyed(value, path, shape, issues, (item, key, at) => {
    let checked: PropertyValue | undefined;
    if (Object.hasOwn(item, 'value')) checked = checkValue(item.value, `${at}/value`, issues);
    else issues.push({ path: `${at}/value`, message: 'is required (null for no value)' });
    // Omitted is false; null is no boolean.
    const gmOnly = Object.hasOwn(item, 'gmOnly') ? item.gmOnly : false;
    if (typeof gmOnly !== 'boolean') issues.push({ path: `${at}/gmOnly`, message: 'must be a boolean' });
    if (key !== undefined && checked !== undefined && typeof gmOnly === 'boolean') out.push({ key, value: checked, gmOnly });
  });
  if (isList && out.length === value.length) checkPropertyLimits(out, path, issues);
  return out;
}

/** The bounds on a record's properties as a whole: how many, and how large together. */
export function checkPropertyLimits(properties: readonly Property[], path: string, issues: FieldIssue[]): void {
  if (properties.length > PROPERTIES_MAX) issues.push({ path, message: `must have at most ${PROPERTIES_MAX} properties` });
  else if (new TextEncoder().encode(JSON.stringify(properties)).length > PROPERTIES_MAX_BYTES) {
    issues.push({ path, message: `must be at most ${PROPERTIES_MAX_BYTES / 1024} KiB in all (as JSON)` });
  }
}

function checkLabels(value: unknown, path: string, max: number, maxCount: number, what: string, issues: FieldIssue[]): string[] {
  if (!Array.isArray(value)) {
    issues.push({ path, message: `must be an array of ${what}` });
    return [];
  }
  if (value.length > maxCount) {
    issues.push({ path, message: `must have at most ${maxCount} ${what}` });
    return [];
  }
  const out: string[] = [];
  const seen = new Set<string>();
  value.forEach((item, index) => {
    const label = checkLabel(item, `${path}/${index}`, max, issues);
    if (label === undefined) return;
    if (seen.has(foldKey(label))) issues.push({ path: `${path}/${index}`, message: `repeats "${label}" (ignoring case)` });
    seen.add(foldKey(label));
    out.push(label);
  });
  return out;
}

/** Tags: up to 100 strings of 1 to 50 characters, trimmed, unique ignoring case, order kept. */
export function checkTags(value: unknown, path: string, issues: FieldIssue[]): string[] {
  return checkLabels(value, path, TAG_MAX_LENGTH, TAGS_MAX, 'tags', issues);
}

/** Aliases: up to 20 other names of 1 to 255 characters, trimmed, unique ignoring case. */
export function checkAliases(value: unknown, path: string, issues: FieldIssue[]): string[] {
  return checkLabels(value, path, ALIAS_MAX_LENGTH, ALIASES_MAX, 'aliases', issues);
}

/** A thing type's fields: `[{key, kind}]`, keys unique ignoring case. */
export function checkFields(value: unknown, path: string, issues: FieldIssue[]): TypeField[] {
  const out: TypeField[] = [];
  eachKeyed(value, path, { attributes: ['key', 'kind'], max: FIELDS_MAX, what: 'fields' }, issues, (item, key, at) => {
    const kind = item.kind;
    const known = typeof kind === 'string' && (FIELD_KINDS as readonly string[]).includes(kind);
    if (!known) issues.push({ path: `${at}/kind`, message: `must be one of ${FIELD_KINDS.join(', ')}` });
    if (key !== undefined && known) out.push({ key, kind: kind as FieldKind });
  });
  return out;
}

/** Whether a value fits a declared kind; null fits every kind. */
export function fitsKind(value: PropertyValue, kind: FieldKind): boolean {
  if (value === null) return true;
  switch (kind) {
    case 'text':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'date':
      return typeof value === 'string' && isIsoDate(value);
    case 'link':
      return isPropertyLink(value);
    case 'list':
      return Array.isArray(value);
  }
}

const KIND_WORDS: Record<FieldKind, string> = {
  text: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  date: 'an ISO 8601 date (YYYY-MM-DD)',
  link: 'a link {targetType, targetId}',
  list: 'a list',
};

/** The values of keys the type declares must match their kind (400 with a pointer to the value). */
export function checkAgainstFields(properties: readonly Property[], fields: readonly TypeField[], path: string, issues: FieldIssue[]): void {
  if (fields.length === 0) return;
  const kinds = new Map(fields.map((field) => [foldKey(field.key), field.kind]));
  properties.forEach((property, index) => {
    const kind = kinds.get(foldKey(property.key));
    if (kind !== undefined && !fitsKind(property.value, kind)) {
      issues.push({ path: `${path}/${index}/value`, message: `must be ${KIND_WORDS[kind]} or null: the type declares "${property.key}" as ${kind}` });
    }
  });
}

/** A new thing's properties: those given, then each key its type declares and they lack (value null). */
export function withDeclaredKeys(properties: readonly Property[], fields: readonly TypeField[]): Property[] {
  const given = new Set(properties.map((property) => foldKey(property.key)));
  return [...properties, ...fields.filter((field) => !given.has(foldKey(field.key))).map((field) => ({ key: field.key, value: null, gmOnly: false }))];
}

/** Every link a property holds (directly or in a list), with the property it sits in. */
export function propertyLinks(properties: readonly Property[]): Array<{ key: string; gmOnly: boolean; link: PropertyLink }> {
  const out: Array<{ key: string; gmOnly: boolean; link: PropertyLink }> = [];
  for (const property of properties) {
    const values = Array.isArray(property.value) ? property.value : [property.value];
    for (const value of values) if (isPropertyLink(value)) out.push({ key: property.key, gmOnly: property.gmOnly, link: value });
  }
  return out;
}

/** A property's value as plain text (search, excerpts, Markdown): links as `linkName` says. */
export function propertyValueText(value: PropertyValue, linkName: (link: PropertyLink) => string = () => ''): string {
  const one = (item: PropertyScalar): string => {
    if (item === null) return '';
    if (isPropertyLink(item)) return linkName(item);
    return String(item);
  };
  return Array.isArray(value) ? value.map(one).filter((text) => text !== '').join(', ') : one(value);
}

// ---- Storage: JSON text in the record's row. ----

function parseArray(stored: string | null | undefined): unknown[] {
  if (stored === null || stored === undefined || stored === '' || stored === '[]') return [];
  try {
    const parsed: unknown = JSON.parse(stored);
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}

/** Stored properties (validated before they were stored). */
export function parseStoredProperties(stored: string | null | undefined): Property[] {
  return parseArray(stored) as Property[];
}

/** Stored tags or aliases. */
export function parseStoredLabels(stored: string | null | undefined): string[] {
  return parseArray(stored).filter((item): item is string => typeof item === 'string');
}

/** Stored type fields. */
export function parseStoredFields(stored: string | null | undefined): TypeField[] {
  return parseArray(stored) as TypeField[];
}

// Tags are matched through `tag_keys`: each folded tag between two unit separators, so a filter is
// one LIKE on the row (`%\u001fvillain\u001f%`) on both databases, with no table to keep in step.
const SEPARATOR = '\u001f';

/** The stored `tag_keys` of a record's tags. */
export function tagKeysOf(tags: readonly string[]): string {
  return tags.length === 0 ? '' : `${SEPARATOR}${tags.map(foldKey).join(SEPARATOR)}${SEPARATOR}`;
}

/** The LIKE pattern that finds a tag in `tag_keys` (with `\` as the escape character). */
export function tagKeyPattern(tag: string): string {
  const escaped = foldKey(tag.trim()).replace(/[\\%_]/g, (c) => `\\${c}`);
  return `%${SEPARATOR}${escaped}${SEPARATOR}%`;
}

/** The columns a record's properties, tags and aliases are stored in. */
export function structureColumns(input: { properties?: readonly Property[] | undefined; tags?: readonly string[] | undefined; aliases?: readonly string[] | undefined }) {
  const out: { properties?: string; tags?: string; tag_keys?: string; aliases?: string } = {};
  if (input.properties !== undefined) out.properties = JSON.stringify(input.properties);
  if (input.tags !== undefined) {
    out.tags = JSON.stringify(input.tags);
    out.tag_keys = tagKeysOf(input.tags);
  }
  if (input.aliases !== undefined) out.aliases = JSON.stringify(input.aliases);
  return out;
}
