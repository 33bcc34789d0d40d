// Rebuilds of derived indexes that migrations requested (migrations create and change tables; the
// live code that keeps an index fills it: see migrations/2026-11-22-0006-index-rebuilds.ts).
import type { Database } from '../database.js';
import { rebuildMentionsIndex } from './mentions.js';
import { rebuildSearchIndex } from './search.js';

/** Each derived index by the name a migration requests its rebuild with. */
const REBUILDS: Record<string, (database: Database) => Promise<unknown>> = {
  search: rebuildSearchIndex,
  mentions: rebuildMentionsIndex,
};

/** Carries out the requested rebuilds; each request is removed once its rebuild is done. Returns their names. */
export async function runRequestedRebuilds(database: Database): Promise<string[]> {
  const requested = await database.kysely.selectFrom('index_rebuilds').select('name').orderBy('name').execute();
  const done: string[] = [];
  for (const { name } of requested) {
    const rebuild = REBUILDS[name];
    if (!rebuild) throw new Error(`a migration requested a rebuild of "${name}", which this version does not know`);
    await rebuild(database);
    await database.write((trx) => trx.deleteFrom('index_rebuilds').where('name', '=', name).execute());
    done.push(name);
  }
  return done;
}
