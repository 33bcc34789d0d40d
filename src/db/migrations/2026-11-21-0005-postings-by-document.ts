import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// search_postings was keyed (campaign_id, term, doc_id), with a second index on (campaign_id,
// doc_id) for the cascade from search_documents. SQLite's planner, without statistics, prefers the
// primary key on campaign_id alone for that cascade: every re-index of one thing scanned all the
// campaign's postings (19 ms for 1,000 things, growing with the campaign).
//
// Now the primary key leads with the document — (campaign_id, doc_id, term) — so the cascade and
// the foreign-key check are a range of the key whatever the planner knows, and searches read a
// covering index (campaign_id, term, doc_id, and what ranking needs), as they read the key before.
const COVERING = ['campaign_id', 'term', 'doc_id', 'kind', 'record_id', 'name_tf', 'text_tf', 'name_len', 'text_len'] as const;

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') {
    await sql`alter table search_postings drop constraint search_postings_pk`.execute(db);
    await sql`alter table search_postings add constraint search_postings_pk primary key (campaign_id, doc_id, term)`.execute(db);
    await db.schema.dropIndex('search_postings_doc').execute();
    await db.schema.createIndex('search_postings_term').on('search_postings').columns([...COVERING]).execute();
    return;
  }

  // SQLite cannot change a primary key in place: copy into a table of the new shape.
  await sql`
    create table search_postings_new (
      campaign_id integer not null,
      term text not null,
      doc_id integer not null,
      kind integer not null,
      record_id integer not null,
      name_tf integer not null,
      text_tf integer not null,
      name_len integer not null,
      text_len integer not null,
      constraint search_postings_pk primary key (campaign_id, doc_id, term),
      constraint search_postings_doc_fk foreign key (campaign_id, doc_id)
        references search_documents (campaign_id, id) on delete cascade
    ) without rowid`.execute(db);
  await sql`insert into search_postings_new select ${sql.join(COVERING.map((c) => sql.ref(c)))} from search_postings`.execute(db);
  await sql`drop table search_postings`.execute(db);
  await sql`alter table search_postings_new rename to search_postings`.execute(db);
  await db.schema.createIndex('search_postings_term').on('search_postings').columns([...COVERING]).execute();
}
