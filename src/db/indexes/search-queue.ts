// The search index is brought up to date after the commit (issue 28, "Writes cost what changed"):
// re-indexing a record's text was most of a write's cost (docs/performance.md), and an autosaving
// editor writes the same record every second or so.
//
// - A write that changes what a record's documents hold queues the record (queueReindex), one
//   statement in its own transaction (on PostgreSQL, in a request, part of its last statement:
//   holdQueueWrites): the queue row commits with the change or not at all.
// - Each instance indexes what is queued shortly after its writes (SearchIndexer: SEARCH_INDEX_DELAY_MS
//   after the first, default 250 ms), and at start-up: a crash loses nothing, the rows wait in the
//   table. A record written many times meanwhile is indexed once, from what it holds then.
// - A search first indexes what its campaign has queued (indexCampaignPending): its answer is never
//   older than the writes committed before it, whatever the indexer's delay.
//
// Indexing a batch, on PostgreSQL beside the campaign's writes and other instances' indexing: the
// campaign's write lock shared (a rebuild takes it exclusively); then a transaction-scoped advisory
// lock per record of the batch, in order, so no two instances index one record at once (the
// background pass skips a record another holds, a search waits for it). Writers take none of
// these and the queue rows are not locked: a write never waits for indexing. The records are read
// after the queue rows, and a queue row is deleted only if its `seq` is still the one read and no
// write in flight holds it: a write that queues again meanwhile, committed or not, keeps its row,
// so its change is indexed by a later pass.
import { sql, type Transaction } from 'kysely';
import type { Database, Db } from '../database.js';
import type { DB } from '../schema.js';
import { ARC_TEXT_FIELDS } from '../schema.js';
import { shareCampaignWrites } from '../repositories/common.js';
import { arcDocuments, campaignDocuments, kindOfCode, KIND_CODES, thingDocuments, type AudienceDocument, type DocumentKind } from '../../search/document.js';
import { reindexRecord } from './search-diff.js';

/** Records indexed in one transaction. */
const INDEX_BATCH = 32;
/** Campaigns an indexing pass looks at per round. */
const CAMPAIGNS_PER_ROUND = 50;

/** A record to queue: campaign, kind code and id. */
export interface QueuedRecord {
  campaignId: number;
  kind: number;
  recordId: number;
}

// Transactions whose queue writes are held, to be sent with their last statement (holdQueueWrites).
const held = new WeakMap<object, Map<string, QueuedRecord>>();

/**
 * From now on, queueReindex in `trx` only notes the record, once however often it is queued; the
 * caller sends the notes with the transaction's last statement (takeHeldQueueWrites and
 * queueUpsert: common.ts campaignWrite on PostgreSQL, where each statement is a round trip). The
 * queue row still commits with the change or not at all; it is written a few statements later in
 * the same transaction, which no indexer can tell (it reads only what is committed).
 */
export function holdQueueWrites(trx: Db): void {
  held.set(trx, new Map());
}

/** The records queued in `trx` since holdQueueWrites, in the order first queued; queueReindex writes at once again after this. */
export function takeHeldQueueWrites(trx: Db): QueuedRecord[] {
  const records = held.get(trx);
  held.delete(trx);
  return records === undefined ? [] : [...records.values()];
}

/** The statement that queues these records (distinct ones: one upsert may not touch a row twice), or bumps their `seq`. */
export function queueUpsert(records: readonly QueuedRecord[]) {
  const values = records.map((r) => sql`(${r.campaignId}, ${r.kind}, ${r.recordId})`);
  return sql`insert into search_pending (campaign_id, kind, record_id) values ${sql.join(values)}
    on conflict (campaign_id, kind, record_id) do update set seq = search_pending.seq + 1`;
}

/** Queues a record (a thing, an arc, or the campaign's description) for re-indexing: call inside the transaction that changed what its documents hold. */
export async function queueReindex(db: Db, campaignId: number, kind: DocumentKind, recordId: number): Promise<void> {
  const holding = held.get(db);
  if (holding !== undefined) {
    holding.set(`${kind}:${recordId}:${campaignId}`, { campaignId, kind: KIND_CODES[kind], recordId });
    return;
  }
  await queueUpsert([{ campaignId, kind: KIND_CODES[kind], recordId }]).execute(db);
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

/** The first key of the advisory locks on records being indexed, one namespace per kind: 'SI' and the kind's code. */
const INDEXING = 0x5349_00;

/**
 * PostgreSQL: takes the advisory lock of each row's record, in the rows' order (kind, id), waiting
 * (`wait`) or not; returns the rows whose lock this transaction holds.
 */
async function lockRecords(trx: Transaction<DB>, rows: readonly PendingRow[], wait: boolean): Promise<PendingRow[]> {
  const kinds = rows.map((r) => INDEXING + r.kind);
  const ids = rows.map((r) => r.record_id);
  if (wait) {
    await sql`select pg_advisory_xact_lock(k, i) from (select k, i from unnest(${kinds}::int[], ${ids}::int[]) as r(k, i) order by k, i) s`.execute(trx);
    return [...rows];
  }
  const { rows: held } = await sql<{ i: number; k: number }>`select k, i from (select k, i from unnest(${kinds}::int[], ${ids}::int[]) as r(k, i) order by k, i) s
    where pg_try_advisory_xact_lock(k, i)`.execute(trx);
  const got = new Set(held.map((h) => `${Number(h.k) - INDEXING}:${Number(h.i)}`));
  return rows.filter((r) => got.has(`${r.kind}:${r.record_id}`));
}

/**
 * Indexes up to INDEX_BATCH queued records of one campaign in one transaction; returns how many
 * queue rows it took. `wait`: wait for rows another transaction is indexing (a search must see
 * them indexed); else skip them (the background indexer).
 */
async function indexBatch(database: Database, campaignId: number, wait: boolean, after: Cursor): Promise<{ taken: number; next: Cursor | undefined }> {
  // Sends no notice and bumps no version: nothing for the request's answer to wait for (write-scope.ts).
  return database.write(async (trx) => {
    const pg = database.dialect === 'postgres';
    await shareCampaignWrites(trx, campaignId);
    const queued: PendingRow[] = await trx
      .selectFrom('search_pending')
      .select(['kind', 'record_id', 'seq'])
      .where('campaign_id', '=', campaignId)
      .where((eb) => eb.or([eb('kind', '>', after.kind), eb.and([eb('kind', '=', after.kind), eb('record_id', '>', after.recordId)])]))
      .orderBy('kind')
      .orderBy('record_id')
      .limit(INDEX_BATCH)
      .execute();
    const last = queued.at(-1);
    const next = last && queued.length === INDEX_BATCH ? { kind: last.kind, recordId: last.record_id } : undefined;
    // A record another instance was indexing is read after its commit: what this reads of the index is current.
    const rows = pg && queued.length > 0 ? await lockRecords(trx, queued, wait) : queued;
    if (rows.length === 0) return { taken: 0, next };
    const documents = await currentDocuments(trx, campaignId, rows);
    for (const row of rows) {
      const kind = kindOfCode(row.kind);
      const next = documents.get(`${kind}:${row.record_id}`);
      if (next) await reindexRecord(trx, campaignId, kind, row.record_id, next);
    }
    await dequeue(trx, campaignId, rows, pg);
    return { taken: rows.length, next };
  }, { announced: true });
}

/**
 * Deletes the queue rows indexed, each only if its `seq` is still the one read: a row a write
 * queued again since stays queued. On PostgreSQL a row a write in flight holds (it is queuing it
 * again) is skipped, not waited for: the indexer never queues behind writers, and they wait for it
 * only for its commit.
 */
async function dequeue(trx: Transaction<DB>, campaignId: number, rows: readonly PendingRow[], pg: boolean): Promise<void> {
  if (pg) {
    await sql`delete from search_pending p using (
        select kind, record_id from search_pending
        where campaign_id = ${campaignId} and (kind, record_id, seq) in (
          select * from unnest(${rows.map((r) => r.kind)}::int[], ${rows.map((r) => r.record_id)}::int[], ${rows.map((r) => r.seq)}::int[]))
        for update skip locked) s
      where p.campaign_id = ${campaignId} and p.kind = s.kind and p.record_id = s.record_id`.execute(trx);
    return;
  }
  await trx
    .deleteFrom('search_pending')
    .where('campaign_id', '=', campaignId)
    .where((eb) => eb.or(rows.map((r) => eb.and([eb('kind', '=', r.kind), eb('record_id', '=', r.record_id), eb('seq', '=', r.seq)]))))
    .execute();
}

/** Where a walk of a campaign's queue is: after this (kind, record). */
interface Cursor {
  kind: number;
  recordId: number;
}
const START: Cursor = { kind: 0, recordId: 0 };

/**
 * One walk over the campaign's queue, in order, a batch at a time; returns the rows taken. A row a
 * write queued again during its batch was still indexed from what the record held after the walk
 * began: it stays queued for the next walk, not this one.
 */
async function walkQueue(database: Database, campaignId: number, wait: boolean): Promise<number> {
  let taken = 0;
  for (let after: Cursor | undefined = START; after; ) {
    const batch: { taken: number; next: Cursor | undefined } = await indexBatch(database, campaignId, wait, after);
    taken += batch.taken;
    after = batch.next;
  }
  return taken;
}

/**
 * Indexes everything the campaign has queued, waiting for what another instance is indexing of it:
 * after this, the index holds every write committed before it began. One statement when nothing is queued.
 */
export async function indexCampaignPending(database: Database, campaignId: number): Promise<void> {
  const queued = await database.kysely.selectFrom('search_pending').select('campaign_id').where('campaign_id', '=', campaignId).limit(1).executeTakeFirst();
  if (queued) await walkQueue(database, campaignId, true);
}

/**
 * Indexes what is queued in every campaign, each campaign's queue walked once, skipping what
 * another instance is indexing; returns the number of queue rows taken. The background indexer's
 * pass, and the start-up's. What is queued during the pass is for the next one.
 */
export async function indexAllPending(database: Database): Promise<number> {
  let taken = 0;
  for (let after = 0; ; ) {
    const campaigns = await database.kysely
      .selectFrom('search_pending')
      .select('campaign_id')
      .where('campaign_id', '>', after)
      .groupBy('campaign_id')
      .orderBy('campaign_id')
      .limit(CAMPAIGNS_PER_ROUND)
      .execute();
    for (const { campaign_id } of campaigns) taken += await walkQueue(database, campaign_id, false);
    if (campaigns.length < CAMPAIGNS_PER_ROUND) return taken;
    after = campaigns.at(-1)!.campaign_id;
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
