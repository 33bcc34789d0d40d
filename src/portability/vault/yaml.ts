// A note's YAML front matter, read as strictly as YAML allows and, for a vault from elsewhere, as
// forgivingly as Obsidian opens it (CONTRACT "Import from elsewhere": a file that cannot be read as
// it should is imported as well as it can be, with a warning):
//   1. strict YAML (the `yaml` library);
//   2. YAML again with duplicate keys allowed (the last value wins) and tabs in indentation as spaces;
//   3. line by line, the shapes front matter takes in practice: `key: value`, `key: [a, b]` (items
//      may hold bare quotes, as a converter many vaults use writes `["Laiba "Nana" Rosse"]`),
//      `key:` followed by `- item` lines, and indented `key: value` lines as a map; anything else
//      (a stray line) is left out; a flow list nested more than FLOW_DEPTH_MAX deep is kept as text;
//   4. when no `key: value` line is found at all, none: the note's body is imported without it.
import { parse as parseYaml } from 'yaml';
import { toPlain } from '../front-matter.js';

export interface FrontMatterReading {
  meta: Record<string, unknown>;
  /** Top-level entries in order, maps as Maps. */
  entries: [unknown, unknown][];
  /** How the front matter was read when it is not valid YAML (for a warning). */
  problem?: string;
}

const EMPTY: FrontMatterReading = { meta: {}, entries: [] };

function reading(value: unknown): FrontMatterReading {
  return value instanceof Map ? { meta: toPlain(value) as Record<string, unknown>, entries: [...(value as Map<unknown, unknown>)] } : { ...EMPTY };
}

/** The first line of a YAML error. */
export function yamlError(error: unknown): string {
  return (error as Error).message.split('\n')[0]!.replace(/:$/, '');
}

/** Strict YAML; throws the library's error. */
export function strictFrontMatter(yaml: string): FrontMatterReading {
  return reading(parseYaml(yaml, { maxAliasCount: 100, mapAsMap: true }));
}

/** Front matter of a vault from elsewhere: never throws (see the steps above). */
export function forgivingFrontMatter(yaml: string): FrontMatterReading {
  let strictProblem: string;
  try {
    return strictFrontMatter(yaml);
  } catch (error) {
    strictProblem = yamlError(error);
  }
  const invalid = `the front matter is not valid YAML (${strictProblem})`;
  const detabbed = yaml.replace(/^[ \t]+/gm, (indent) => indent.replaceAll('\t', '  '));
  try {
    const read = reading(parseYaml(detabbed, { maxAliasCount: 100, mapAsMap: true, uniqueKeys: false }));
    return { ...read, problem: `${invalid}: read with repeated keys (the last value kept) and tabs as spaces` };
  } catch {
    // On to the line reader.
  }
  const { map, dropped } = readLines(detabbed);
  if (map.size === 0) return { ...EMPTY, problem: `${invalid}: left out, the note's body imported without it` };
  const left = dropped === 0 ? '' : ` (${dropped} line${dropped === 1 ? '' : 's'} left out)`;
  return { ...reading(map), problem: `${invalid}: read line by line as Obsidian shows it${left}` };
}

// Every line is read by index, never by a regular expression that could backtrack over it (a
// pattern such as `[^:]*?[ \t]*:` takes time quadratic in a long line without a colon, and front
// matter is read on the main thread): at most the fixed-length or anchored one-quantifier patterns
// below, each linear.

/** A flow list nested deeper than this is kept as its text (nesting thousands deep would exhaust the stack). */
const FLOW_DEPTH_MAX = 32;

const isBlank = (char: string | undefined) => char === ' ' || char === '\t';
/** What `.` of a regular expression does not match. */
const isLineBreak = (char: string) => char === '\n' || char === '\r' || char === '\u2028' || char === '\u2029';

/**
 * What follows the colon of a `key:` or the dash of a `- item` at `at`: nothing (undefined), or
 * blanks and then the value; false when neither (`key:value`, or a line break within).
 */
function valueAfter(line: string, at: number): string | undefined | false {
  if (at === line.length) return undefined;
  if (!isBlank(line[at])) return false;
  while (isBlank(line[at])) at++;
  for (let i = at; i < line.length; i++) if (isLineBreak(line[i]!)) return false;
  return line.slice(at);
}

/**
 * A `key: value` line (trimmed): the key runs to the first colon (blanks before it left out) and
 * starts with none of `#-[{:` or a space; or a key in quotes, which may hold colons.
 */
export function pairOf(line: string): { key: string; value: string | undefined } | undefined {
  const colon = line.indexOf(':');
  if (colon > 0 && !'#-[{'.includes(line[0]!) && !/^\s/.test(line[0]!)) {
    const value = valueAfter(line, colon + 1);
    if (value !== false) {
      let end = colon;
      while (isBlank(line[end - 1])) end--;
      return { key: line.slice(0, end), value };
    }
  }
  const quote = line[0];
  if (quote === '"' || quote === "'") {
    const close = line.indexOf(quote, 1);
    let at = close + 1;
    while (close !== -1 && isBlank(line[at])) at++;
    const value = close !== -1 && line[at] === ':' ? valueAfter(line, at + 1) : false;
    if (value !== false) return { key: line.slice(0, close + 1), value };
  }
  return undefined;
}

/** A `- item` line (trimmed): the item, undefined for none; false when the line is no item. */
function itemOf(line: string): string | undefined | false {
  return line[0] === '-' ? valueAfter(line, 1) : false;
}

/** `key: value` lines, `key:` with `- item` lines below, indented pairs as a map. */
function readLines(text: string): { map: Map<string, unknown>; dropped: number } {
  const map = new Map<string, unknown>();
  let dropped = 0;
  let open: string | undefined; // the key whose value the lines below may give
  for (const raw of text.split(/\r?\n/)) {
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const indented = /^\s/.test(raw);
    const item = itemOf(trimmed);
    if (item !== false && open !== undefined) {
      const current = map.get(open);
      const list = Array.isArray(current) ? current : [];
      list.push(scalar(item ?? ''));
      map.set(open, list);
      continue;
    }
    const pair = pairOf(trimmed);
    if (pair && indented && open !== undefined) {
      const current = map.get(open);
      const nested = current instanceof Map ? current : new Map<string, unknown>();
      nested.set(unquoteKey(pair.key), scalar(pair.value ?? ''));
      map.set(open, nested);
      continue;
    }
    if (pair && !indented) {
      const key = unquoteKey(pair.key);
      const value = pair.value?.trim() ?? '';
      map.set(key, scalar(value));
      open = value === '' ? key : undefined;
      continue;
    }
    dropped += 1;
  }
  return { map, dropped };
}

function unquoteKey(key: string): string {
  const quote = key[0];
  if ((quote !== '"' && quote !== "'") || key.length < 2 || !key.endsWith(quote)) return key;
  for (let i = 1; i < key.length - 1; i++) if (isLineBreak(key[i]!)) return key;
  return key.slice(1, -1);
}

/** The text before its comment: the first `#` after a blank, with no line break after it, and the blanks before it. */
function withoutComment(value: string): string {
  let from = 0;
  for (let i = 0; i < value.length; i++) if (isLineBreak(value[i]!)) from = i + 1;
  for (let hash = value.indexOf('#', from); hash !== -1; hash = value.indexOf('#', hash + 1)) {
    if (hash === from || !isBlank(value[hash - 1])) continue;
    let start = hash - 1;
    while (start > from && isBlank(value[start - 1])) start--;
    return value.slice(0, start);
  }
  return value;
}

/**
 * One value: quoted (outer quotes taken off, inner ones kept), a flow list (kept as its text past
 * FLOW_DEPTH_MAX levels), or plain (typed as YAML types it).
 */
export function scalar(raw: string, depth = 0): unknown {
  let value = raw.trim();
  if (value === '') return null;
  const quote = value[0];
  if ((quote === '"' || quote === "'") && value.length >= 2 && value.endsWith(quote)) {
    const inner = value.slice(1, -1);
    return quote === '"' ? inner.replace(/\\(["\\])/g, '$1') : inner.replaceAll("''", "'");
  }
  if (value.startsWith('[') && value.endsWith(']') && !/^\[\[[^[\]]*\]\]$/.test(value)) {
    if (depth >= FLOW_DEPTH_MAX) return value;
    return flowItems(value.slice(1, -1)).map((item) => scalar(item, depth + 1));
  }
  value = withoutComment(value);
  if (/^(?:~|null)$/i.test(value)) return null;
  if (/^true$/i.test(value)) return true;
  if (/^false$/i.test(value)) return false;
  if (/^[-+]?(?:\d+|\d*\.\d+)(?:[eE][-+]?\d+)?$/.test(value)) return Number(value);
  return value;
}

/**
 * The items of a flow list's inside: split at commas outside `[[wikilinks]]`; an item that opens
 * with a quote runs to the same quote followed by a comma or the end, whatever quotes it holds.
 */
export function flowItems(inside: string): string[] {
  const items: string[] = [];
  let at = 0;
  while (at < inside.length) {
    while (at < inside.length && /\s/.test(inside[at]!)) at++;
    if (at >= inside.length) break;
    const quote = inside[at];
    let end: number;
    if (quote === '"' || quote === "'") {
      const close = new RegExp(`${quote}\\s*(?:,|$)`, 'g');
      close.lastIndex = at + 1;
      const found = close.exec(inside);
      end = found ? found.index + 1 : inside.length;
      items.push(inside.slice(at, end));
      const comma = inside.indexOf(',', end);
      at = comma === -1 ? inside.length : comma + 1;
      continue;
    }
    let depth = 0;
    end = at;
    while (end < inside.length) {
      if (inside.startsWith('[[', end)) {
        depth++;
        end += 2;
        continue;
      }
      if (inside.startsWith(']]', end) && depth > 0) {
        depth--;
        end += 2;
        continue;
      }
      if (inside[end] === ',' && depth === 0) break;
      end++;
    }
    const item = inside.slice(at, end).trim();
    if (item !== '') items.push(item);
    at = end + 1;
  }
  return items;
}
