// A note's YAML front matter, read as strictly as YAML allows and, for a vault from elsewhere, as
// forgivingly as Obsidian opens it (CONTRACT "Import from elsewhere": a file that cannot be read as
// it should is imported as well as it can be, with a warning):
//   1. strict YAML (the `yaml` library);
//   2. YAML again with duplicate keys allowed (the last value wins) and tabs in indentation as spaces;
//   3. line by line, the shapes front matter takes in practice: `key: value`, `key: [a, b]` (items
//      may hold bare quotes, as a converter many vaults use writes `["Laiba "Nana" Rosse"]`),
//      `key:` followed by `- item` lines, and indented `key: value` lines as a map; anything else
//      (a stray line) is left out;
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

const PAIR = /^([^\s#\-[{:][^:]*?|"[^"]*"|'[^']*')[ \t]*:(?:[ \t]+(.*))?$/;
const ITEM = /^-(?:[ \t]+(.*))?$/;

/** `key: value` lines, `key:` with `- item` lines below, indented pairs as a map. */
function readLines(text: string): { map: Map<string, unknown>; dropped: number } {
  const map = new Map<string, unknown>();
  let dropped = 0;
  let open: string | undefined; // the key whose value the lines below may give
  for (const raw of text.split(/\r?\n/)) {
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const indented = /^\s/.test(raw);
    const item = ITEM.exec(trimmed);
    if (item && open !== undefined) {
      const current = map.get(open);
      const list = Array.isArray(current) ? current : [];
      list.push(scalar(item[1] ?? ''));
      map.set(open, list);
      continue;
    }
    const pair = PAIR.exec(trimmed);
    if (pair && indented && open !== undefined) {
      const current = map.get(open);
      const nested = current instanceof Map ? current : new Map<string, unknown>();
      nested.set(unquoteKey(pair[1]!), scalar(pair[2] ?? ''));
      map.set(open, nested);
      continue;
    }
    if (pair && !indented) {
      const key = unquoteKey(pair[1]!);
      const value = pair[2]?.trim() ?? '';
      map.set(key, scalar(value));
      open = value === '' ? key : undefined;
      continue;
    }
    dropped += 1;
  }
  return { map, dropped };
}

function unquoteKey(key: string): string {
  return /^(["']).*\1$/.test(key) ? key.slice(1, -1) : key;
}

/** One value: quoted (outer quotes taken off, inner ones kept), a flow list, or plain (typed as YAML types it). */
export function scalar(raw: string): unknown {
  let value = raw.trim();
  if (value === '') return null;
  const quote = value[0];
  if ((quote === '"' || quote === "'") && value.length >= 2 && value.endsWith(quote)) {
    const inner = value.slice(1, -1);
    return quote === '"' ? inner.replace(/\\(["\\])/g, '$1') : inner.replaceAll("''", "'");
  }
  if (value.startsWith('[') && value.endsWith(']') && !/^\[\[[^[\]]*\]\]$/.test(value)) return flowItems(value.slice(1, -1)).map(scalar);
  value = value.replace(/[ \t]+#.*$/, '');
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
