import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// Import jobs (CONTRACT "Import from elsewhere" › "Dry run and jobs"): an import sent with
// `Prefer: respond-async` runs in the background on the instance that received it, and any instance
// answers GET /api/imports/{id} from this row. An import sent with an `Idempotency-Key` has a row
// too (sync or async), so a repeat finds the first one's result.
//
//   id               a random, unguessable string (the job's URL)
//   status           'queued' | 'running' | 'done' | 'failed'
//   progress_*       steps done and known (ImportBudget.progress), written at most every 500 ms
//   campaign_id      the campaign created (done); no foreign key: a job outlives a deleted campaign
//   report, error    JSON: the import report (done), the problem document (failed)
//   idempotency_key  the client's key, unique per user (NULL for none)
//   instance_id      the process running it; heartbeat_at is touched every few seconds while it
//                    runs, so a job whose instance died is seen as failed once it is stale
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const ts = dialect === 'postgres' ? ('timestamptz' as const) : ('text' as const);
  await db.schema
    .createTable('import_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('progress_done', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('progress_total', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('campaign_id', 'integer')
    .addColumn('report', 'text')
    .addColumn('error', 'text')
    .addColumn('idempotency_key', 'text')
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('heartbeat_at', ts, (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('import_jobs_user_key').unique().on('import_jobs').columns(['user_id', 'idempotency_key']).execute();
  await db.schema.createIndex('import_jobs_status_heartbeat').on('import_jobs').columns(['status', 'heartbeat_at']).execute();
  await db.schema.createIndex('import_jobs_created').on('import_jobs').columns(['created_at']).execute();
}
