// What the index stores of one record: its folded name key, the length of its name and of its text
// in terms, and per term how often it occurs in the name and in the text.
import { ARC_TEXT_FIELDS, type ArcTextField } from '../domain/arc-fields.js';
import { parseStoredLabels, parseStoredProperties, propertyValueText } from '../domain/properties.js';
import { parseStoredRichText } from '../domain/rich-text.js';
import { nameKey, tokenize } from './tokenize.js';
import { calloutTitle, isMentionNode, redactNodes } from '../vocabulary/index.js';

export type DocumentKind = 'thing' | 'arc' | 'campaign';

/** How a kind is stored in the postings (small integers keep that table narrow). */
export const KIND_CODES = { thing: 1, arc: 2, campaign: 3 } as const satisfies Record<DocumentKind, number>;

export function kindOfCode(code: number): DocumentKind {
  if (code === KIND_CODES.thing) return 'thing';
  if (code === KIND_CODES.arc) return 'arc';
  return 'campaign';
}

export interface TermCounts {
  name: number;
  text: number;
}

export interface IndexDocument {
  nameKey: string;
  nameLength: number;
  textLength: number;
  postings: Map<string, TermCounts>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Text leaves of one block are joined as they are (marks split words across leaves: "Ne", "zz",
// "nar"); blocks are separated by a line break. Defensive about shape: a row written around the
// API may hold anything.
function collect(node: unknown, lines: string[], depth: number): void {
  if (!isObject(node) || depth > 64) return;
  if (typeof node.text === 'string') {
    lines[lines.length - 1] += node.text;
    return;
  }
  if (!Array.isArray(node.children)) return;
  lines.push('');
  // A callout's title is text of the callout (a line of its own), hidden with it when secret.
  const title = calloutTitle(node);
  if (title !== undefined) lines.push(title, '');
  for (const child of node.children as unknown[]) collect(child, lines, depth + 1);
  lines.push('');
}

/** The plain text of a rich-text value: one line per block, empty lines dropped. */
export function plainText(value: unknown): string {
  if (!Array.isArray(value)) return '';
  const lines: string[] = [''];
  for (const block of value as unknown[]) collect(block, lines, 0);
  return lines
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
}

/**
 * The plain text of a stored rich-text column (JSON text or NULL). `withSecrets: false` is the text
 * players read: no secret element at any depth (vocabulary/secrecy.ts) and no mention that `drop`
 * names, removed whole with its label. By default that is every mention with a label: a player's
 * index document is built when the record is written, and the visibility of a mention's target can
 * change without this record being written again, so no label is ever indexed for players (a
 * mention stores no name, so only a label the GM typed is left out). Excerpts, built when a player
 * searches, pass the mentions of the records hidden from them instead.
 */
export function plainTextOfStored(stored: string | null, withSecrets = true, drop: (node: unknown) => boolean = isMentionNode): string {
  try {
    const value = parseStoredRichText(stored);
    return plainText(withSecrets ? value : redactNodes(value, drop));
  } catch {
    return '';
  }
}

/** The views a search document is for, as a bit set (search_documents.audience). */
export const AUDIENCE = { players: 1, gms: 2, everyone: 3 } as const;

export interface AudienceDocument {
  audience: number;
  document: IndexDocument;
}

/**
 * The documents of one record: one for everyone when players may see it and its text is the same
 * for them (no secret element, no mention label, no GM-only property); else its whole text for game
 * masters and, if players may see the record, its text without secret elements, mention labels and
 * GM-only properties for them. `texts(withSecrets)` gives the record's texts; `aliases` are other
 * names, indexed as name words (the same for both views).
 */
export function audienceDocuments(name: string, texts: (withSecrets: boolean) => string[], forPlayers: boolean, aliases: readonly string[] = []): AudienceDocument[] {
  const full = texts(true);
  const gms = buildDocument(name, full, aliases);
  if (!forPlayers) return gms ? [{ audience: AUDIENCE.gms, document: gms }] : [];
  const open = texts(false);
  if (open.every((text, i) => text === full[i])) return gms ? [{ audience: AUDIENCE.everyone, document: gms }] : [];
  const players = buildDocument(name, open, aliases);
  const out: AudienceDocument[] = [];
  if (players) out.push({ audience: AUDIENCE.players, document: players });
  if (gms) out.push({ audience: AUDIENCE.gms, document: gms });
  return out;
}

/**
 * The index document of a record with this name, these texts and these other names (aliases: their
 * words count as name words, so an alias ranks like the name; the exact-name key stays the name's
 * own); null when none has a term.
 */
export function buildDocument(name: string, texts: readonly string[], aliases: readonly string[] = []): IndexDocument | null {
  const postings = new Map<string, TermCounts>();
  const nameTokens = [name, ...aliases].flatMap((text) => tokenize(text));
  for (const token of nameTokens) {
    const counts = postings.get(token.term);
    if (counts) counts.name += 1;
    else postings.set(token.term, { name: 1, text: 0 });
  }
  let textLength = 0;
  for (const text of texts) {
    for (const token of tokenize(text)) {
      textLength += 1;
      const counts = postings.get(token.term);
      if (counts) counts.text += 1;
      else postings.set(token.term, { name: 0, text: 1 });
    }
  }
  if (postings.size === 0) return null;
  return { nameKey: nameKey(name), nameLength: nameTokens.length, textLength, postings };
}

/**
 * The length a posting carries for ranking (search_postings.name_len/text_len), lossy like
 * Lucene's norms: exact up to 16 terms, then rounded to an eighth of an octave (steps of about
 * 9 %). Every posting of a document carries it, so with exact lengths a one-word edit would
 * rewrite all of them; rounded, a small edit rarely changes it. search_documents keeps the exact
 * lengths (the campaign's averages are summed from them).
 */
export function postingLength(length: number): number {
  if (length <= 16) return length;
  return Math.round(2 ** (Math.round(8 * Math.log2(length)) / 8));
}

/**
 * The stored structure of a thing or an arc (JSON text of its columns): its properties, tags and
 * aliases.
 */
export interface IndexedStructure {
  properties: string;
  tags: string;
  aliases: string;
}

/** What the index reads of a thing, an arc and a campaign: names, stored rich text (JSON or NULL), structure and visibility. */
export type IndexedThing = {
  name: string;
  description: string | null;
  visibility: string;
} & IndexedStructure;
export type IndexedArc = { name: string; visibility: string } & Record<ArcTextField, string | null> & IndexedStructure;
export interface IndexedCampaign {
  description: string | null;
}

/**
 * The searchable text of a record's structure, one passage per line: its tags (`#tag`), then each
 * property with a value as `key: value` (strings, numbers, booleans and dates as written; a link
 * has no text of its own: its target's name is the target's to index), GM-only ones only
 * `withSecrets`. Keys are not indexed (`indexed: true` leaves them out): the words of a key
 * describe the field, not the record; excerpts show them for context.
 */
export function structurePassages(record: Pick<IndexedStructure, 'properties' | 'tags'>, withSecrets: boolean, indexed = false): string[] {
  const lines: string[] = [];
  const tags = parseStoredLabels(record.tags);
  if (tags.length > 0) lines.push(tags.map((tag) => `#${tag}`).join(' '));
  for (const property of parseStoredProperties(record.properties)) {
    if (property.gmOnly && !withSecrets) continue;
    const text = propertyValueText(property.value).replace(/\s+/g, ' ').trim();
    if (text === '') continue;
    lines.push(indexed ? text : `${property.key}: ${text}`);
  }
  return lines;
}

function structureText(record: IndexedStructure, withSecrets: boolean): string {
  return structurePassages(record, withSecrets, true).join('\n');
}

export function thingDocuments(thing: IndexedThing): AudienceDocument[] {
  return audienceDocuments(
    thing.name,
    (withSecrets) => [plainTextOfStored(thing.description, withSecrets), structureText(thing, withSecrets)],
    thing.visibility === 'all',
    parseStoredLabels(thing.aliases),
  );
}

export function arcDocuments(arc: IndexedArc): AudienceDocument[] {
  return audienceDocuments(
    arc.name,
    (withSecrets) => [...ARC_TEXT_FIELDS.map((field) => plainTextOfStored(arc[field], withSecrets)), structureText(arc, withSecrets)],
    arc.visibility === 'all',
    parseStoredLabels(arc.aliases),
  );
}

// The campaign's own name is not searched: inside a campaign it would match every search for it.
export function campaignDocuments(campaign: IndexedCampaign): AudienceDocument[] {
  return audienceDocuments('', (withSecrets) => [plainTextOfStored(campaign.description, withSecrets)], true);
}

/** Whether an arc update touches what the index holds of the arc (its name or a text field). */
export function changesArcSearchText(changes: Partial<Record<'name' | ArcTextField, unknown>>): boolean {
  return changes.name !== undefined || ARC_TEXT_FIELDS.some((field) => changes[field] !== undefined);
}
