/** `items` in consecutive slices of at most `size` (statements stay under the databases' parameter limits). */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The text a row carries (its string values' length): what makes a multi-row statement large. */
export function rowWeight(row: object): number {
  let total = 0;
  for (const value of Object.values(row)) if (typeof value === 'string') total += value.length;
  return total;
}

/** Characters of text one multi-row INSERT carries at most (past its first row). */
export const MAX_STATEMENT_TEXT = 8 * 1024 * 1024;

/** `rows` in the slices of one multi-row INSERT each: bounded in parameters and in text. */
export function insertSlices<R extends object>(rows: readonly R[]): R[][] {
  if (rows.length === 0) return [];
  return slicesByWeight(rows, rowsPerInsert(Object.keys(rows[0]!).length), MAX_STATEMENT_TEXT, rowWeight);
}

// Bound parameters per statement: SQLite allows 32,766 (SQLITE_MAX_VARIABLE_NUMBER since 3.32),
// PostgreSQL 65,535 (a 16-bit count in the wire protocol). Below both, with room to spare.
export const MAX_PARAMETERS = 30_000;

/** The most rows of `columns` columns one multi-row INSERT takes on either database. */
export function rowsPerInsert(columns: number): number {
  return Math.max(1, Math.floor(MAX_PARAMETERS / columns));
}

/**
 * `items` in consecutive slices of at most `maxItems` items and, past the first item of a slice,
 * at most `maxWeight` in all (`weight` of an item: its bytes of text, say). A statement or a
 * transaction built from a slice stays bounded in parameters and in size however large the items.
 */
export function slicesByWeight<T>(items: readonly T[], maxItems: number, maxWeight: number, weight: (item: T) => number): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  let total = 0;
  for (const item of items) {
    const w = weight(item);
    if (current.length > 0 && (current.length >= maxItems || total + w > maxWeight)) {
      out.push(current);
      current = [];
      total = 0;
    }
    current.push(item);
    total += w;
  }
  if (current.length > 0) out.push(current);
  return out;
}
