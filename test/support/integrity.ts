import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../src/db/database.js';
import { ARC_TEXT_FIELDS } from '../../src/db/schema.js';
import { KIND_CODES, type IndexDocument } from '../../src/search/document.js';
import { arcDocuments, campaignDocuments, thingDocuments, type AudienceDocument } from '../../src/search/document.js';
import { mentionsIndexProblems } from './mentions-integrity.js';

// Whole-database checks after crashes, races and fuzzing. No vitest imports: scripts/chaos.ts uses it too.

// Rows that would point at nothing if a write were half-applied or a cascade half-run. The composite
// foreign keys should make every one of them impossible; these queries prove it rather than assume it.
const ORPHAN_QUERIES: Record<string, string> = {
  'campaign without its user': 'select count(*) as n from campaigns c where not exists (select 1 from users u where u.id = c.user_id)',
  'session without its user': 'select count(*) as n from sessions s where not exists (select 1 from users u where u.id = s.user_id)',
  'API token without its user': 'select count(*) as n from api_tokens t where not exists (select 1 from users u where u.id = t.user_id)',
  'thing type without its campaign': 'select count(*) as n from thing_types y where not exists (select 1 from campaigns c where c.id = y.campaign_id)',
  'thing without its type': `select count(*) as n from things t
    where not exists (select 1 from thing_types y where y.campaign_id = t.campaign_id and y.id = t.type_id)`,
  'arc without its campaign': 'select count(*) as n from arcs a where not exists (select 1 from campaigns c where c.id = a.campaign_id)',
  'arc whose parent is missing or in another campaign': `select count(*) as n from arcs a
    where a.parent_arc_id is not null
      and not exists (select 1 from arcs p where p.campaign_id = a.campaign_id and p.id = a.parent_arc_id)`,
  'link without its arc': `select count(*) as n from arc_things l
    where not exists (select 1 from arcs a where a.campaign_id = l.campaign_id and a.id = l.arc_id)`,
  'link without its thing': `select count(*) as n from arc_things l
    where not exists (select 1 from things t where t.campaign_id = l.campaign_id and t.id = l.thing_id)`,
  'duplicate thing slug in a campaign': 'select count(*) as n from (select 1 from things group by campaign_id, slug having count(*) > 1) d',
  'duplicate arc slug in a campaign': 'select count(*) as n from (select 1 from arcs group by campaign_id, slug having count(*) > 1) d',
  'duplicate campaign slug': 'select count(*) as n from (select 1 from campaigns group by slug having count(*) > 1) d',
  'malformed thing slug': "select count(*) as n from things where slug = '' or slug like '-%' or slug like '%-' or slug like '%--%' or slug <> lower(slug)",
  // Images: an asset or a grant outlives neither its campaign nor its user, and no asset points at
  // bytes queued for deletion.
  'asset without its campaign': 'select count(*) as n from assets a where not exists (select 1 from campaigns c where c.id = a.campaign_id)',
  'asset without its user': 'select count(*) as n from assets a where not exists (select 1 from users u where u.id = a.user_id)',
  'upload grant without its campaign': 'select count(*) as n from upload_grants g where not exists (select 1 from campaigns c where c.id = g.campaign_id)',
  'asset whose image is queued for removal': `select count(*) as n from assets a
    where exists (select 1 from image_removals r where r.campaign_id = a.campaign_id and r.image_id = a.image_id)`,
  'two assets of one image': 'select count(*) as n from (select 1 from assets group by campaign_id, image_id having count(*) > 1) d',
  // The search index: each record indexed at most once, every posting's word in the vocabulary.
  'search document without its thing': `select count(*) as n from search_documents d
    where d.kind = ${KIND_CODES.thing} and not exists (select 1 from things t where t.campaign_id = d.campaign_id and t.id = d.thing_id)`,
  'search document without its arc': `select count(*) as n from search_documents d
    where d.kind = ${KIND_CODES.arc} and not exists (select 1 from arcs a where a.campaign_id = d.campaign_id and a.id = d.arc_id)`,
  'search document without its campaign': 'select count(*) as n from search_documents d where not exists (select 1 from campaigns c where c.id = d.campaign_id)',
  'record with two search documents': `select count(*) as n from
    (select 1 from search_documents group by campaign_id, kind, thing_id, arc_id having count(*) > 1) d`,
  'posting without its document': `select count(*) as n from search_postings p
    where not exists (select 1 from search_documents d where d.campaign_id = p.campaign_id and d.id = p.doc_id)`,
  'posting whose word is not in the vocabulary': `select count(*) as n from search_postings p
    where not exists (select 1 from search_terms t where t.campaign_id = p.campaign_id and t.term = p.term)`,
};

interface StoredDocument {
  nameKey: string;
  nameLength: number;
  textLength: number;
  postings: Map<string, string>;
}

/** A posting as a comparable string: its counts, the document's lengths, and what it points back to. */
function postingText(kind: number, recordId: number, nameTf: number, textTf: number, nameLen: number, textLen: number): string {
  return `${kind}:${recordId}:${nameTf}:${textTf}:${nameLen}:${textLen}`;
}

/**
 * The search index holds exactly what the records say: for every thing, arc and campaign
 * description not queued for indexing (search_pending: src/db/indexes/search-queue.ts), the
 * document and postings that indexing it now would write, and nothing else. A write whose record
 * committed neither indexed nor queued shows up here.
 */
async function searchIndexProblems(kysely: Kysely<any>): Promise<string[]> {
  const problems: string[] = [];
  const stored = new Map<string, StoredDocument>();
  const byDocId = new Map<string, StoredDocument>();
  const documents = await sql<{ id: number; campaign_id: number; kind: number; thing_id: number | null; arc_id: number | null; name_key: string; name_len: number; text_len: number; audience: number }>`
    select id, campaign_id, kind, thing_id, arc_id, name_key, name_len, text_len, audience from search_documents`.execute(kysely);
  for (const d of documents.rows) {
    const recordId = Number(d.kind) === KIND_CODES.thing ? d.thing_id : Number(d.kind) === KIND_CODES.arc ? d.arc_id : d.campaign_id;
    const doc: StoredDocument = { nameKey: d.name_key, nameLength: Number(d.name_len), textLength: Number(d.text_len), postings: new Map() };
    stored.set(`${Number(d.kind)}:${Number(d.campaign_id)}:${Number(recordId)}:${Number(d.audience)}`, doc);
    byDocId.set(`${Number(d.campaign_id)}:${Number(d.id)}`, doc);
  }
  const postings = await sql<{ campaign_id: number; doc_id: number; term: string; kind: number; record_id: number; name_tf: number; text_tf: number; name_len: number; text_len: number; audience: number }>`
    select campaign_id, doc_id, term, kind, record_id, name_tf, text_tf, name_len, text_len, audience from search_postings`.execute(kysely);
  for (const p of postings.rows) {
    byDocId
      .get(`${Number(p.campaign_id)}:${Number(p.doc_id)}`)
      ?.postings.set(p.term, `${postingText(Number(p.kind), Number(p.record_id), Number(p.name_tf), Number(p.text_tf), Number(p.name_len), Number(p.text_len))}:${Number(p.audience)}`);
  }

  const report = (what: string) => {
    if (problems.length < 20) problems.push(what);
  };
  const compareAll = (kind: number, campaignId: number, recordId: number, expected: AudienceDocument[]) => {
    for (const audience of [1, 2, 3]) {
      compare(kind, campaignId, recordId, audience, expected.find((d) => d.audience === audience)?.document ?? null);
    }
  };
  const queued = new Set(
    (await sql<{ campaign_id: number; kind: number; record_id: number }>`select campaign_id, kind, record_id from search_pending`.execute(kysely)).rows.map(
      (q) => `${Number(q.kind)}:${Number(q.campaign_id)}:${Number(q.record_id)}`,
    ),
  );
  const compare = (kind: number, campaignId: number, recordId: number, audience: number, expected: IndexDocument | null) => {
    const key = `${kind}:${campaignId}:${recordId}:${audience}`;
    const found = stored.get(key);
    stored.delete(key);
    if (queued.has(`${kind}:${campaignId}:${recordId}`)) return;
    if (!expected) {
      if (found) report(`search index: record ${key} has nothing to index but is indexed`);
      return;
    }
    if (!found) {
      report(`search index: record ${key} is not indexed`);
      return;
    }
    if (found.nameKey !== expected.nameKey || found.nameLength !== expected.nameLength || found.textLength !== expected.textLength) {
      report(`search index: record ${key} has a stale document (name key or lengths)`);
      return;
    }
    const wanted = new Map(
      [...expected.postings].map(([term, counts]) => [term, `${postingText(kind, recordId, counts.name, counts.text, expected.nameLength, expected.textLength)}:${audience}`]),
    );
    const same = wanted.size === found.postings.size && [...wanted].every(([term, text]) => found.postings.get(term) === text);
    if (!same) report(`search index: record ${key} has stale postings (${found.postings.size} stored, ${wanted.size} expected)`);
  };

  const things = await sql<{ id: number; campaign_id: number; name: string; description: string | null; visibility: string; properties: string; tags: string; aliases: string }>`
    select id, campaign_id, name, description, visibility, properties, tags, aliases from things`.execute(kysely);
  for (const t of things.rows) compareAll(KIND_CODES.thing, Number(t.campaign_id), Number(t.id), thingDocuments(t));
  const arcs = await sql<Record<string, unknown> & { id: number; campaign_id: number; name: string }>`
    select id, campaign_id, name, visibility, properties, tags, aliases, ${sql.join(ARC_TEXT_FIELDS.map((field) => sql.ref(field)))} from arcs`.execute(kysely);
  for (const a of arcs.rows) compareAll(KIND_CODES.arc, Number(a.campaign_id), Number(a.id), arcDocuments(a as never));
  const campaigns = await sql<{ id: number; description: string | null }>`select id, description from campaigns`.execute(kysely);
  for (const c of campaigns.rows) compareAll(KIND_CODES.campaign, Number(c.id), Number(c.id), campaignDocuments(c));
  for (const key of stored.keys()) report(`search index: document ${key} belongs to no record`);
  return problems;
}

/** Every problem found; an empty list means the database is sound. */
export async function integrityProblems(kysely: Kysely<any>, dialect: Dialect): Promise<string[]> {
  const problems: string[] = [];
  if (dialect === 'sqlite') {
    const check = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(kysely);
    const verdict = check.rows.map((r) => r.integrity_check);
    if (verdict.join() !== 'ok') problems.push(`PRAGMA integrity_check: ${verdict.join('; ')}`);
    const fk = await sql<Record<string, unknown>>`pragma foreign_key_check`.execute(kysely);
    if (fk.rows.length > 0) problems.push(`PRAGMA foreign_key_check: ${JSON.stringify(fk.rows.slice(0, 5))}`);
  } else {
    // A constraint left NOT VALID would let rows past it unchecked.
    const invalid = await sql<{ conname: string }>`
      select conname from pg_constraint where not convalidated and connamespace = (select oid from pg_namespace where nspname = current_schema())`.execute(kysely);
    if (invalid.rows.length > 0) problems.push(`constraints not validated: ${invalid.rows.map((r) => r.conname).join(', ')}`);
  }
  for (const [what, query] of Object.entries(ORPHAN_QUERIES)) {
    const { rows } = await sql<{ n: number | string }>`${sql.raw(query)}`.execute(kysely);
    const n = Number(rows[0]?.n ?? 0);
    if (n > 0) problems.push(`${what}: ${n}`);
  }
  problems.push(...(await searchIndexProblems(kysely)));
  problems.push(...(await mentionsIndexProblems(kysely)));
  // The arc tree of every campaign is a forest: following parents from any arc ends at a root.
  const arcs = await sql<{ id: number; campaign_id: number; parent_arc_id: number | null }>`
    select id, campaign_id, parent_arc_id from arcs`.execute(kysely);
  const parentOf = new Map(arcs.rows.map((a) => [`${a.campaign_id}:${a.id}`, a.parent_arc_id]));
  for (const arc of arcs.rows) {
    const seen = new Set<number>();
    let current: number | null | undefined = arc.id;
    while (current !== null && current !== undefined) {
      if (seen.has(current)) {
        problems.push(`arc ${arc.id} of campaign ${arc.campaign_id} is on a parent cycle`);
        break;
      }
      seen.add(current);
      current = parentOf.get(`${arc.campaign_id}:${current}`);
    }
  }
  return problems;
}
