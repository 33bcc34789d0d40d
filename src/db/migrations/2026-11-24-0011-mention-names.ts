import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

// Mentions store no name (CONTRACT "Secrets that hold"). The editor used to store the target's name
// as a mention's children, where it went stale at a rename and, for a player, named a GM-only
// record. Every stored rich-text field (a thing's description, an arc's seven fields, a campaign's
// description) loses the children of each mention whose text is exactly its target's current name:
// they become `[{text: ""}]`, which renders the current name. Any other text is a label the GM
// typed, and is kept; so are mentions of records that no longer exist.
//
// A campaign with a changed row gets a new content_version first, so the changes feed (whose
// triggers mark the updated rows) shows them after every cursor already handed out. Record versions
// and updatedAt stay: this is not an edit, and an editor open on the old text must not conflict.
//
// The search index (players' documents now leave out secret elements at any depth and mention
// labels) and the mentions index (a mention inside a secret element at any depth is secret) are
// rebuilt with the live code: this migration requests both.
//
// Self-contained on purpose: a migration's meaning must not move with the live code.

const ARC_FIELDS = ['hook', 'protagonist', 'antagonist', 'problem', 'key', 'outcome', 'notes'] as const;
const PAGE = 200;
const MAX_DEPTH = 256;

type Names = { thing: ReadonlyMap<number, string>; arc: ReadonlyMap<number, string> };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function textOf(node: unknown, depth: number): string {
  if (!isRecord(node) || depth > MAX_DEPTH) return '';
  if (Object.hasOwn(node, 'text')) return typeof node.text === 'string' ? node.text : '';
  return Array.isArray(node.children) ? node.children.map((child) => textOf(child, depth + 1)).join('') : '';
}

/** The node with the names of mentions emptied, or the same object when nothing changed. */
function withoutNames(node: unknown, names: Names, depth: number): unknown {
  if (!isRecord(node) || !Array.isArray(node.children) || depth > MAX_DEPTH) return node;
  if (node.type === 'mention') {
    const kind = node.targetType === 'thing' || node.targetType === 'arc' ? node.targetType : undefined;
    const name = kind && typeof node.targetId === 'number' ? names[kind].get(node.targetId) : undefined;
    const text = textOf(node, depth);
    if (name === undefined || text === '' || text !== name) return node;
    return { ...node, children: [{ text: '' }] };
  }
  let changed = false;
  const children = node.children.map((child) => {
    const out = withoutNames(child, names, depth + 1);
    if (out !== child) changed = true;
    return out;
  });
  return changed ? { ...node, children } : node;
}

/** A stored field's new JSON text, or undefined when it keeps its own. */
export function storedWithoutNames(stored: string | null, names: Names): string | undefined {
  if (stored === null || !stored.includes('"mention"')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(stored);
  } catch {
    return undefined;
  }
  if (!Array.isArray(value)) return undefined;
  const out = withoutNames({ children: value }, names, 0) as { children: unknown[] };
  return out.children === value ? undefined : JSON.stringify(out.children);
}

interface Pending {
  table: 'things' | 'arcs' | 'campaigns';
  id: number;
  values: Record<string, string>;
}

async function pendingOf(db: Kysely<unknown>, campaignId: number, names: Names): Promise<Pending[]> {
  const out: Pending[] = [];
  const scan = async (table: 'things' | 'arcs', fields: readonly string[]) => {
    const mentions = sql.join(fields.map((field) => sql`${sql.ref(field)} like '%"mention"%'`), sql` or `);
    let after = 0;
    for (;;) {
      const rows = (
        await sql<Record<string, unknown> & { id: number }>`select id, ${sql.join(fields.map((field) => sql.ref(field)))} from ${sql.table(table)}
          where campaign_id = ${campaignId} and id > ${after} and (${mentions}) order by id limit ${PAGE}`.execute(db)
      ).rows;
      for (const row of rows) {
        const values: Record<string, string> = {};
        for (const field of fields) {
          const stored = row[field];
          const next = storedWithoutNames(typeof stored === 'string' ? stored : null, names);
          if (next !== undefined) values[field] = next;
        }
        if (Object.keys(values).length > 0) out.push({ table, id: Number(row.id), values });
      }
      if (rows.length < PAGE) break;
      after = Number(rows.at(-1)!.id);
    }
  };
  await scan('things', ['description']);
  await scan('arcs', ARC_FIELDS);
  const campaign = (await sql<{ description: string | null }>`select description from campaigns where id = ${campaignId}`.execute(db)).rows[0];
  const description = storedWithoutNames(campaign?.description ?? null, names);
  if (description !== undefined) out.push({ table: 'campaigns', id: campaignId, values: { description } });
  return out;
}

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  const campaigns = (await sql<{ id: number }>`select id from campaigns order by id`.execute(db)).rows;
  for (const { id: campaignId } of campaigns) {
    const targets = async (table: 'things' | 'arcs') =>
      new Map((await sql<{ id: number; name: string }>`select id, name from ${sql.table(table)} where campaign_id = ${campaignId}`.execute(db)).rows.map((row) => [Number(row.id), row.name] as const));
    const names: Names = { thing: await targets('things'), arc: await targets('arcs') };
    if (names.thing.size === 0 && names.arc.size === 0) continue;
    const pending = await pendingOf(db, campaignId, names);
    if (pending.length === 0) continue;
    await sql`update campaigns set content_version = content_version + 1 where id = ${campaignId}`.execute(db);
    for (const { table, id, values } of pending) {
      const sets = sql.join(Object.entries(values).map(([field, value]) => sql`${sql.ref(field)} = ${value}`));
      await sql`update ${sql.table(table)} set ${sets} where id = ${id}`.execute(db);
    }
  }
  const now = new Date().toISOString();
  for (const name of ['search', 'mentions']) {
    await sql`insert into index_rebuilds (name, requested_at) values (${name}, ${now}) on conflict (name) do nothing`.execute(db);
  }
}
