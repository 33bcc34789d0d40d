// The search index's write side (the read side is db/repositories/search.ts; what a document holds
// is src/search/, pure).
//
// How this index is kept: every write that changes what a record's documents hold queues the record
// inside its own transaction (search-queue.ts queueReindex), and the record is re-indexed after the
// commit, by difference (search-diff.ts), before any search of its campaign; deletes need no call,
// index rows cascade from their record through foreign keys; records put back by a restore or an
// import are indexed in their own transaction, in bulk (indexRestoredRecords); and `rebuild*`
// recomputes a campaign's index from its records (`npm run cli -- search reindex`, and after a
// migration that asks for it: db/migrate.ts). The mentions index beside it (mentions.ts) is kept
// inside the write's transaction.
import type { Database, Db } from '../database.js';
import { campaignHousekeeping } from '../repositories/common.js';
import { ARC_TEXT_FIELDS } from '../schema.js';
import { AppError } from '../../domain/errors.js';
import {
  arcDocuments,
  campaignDocuments,
  thingDocuments,
  type AudienceDocument,
  type DocumentKind,
  type IndexedArc,
  type IndexedThing,
} from '../../search/document.js';
import { documentKey, insertDocumentRows, insertTerms, postingRowsOf, writePostings, type PendingDocument, type PostingRow } from './search-rows.js';

const RECORDS_PER_BATCH = 500;

function pendingOf(kind: DocumentKind, recordId: number, documents: AudienceDocument[]): PendingDocument[] {
  return documents.map(({ audience, document }) => ({ kind, recordId, audience, document }));
}

/**
 * Inserts documents with their postings, and adds their new words (with their typo keys:
 * search/fuzzy.ts) to the vocabulary: a row per document, term of a document and new word.
 */
async function insertDocuments(db: Db, campaignId: number, pending: readonly PendingDocument[]): Promise<void> {
  const docIds = await insertDocumentRows(db, campaignId, pending);
  const postings: PostingRow[] = [];
  const terms = new Set<string>();
  for (const { kind, recordId, audience, document } of pending) {
    const docId = docIds.get(documentKey(kind, recordId, audience));
    if (docId === undefined) throw new Error('search index: a document was inserted without an id');
    for (const term of document.postings.keys()) terms.add(term);
    postings.push(...postingRowsOf(docId, kind, recordId, audience, document));
  }
  await writePostings(db, campaignId, postings);
  await insertTerms(db, campaignId, terms);
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
 * used), and empties its queue (search-queue.ts): what was queued is indexed by the rebuild. Runs
 * in the caller's transaction, which holds the campaign's write lock exclusively (no write queues
 * meanwhile); returns the number of documents indexed.
 */
export async function rebuildCampaignIndex(db: Db, campaignId: number): Promise<number> {
  await db.deleteFrom('search_pending').where('campaign_id', '=', campaignId).execute();
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
