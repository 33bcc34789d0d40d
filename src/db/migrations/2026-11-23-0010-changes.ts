import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// The changes feed (CONTRACT "Portability"): one row per record of a campaign that ever changed, at
// the version of its latest change, so each record appears once, in its latest state.
//
//   changes       (campaign_id, kind, record_id, other_id) → version, deleted, changed_at
//                 kind 1 campaign, 2 thing type, 3 thing, 4 arc, 5 link (record_id the thing,
//                 other_id the arc), 6 asset; other_id is 0 but for links. `version` is the
//                 campaign's content_version of the commit: every write of a campaign bumps it
//                 first, under the campaign's row lock (beginCampaignWrite), so versions follow
//                 commit order within a campaign on both databases. `deleted` marks a tombstone.
//   change_floors the newest tombstone version pruned per campaign (CHANGES_RETENTION_DAYS): a
//                 cursor older than it may have missed a deletion, and is refused (410).
//
// Database triggers keep the table, so no write path can forget it and cascades are caught as
// they happen (a type's things, a deleted thing's or arc's links). A change also marks the arcs
// whose answer it changes: an arc carries its linked things, its parent's name and its children's,
// so a thing's change marks the arcs it is linked to, a link's its arc, an arc's its parent and
// children. Only records that still exist are marked (a record deleted in the same statement keeps
// its tombstone). The table has no foreign key to campaigns: deleting a campaign deletes its rows.
const KIND = { campaign: 1, type: 2, thing: 3, arc: 4, link: 5, asset: 6 } as const;

function upsertClause(): string {
  return 'on conflict (campaign_id, kind, record_id, other_id) do update set version = excluded.version, deleted = excluded.deleted, changed_at = excluded.changed_at';
}

/** Marks one record (`cid`, `kind`, `rid`, `oid` are SQL expressions) as changed, if its campaign still exists. */
function mark(now: string, cid: string, kind: number, rid: string, oid: string, deleted: 0 | 1): string {
  return `insert into changes (campaign_id, kind, record_id, other_id, version, deleted, changed_at)
    select ${cid}, ${kind}, ${rid}, ${oid}, c.content_version, ${deleted}, ${now} from campaigns c where c.id = ${cid}
    ${upsertClause()};`;
}

/** Marks as changed the arcs of `cid` that match `where` (over arcs `a`), those that exist. */
function markArcs(now: string, cid: string, where: string): string {
  return `insert into changes (campaign_id, kind, record_id, other_id, version, deleted, changed_at)
    select a.campaign_id, ${KIND.arc}, a.id, 0, c.content_version, 0, ${now} from arcs a join campaigns c on c.id = a.campaign_id
    where a.campaign_id = ${cid} and (${where})
    ${upsertClause()};`;
}

interface TriggerSpec {
  table: string;
  /** The operation(s) and their statements (NEW and OLD as `new.` and `old.`). */
  on: 'insert' | 'update' | 'delete';
  when?: string;
  body: (now: string) => string[];
}

const TRIGGERS: TriggerSpec[] = [
  { table: 'campaigns', on: 'insert', body: (now) => [mark(now, 'new.id', KIND.campaign, 'new.id', '0', 0)] },
  { table: 'campaigns', on: 'update', when: 'new.version <> old.version', body: (now) => [mark(now, 'new.id', KIND.campaign, 'new.id', '0', 0)] },
  { table: 'thing_types', on: 'insert', body: (now) => [mark(now, 'new.campaign_id', KIND.type, 'new.id', '0', 0)] },
  { table: 'thing_types', on: 'update', body: (now) => [mark(now, 'new.campaign_id', KIND.type, 'new.id', '0', 0)] },
  { table: 'thing_types', on: 'delete', body: (now) => [mark(now, 'old.campaign_id', KIND.type, 'old.id', '0', 1)] },
  { table: 'things', on: 'insert', body: (now) => [mark(now, 'new.campaign_id', KIND.thing, 'new.id', '0', 0)] },
  {
    table: 'things',
    on: 'update',
    body: (now) => [
      mark(now, 'new.campaign_id', KIND.thing, 'new.id', '0', 0),
      markArcs(now, 'new.campaign_id', 'a.id in (select l.arc_id from arc_things l where l.campaign_id = new.campaign_id and l.thing_id = new.id)'),
    ],
  },
  { table: 'things', on: 'delete', body: (now) => [mark(now, 'old.campaign_id', KIND.thing, 'old.id', '0', 1)] },
  {
    table: 'arcs',
    on: 'insert',
    body: (now) => [mark(now, 'new.campaign_id', KIND.arc, 'new.id', '0', 0), markArcs(now, 'new.campaign_id', 'a.id = new.parent_arc_id')],
  },
  {
    table: 'arcs',
    on: 'update',
    body: (now) => [
      mark(now, 'new.campaign_id', KIND.arc, 'new.id', '0', 0),
      markArcs(now, 'new.campaign_id', 'a.id = new.parent_arc_id or a.id = old.parent_arc_id or a.parent_arc_id = new.id'),
    ],
  },
  {
    table: 'arcs',
    on: 'delete',
    body: (now) => [mark(now, 'old.campaign_id', KIND.arc, 'old.id', '0', 1), markArcs(now, 'old.campaign_id', 'a.id = old.parent_arc_id')],
  },
  {
    table: 'arc_things',
    on: 'insert',
    body: (now) => [mark(now, 'new.campaign_id', KIND.link, 'new.thing_id', 'new.arc_id', 0), markArcs(now, 'new.campaign_id', 'a.id = new.arc_id')],
  },
  {
    table: 'arc_things',
    on: 'delete',
    body: (now) => [mark(now, 'old.campaign_id', KIND.link, 'old.thing_id', 'old.arc_id', 1), markArcs(now, 'old.campaign_id', 'a.id = old.arc_id')],
  },
  { table: 'assets', on: 'insert', body: (now) => [mark(now, 'new.campaign_id', KIND.asset, 'new.id', '0', 0)] },
  { table: 'assets', on: 'delete', body: (now) => [mark(now, 'old.campaign_id', KIND.asset, 'old.id', '0', 1)] },
];

const SQLITE_NOW = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;
const POSTGRES_NOW = `to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('changes')
    .addColumn('campaign_id', 'integer', (c) => c.notNull())
    .addColumn('kind', 'integer', (c) => c.notNull())
    .addColumn('record_id', 'integer', (c) => c.notNull())
    .addColumn('other_id', 'integer', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('deleted', 'integer', (c) => c.notNull())
    .addColumn('changed_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('changes_pk', ['campaign_id', 'kind', 'record_id', 'other_id'])
    .execute();
  // A page of the feed: one range of this index.
  await db.schema.createIndex('changes_feed').on('changes').columns(['campaign_id', 'version', 'kind', 'record_id', 'other_id']).execute();
  await db.schema.createIndex('changes_tombstones').on('changes').columns(['changed_at']).where(sql.ref('deleted'), '=', 1).execute();
  await db.schema
    .createTable('change_floors')
    .addColumn('campaign_id', 'integer', (c) => c.primaryKey())
    .addColumn('version', 'integer', (c) => c.notNull())
    .execute();

  for (const trigger of TRIGGERS) {
    const name = `${trigger.table}_changes_${trigger.on}`;
    if (dialect === 'sqlite') {
      await sql
        .raw(
          `create trigger ${name} after ${trigger.on} on ${trigger.table} for each row ${trigger.when ? `when ${trigger.when} ` : ''}begin\n${trigger.body(SQLITE_NOW).join('\n')}\nend`,
        )
        .execute(db);
    } else {
      const ret = trigger.on === 'delete' ? 'old' : 'new';
      await sql.raw(`create function ${name}() returns trigger language plpgsql as $$ begin\n${trigger.body(POSTGRES_NOW).join('\n')}\nreturn ${ret};\nend $$`).execute(db);
      await sql
        .raw(`create trigger ${name} after ${trigger.on} on ${trigger.table} for each row ${trigger.when ? `when (${trigger.when}) ` : ''}execute function ${name}()`)
        .execute(db);
    }
  }

  // Everything there already is, at the campaign's current version: a client starting from the
  // beginning gets the whole campaign.
  const now = dialect === 'sqlite' ? SQLITE_NOW : POSTGRES_NOW;
  const backfill = (select: string) => sql.raw(`insert into changes (campaign_id, kind, record_id, other_id, version, deleted, changed_at) ${select}`).execute(db);
  await backfill(`select id, ${KIND.campaign}, id, 0, content_version, 0, ${now} from campaigns`);
  for (const [table, kind] of [
    ['thing_types', KIND.type],
    ['things', KIND.thing],
    ['arcs', KIND.arc],
    ['assets', KIND.asset],
  ] as const) {
    await backfill(`select t.campaign_id, ${kind}, t.id, 0, c.content_version, 0, ${now} from ${table} t join campaigns c on c.id = t.campaign_id`);
  }
  await backfill(`select l.campaign_id, ${KIND.link}, l.thing_id, l.arc_id, c.content_version, 0, ${now} from arc_things l join campaigns c on c.id = l.campaign_id`);
}
