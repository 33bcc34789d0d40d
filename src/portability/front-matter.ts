// Properties, tags and aliases as a Markdown vault's YAML front matter (CONTRACT "Records:
// properties, tags, aliases" and "Import from elsewhere"), both ways:
//
// - Written: `tags` and `aliases` as YAML lists; each property as a key of its own in its order,
//   its value as YAML (a list stays a list), a link as an Obsidian wikilink `[[Folder/slug|Name]]`;
//   `loreforge-gm-only` lists the keys of GM-only properties. A record with a property whose key is
//   one of the front matter's own keys (`name`, `type`, `tags`…) has all its properties under
//   `loreforge-properties` (a map, in order) instead, so nothing collides and the order is kept.
// - Read: `tags` → tags (a list, or one string split at commas and spaces; a leading `#` dropped),
//   `aliases`/`alias` → aliases, every other key → a property: a `[[link]]` to a note of the vault
//   becomes a link; lists stay lists; numbers, booleans and null stay typed; a YAML date becomes
//   `YYYY-MM-DD`; a map (or a list in a list) becomes its JSON text. Nothing in odd front matter
//   makes a note fail: what does not fit the limits is cut to them (properties past
//   PROPERTIES_MAX_BYTES in all are left out: YAML aliases can repeat a long value).
import {
  ALIASES_MAX,
  ALIAS_MAX_LENGTH,
  foldKey,
  isPropertyLink,
  PROPERTIES_MAX,
  PROPERTIES_MAX_BYTES,
  PROPERTY_KEY_MAX,
  PROPERTY_LIST_MAX,
  PROPERTY_TEXT_MAX,
  TAGS_MAX,
  TAG_MAX_LENGTH,
  type Property,
  type PropertyLink,
  type PropertyScalar,
  type PropertyValue,
} from '../domain/properties.js';

export const GM_ONLY_KEY = 'loreforge-gm-only';

export const PROPERTIES_KEY = 'loreforge-properties';
/** In our vault's index.md: each thing type's declared fields, by type name. */
export const TYPE_FIELDS_KEY = 'loreforge-fields';

/** The front matter keys a vault note of ours uses for itself (compared folded). */
export const OWN_KEYS: ReadonlySet<string> = new Set(['id', 'slug', 'name', 'type', 'visibility', 'arcs', 'parent', 'things', 'createdat', 'updatedat']);
/** The keys that are never a property: tags and aliases. */
const LABEL_KEYS = new Set(['tags', 'tag', 'aliases', 'alias']);

const isOwnKey = (key: string) => {
  const folded = foldKey(key);
  return OWN_KEYS.has(folded) || LABEL_KEYS.has(folded) || folded.startsWith('loreforge-');
};

// ---- Writing ----

/**
 * The front matter entries of a record's properties, tags and aliases; `linkText` gives a link's
 * wikilink (undefined for a target the vault does not hold: the value is written as null).
 */
export function structureFrontMatter(
  structure: { properties: readonly Property[]; tags: readonly string[]; aliases: readonly string[] },
  linkText: (link: PropertyLink) => string | undefined,
): [string, unknown][] {
  // Entries, and Maps for YAML maps: a key such as `__proto__` or `constructor` is just a key.
  const out: [string, unknown][] = [];
  if (structure.tags.length > 0) out.push(['tags', [...structure.tags]]);
  if (structure.aliases.length > 0) out.push(['aliases', [...structure.aliases]]);
  if (structure.properties.length === 0) return out;
  const scalar = (value: PropertyScalar): unknown => (isPropertyLink(value) ? (linkText(value) ?? null) : value);
  const values: [string, unknown][] = structure.properties.map((property) => [property.key, Array.isArray(property.value) ? property.value.map(scalar) : scalar(property.value)]);
  if (structure.properties.some((property) => isOwnKey(property.key))) out.push([PROPERTIES_KEY, new Map(values)]);
  else out.push(...values);
  const gmOnly = structure.properties.filter((property) => property.gmOnly).map((property) => property.key);
  if (gmOnly.length > 0) out.push([GM_ONLY_KEY, gmOnly]);
  return out;
}

/** A wikilink to a vault path (without `.md`), labelled with the record's name. */
export function wikilink(vaultPath: string, name: string): string {
  const label = name.replace(/[[\]|\n\r]/g, ' ').trim();
  return label === '' ? `[[${vaultPath}]]` : `[[${vaultPath}|${label}]]`;
}

// ---- Reading ----

const WIKILINK = /^\[\[([^[\]|#^\n]+)(?:[#^][^[\]|\n]*)?(?:\|[^[\]\n]*)?\]\]$/;

function cut(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : chars.slice(0, max).join('');
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]+/g;

/** A key, tag or alias from YAML: text, control characters as spaces, trimmed, cut to `max`. */
function label(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return undefined;
  const text = cut(String(value).replace(CONTROL, ' ').trim(), max).trim();
  return text === '' ? undefined : text;
}

/** What reading a note's front matter cut or left out, in words (a vault import's warnings). */
export type Warn = (problem: string) => void;

function labels(value: unknown, max: number, count: number, split: boolean, strip?: RegExp, what = 'label', warn: Warn = () => {}): string[] {
  const items: unknown[] = Array.isArray(value) ? value : typeof value === 'string' && split ? value.split(/[,\s]+/) : value === undefined || value === null ? [] : [value];
  const out: string[] = [];
  const seen = new Set<string>();
  for (const [index, item] of items.entries()) {
    const raw = typeof item === 'string' && strip ? item.replace(strip, '') : item;
    const text = label(raw, max);
    if (text === undefined) {
      if (typeof raw === 'object' && raw !== null) warn(`a ${what} that is not text is left out`);
      continue;
    }
    if (seen.has(foldKey(text))) continue;
    if ([...String(raw).trim()].length > max) warn(`the ${what} "${text}…" is cut to ${max} characters`);
    seen.add(foldKey(text));
    out.push(text);
    if (out.length === count) {
      if (index < items.length - 1) warn(`more than ${count} ${what === 'alias' ? 'aliases' : `${what}s`}: the rest are left out`);
      break;
    }
  }
  return out;
}

/** A note's aliases from its front matter (`aliases` or `alias`: a list or one string). */
export function frontMatterAliases(entries: Iterable<readonly [unknown, unknown]>): string[] {
  const top = [...entries].map(([key, value]) => [String(key), value] as const);
  const value = top.find(([k]) => k === 'aliases')?.[1] ?? top.find(([k]) => k === 'alias')?.[1];
  return labels(toPlain(value), ALIAS_MAX_LENGTH, ALIASES_MAX, false);
}

/** A YAML date as a date (`2026-11-24`) when it has no time of day, else as an instant. */
function dateText(date: Date): string {
  if (Number.isNaN(date.getTime())) return '';
  const iso = date.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
}

function text(value: string, warn: Warn): string {
  const clean = value.replaceAll('\u0000', '');
  const out = cut(clean, PROPERTY_TEXT_MAX);
  if (out.length < clean.length) warn(`a value of ${[...clean].length} characters is cut to ${PROPERTY_TEXT_MAX}`);
  return out;
}

function scalarOf(value: unknown, resolve: (reference: string) => PropertyLink | undefined, warn: Warn): PropertyScalar {
  if (value === null || value === undefined || typeof value === 'boolean') return value ?? null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : String(value);
  if (typeof value === 'string') {
    const match = WIKILINK.exec(value.trim());
    const link = match ? resolve(match[1]!.trim()) : undefined;
    return link ?? text(value, warn);
  }
  if (value instanceof Date) return dateText(value);
  warn(`a ${Array.isArray(value) ? 'list in a list' : 'map'} is kept as its JSON text`);
  // A map, or a list where a value belongs: its JSON text.
  let json: string;
  try {
    json = JSON.stringify(value, (_key, item: unknown) => (item instanceof Date ? dateText(item) : typeof item === 'bigint' ? String(item) : item)) ?? '';
  } catch {
    json = '';
  }
  return text(json, warn);
}

function valueOf(value: unknown, resolve: (reference: string) => PropertyLink | undefined, warn: Warn): PropertyValue {
  if (!Array.isArray(value)) return scalarOf(value, resolve, warn);
  if (value.length > PROPERTY_LIST_MAX) warn(`a list of ${value.length} values is cut to ${PROPERTY_LIST_MAX}`);
  return value.slice(0, PROPERTY_LIST_MAX).map((item) => scalarOf(item, resolve, warn));
}

/** A YAML value read with maps as Maps (which keep their keys' order), as plain objects and arrays. */
export function toPlain(value: unknown): unknown {
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of value) Object.defineProperty(out, String(key), { value: toPlain(item), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return Array.isArray(value) ? value.map(toPlain) : value;
}

/**
 * A note's properties, tags and aliases from its front matter: its top-level entries in order (YAML
 * maps read as Maps: a plain object would put keys such as `123` first). `skip` holds the (folded)
 * keys the note's record takes for itself; `resolve` turns a wikilink's target into a link, or
 * undefined when it names no note of the vault (the value stays text). `warn` hears of every value
 * cut or left out (each problem prefixed with the key).
 */
export function structureFromFrontMatter(
  entries: Iterable<readonly [unknown, unknown]>,
  skip: ReadonlySet<string>,
  resolve: (reference: string) => PropertyLink | undefined,
  warn: Warn = () => {},
): { properties: Property[]; tags: string[]; aliases: string[] } {
  const top = [...entries].map(([key, value]) => [String(key), value] as const);
  const get = (key: string) => top.find(([k]) => k === key)?.[1];
  const plain = (value: unknown) => toPlain(value);
  const tags = labels(plain(get('tags') ?? get('tag')), TAG_MAX_LENGTH, TAGS_MAX, true, /^#+/, 'tag', (problem) => warn(`tags: ${problem}`));
  const aliases = labels(plain(get('aliases') ?? get('alias')), ALIAS_MAX_LENGTH, ALIASES_MAX, false, undefined, 'alias', (problem) => warn(`aliases: ${problem}`));
  const gmOnly = new Set(labels(plain(get(GM_ONLY_KEY)), PROPERTY_KEY_MAX, PROPERTIES_MAX, false).map(foldKey));
  const nested = get(PROPERTIES_KEY);
  const found: (readonly [unknown, unknown])[] = nested instanceof Map ? [...nested] : [];
  for (const entry of top) {
    const folded = foldKey(entry[0]);
    if (!skip.has(folded) && !LABEL_KEYS.has(folded) && folded !== GM_ONLY_KEY && folded !== PROPERTIES_KEY) found.push(entry);
  }
  const properties: Property[] = [];
  const seen = new Set<string>();
  // As stored, `[` … `]` with a comma between properties: at most PROPERTIES_MAX_BYTES in all.
  let bytes = 2;
  for (const [index, [rawKey, value]] of found.entries()) {
    const key = label(rawKey, PROPERTY_KEY_MAX);
    if (key === undefined || seen.has(foldKey(key))) continue;
    if ([...String(rawKey).trim()].length > PROPERTY_KEY_MAX) warn(`the key "${key}…" is cut to ${PROPERTY_KEY_MAX} characters`);
    seen.add(foldKey(key));
    const property = { key, value: valueOf(plain(value), resolve, (problem) => warn(`${key}: ${problem}`)), gmOnly: gmOnly.has(foldKey(key)) };
    bytes += Buffer.byteLength(JSON.stringify(property), 'utf8') + (properties.length > 0 ? 1 : 0);
    if (bytes > PROPERTIES_MAX_BYTES) {
      warn(`the properties pass ${PROPERTIES_MAX_BYTES} bytes in all: "${key}" and the ${found.length - index - 1} after it are left out`);
      break;
    }
    properties.push(property);
    if (properties.length === PROPERTIES_MAX) {
      if (index < found.length - 1) warn(`more than ${PROPERTIES_MAX} properties: the ${found.length - index - 1} after "${key}" are left out`);
      break;
    }
  }
  return { properties, tags, aliases };
}
