// What history costs in storage: `npm run bench:history`.
//
// On an embedded SQLite database, through the repositories a request uses (updateThing, each save
// acting as its author, so revisions merge as they do for the web app):
//
//   - an hour of typing: one author types into a thing of 2,000 words, the editor autosaving every
//     2 seconds (1,800 saves, the clock moved 2 s before each);
//   - 1,000 edits by two authors in turn (no two merge), each changing one sentence of the text.
//
// For each, once with snapshots compressed (as stored) and once without, it prints the revisions
// kept, the bytes of their snapshots, the revisions table's size on disk (SQLite's dbstat: pages of
// the table and its index) and, for comparison, what a snapshot per save would have taken.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { actingAs } from '../src/access/acting.js';
import { createDatabase, type Database } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createCampaign } from '../src/db/repositories/campaigns.js';
import { createThing, updateThing } from '../src/db/repositories/things.js';
import { createUser } from '../src/db/repositories/users.js';
import { encodeSnapshot, snapshotCoding, thingSnapshot } from '../src/history/snapshots.js';
import { description, type RichText } from './lib/content.js';

// The clock the repositories read (new Date(), Date.now()), moved by the script instead of waiting.
const RealDate = Date;
let virtualNow = RealDate.parse('2026-06-01T09:00:00.000Z');
class BenchDate extends RealDate {
  constructor(...args: unknown[]) {
    if (args.length === 0) super(virtualNow);
    else super(...(args as [string | number]));
  }
  static override now(): number {
    return virtualNow;
  }
}
globalThis.Date = BenchDate as DateConstructor;

const words = (text: RichText) => text.flatMap((block) => block.children.map((leaf) => ('text' in leaf ? leaf.text : ''))).join(' ').split(/\s+/).filter(Boolean).length;

/** About `target` words of paragraphs. */
function textOf(target: number, seed: number): RichText {
  const out: RichText = [];
  for (let i = seed; words(out) < target; i++) out.push(...description(i).filter((block) => block.type === 'paragraph'));
  return out;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

interface Figures {
  saves: number;
  revisions: number;
  snapshotBytes: number;
  tableBytes: number;
  perSaveBytes: number;
}

async function measure(database: Database, campaignId: number): Promise<{ revisions: number; snapshotBytes: number; tableBytes: number }> {
  const row = await database.kysely
    .selectFrom('revisions')
    .select((eb) => [eb.fn.countAll<number>().as('n'), sql<number>`coalesce(sum(length(snapshot)), 0)`.as('bytes')])
    .where('campaign_id', '=', campaignId)
    .where('record_kind', '=', 1)
    .executeTakeFirstOrThrow();
  const pages = await sql<{ bytes: number | null }>`select sum(pgsize) as bytes from dbstat where name in ('revisions', 'revisions_record')`.execute(database.kysely);
  return { revisions: Number(row.n), snapshotBytes: Number(row.bytes), tableBytes: Number(pages.rows[0]?.bytes ?? 0) };
}

async function scenario(compress: boolean, kind: 'typing' | 'edits'): Promise<Figures> {
  snapshotCoding.compress = compress;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-bench-history-'));
  const database = createDatabase({ dataDir });
  try {
    await migrateToLatest(database);
    const db = database.kysely;
    const now = new Date().toISOString();
    const alice = await createUser(db, { email: 'alice@example.test', name: 'Alice', passwordHash: 'x', now });
    const bob = await createUser(db, { email: 'bob@example.test', name: 'Bob', passwordHash: 'x', now });
    const campaign = await createCampaign(database, alice.id, { name: 'History Bench', description: null });
    await db.insertInto('campaign_members').values({ campaign_id: campaign.id, user_id: bob.id, role: 'gm', joined_at: now }).execute();
    const type = await db.selectFrom('thing_types').select('id').where('campaign_id', '=', campaign.id).orderBy('id').executeTakeFirstOrThrow();
    const as = <T>(userId: string, fn: () => Promise<T>) => actingAs({ userId, campaignId: campaign.id, least: 'gm', asPlayer: false }, fn);

    const text = textOf(2000, 1);
    const thing = await as(alice.id, () => createThing(database, campaign.id, { name: 'The Sunken Archive', typeId: type.id, description: JSON.stringify(text) }));
    let perSaveBytes = encodeSnapshot(thingSnapshot(thing)).length;
    let saves = 0;
    const save = async (userId: string, next: RichText) => {
      const row = await as(userId, () => updateThing(database, campaign.id, thing.slug, { description: JSON.stringify(next) }));
      perSaveBytes += encodeSnapshot(thingSnapshot(row)).length;
      saves += 1;
    };

    if (kind === 'typing') {
      // About 40 words a minute: a word or two per autosave, into a new last paragraph.
      const typed = textOf(2600, 500).flatMap((block) => block.children.map((leaf) => ('text' in leaf ? leaf.text : ''))).join(' ').split(/\s+/);
      let written: string[] = [];
      for (let i = 0; i < 1800; i++) {
        virtualNow += 2_000;
        written = typed.slice(0, Math.round((i + 1) * 1.33));
        await save(alice.id, [...text, { type: 'paragraph', children: [{ text: written.join(' ') }] }]);
      }
    } else {
      const current = structuredClone(text);
      for (let i = 0; i < 1000; i++) {
        virtualNow += 60_000;
        const block = current[(i * 7) % current.length]!;
        block.children = [...block.children, { text: ` Edit ${i}: the ${['ledger', 'map', 'oath', 'relic'][i % 4]} changes hands.` }];
        await save(i % 2 === 0 ? bob.id : alice.id, current);
      }
    }
    return { saves, perSaveBytes, ...(await measure(database, campaign.id)) };
  } finally {
    await database.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const rows: string[] = [];
  for (const kind of ['typing', 'edits'] as const) {
    for (const compress of [true, false]) {
      const started = RealDate.now();
      const f = await scenario(compress, kind);
      const seconds = ((RealDate.now() - started) / 1000).toFixed(1);
      rows.push(
        `${kind === 'typing' ? 'an hour of typing (autosave every 2 s)' : '1,000 edits, two authors in turn'}, ${compress ? 'compressed' : 'plain JSON'}: ` +
          `${f.saves} saves → ${f.revisions} revisions, snapshots ${kb(f.snapshotBytes)}, table and index on disk ${kb(f.tableBytes)}; ` +
          `a snapshot per save would be ${kb(f.perSaveBytes)} (${seconds} s)`,
      );
      console.log(rows.at(-1));
    }
  }
}

await main();
