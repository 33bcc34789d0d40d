// What a write changes of what players see (CONTRACT "Secrets that hold": a player's answers do
// not move when only hidden content changes). A write that changes only GM-only records or secret
// elements leaves the record's `updatedAt` as players saw it (players_updated_at, see
// db/migrations/2026-11-24-0013-previous-slugs.ts); the response cache derives players' ETags from
// their answers (http/conditional.ts playersEtag).
import { emptyRichText, parseStoredRichText } from '../domain/rich-text.js';
import { redactNodes } from '../vocabulary/index.js';
import { parseStoredProperties } from '../domain/properties.js';
import { redactProperties, type HiddenRecords, type View } from './view.js';

/** A record's columns as stored: plain values and rich-text JSON. */
type Columns = Record<string, unknown>;

/** A stored rich-text field without its secret elements (any depth), as comparable text. */
function playersText(stored: unknown): string {
  const value = parseStoredRichText(typeof stored === 'string' ? stored : null);
  const kept = redactNodes(value);
  // Never written, or nothing left: players read the empty document either way.
  return JSON.stringify(kept.length > 0 ? kept : emptyRichText());
}

/** Stored properties as players read them (no GM-only ones, no links to `hidden` records), as comparable text. */
function playersProperties(stored: unknown, hidden: HiddenRecords): string {
  return JSON.stringify(redactProperties(parseStoredProperties(typeof stored === 'string' ? stored : null), hidden));
}

const NONE_HIDDEN: HiddenRecords = { things: new Set(), arcs: new Set() };

/**
 * Whether players could tell `before` from `after`: a record players see before or after
 * (`visibility` 'all'; a campaign has none and is always seen) whose `plain` columns, the
 * non-secret part of whose `richText` columns or whose `properties` columns as players read them
 * (given the campaign's hidden records) differ. Conservative for rich text: a mention of a GM-only
 * record added in a visible block counts as a change although players never see it.
 */
export function playersSeeChange(
  before: Columns,
  after: Columns,
  plain: readonly string[],
  richText: readonly string[],
  properties: { columns: readonly string[]; hidden: HiddenRecords } = { columns: [], hidden: NONE_HIDDEN },
): boolean {
  const seen = (row: Columns) => row.visibility === undefined || row.visibility === 'all';
  if (!seen(before) && !seen(after)) return false;
  if (before.visibility !== after.visibility) return true;
  if (plain.some((column) => before[column] !== after[column])) return true;
  const { columns, hidden } = properties;
  if (columns.some((column) => before[column] !== after[column] && playersProperties(before[column], hidden) !== playersProperties(after[column], hidden))) return true;
  return richText.some((column) => before[column] !== after[column] && playersTextDiffers(before[column], after[column]));
}

const EMPTY_TEXT = JSON.stringify(emptyRichText());

/**
 * Whether two different stored rich-text values read differently to players. Text without a secret
 * element anywhere (no `"isSecret"` key in its JSON) is what players read, so two such texts are
 * compared as stored, the empty forms taken as one (what playersText does, without parsing). A
 * difference of spelling only (stored JSON is as JSON.stringify writes it) would count as a change:
 * conservative, as above.
 */
function playersTextDiffers(before: unknown, after: unknown): boolean {
  if (mayHoldSecrets(before) || mayHoldSecrets(after)) return playersText(before) !== playersText(after);
  return plainForm(before) !== plainForm(after);
}

const mayHoldSecrets = (stored: unknown) => typeof stored === 'string' && stored.includes('"isSecret"');
const plainForm = (stored: unknown) => (typeof stored !== 'string' || stored === '[]' || stored === 'null' ? EMPTY_TEXT : stored);

/** The `updatedAt` this view reads of a record: for players, when it last changed as they see it. */
export function shownUpdatedAt(view: View, row: { updated_at: string; players_updated_at?: string | null | undefined }): string {
  return view.players ? (row.players_updated_at ?? row.updated_at) : row.updated_at;
}
