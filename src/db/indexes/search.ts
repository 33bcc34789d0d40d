// The search index's write side (the read side is db/repositories/search.ts; what a document holds
// is src/search/, pure).
//
// How a derived index is kept (this one, and the mentions index beside it): every write that changes
// what the index derives from calls the index's `index*` function inside its own transaction, so
// the index commits or rolls back with the record; deletes need no call, index rows cascade from
// their record through foreign keys; and `rebuild*` recomputes a campaign's index from its records
// (`npm run cli -- search reindex`, and after a migration that asks for it: db/migrate.ts).
import { PostgresAdapter, sql } from 'kysely';
import type { Database, Db } from '../database.js';
import { campaignHousekeeping } from '../repositories/common.js';
import { ARC_TEXT_FIELDS } from '../schema.js';
import { AppError } from '../../domain/errors.js';
import {
  arcDocuments,
  campaignDocuments,
  KIND_CODES,
  thingDocuments,
  type AudienceDocument,
  type DocumentKind,
  type IndexDocument,
  type IndexedArc,
  type IndexedCampaign,
  type IndexedThing,
} from '../../search/document.js';
import { typoKeys } from '../../search/fuzzy.js';
import { isFuzzyCandidate } from '../../search/tokenize.js';
import { chunks } from '../chunks.js';

// Documents per INSERT: well below SQLite's 32,766 and PostgreSQL's 65,535 bound parameters.
const DOCUMENTS_PER_INSERT = 500;
const RECORDS_PER_BATCH = 500;

interface PendingDocument {
  kind: DocumentKind;
  recordId: number;
  audience: number;
  document: IndexDocument;
}

function pendingOf(kind: DocumentKind, recordId: number, documents: AudienceDocument[]): PendingDocument[] {
  return documents.map(({ audience, document }) => ({ kind, recordId, audience, document }));
}

// How the postings, words and typo keys of a write reach the database. On PostgreSQL each table
// takes one statement whatever the number of rows, its columns sent as arrays (unnest): a
// statement of thousands of bound parameters costs more to parse and plan than its rows to write.
// On SQLite, multi-row inserts of up to SQLITE_PARAMETERS bound parameters.
const SQLITE_PARAMETERS = 30_000;

function isPostgres(db: Db): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

interface PostingRow {
  term: string;
  doc_id: number;
  kind: number;
  record_id: number;
  name_tf: number;
  text_tf: number;
  name_len: number;
  text_len: number;
  audience: number;
}

async function insertPostings(db: Db, campaignId: number, postings: PostingRow[]): Promise<void> {
  if (postings.length === 0) return;
  if (isPostgres(db)) {
    const column = <K extends keyof PostingRow>(key: K) => postings.map((p) => p[key]);
    await sql`insert into search_postings (campaign_id, term, doc_id, kind, record_id, name_tf, text_tf, name_len, text_len, audience)
      select ${campaignId}, * from unnest(${column('term')}::text[], ${column('doc_id')}::integer[], ${column('kind')}::integer[],
        ${column('record_id')}::integer[], ${column('name_tf')}::integer[], ${column('text_tf')}::integer[],
        ${column('name_len')}::integer[], ${column('text_len')}::integer[], ${column('audience')}::integer[])`.execute(db);
    return;
  }
  for (const batch of chunks(postings, Math.floor(SQLITE_PARAMETERS / 10))) {
    await db
      .insertInto('search_postings')
      .values(batch.map((p) => ({ campaign_id: campaignId, ...p })))
      .execute();
  }
}

/** Adds words, with their typo keys, to the campaign's vocabulary (those it holds already stay as they are). */
async function insertTerms(db: Db, campaignId: number, terms: string[]): Promise<void> {
  if (terms.length === 0) return;
  const keys = terms.map((term) => (isFuzzyCandidate(term) ? typoKeys(term) : ([null, null, null] as const)));
  if (isPostgres(db)) {
    const column = (i: 0 | 1 | 2) => keys.map((k) => k[i]);
    await sql`insert into search_terms (campaign_id, term, typo0, typo1, typo2)
      select ${campaignId}, * from unnest(${terms}::text[], ${column(0)}::text[], ${column(1)}::text[], ${column(2)}::text[])
      on conflict (campaign_id, term) do nothing`.execute(db);
    return;
  }
  const rows = terms.map((term, i) => ({ campaign_id: campaignId, term, typo0: keys[i]![0], typo1: keys[i]![1], typo2: keys[i]![2] }));
  for (const batch of chunks(rows, Math.floor(SQLITE_PARAMETERS / 5))) {
    await db
      .insertInto('search_terms')
      .values(batch)
      .onConflict((conflict) => conflict.columns(['campaign_id', 'term']).doNothing())
      .execute();
  }
}

/**
 * Inserts documents with their postings, and adds their new words (with their typo keys:
 * search/fuzzy.ts) to the vocabulary: a row per document, term of a document and new word.
 */
async function insertDocuments(db: Db, campaignId: number, pending: readonly PendingDocument[]): Promise<void> {
  if (pending.length === 0) return;
  const docIds = new Map<string, number>();
  for (const batch of chunks(pending, DOCUMENTS_PER_INSERT)) {
    const rows = await db
      .insertInto('search_documents')
      .values(
        batch.map(({ kind, recordId, audience, document }) => ({
          campaign_id: campaignId,
          kind: KIND_CODES[kind],
          thing_id: kind === 'thing' ? recordId : null,
          arc_id: kind === 'arc' ? recordId : null,
          name_key: document.nameKey,
          name_len: document.nameLength,
          text_len: document.textLength,
          audience,
        })),
      )
      .returning(['id', 'kind', 'thing_id', 'arc_id', 'audience'])
      .execute();
    // RETURNING order is not promised: match rows to records by their ids.
    for (const row of rows) docIds.set(`${row.kind}:${row.thing_id ?? row.arc_id ?? 0}:${row.audience}`, row.id);
  }

  const postings: PostingRow[] = [];
  const terms = new Set<string>();
  for (const { kind, recordId, audience, document } of pending) {
    const docId = docIds.get(`${KIND_CODES[kind]}:${kind === 'campaign' ? 0 : recordId}:${audience}`);
    if (docId === undefined) throw new Error('search index: a document was inserted without an id');
    for (const [term, counts] of document.postings) {
      terms.add(term);
      postings.push({
        term,
        doc_id: docId,
        kind: KIND_CODES[kind],
        record_id: recordId,
        name_tf: counts.name,
        text_tf: counts.text,
        name_len: document.nameLength,
        text_len: document.textLength,
        audience,
      });
    }
  }
  await insertPostings(db, campaignId, postings);

  // Sorted, so concurrent writers on PostgreSQL take the vocabulary's index locks in one order.
  await insertTerms(db, campaignId, [...terms].sort(byText));
}

/**
 * (Re)indexes one thing: call inside the transaction that created it (`created`: it has no document
 * yet, nothing to delete) or changed its name or description.
 */
export async function indexThing(db: Db, thing: IndexedThing & { id: number; campaign_id: number }, created = false): Promise<void> {
  if (!created) await db.deleteFrom('search_documents').where('campaign_id', '=', thing.campaign_id).where('thing_id', '=', thing.id).execute();
  await insertDocuments(db, thing.campaign_id, pendingOf('thing', thing.id, thingDocuments(thing)));
}

/** (Re)indexes one arc: call inside the transaction that created it (`created`) or changed its name or a text field. */
export async function indexArc(db: Db, arc: IndexedArc & { id: number; campaign_id: number }, created = false): Promise<void> {
  if (!created) await db.deleteFrom('search_documents').where('campaign_id', '=', arc.campaign_id).where('arc_id', '=', arc.id).execute();
  await insertDocuments(db, arc.campaign_id, pendingOf('arc', arc.id, arcDocuments(arc)));
}

/** (Re)indexes a campaign's description: call inside the transaction that created the campaign or changed it. */
export async function indexCampaign(db: Db, campaign: IndexedCampaign & { id: number }): Promise<void> {
  await db.deleteFrom('search_documents').where('campaign_id', '=', campaign.id).where('kind', '=', KIND_CODES.campaign).execute();
  await insertDocuments(db, campaign.id, pendingOf('campaign', campaign.id, campaignDocuments(campaign)));
}

/**
 * Indexes a campaign's records of one kind, read in keyset pages by id (`page(after)` returns up to
 * RECORDS_PER_BATCH records with ids above `after`, in id order): memory stays bounded however
 * large the campaign. Returns the number of documents indexed.
 */
async function indexInPages<R extends { id: number }>(
  db: Db,
  campaignId: number,
  kind: 'thing' | 'arc',
  toDocuments: (record: R) => AudienceDocument[],
  page: (after: number) => Promise<R[]>,
): Promise<number> {
  let documents = 0;
  for (let after = 0; ; ) {
    const records = await page(after);
    const pending: PendingDocument[] = [];
    for (const record of records) pending.push(...pendingOf(kind, record.id, toDocuments(record)));
    await insertDocuments(db, campaignId, pending);
    documents += pending.length;
    const last = records.at(-1);
    if (!last || records.length < RECORDS_PER_BATCH) return documents;
    after = last.id;
  }
}

/**
 * Rebuilds one campaign's index from its records, vocabulary included (which drops words no longer
 * used). Runs in the caller's transaction; returns the number of documents indexed.
 */
export async function rebuildCampaignIndex(db: Db, campaignId: number): Promise<number> {
  await db.deleteFrom('search_postings').where('campaign_id', '=', campaignId).execute();
  await db.deleteFrom('search_documents').where('campaign_id', '=', campaignId).execute();
  await db.deleteFrom('search_terms').where('campaign_id', '=', campaignId).execute();
  let documents = 0;

  const campaign = await db.selectFrom('campaigns').select(['id', 'description']).where('id', '=', campaignId).executeTakeFirst();
  if (!campaign) return 0;
  const description = pendingOf('campaign', campaignId, campaignDocuments(campaign));
  await insertDocuments(db, campaignId, description);
  documents += description.length;

  documents += await indexInPages<IndexedThing & { id: number }>(db, campaignId, 'thing', thingDocuments, (after) =>
    db
      .selectFrom('things')
      .select(['id', 'campaign_id', 'name', 'description', 'visibility', 'properties', 'tags', 'aliases'])
      .where('campaign_id', '=', campaignId)
      .where('id', '>', after)
      .orderBy('id')
      .limit(RECORDS_PER_BATCH)
      .execute(),
  );
  documents += await indexInPages<IndexedArc & { id: number }>(db, campaignId, 'arc', arcDocuments, (after) =>
    db
      .selectFrom('arcs')
      .select(['id', 'campaign_id', 'name', 'visibility', 'properties', 'tags', 'aliases', ...ARC_TEXT_FIELDS])
      .where('campaign_id', '=', campaignId)
      .where('id', '>', after)
      .orderBy('id')
      .limit(RECORDS_PER_BATCH)
      .execute(),
  );
  return documents;
}

export interface RebuildSummary {
  campaigns: number;
  documents: number;
}

/**
 * Rebuilds every campaign's index, one transaction per campaign, each holding the campaign's write
 * lock so no write interleaves with it (`npm run cli -- search reindex`). A campaign deleted
 * meanwhile is skipped.
 */
export async function rebuildSearchIndex(database: Database): Promise<RebuildSummary> {
  const campaigns = await database.kysely.selectFrom('campaigns').select('id').orderBy('id').execute();
  let rebuilt = 0;
  let documents = 0;
  for (const { id } of campaigns) {
    try {
      documents += await campaignHousekeeping(database, id, (trx) => rebuildCampaignIndex(trx, id));
      rebuilt += 1;
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'campaign_not_found')) throw error;
    }
  }
  return { campaigns: rebuilt, documents };
}

/**
 * Indexes records put back by a restore from the trash, in one go (their documents went with them):
 * a bounded number of statements for the lot, batched like the campaign rebuild.
 */
export async function indexRestoredRecords(
  db: Db,
  campaignId: number,
  things: readonly (IndexedThing & { id: number })[],
  arcs: readonly (IndexedArc & { id: number })[],
): Promise<void> {
  const pending: PendingDocument[] = [];
  for (const thing of things) pending.push(...pendingOf('thing', thing.id, thingDocuments(thing)));
  for (const arc of arcs) pending.push(...pendingOf('arc', arc.id, arcDocuments(arc)));
  await insertDocuments(db, campaignId, pending);
}
