// What a write changes of what players see (CONTRACT "Secrets that hold": a player's answers do
// not move when only hidden content changes). A write that changes only GM-only records or secret
// elements leaves the record's `updatedAt` as players saw it (players_updated_at, see
// db/migrations/2026-11-24-0013-previous-slugs.ts); the response cache derives players' ETags from
// their answers (http/conditional.ts playersEtag).
import { emptyRichText, parseStoredRichText } from '../domain/rich-text.js';
import { redactNodes } from '../vocabulary/index.js';
import { parseStoredProperties } from '../domain/properties.js';
import type { View } from './view.js';

/** A record's columns as stored: plain values and rich-text JSON. */
type Columns = Record<string, unknown>;

/** A stored rich-text field without its secret elements (any depth), as comparable text. */
function playersText(stored: unknown): string {
  const value = parseStoredRichText(typeof stored === 'string' ? stored : null);
  const kept = redactNodes(value);
  // Never written, or nothing left: players read the empty document either way.
  return JSON.stringify(kept.length > 0 ? kept : emptyRichText());
}

/** Stored properties without the GM-only ones, as comparable text. */
function playersProperties(stored: unknown): string {
  return JSON.stringify(parseStoredProperties(typeof stored === 'string' ? stored : null).filter((property) => !property.gmOnly));
}

/**
 * Whether players could tell `before` from `after`: a record players see before or after
 * (`visibility` 'all'; a campaign has none and is always seen) whose `plain` columns, the
 * non-secret part of whose `richText` columns or the properties not GM-only of whose `properties`
 * columns differ. Conservative: a mention of a GM-only record added in a visible block (or a link
 * property to one) counts as a change although players never see it.
 */
export function playersSeeChange(before: Columns, after: Columns, plain: readonly string[], richText: readonly string[], properties: readonly string[] = []): boolean {
  const seen = (row: Columns) => row.visibility === undefined || row.visibility === 'all';
  if (!seen(before) && !seen(after)) return false;
  if (before.visibility !== after.visibility) return true;
  if (plain.some((column) => before[column] !== after[column])) return true;
  if (properties.some((column) => before[column] !== after[column] && playersProperties(before[column]) !== playersProperties(after[column]))) return true;
  return richText.some((column) => before[column] !== after[column] && playersText(before[column]) !== playersText(after[column]));
}

/** The `updatedAt` this view reads of a record: for players, when it last changed as they see it. */
export function shownUpdatedAt(view: View, row: { updated_at: string; players_updated_at?: string | null | undefined }): string {
  return view.players ? (row.players_updated_at ?? row.updated_at) : row.updated_at;
}
