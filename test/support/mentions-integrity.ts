import { sql, type Kysely } from 'kysely';
import { SOURCE_CODES, TARGET_CODES } from '../../src/db/indexes/mentions.js';
import { ARC_TEXT_FIELDS } from '../../src/db/schema.js';
import { parseStoredRichText } from '../../src/domain/rich-text.js';
import { mentionsOf } from '../../src/render/index.js';

// The mentions index holds exactly what the records say: for every rich-text field, the rows that
// indexing it now would write, and nothing else. No vitest imports: scripts/chaos.ts uses it too.

type Row = { campaign_id: number; source_kind: number; thing_id: number | null; arc_id: number | null; field: string; target_kind: number; target_id: number | null; target_slug: string | null; secret: number };

const keyOf = (r: Row) =>
  [r.campaign_id, r.source_kind, r.thing_id ?? '-', r.arc_id ?? '-', r.field, r.target_kind, r.target_id ?? '-', r.target_slug ?? '-', Number(r.secret)].map(String).join(':');

function count(map: Map<string, number>, key: string, by: number) {
  const n = (map.get(key) ?? 0) + by;
  if (n === 0) map.delete(key);
  else map.set(key, n);
}

export async function mentionsIndexProblems(kysely: Kysely<any>): Promise<string[]> {
  const difference = new Map<string, number>();
  const stored = await sql<Row>`select campaign_id, source_kind, thing_id, arc_id, field, target_kind, target_id, target_slug, secret from mentions`.execute(kysely);
  for (const row of stored.rows) {
    const r = { ...row, campaign_id: Number(row.campaign_id), source_kind: Number(row.source_kind), target_kind: Number(row.target_kind) };
    r.thing_id = row.thing_id === null ? null : Number(row.thing_id);
    r.arc_id = row.arc_id === null ? null : Number(row.arc_id);
    r.target_id = row.target_id === null ? null : Number(row.target_id);
    count(difference, keyOf(r), 1);
  }
  const expect = (campaignId: number, kind: keyof typeof SOURCE_CODES, id: number, fields: Record<string, string | null>) => {
    for (const [field, value] of Object.entries(fields)) {
      if (value === null) continue;
      for (const m of mentionsOf(parseStoredRichText(value))) {
        const row: Row = {
          campaign_id: campaignId,
          source_kind: SOURCE_CODES[kind],
          thing_id: kind === 'thing' ? id : null,
          arc_id: kind === 'arc' ? id : null,
          field,
          target_kind: TARGET_CODES[m.target],
          target_id: m.id ?? null,
          target_slug: m.slug ?? null,
          secret: m.secret ? 1 : 0,
        };
        count(difference, keyOf(row), -1);
      }
    }
  };
  const things = await sql<{ id: number; campaign_id: number; description: string | null }>`select id, campaign_id, description from things`.execute(kysely);
  for (const t of things.rows) expect(Number(t.campaign_id), 'thing', Number(t.id), { description: t.description });
  const arcs = await sql<Record<string, string | null> & { id: number; campaign_id: number }>`
    select id, campaign_id, ${sql.join(ARC_TEXT_FIELDS.map((field) => sql.ref(field)))} from arcs`.execute(kysely);
  for (const a of arcs.rows) expect(Number(a.campaign_id), 'arc', Number(a.id), Object.fromEntries(ARC_TEXT_FIELDS.map((f) => [f, a[f] ?? null])));
  const campaigns = await sql<{ id: number; description: string | null }>`select id, description from campaigns`.execute(kysely);
  for (const c of campaigns.rows) expect(Number(c.id), 'campaign', Number(c.id), { description: c.description });
  return [...difference].slice(0, 20).map(([key, n]) => (n > 0 ? `mentions index: ${n} row(s) ${key} that the records do not make` : `mentions index: ${-n} row(s) ${key} missing`));
}
