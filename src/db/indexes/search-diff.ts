// Re-indexing one record by difference (issue 28, "Writes cost what changed"): the record's new
// documents are built in memory, what the index stores of it is read in one statement, and only
// the difference is written — documents gone, documents whose audience, exact-name key or lengths
// changed, new documents; postings removed, and postings added or changed (counts, or the
// document's lossy lengths or audience: search/document.ts postingLength); words new to the
// record, for the vocabulary. Each kind of change is one set-based statement (search-rows.ts), and
// a change that leaves the index as it is writes nothing. The result is what a rebuild gives
// (test/integration/search-diff.test.ts), document ids aside.
import { sql } from 'kysely';
import type { Db } from '../database.js';
import { KIND_CODES, type AudienceDocument, type DocumentKind } from '../../search/document.js';
import {
  deleteDocuments,
  deletePostings,
  documentKey,
  insertDocumentRows,
  insertTerms,
  isPostgres,
  postingRowsOf,
  runBatch,
  updateDocuments,
  writePostings,
  type Batch,
  type DocumentChange,
  type PostingRow,
} from './search-rows.js';

interface StoredRow {
  id: number;
  audience: number;
  name_key: string;
  name_len: number;
  text_len: number;
  term: string | null;
  name_tf: number | null;
  text_tf: number | null;
  p_name_len: number | null;
  p_text_len: number | null;
  p_audience: number | null;
}

interface StoredDocument extends DocumentChange {
  postings: Map<string, StoredRow>;
}

/** What the index holds of one record, in one statement: its documents with their postings. */
async function readStored(db: Db, campaignId: number, kind: DocumentKind, recordId: number): Promise<StoredDocument[]> {
  const owner = kind === 'thing' ? sql`d.thing_id = ${recordId}` : kind === 'arc' ? sql`d.arc_id = ${recordId}` : sql`d.kind = ${KIND_CODES.campaign}`;
  const result = await sql<StoredRow>`
    select d.id, d.audience, d.name_key, d.name_len, d.text_len, p.term, p.name_tf, p.text_tf,
      p.name_len as p_name_len, p.text_len as p_text_len, p.audience as p_audience
    from search_documents d left join search_postings p on p.campaign_id = d.campaign_id and p.doc_id = d.id
    where d.campaign_id = ${campaignId} and ${owner}`.execute(db);
  const documents = new Map<number, StoredDocument>();
  for (const row of result.rows) {
    let document = documents.get(row.id);
    if (!document) {
      document = { id: row.id, audience: row.audience, name_key: row.name_key, name_len: row.name_len, text_len: row.text_len, postings: new Map() };
      documents.set(row.id, document);
    }
    if (row.term !== null) document.postings.set(row.term, row);
  }
  return [...documents.values()];
}

/**
 * Which stored document each new one becomes: the one for the same audience, else one that shares
 * the game masters' view (the full text: visibility and secrets changed), else any left; stored
 * documents left over are deleted. An audience no stored document holds is free, so updating a
 * document to it never meets the unique (record, audience) index.
 */
function pair(next: readonly AudienceDocument[], stored: readonly StoredDocument[]): { paired: Map<AudienceDocument, StoredDocument>; removed: StoredDocument[] } {
  const left = new Set(stored);
  const paired = new Map<AudienceDocument, StoredDocument>();
  const take = (wanted: AudienceDocument, test: (s: StoredDocument) => boolean) => {
    if (paired.has(wanted)) return;
    const found = [...left].find(test);
    if (!found) return;
    left.delete(found);
    paired.set(wanted, found);
  };
  for (const wanted of next) take(wanted, (s) => s.audience === wanted.audience);
  for (const wanted of next) take(wanted, (s) => (s.audience & wanted.audience & 2) !== 0);
  for (const wanted of next) take(wanted, () => true);
  return { paired, removed: [...left] };
}

function samePosting(stored: StoredRow | undefined, row: PostingRow): boolean {
  return (
    stored !== undefined &&
    stored.name_tf === row.name_tf &&
    stored.text_tf === row.text_tf &&
    stored.p_name_len === row.name_len &&
    stored.p_text_len === row.text_len &&
    stored.p_audience === row.audience
  );
}

/**
 * Brings the index of one record (a thing, an arc or the campaign's description) to `next`, its
 * documents as search/document.ts builds them, from what the index holds of it (one read).
 */
export async function reindexRecord(db: Db, campaignId: number, kind: DocumentKind, recordId: number, next: AudienceDocument[]): Promise<void> {
  const stored = await readStored(db, campaignId, kind, recordId);
  const { paired, removed } = pair(next, stored);
  const fresh = next.filter((wanted) => !paired.has(wanted));
  const changed: DocumentChange[] = [];
  for (const [{ audience, document }, old] of paired) {
    const row = { id: old.id, audience, name_key: document.nameKey, name_len: document.nameLength, text_len: document.textLength };
    if (row.audience !== old.audience || row.name_key !== old.name_key || row.name_len !== old.name_len || row.text_len !== old.text_len) changed.push(row);
  }

  // New documents first (their postings need their ids); on PostgreSQL every other change is one
  // statement, one round trip (runBatch): they touch different rows.
  const batch: Batch | undefined = isPostgres(db) ? [] : undefined;
  const freshIds = await insertDocumentRows(db, campaignId, fresh.map(({ audience, document }) => ({ kind, recordId, audience, document })));

  const gone: { doc_id: number; term: string }[] = [];
  const written: PostingRow[] = [];
  for (const wanted of next) {
    const old = paired.get(wanted);
    const docId = old?.id ?? freshIds.get(documentKey(kind, recordId, wanted.audience));
    if (docId === undefined) throw new Error('search index: a document was inserted without an id');
    const rows = postingRowsOf(docId, kind, recordId, wanted.audience, wanted.document);
    for (const row of rows) if (!samePosting(old?.postings.get(row.term), row)) written.push(row);
    if (old) for (const term of old.postings.keys()) if (!wanted.document.postings.has(term)) gone.push({ doc_id: old.id, term });
  }
  await deleteDocuments(db, campaignId, removed.map((d) => d.id), batch);
  await updateDocuments(db, campaignId, changed, batch);
  await deletePostings(db, campaignId, gone, batch);
  await writePostings(db, campaignId, written, true, batch);

  // Words the record did not hold: the only ones that may be new to the vocabulary.
  const known = new Set<string>();
  for (const document of stored) for (const term of document.postings.keys()) known.add(term);
  const words = new Set<string>();
  for (const { document } of next) for (const term of document.postings.keys()) if (!known.has(term)) words.add(term);
  await insertTerms(db, campaignId, words, batch);
  if (batch) await runBatch(db, batch);
}
