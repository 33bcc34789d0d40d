// The properties panel's logic, without React: what kind a value is, how what a control holds
// becomes a value of its kind, changing a property's kind, reordering, and the split between the
// fields a thing's type declares (a form, in the type's order) and the other properties. Tags and
// aliases are lists of labels kept unique ignoring case. The shapes are the API's (CONTRACT
// "# Phase 3" › "Records: properties, tags, aliases"); the server checks everything again.
import type { Thing, ThingType } from '../../api/client';
import { ALIAS_MAX_LENGTH, ALIASES_MAX, fitsKind, foldKey, PROPERTY_KEY_MAX, TAG_MAX_LENGTH, TAGS_MAX } from '../../../../src/domain/properties.js';

// The bounds and the kind check are the server's own (src/domain/properties.ts is pure).
export { ALIAS_MAX_LENGTH, ALIASES_MAX, fitsKind, PROPERTY_KEY_MAX, TAG_MAX_LENGTH, TAGS_MAX };

export type Property = Thing['properties'][number];
export type PropertyValue = Property['value'];
export type PropertyScalar = Exclude<PropertyValue, unknown[]>;
export type PropertyLink = Extract<PropertyScalar, { targetType: string }>;
export type TypeField = ThingType['fields'][number];
export type Kind = TypeField['kind'];

export const KINDS: readonly Kind[] = ['text', 'number', 'boolean', 'date', 'link', 'list'];
export const KIND_LABELS: Record<Kind, string> = { text: 'Text', number: 'Number', boolean: 'Checkbox', date: 'Date', link: 'Link to a record', list: 'List' };


const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function isLink(value: unknown): value is PropertyLink {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'targetType' in value && 'targetId' in value;
}

/** The key properties, tags and aliases are compared by: case and composition ignored (as the server does). */
export const fold = foldKey;

/** Whether text is a real day written YYYY-MM-DD (what a date input holds). */
export function isDay(text: string): boolean {
  if (!DATE.test(text)) return false;
  const [year, month, day] = text.split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * The kind a value shows as: a declared field's kind wins; otherwise the value says (a day written
 * YYYY-MM-DD is a date; null is what the user last chose for it, else text).
 */
export function kindOf(value: PropertyValue, remembered?: Kind): Kind {
  if (Array.isArray(value)) return 'list';
  if (value === null) return remembered ?? 'text';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (isLink(value)) return 'link';
  if (remembered === 'text' || remembered === 'date') return remembered;
  return isDay(value) ? 'date' : 'text';
}

/** What a control of a kind holds, as a value: an empty control is null, a number field's text a number. */
export function parseInput(kind: Kind, text: string): { ok: true; value: PropertyScalar } | { ok: false; message: string } {
  switch (kind) {
    case 'text':
      return { ok: true, value: text === '' ? null : text };
    case 'number': {
      const trimmed = text.trim();
      if (trimmed === '') return { ok: true, value: null };
      const n = Number(trimmed);
      return Number.isFinite(n) ? { ok: true, value: n } : { ok: false, message: 'must be a number' };
    }
    case 'date':
      if (text === '') return { ok: true, value: null };
      return isDay(text) ? { ok: true, value: text } : { ok: false, message: 'must be a date (YYYY-MM-DD)' };
    case 'boolean':
      return { ok: true, value: text === 'true' };
    case 'link':
    case 'list':
      return { ok: false, message: `a ${kind} is not typed as text` };
  }
}

/** A value as text (a list item's, or what a text field shows of another kind's value). */
export function scalarText(value: PropertyScalar, name?: (link: PropertyLink) => string): string {
  if (value === null) return '';
  if (isLink(value)) return name ? name(value) : `${value.targetType} ${value.targetId}`;
  return String(value);
}

/** The value a property takes when the user changes its kind: kept where it fits, else empty (null). */
export function convert(value: PropertyValue, kind: Kind): PropertyValue {
  if (kind === 'list') {
    if (Array.isArray(value)) return value;
    return value === null ? [] : [value];
  }
  const first = Array.isArray(value) ? (value.length === 1 ? (value[0] ?? null) : null) : value;
  if (first === null) return null;
  switch (kind) {
    case 'text':
      return isLink(first) ? null : String(first);
    case 'number': {
      if (typeof first === 'number') return first;
      if (typeof first !== 'string' || first.trim() === '') return null;
      const n = Number(first.trim());
      return Number.isFinite(n) ? n : null;
    }
    case 'boolean':
      if (typeof first === 'boolean') return first;
      if (typeof first === 'string' && ['true', 'yes'].includes(first.trim().toLowerCase())) return true;
      if (typeof first === 'string' && ['false', 'no'].includes(first.trim().toLowerCase())) return false;
      return null;
    case 'date':
      return typeof first === 'string' && isDay(first.slice(0, 10)) ? first.slice(0, 10) : null;
    case 'link':
      return isLink(first) ? first : null;
  }
}

/** The list with the item at `index` moved one place up (-1) or down (+1); unchanged at an end. */
export function move<T>(list: readonly T[], index: number, by: -1 | 1): T[] {
  const to = index + by;
  if (index < 0 || index >= list.length || to < 0 || to >= list.length) return [...list];
  const next = [...list];
  [next[index], next[to]] = [next[to]!, next[index]!];
  return next;
}

/**
 * Moves the property at places[position] one step up or down among the given places (the free
 * properties; declared fields keep theirs): the two swap places in the record's list.
 */
export function moveAmong<T>(list: readonly T[], places: readonly number[], position: number, by: -1 | 1): T[] {
  const from = places[position];
  const to = places[position + by];
  if (from === undefined || to === undefined) return [...list];
  const next = [...list];
  [next[from], next[to]] = [next[to]!, next[from]!];
  return next;
}

/** Why a new key cannot be added (blank, too long, taken ignoring case), or undefined when it can. */
export function keyProblem(properties: readonly Property[], key: string, except?: number): string | undefined {
  const trimmed = key.trim();
  if (trimmed === '') return 'A property needs a name.';
  if ([...trimmed].length > PROPERTY_KEY_MAX) return `A property’s name is at most ${PROPERTY_KEY_MAX} characters.`;
  const folded = fold(trimmed);
  if (properties.some((p, i) => i !== except && fold(p.key) === folded)) return `There is already a property “${trimmed}”.`;
  return undefined;
}

/** A new property at the end, empty (null; an empty list for a list). */
export function addProperty(properties: readonly Property[], key: string, kind: Kind, gmOnly = false): Property[] {
  return [...properties, { key: key.trim(), value: kind === 'list' ? [] : null, gmOnly }];
}

/** The properties with the one at `index` changed. */
export function replaceAt(properties: readonly Property[], index: number, change: Partial<Property>): Property[] {
  return properties.map((p, i) => (i === index ? { ...p, ...change } : p));
}

export function removeAt<T>(list: readonly T[], index: number): T[] {
  return list.filter((_, i) => i !== index);
}

export interface DeclaredRow {
  field: TypeField;
  /** The property's place in the record's list, or -1 when the record lacks the key (it is added on the first value). */
  index: number;
  property: Property | undefined;
}

/** The type's declared fields in its order (each with the record's property of that key, if any), and every other property with its place. */
export function splitByFields(properties: readonly Property[], fields: readonly TypeField[]): { declared: DeclaredRow[]; others: { index: number; property: Property }[] } {
  const byKey = new Map(properties.map((p, index) => [fold(p.key), index] as const));
  const declaredKeys = new Set(fields.map((f) => fold(f.key)));
  const declared = fields.map((field) => {
    const index = byKey.get(fold(field.key)) ?? -1;
    return { field, index, property: index >= 0 ? properties[index] : undefined };
  });
  const others = properties.flatMap((property, index) => (declaredKeys.has(fold(property.key)) ? [] : [{ index, property }]));
  return { declared, others };
}

/** Sets a declared field's value: on its property, or as a new property of that key when the record has none yet. */
export function setDeclared(properties: readonly Property[], row: DeclaredRow, value: PropertyValue): Property[] {
  if (row.index >= 0) return replaceAt(properties, row.index, { value });
  return [...properties, { key: row.field.key, value, gmOnly: false }];
}

/** Adds a label (a tag or an alias) at the end: trimmed, once ignoring case. Answers the list and why it was refused, if it was. */
export function addLabel(labels: readonly string[], label: string, options: { max: number; maxLength: number; what: string }): { labels: string[]; problem?: string } {
  const trimmed = label.trim();
  if (trimmed === '') return { labels: [...labels] };
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) return { labels: [...labels], problem: `A ${options.what} cannot hold line breaks or tabs.` };
  if ([...trimmed].length > options.maxLength) return { labels: [...labels], problem: `A ${options.what} is at most ${options.maxLength} characters.` };
  if (labels.some((l) => fold(l) === fold(trimmed))) return { labels: [...labels], problem: `“${trimmed}” is there already.` };
  if (labels.length >= options.max) return { labels: [...labels], problem: `At most ${options.max} ${options.what}s.` };
  return { labels: [...labels, trimmed] };
}

/** Tag suggestions for what is typed: the campaign's tags starting with it (then containing it), minus those the record has. */
export function suggestTags(all: readonly string[], typed: string, have: readonly string[], limit = 8): string[] {
  const q = fold(typed.trim());
  const had = new Set(have.map(fold));
  const free = all.filter((t) => !had.has(fold(t)));
  if (q === '') return free.slice(0, limit);
  const starts = free.filter((t) => fold(t).startsWith(q));
  const contains = free.filter((t) => !fold(t).startsWith(q) && fold(t).includes(q));
  return [...starts, ...contains].slice(0, limit);
}

/** The field editor's checks before a PUT: every key named, at most 100 characters, unique ignoring case. */
export function fieldsProblem(fields: readonly TypeField[]): string | undefined {
  const seen = new Set<string>();
  for (const [i, field] of fields.entries()) {
    const key = field.key.trim();
    if (key === '') return `Field ${i + 1} needs a name.`;
    if ([...key].length > PROPERTY_KEY_MAX) return `Field “${key.slice(0, 20)}…” has a name over ${PROPERTY_KEY_MAX} characters.`;
    if (seen.has(fold(key))) return `There are two fields “${key}”.`;
    seen.add(fold(key));
  }
  return undefined;
}
