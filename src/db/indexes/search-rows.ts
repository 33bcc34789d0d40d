// The search index's rows and the set-based statements that write them (db/indexes/search.ts
// decides what to write). On PostgreSQL each statement takes its rows as column arrays (unnest),
// one statement whatever their number: a statement of thousands of bound parameters costs more to
// parse and plan than its rows to write. On SQLite likewise: the rows go as ONE bound JSON text
// read by json_each, so the statement's text is the same whatever the number of rows, compiled once
// and kept (database.ts withStatementCache); a multi-row VALUES of 1,400 parameters was compiled by
// Kysely and by SQLite anew on every write (issue 28's profile of a PUT).
import { PostgresAdapter, sql, type RawBuilder } from 'kysely';
import type { Db } from '../database.js';
import { KIND_CODES, postingLength, type DocumentKind, type IndexDocument } from '../../search/document.js';
import { typoKeys } from '../../search/fuzzy.js';
import { isFuzzyCandidate } from '../../search/tokenize.js';
import { chunks } from '../chunks.js';

// Rows per SQLite statement of JSON rows: bounds the text built for a campaign's rebuild.
const SQLITE_JSON_ROWS = 5_000;
// Documents per INSERT: well below SQLite's 32,766 and PostgreSQL's 65,535 bound parameters.
const DOCUMENTS_PER_INSERT = 500;

/** A document to write: for one view (audience) of one record. */
export interface PendingDocument {
  kind: DocumentKind;
  recordId: number;
  audience: number;
  document: IndexDocument;
}

/** How insertDocumentRows names the id of a document it inserted. */
export function documentKey(kind: DocumentKind, recordId: number, audience: number): string {
  return `${KIND_CODES[kind]}:${kind === 'campaign' ? 0 : recordId}:${audience}`;
}

/** Inserts document rows (exact lengths: the campaign's averages are summed from them); returns their ids by documentKey. */
export async function insertDocumentRows(db: Db, campaignId: number, pending: readonly PendingDocument[]): Promise<Map<string, number>> {
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
  return docIds;
}

export function isPostgres(db: Db): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** PostgreSQL statements gathered to run as one (runBatch): one round trip for a write's changes. */
export type Batch = RawBuilder<unknown>[];

async function run(db: Db, batch: Batch | undefined, statement: RawBuilder<unknown>): Promise<void> {
  if (batch) batch.push(statement);
  else await statement.execute(db);
}

/**
 * Runs PostgreSQL statements as one: each a data-modifying WITH query, all run to completion on
 * one snapshot. The statements of a batch must not touch the same rows.
 */
export async function runBatch(db: Db, batch: Batch): Promise<void> {
  if (batch.length === 0) return;
  if (batch.length === 1) {
    await batch[0]!.execute(db);
    return;
  }
  await sql`with ${sql.join(batch.map((statement, i) => sql`${sql.raw(`w${i}`)} as (${statement})`))} select 1`.execute(db);
}

export interface PostingRow {
  term: string;
  doc_id: number;
  kind: number;
  record_id: number;
  name_tf: number;
  text_tf: number;
  /** Lossy lengths (search/document.ts postingLength), the same on every posting of a document. */
  name_len: number;
  text_len: number;
  audience: number;
}

/** The postings of one document as stored. */
export function postingRowsOf(docId: number, kind: DocumentKind, recordId: number, audience: number, document: IndexDocument): PostingRow[] {
  const nameLength = postingLength(document.nameLength);
  const textLength = postingLength(document.textLength);
  return [...document.postings].map(([term, counts]) => ({
    term,
    doc_id: docId,
    kind: KIND_CODES[kind],
    record_id: recordId,
    name_tf: counts.name,
    text_tf: counts.text,
    name_len: nameLength,
    text_len: textLength,
    audience,
  }));
}

/** Writes postings; with `replace`, one already stored for the document and term takes the new values. */
export async function writePostings(db: Db, campaignId: number, postings: readonly PostingRow[], replace = false, batch?: Batch): Promise<void> {
  if (postings.length === 0) return;
  if (isPostgres(db)) {
    const column = <K extends keyof PostingRow>(key: K) => postings.map((p) => p[key]);
    const conflict = replace
      ? sql`on conflict (campaign_id, doc_id, term) do update set name_tf = excluded.name_tf, text_tf = excluded.text_tf,
          name_len = excluded.name_len, text_len = excluded.text_len, audience = excluded.audience`
      : sql``;
    await run(db, batch, sql`insert into search_postings (campaign_id, term, doc_id, kind, record_id, name_tf, text_tf, name_len, text_len, audience)
      select ${campaignId}, * from unnest(${column('term')}::text[], ${column('doc_id')}::integer[], ${column('kind')}::integer[],
        ${column('record_id')}::integer[], ${column('name_tf')}::integer[], ${column('text_tf')}::integer[],
        ${column('name_len')}::integer[], ${column('text_len')}::integer[], ${column('audience')}::integer[]) ${conflict}`);
    return;
  }
  // `where true`: SQLite's grammar needs it between a SELECT and ON CONFLICT.
  const conflict = replace
    ? sql`where true on conflict (campaign_id, doc_id, term) do update set name_tf = excluded.name_tf, text_tf = excluded.text_tf,
        name_len = excluded.name_len, text_len = excluded.text_len, audience = excluded.audience`
    : sql``;
  for (const slice of chunks(postings, SQLITE_JSON_ROWS)) {
    const rows = JSON.stringify(slice.map((p) => [p.term, p.doc_id, p.kind, p.record_id, p.name_tf, p.text_tf, p.name_len, p.text_len, p.audience]));
    await sql`insert into search_postings (campaign_id, term, doc_id, kind, record_id, name_tf, text_tf, name_len, text_len, audience)
      select ${campaignId}, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7, value ->> 8
      from json_each(${rows}) ${conflict}`.execute(db);
  }
}

/** Deletes postings by document and term. */
export async function deletePostings(db: Db, campaignId: number, postings: readonly { doc_id: number; term: string }[], batch?: Batch): Promise<void> {
  if (postings.length === 0) return;
  if (isPostgres(db)) {
    await run(db, batch, sql`delete from search_postings p using unnest(${postings.map((p) => p.doc_id)}::integer[], ${postings.map((p) => p.term)}::text[]) as u (doc_id, term)
      where p.campaign_id = ${campaignId} and p.doc_id = u.doc_id and p.term = u.term`);
    return;
  }
  for (const slice of chunks(postings, SQLITE_JSON_ROWS)) {
    const pairs = JSON.stringify(slice.map((p) => [p.doc_id, p.term]));
    await sql`delete from search_postings where campaign_id = ${campaignId}
      and (doc_id, term) in (select value ->> 0, value ->> 1 from json_each(${pairs}))`.execute(db);
  }
}

/** Deletes documents by id (their postings cascade). */
export async function deleteDocuments(db: Db, campaignId: number, ids: readonly number[], batch?: Batch): Promise<void> {
  if (ids.length === 0) return;
  if (isPostgres(db)) {
    await run(db, batch, sql`delete from search_documents where campaign_id = ${campaignId} and id = any(${ids}::integer[])`);
    return;
  }
  await db.deleteFrom('search_documents').where('campaign_id', '=', campaignId).where('id', 'in', ids).execute();
}

/** What a document row holds besides its identity. */
export interface DocumentChange {
  id: number;
  audience: number;
  name_key: string;
  name_len: number;
  text_len: number;
}

/** Updates document rows in place (their audience, exact-name key and exact lengths), in one statement. */
export async function updateDocuments(db: Db, campaignId: number, documents: readonly DocumentChange[], batch?: Batch): Promise<void> {
  if (documents.length === 0) return;
  const set = sql`audience = v.audience, name_key = v.name_key, name_len = v.name_len, text_len = v.text_len`;
  if (isPostgres(db)) {
    const column = <K extends keyof DocumentChange>(key: K) => documents.map((d) => d[key]);
    await run(db, batch, sql`update search_documents d set ${set}
      from unnest(${column('id')}::integer[], ${column('audience')}::integer[], ${column('name_key')}::text[], ${column('name_len')}::integer[], ${column('text_len')}::integer[])
        as v (id, audience, name_key, name_len, text_len)
      where d.campaign_id = ${campaignId} and d.id = v.id`);
    return;
  }
  // VALUES, not json_each: a record has one or two documents (a short text, kept compiled), and
  // SQLite's planner, which cannot count json_each's rows, scanned the campaign's documents for it.
  const rows = sql.join(documents.map((d) => sql`(${d.id}, ${d.audience}, ${d.name_key}, ${d.name_len}, ${d.text_len})`));
  await sql`with v (id, audience, name_key, name_len, text_len) as (values ${rows})
    update search_documents set ${set} from v where search_documents.campaign_id = ${campaignId} and search_documents.id = v.id`.execute(db);
}

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Adds words, with their typo keys, to the campaign's vocabulary (those it holds already stay as they are). */
export async function insertTerms(db: Db, campaignId: number, words: Iterable<string>, batch?: Batch): Promise<void> {
  // Sorted, so concurrent writers on PostgreSQL take the vocabulary's index locks in one order.
  const terms = [...words].sort(byText);
  if (terms.length === 0) return;
  const keys = terms.map((term) => (isFuzzyCandidate(term) ? typoKeys(term) : ([null, null, null] as const)));
  if (isPostgres(db)) {
    const column = (i: 0 | 1 | 2) => keys.map((k) => k[i]);
    await run(db, batch, sql`insert into search_terms (campaign_id, term, typo0, typo1, typo2)
      select ${campaignId}, * from unnest(${terms}::text[], ${column(0)}::text[], ${column(1)}::text[], ${column(2)}::text[])
      on conflict (campaign_id, term) do nothing`);
    return;
  }
  const rows = terms.map((term, i) => [term, keys[i]![0], keys[i]![1], keys[i]![2]]);
  for (const slice of chunks(rows, SQLITE_JSON_ROWS)) {
    await sql`insert into search_terms (campaign_id, term, typo0, typo1, typo2)
      select ${campaignId}, value ->> 0, value ->> 1, value ->> 2, value ->> 3 from json_each(${JSON.stringify(slice)}) where true
      on conflict (campaign_id, term) do nothing`.execute(db);
  }
}
