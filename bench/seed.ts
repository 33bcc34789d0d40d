// Seeds a campaign through the public API, as a client would: thing types, things with rich
// descriptions, arcs three levels deep with a few narrative fields, and links between them.
import { arcName, description, mentionParagraph, properties, shortText, tags, thingName } from './lib/content.js';
import { mapLimit, type Api } from '../toolkit/http.js';

export interface SeedSize {
  things: number;
  arcs: number;
  linksPerArc: number;
  /** Properties per thing (mixed kinds, two of them links to other things, one GM-only), with three tags; default none. */
  properties?: number | undefined;
}

export interface SeededThing {
  id: number;
  slug: string;
  typeId: number;
}

export interface SeededArc {
  id: number;
  slug: string;
  level: 1 | 2 | 3;
}

export interface SeededCampaign {
  id: number;
  slug: string;
  name: string;
  typeIds: number[];
  things: SeededThing[];
  arcs: SeededArc[];
  links: number;
  seconds: number;
  /** A thing in the middle of the list: has a description and arcs. */
  sampleThing: SeededThing;
  /** A second-level arc: it has a parent, children and linked things. */
  sampleArc: SeededArc;
}

interface CreatedRecord {
  id: number;
  slug: string;
}

const EXTRA_TYPES = ['Factions', 'Events'];

/**
 * Creates a campaign of `size` for the caller of `api`, `concurrency` requests in flight. Arcs are
 * 10% top-level, 30% second level and 60% third level, each child under a parent of the level above.
 */
export async function seedCampaign(api: Api, name: string, size: SeedSize, concurrency: number): Promise<SeededCampaign> {
  const started = Date.now();
  const campaign = await api.expect<CreatedRecord>(201, 'POST', '/api/campaigns', {
    newCampaign: { name, description: shortText(1) },
  });
  const base = `/api/campaigns/${campaign.slug}`;

  const defaults = await api.expect<{ id: number; name: string }[]>(200, 'GET', `${base}/thing-types`);
  const typeIds = defaults.map((t) => t.id);
  for (const typeName of EXTRA_TYPES) {
    const created = await api.expect<{ id: number }>(201, 'POST', `${base}/thing-types`, { newThingType: { name: typeName } });
    typeIds.push(created.id);
  }

  const propertyCount = size.properties ?? 0;
  const createThings = (indexes: number[], linkTargets: number[]) =>
    mapLimit(indexes, concurrency, async (i) => {
      const kind = i % typeIds.length;
      const typeId = typeIds[kind] as number;
      const structure = propertyCount > 0 ? { properties: properties(i, propertyCount, linkTargets), tags: tags(i) } : {};
      const created = await api.expect<CreatedRecord>(201, 'POST', `${base}/things`, {
        newThing: { name: thingName(kind, Math.floor(i / typeIds.length)), typeId, description: description(i), ...structure },
      });
      return { id: created.id, slug: created.slug, typeId };
    });
  const indexes = Array.from({ length: size.things }, (_, i) => i);
  let things: SeededThing[];
  if (propertyCount === 0) things = await createThings(indexes, []);
  else {
    // Link properties need targets that exist: the first ten things (whose links are null) are theirs.
    const anchors = await createThings(indexes.slice(0, 10), []);
    things = [...anchors, ...(await createThings(indexes.slice(10), anchors.map((thing) => thing.id)))];
  }

  const arcs = await createArcTree(api, base, size.arcs, concurrency);

  // Arc i gets things i*k … i*k+k-1 (wrapping), so with 10 links per arc and ten times as many
  // things as arcs every thing is in exactly one arc.
  const pairs: { thing: SeededThing; arc: SeededArc }[] = [];
  if (things.length > 0) {
    arcs.forEach((arc, i) => {
      for (let j = 0; j < size.linksPerArc; j++) {
        const thing = things[(i * size.linksPerArc + j) % things.length] as SeededThing;
        pairs.push({ thing, arc });
      }
    });
  }
  await mapLimit(pairs, concurrency, async ({ thing, arc }) => {
    await api.expect(200, 'POST', `${base}/things/${thing.slug}/arcs`, { arcSlug: arc.slug });
  });

  const sampleIndex = Math.floor(things.length / 2);
  const sampleThing = things[sampleIndex];
  const sampleArc = arcs.find((a) => a.level === 2) ?? arcs[0];
  if (!sampleThing || !sampleArc) throw new Error('a seeded campaign needs at least one thing and one arc');

  // Mentions: the sample thing's description mentions ten other things, and each of those mentions
  // it back, so its rendering resolves mentions and its backlinks are a list.
  const mentioned = things.filter((thing) => thing !== sampleThing).slice(0, 10);
  await api.expect(200, 'PUT', `${base}/things/${sampleThing.slug}`, { updatedThing: { description: [...description(sampleIndex), mentionParagraph(mentioned)] } });
  await mapLimit(mentioned, concurrency, async (thing) => {
    const index = things.indexOf(thing);
    await api.expect(200, 'PUT', `${base}/things/${thing.slug}`, { updatedThing: { description: [...description(index), mentionParagraph([sampleThing])] } });
  });
  return {
    id: campaign.id,
    slug: campaign.slug,
    name,
    typeIds,
    things,
    arcs,
    links: pairs.length,
    seconds: (Date.now() - started) / 1000,
    sampleThing,
    sampleArc,
  };
}

async function createArcTree(api: Api, base: string, count: number, concurrency: number): Promise<SeededArc[]> {
  const top = Math.max(1, Math.round(count * 0.1));
  const middle = Math.max(0, Math.min(count - top, Math.round(count * 0.3)));
  const leaves = Math.max(0, count - top - middle);
  let index = 0;
  const level = async (n: number, depth: 1 | 2 | 3, parents: SeededArc[]): Promise<SeededArc[]> => {
    const first = index;
    index += n;
    return mapLimit(Array.from({ length: n }, (_, i) => first + i), concurrency, async (i) => {
      const parent = parents.length > 0 ? parents[i % parents.length] : undefined;
      const created = await api.expect<CreatedRecord>(201, 'POST', `${base}/arcs`, {
        newArc: {
          name: arcName(i),
          parentArcId: parent?.id ?? null,
          hook: shortText(i * 3 + 1),
          problem: shortText(i * 3 + 2),
          outcome: shortText(i * 3 + 3),
        },
      });
      return { id: created.id, slug: created.slug, level: depth };
    });
  };
  const first = await level(top, 1, []);
  const second = await level(middle, 2, first);
  const third = await level(leaves, 3, second.length > 0 ? second : first);
  return [...first, ...second, ...third];
}
