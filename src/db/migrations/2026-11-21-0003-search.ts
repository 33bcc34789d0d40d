import { sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// The search index: ordinary tables, the same on both dialects, filled by the TypeScript tokenizer
// (src/search), so both databases hold identical terms and rank identically.
//
//   search_documents      one row per searchable record (thing, arc, campaign description)
//   search_postings       per term and document: counts in name and text, plus what ranking needs
//                         of the document (kind, record id, lengths), so a search never joins back
//   search_terms          the campaign's vocabulary (prefix lookups)
//   search_term_variants  each vocabulary word with up to two characters deleted (typo lookups)
//
// Documents cascade from their thing, arc or campaign through composite foreign keys, and postings
// from their document, so a delete (a thing, a type with its things, an arc, a campaign) takes its
// index rows with it in the same statement. The vocabulary only ever grows between rebuilds: a
// word no longer in any document finds no postings and is dropped at query time.
//
// Terms compare by code point on both sides: SQLite's BINARY collation, and "C" on PostgreSQL, so
// a prefix range (term >= 'nezz' and term < 'nez{') means the same and can use the index.
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const idColumn = (c: ColumnDefinitionBuilder) =>
    dialect === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement();
  const termColumn = (c: ColumnDefinitionBuilder) => (dialect === 'postgres' ? c.modifyFront(sql`collate "C"`).notNull() : c.notNull());
  // Clustered by primary key on SQLite: a term's postings sit together, read in one range scan.
  const clustered = dialect === 'sqlite' ? sql`without rowid` : sql``;

  await db.schema
    .createTable('search_documents')
    .addColumn('id', 'integer', idColumn)
    .addColumn('campaign_id', 'integer', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
    .addColumn('kind', 'integer', (c) => c.notNull())
    .addColumn('thing_id', 'integer')
    .addColumn('arc_id', 'integer')
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('name_len', 'integer', (c) => c.notNull())
    .addColumn('text_len', 'integer', (c) => c.notNull())
    .addUniqueConstraint('search_documents_campaign_id_id', ['campaign_id', 'id'])
    .addForeignKeyConstraint('search_documents_thing_fk', ['campaign_id', 'thing_id'], 'things', ['campaign_id', 'id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .addForeignKeyConstraint('search_documents_arc_fk', ['campaign_id', 'arc_id'], 'arcs', ['campaign_id', 'id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .addCheckConstraint(
      'search_documents_kind',
      sql`(kind = 1 and thing_id is not null and arc_id is null) or (kind = 2 and arc_id is not null and thing_id is null) or (kind = 3 and thing_id is null and arc_id is null)`,
    )
    .execute();
  await db.schema.createIndex('search_documents_thing').on('search_documents').columns(['campaign_id', 'thing_id']).unique().execute();
  await db.schema.createIndex('search_documents_arc').on('search_documents').columns(['campaign_id', 'arc_id']).unique().execute();
  await db.schema
    .createIndex('search_documents_campaign')
    .on('search_documents')
    .column('campaign_id')
    .unique()
    .where(sql.ref('kind'), '=', 3)
    .execute();
  await db.schema.createIndex('search_documents_name_key').on('search_documents').columns(['campaign_id', 'name_key']).execute();
  // Covers the per-search statistics (document count and total lengths of a campaign).
  await db.schema
    .createIndex('search_documents_lengths')
    .on('search_documents')
    .columns(['campaign_id', 'name_len', 'text_len'])
    .execute();

  await db.schema
    .createTable('search_postings')
    .addColumn('campaign_id', 'integer', (c) => c.notNull())
    .addColumn('term', 'text', termColumn)
    .addColumn('doc_id', 'integer', (c) => c.notNull())
    .addColumn('kind', 'integer', (c) => c.notNull())
    .addColumn('record_id', 'integer', (c) => c.notNull())
    .addColumn('name_tf', 'integer', (c) => c.notNull())
    .addColumn('text_tf', 'integer', (c) => c.notNull())
    .addColumn('name_len', 'integer', (c) => c.notNull())
    .addColumn('text_len', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('search_postings_pk', ['campaign_id', 'term', 'doc_id'])
    .addForeignKeyConstraint('search_postings_doc_fk', ['campaign_id', 'doc_id'], 'search_documents', ['campaign_id', 'id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .modifyEnd(clustered)
    .execute();
  await db.schema.createIndex('search_postings_doc').on('search_postings').columns(['campaign_id', 'doc_id']).execute();

  await db.schema
    .createTable('search_terms')
    .addColumn('campaign_id', 'integer', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
    .addColumn('term', 'text', termColumn)
    .addPrimaryKeyConstraint('search_terms_pk', ['campaign_id', 'term'])
    .modifyEnd(clustered)
    .execute();

  await db.schema
    .createTable('search_term_variants')
    .addColumn('campaign_id', 'integer', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
    .addColumn('variant', 'text', termColumn)
    .addColumn('term', 'text', termColumn)
    .addPrimaryKeyConstraint('search_term_variants_pk', ['campaign_id', 'variant', 'term'])
    .modifyEnd(clustered)
    .execute();

  // Campaigns that existed before this migration get their index from the rebuild that migration
  // 0006 requests: filling a derived index is live code's work (db/indexes), never a migration's.
}
