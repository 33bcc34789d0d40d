import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../src/db/database.js';

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
};

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
