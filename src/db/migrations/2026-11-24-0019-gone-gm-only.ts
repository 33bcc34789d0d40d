import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// GM-only records that are gone (in the trash, or erased) stay hidden from players (CONTRACT
// "Secrets that hold"). A player's view removes every mention and link property naming a record
// hidden from them (access/view.ts); the hidden set was read from the GM-only rows of things and
// arcs, so once such a record went to the trash a link to it (its id, and the key of the property
// holding it) reached players, and their answers moved though only hidden content had changed.
// `gone_gm_only` keeps the ids of GM-only things (kind 1) and arcs (kind 2) whose rows are gone;
// database triggers keep it, so no delete path can forget it: a GM-only row deleted (to the trash,
// or with its type, or erased) adds its id, a row inserted under that id (a restore) removes it,
// and a deleted campaign takes its ids along. Ids are never reused (autoincrement, identity).
// Like the changes table it has no foreign key: a row is added only while its campaign exists.
const SQLITE_TRIGGERS = (table: string, kind: number) => [
  `create trigger ${table}_gone_gm_only_delete after delete on ${table} for each row when old.visibility = 'gm' begin
     insert into gone_gm_only (campaign_id, kind, record_id) select old.campaign_id, ${kind}, old.id
       where exists (select 1 from campaigns c where c.id = old.campaign_id) on conflict do nothing;
   end`,
  `create trigger ${table}_gone_gm_only_insert after insert on ${table} for each row begin
     delete from gone_gm_only where campaign_id = new.campaign_id and kind = ${kind} and record_id = new.id;
   end`,
];

const POSTGRES_FUNCTIONS = (table: string, kind: number) => [
  `create function ${table}_gone_gm_only_delete() returns trigger language plpgsql as $$ begin
     insert into gone_gm_only (campaign_id, kind, record_id) select old.campaign_id, ${kind}, old.id
       where exists (select 1 from campaigns c where c.id = old.campaign_id) on conflict do nothing;
     return old;
   end $$`,
  `create trigger ${table}_gone_gm_only_delete after delete on ${table} for each row when (old.visibility = 'gm') execute function ${table}_gone_gm_only_delete()`,
  `create function ${table}_gone_gm_only_insert() returns trigger language plpgsql as $$ begin
     delete from gone_gm_only where campaign_id = new.campaign_id and kind = ${kind} and record_id = new.id;
     return new;
   end $$`,
  `create trigger ${table}_gone_gm_only_insert after insert on ${table} for each row execute function ${table}_gone_gm_only_insert()`,
];

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('gone_gm_only')
    .addColumn('campaign_id', 'integer', (c) => c.notNull())
    .addColumn('kind', 'integer', (c) => c.notNull())
    .addColumn('record_id', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('gone_gm_only_pk', ['campaign_id', 'kind', 'record_id'])
    .execute();
  const statements =
    dialect === 'sqlite'
      ? [
          ...SQLITE_TRIGGERS('things', 1),
          ...SQLITE_TRIGGERS('arcs', 2),
          `create trigger campaigns_gone_gm_only_delete after delete on campaigns for each row begin
             delete from gone_gm_only where campaign_id = old.id;
           end`,
        ]
      : [
          ...POSTGRES_FUNCTIONS('things', 1),
          ...POSTGRES_FUNCTIONS('arcs', 2),
          `create function campaigns_gone_gm_only_delete() returns trigger language plpgsql as $$ begin
             delete from gone_gm_only where campaign_id = old.id;
             return old;
           end $$`,
          `create trigger campaigns_gone_gm_only_delete after delete on campaigns for each row execute function campaigns_gone_gm_only_delete()`,
        ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}
