// The one place that knows how each driver reports a constraint violation.

/**
 * The code a driver gives its error: PostgreSQL's SQLSTATE (node-postgres) or SQLite's extended
 * result code (better-sqlite3); undefined for anything else.
 */
export function databaseErrorCode(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

export type DatabaseErrorKind = 'unique' | 'foreign_key' | 'check' | 'not_null' | 'invalid_value';

export function classifyDatabaseError(error: unknown): DatabaseErrorKind | undefined {
  const code = databaseErrorCode(error);
  if (code === undefined) return undefined;
  switch (code) {
    // PostgreSQL SQLSTATEs
    case '23505':
      return 'unique';
    case '23503':
      return 'foreign_key';
    case '23514':
      return 'check';
    case '23502':
      return 'not_null';
    // A value the column cannot hold (integer out of range, malformed text for the type, too long):
    // only reachable when input slipped past validation, and still the caller's fault, not ours.
    case '22003':
    case '22P02':
    case '22001':
    case '22007':
    case '22008':
    case '22021': // text PostgreSQL cannot store: a NUL character (0x00)
    case '22P05': // or a character the database encoding lacks
      return 'invalid_value';
    // better-sqlite3 extended result codes
    case 'SQLITE_CONSTRAINT_UNIQUE':
    case 'SQLITE_CONSTRAINT_PRIMARYKEY':
      return 'unique';
    case 'SQLITE_CONSTRAINT_FOREIGNKEY':
      return 'foreign_key';
    case 'SQLITE_CONSTRAINT_CHECK':
      return 'check';
    case 'SQLITE_CONSTRAINT_NOTNULL':
      return 'not_null';
    default:
      return undefined;
  }
}
