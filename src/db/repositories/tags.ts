// The campaign's tags with their counts, as a view sees them (CONTRACT "Records: properties, tags,
// aliases"): read from the tags of the records the view sees, two statements whatever their number.
import type { Db } from '../database.js';
import type { View } from '../../access/view.js';
import { foldKey, parseStoredLabels } from '../../domain/properties.js';
import { visibleArcs, visibleThings } from './visible.js';

export interface TagCount {
  tag: string;
  things: number;
  arcs: number;
}

/**
 * Every tag of the records the view sees, by tag (ignoring case), with how many things and arcs
 * carry it. Tags that differ only in case are one tag, shown as most records spell it (the first
 * spelling met on a tie).
 */
export async function listTags(db: Db, view: View): Promise<TagCount[]> {
  const things = await visibleThings(db, view).select('tags').where('tag_keys', '<>', '').execute();
  const arcs = await visibleArcs(db, view).select('tags').where('tag_keys', '<>', '').execute();
  const byKey = new Map<string, { things: number; arcs: number; spellings: Map<string, number> }>();
  const count = (rows: { tags: string }[], kind: 'things' | 'arcs') => {
    for (const row of rows) {
      for (const tag of parseStoredLabels(row.tags)) {
        const key = foldKey(tag);
        let entry = byKey.get(key);
        if (!entry) byKey.set(key, (entry = { things: 0, arcs: 0, spellings: new Map() }));
        entry[kind] += 1;
        entry.spellings.set(tag, (entry.spellings.get(tag) ?? 0) + 1);
      }
    }
  };
  count(things, 'things');
  count(arcs, 'arcs');
  return [...byKey.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, entry]) => {
      let tag = '';
      let best = 0;
      for (const [spelling, n] of entry.spellings) if (n > best) [tag, best] = [spelling, n];
      return { tag, things: entry.things, arcs: entry.arcs };
    });
}
