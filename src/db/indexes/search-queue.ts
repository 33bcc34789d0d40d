// The search index is brought up to date after the commit (issue 28, "Writes cost what changed"):
// re-indexing a record's text was most of a write's cost (docs/performance.md), and an autosaving
// editor writes the same record every second or so.
//
// - A write that changes what a record's documents hold queues the record (queueReindex), one
//   statement in its own transaction: the queue row commits with the change or not at all.
// - Each instance indexes what is queued shortly after its writes (SearchIndexer: SEARCH_INDEX_DELAY_MS
//   after the first, default 250 ms), and at start-up: a crash loses nothing, the rows wait in the
//   table. A record written many times meanwhile is indexed once, from what it holds then.
// - A search first indexes what its campaign has queued (indexCampaignPending): its answer is never
//   older than the writes committed before it, whatever the indexer's delay.
//
// Indexing a batch, on PostgreSQL beside the campaign's concurrent writes: the campaign's write lock
// shared (a rebuild takes it exclusively); then the batch's records locked FOR KEY SHARE (their
// writers hold FOR UPDATE from before they queue; taken in that order, the index's foreign keys
// need no lock a writer holds while it waits for the queue row); then the queue rows locked FOR
// UPDATE; only then the records read, so every write whose queue row this batch deletes is in what
// it indexes, and a writer that queues meanwhile waits for this commit and queues again.
import { sql, type Transaction } from 'kysely';
import type { Database, Db } from '../database.js';
import type { DB } from '../schema.js';
import { ARC_TEXT_FIELDS } from '../schema.js';
import { shareCampaignWrites } from '../repositories/common.js';
import { arcDocuments, campaignDocuments, kindOfCode, KIND_CODES, thingDocuments, type AudienceDocument, type DocumentKind } from '../../search/document.js';
import { reindexRecord } from './search-diff.js';

/** Records indexed in one transaction. */
export const INDEX_BATCH = 32;
/** Campaigns an indexing pass looks at per round. */
const CAMPAIGNS_PER_ROUND = 50;

/** Queues a record (a thing, an arc, or the campaign's description) for re-indexing: call inside the transaction that changed what its documents hold. */
export async function queueReindex(db: Db, campaignId: number, kind: DocumentKind, recordId: number): Promise<void> {
  await db
    .insertInto('search_pending')
    .values({ campaign_id: campaignId, kind: KIND_CODES[kind], record_id: recordId })
    .onConflict((oc) => oc.columns(['campaign_id', 'kind', 'record_id']).doUpdateSet({ seq: (eb) => eb('search_pending.seq', '+', 1) }))
    .execute();
}

interface PendingRow {
  kind: number;
  record_id: number;
  seq: number;
}

const idsOf = (rows: readonly PendingRow[], kind: DocumentKind) => rows.filter((r) => r.kind === KIND_CODES[kind]).map((r) => r.record_id);

/** The documents each queued record has now; a record no longer there is absent (its documents went with it, through foreign keys). */
async function currentDocuments(trx: Transaction<DB>, campaignId: number, rows: readonly PendingRow[]): Promise<Map<string, AudienceDocument[]>> {
  const documents = new Map<string, AudienceDocument[]>();
  const thingIds = idsOf(rows, 'thing');
  const arcIds = idsOf(rows, 'arc');
  if (thingIds.length > 0) {
    const things = await trx
      .selectFrom('things')
      .select(['id', 'name', 'description', 'visibility', 'properties', 'tags', 'aliases'])
      .where('campaign_id', '=', campaignId)
      .where('id', 'in', thingIds)
      .execute();
    for (const thing of things) documents.set(`thing:${thing.id}`, thingDocuments(thing));
  }
  if (arcIds.length > 0) {
    const arcs = await trx
      .selectFrom('arcs')
      .select(['id', 'name', 'visibility', 'properties', 'tags', 'aliases', ...ARC_TEXT_FIELDS])
      .where('campaign_id', '=', campaignId)
      .where('id', 'in', arcIds)
      .execute();
    for (const arc of arcs) documents.set(`arc:${arc.id}`, arcDocuments(arc));
  }
  if (idsOf(rows, 'campaign').length > 0) {
    const campaign = await trx.selectFrom('campaigns').select('description').where('id', '=', campaignId).executeTakeFirst();
    if (campaign) documents.set(`campaign:${campaignId}`, campaignDocuments(campaign));
  }
  return documents;
}

/** PostgreSQL: the batch's things and arcs locked FOR KEY SHARE, before its queue rows (see the top of this file). */
async function lockRecords(trx: Transaction<DB>, campaignId: number, rows: readonly PendingRow[]): Promise<void> {
  const thingIds = idsOf(rows, 'thing');
  const arcIds = idsOf(rows, 'arc');
  if (thingIds.length > 0) await sql`select 1 from things where campaign_id = ${campaignId} and id = any(${thingIds}::int[]) order by id for key share`.execute(trx);
  if (arcIds.length > 0) await sql`select 1 from arcs where campaign_id = ${campaignId} and id = any(${arcIds}::int[]) order by id for key share`.execute(trx);
}

/**
 * Indexes up to INDEX_BATCH queued records of one campaign in one transaction; returns how many
 * queue rows it took. `wait`: wait for rows another transaction is indexing (a search must see
 * them indexed); else skip them (the background indexer).
 */
async function indexBatch(database: Database, campaignId: number, wait: boolean): Promise<number> {
  // Sends no notice and bumps no version: nothing for the request's answer to wait for (write-scope.ts).
  return database.write(async (trx) => {
    const pg = database.dialect === 'postgres';
    await shareCampaignWrites(trx, campaignId);
    const pendingOf = () => trx.selectFrom('search_pending').select(['kind', 'record_id', 'seq']).where('campaign_id', '=', campaignId).orderBy('kind').orderBy('record_id').limit(INDEX_BATCH);
    let rows: PendingRow[] = await pendingOf().execute();
    if (rows.length === 0) return 0;
    if (pg) {
      await lockRecords(trx, campaignId, rows);
      const locked = pendingOf().where((eb) => eb.or(rows.map((r) => eb.and([eb('kind', '=', r.kind), eb('record_id', '=', r.record_id)]))));
      rows = await (wait ? locked.forUpdate() : locked.forUpdate().skipLocked()).execute();
      if (rows.length === 0) return 0;
    }
    const documents = await currentDocuments(trx, campaignId, rows);
    for (const row of rows) {
      const kind = kindOfCode(row.kind);
      const next = documents.get(`${kind}:${row.record_id}`);
      if (next) await reindexRecord(trx, campaignId, kind, row.record_id, next);
    }
    // Rows a write bumped since they were read stay queued (on PostgreSQL they are locked: none is).
    await trx
      .deleteFrom('search_pending')
      .where('campaign_id', '=', campaignId)
      .where((eb) => eb.or(rows.map((r) => eb.and([eb('kind', '=', r.kind), eb('record_id', '=', r.record_id), eb('seq', '=', r.seq)]))))
      .execute();
    return rows.length;
  }, { announced: true });
}

/**
 * Indexes everything the campaign has queued, waiting for what another instance is indexing of it:
 * after this, the index holds every write committed before it began. One statement when nothing is queued.
 */
export async function indexCampaignPending(database: Database, campaignId: number): Promise<void> {
  const queued = await database.kysely.selectFrom('search_pending').select('campaign_id').where('campaign_id', '=', campaignId).limit(1).executeTakeFirst();
  if (!queued) return;
  while ((await indexBatch(database, campaignId, true)) > 0);
}

/**
 * Indexes what is queued in every campaign, skipping what another instance is indexing; returns the
 * number of queue rows taken. The background indexer's pass, and the start-up's.
 */
export async function indexAllPending(database: Database): Promise<number> {
  let taken = 0;
  for (;;) {
    const campaigns = await database.kysely.selectFrom('search_pending').select('campaign_id').groupBy('campaign_id').orderBy('campaign_id').limit(CAMPAIGNS_PER_ROUND).execute();
    let round = 0;
    for (const { campaign_id } of campaigns) {
      for (let n; (n = await indexBatch(database, campaign_id, false)) > 0; ) round += n;
    }
    taken += round;
    if (round === 0) return taken;
  }
}

/**
 * Indexes what is queued `delayMs` after a write commits (Database.onCommit), one pass at a time,
 * and once at start-up (what a crash or a stopped instance left). A write that commits during a
 * pass gets a pass after it. `delayMs` 0: none after writes, searches index what they need.
 */
export class SearchIndexer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;

  constructor(
    private readonly database: Database,
    private readonly delayMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** A write committed: a pass within delayMs (or right after the one running). */
  wake(): void {
    if (this.closed || this.delayMs === 0) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.timer ??= setTimeout(() => this.pass(), this.delayMs);
  }

  /** One pass now, whatever the delay (start-up: what a crash or a stop left queued); resolves when it is done. */
  start(): Promise<void> {
    this.pass();
    return this.running ?? Promise.resolve();
  }

  private pass(): void {
    this.timer = undefined;
    if (this.closed || this.running) return;
    this.running = indexAllPending(this.database)
      .then(() => undefined, this.onError)
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** No pass after this one; resolves when the running pass is done. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
