import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// Each revision's fields as short digests (issue 28): a JSON object from a field's name to its JSON
// text when that is short, or a hash of it (history/snapshots.ts, fieldDigests). keepRevision compares
// a change with the record's latest revisions by these, so a write no longer reads, inflates and
// parses the two latest snapshots. Null in revisions kept before this column: their snapshot is read
// and its digests computed, as before (db/repositories/revisions.ts).
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('revisions').addColumn('digests', 'text').execute();
}
