import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexAllPending } from '../../src/db/indexes/search-queue.js';
import { rebuildCampaignMentions } from '../../src/db/indexes/mentions.js';
import { finishImportJob, insertImportJob } from '../../src/db/repositories/import-jobs.js';
import { structureColumns } from '../../src/domain/properties.js';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { joinCampaign } from '../support/sharing.js';

// A structural guarantee, generated from the route table: every authenticated GET runs the same
// number of SQL statements on a small campaign and on a large one (rendered fields and backlinks
// included: every record's rich text mentions others). The response cache is off so the database
// work itself is counted. The same holds for a player, whose every campaign request also reads the
// campaign's GM-only records (a tenth of the large campaign's things and arcs are GM-only).

let ctx: TestContext;
let owner: TestUser;
let player: TestUser;

const queryStrings: Record<string, string> = {
  '/api/campaigns/:campaignSlug/search': '?q=goblin',
};

interface Fixture {
  params: Record<string, string>;
  /** The first revision of thing-0, arc-0 and the campaign (`:revisionId` of their revision routes). */
  revisions: { things: string; arcs: string; campaign: string };
}

async function seed(size: { things: number; arcs: number; linksPerArc: number; types: number; campaigns: number; tokens: number }, label: string): Promise<Fixture> {
  const kysely = ctx.database.kysely;
  // Every record mentions thing-0, thing-1 and arc-0 and shows an image: backlinks of thing-0 have
  // as many sources as the campaign has records, and each rendering resolves mentions and images.
  const description = JSON.stringify([
    { type: 'paragraph', children: [{ text: 'A goblin of some renown, seen with [[thing#thing-0]], [[thing#thing-1]] and in [[arc#arc-0]].' }] },
    { type: 'paragraph', isSecret: true, children: [{ text: '![The lair](/images/lair.png)' }] },
  ]);
  const campaign = json(
    await ctx.app.inject({ method: 'POST', url: '/api/campaigns', headers: owner.headers, payload: { newCampaign: { name: `Counted ${label}`, description: JSON.parse(description) as unknown } } }),
  );
  const now = new Date().toISOString();
  for (let i = 0; i < size.campaigns; i++) {
    const filler = await kysely
      .insertInto('campaigns')
      .values({ slug: `filler-${label}-${i}`, name: `Filler ${i}`, description: null, user_id: owner.id, version: 1, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    await kysely.insertInto('campaign_members').values({ campaign_id: filler.id, user_id: owner.id, role: 'owner', joined_at: now }).execute();
  }
  for (let i = 0; i < size.tokens; i++) {
    await kysely.insertInto('api_tokens').values({ user_id: owner.id, name: `t${i}`, secret_hash: `${label}-hash-${i}`, created_at: now, expires_at: null, last_used_at: null }).execute();
  }
  const typeRows = size.types > 0
    ? await kysely
        .insertInto('thing_types')
        .values(Array.from({ length: size.types }, (_, i) => ({ campaign_id: campaign.id, name: `Type ${i}`, name_key: `type ${i}`, version: 1, created_at: now, updated_at: now })))
        .returning('id')
        .execute()
    : [];
  const defaultType = await kysely.selectFrom('thing_types').select('id').where('campaign_id', '=', campaign.id).orderBy('id').executeTakeFirstOrThrow();
  const typeIds = [defaultType.id, ...typeRows.map((r) => r.id)];
  const thingIds: number[] = [];
  for (let start = 0; start < size.things; start += 200) {
    const rows = await kysely
      .insertInto('things')
      .values(
        Array.from({ length: Math.min(200, size.things - start) }, (_, k) => ({
          campaign_id: campaign.id,
          type_id: typeIds[(start + k) % typeIds.length]!,
          slug: `thing-${start + k}`,
          name: `Thing ${start + k}`,
          description,
          visibility: (start + k) % 10 === 9 ? 'gm' : 'all',
          version: 1,
          created_at: now,
          updated_at: now,
        })),
      )
      .returning('id')
      .execute();
    thingIds.push(...rows.map((r) => r.id));
  }
  // thing-0 has a link property to each of the first 50 things (some GM-only, some to GM-only things):
  // its rendering, and the backlinks of those things, read them in the same statements however many.
  const linkProperties = thingIds.slice(0, 50).map((id, i) => ({ key: `link ${i}`, value: { targetType: 'thing' as const, targetId: id }, gmOnly: i % 5 === 4 }));
  if (thingIds.length > 0) await kysely.updateTable('things').set(structureColumns({ properties: linkProperties, tags: ['counted'] })).where('id', '=', thingIds[0]!).execute();
  const arcIds: number[] = [];
  for (let i = 0; i < size.arcs; i++) {
    const row = await kysely
      .insertInto('arcs')
      .values({ campaign_id: campaign.id, parent_arc_id: i > 0 ? arcIds[Math.floor((i - 1) / 3)]! : null, slug: `arc-${i}`, name: `Arc ${i}`, hook: description, visibility: i % 10 === 9 ? 'gm' : 'all', protagonist: null, antagonist: null, problem: null, key: null, outcome: null, notes: null, version: 1, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    arcIds.push(row.id);
  }
  const links = arcIds.flatMap((arcId, a) =>
    Array.from({ length: size.linksPerArc }, (_, k) => ({ campaign_id: campaign.id, arc_id: arcId, thing_id: thingIds[(a * size.linksPerArc + k) % thingIds.length]!, created_at: now })),
  );
  for (let start = 0; start < links.length; start += 300) {
    await kysely.insertInto('arc_things').values(links.slice(start, start + 300)).onConflict((oc) => oc.doNothing()).execute();
  }
  // The rows above were written around the repositories: index their mentions as a write would.
  await rebuildCampaignMentions(kysely, campaign.id);
  await joinCampaign(ctx.app, owner, campaign.slug, player, 'player');
  const token = await kysely.selectFrom('api_tokens').select('id').where('user_id', '=', owner.id).orderBy('id').executeTakeFirstOrThrow();
  // The rows above have no history: an empty save keeps the state of thing-0 and arc-0 as a revision.
  const base = `/api/campaigns/${campaign.slug}`;
  await ctx.app.inject({ method: 'PUT', url: `${base}/things/thing-0`, headers: owner.headers, payload: { updatedThing: {} } });
  await ctx.app.inject({ method: 'PUT', url: `${base}/arcs/arc-0`, headers: owner.headers, payload: { updatedArc: {} } });
  const firstRevision = async (path: string) => String(json<{ id: number }[]>(await ctx.app.inject({ method: 'GET', url: `${base}${path}/revisions`, headers: owner.headers })).at(-1)!.id);
  // An import job of the owner's that made this campaign: its GET reads the campaign as the owner sees it.
  const importId = `query-counts-${label}`.padEnd(24, '0');
  await insertImportJob(kysely, { id: importId, userId: owner.id, status: 'running', idempotencyKey: null, instanceId: 'query-counts', now });
  const report = { format: 'json', thingTypes: size.types, things: size.things, arcs: size.arcs, links: links.length, assets: 0, warnings: [] };
  await finishImportJob(kysely, importId, { status: 'done', campaignId: campaign.id, report: JSON.stringify(report), error: null, done: 1, total: 1, now });
  return {
    params: { campaignSlug: campaign.slug, thingSlug: 'thing-0', arcSlug: 'arc-0', thingTypeId: String(defaultType.id), id: String(token.id), importId },
    revisions: { things: await firstRevision('/things/thing-0'), arcs: await firstRevision('/arcs/arc-0'), campaign: await firstRevision('') },
  };
}

function fill(url: string, fixture: Fixture): string {
  return url.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = name === 'revisionId' ? fixture.revisions[url.includes('/things/') ? 'things' : url.includes('/arcs/') ? 'arcs' : 'campaign'] : fixture.params[name];
    if (value === undefined) throw new Error(`query-counts.test.ts has no value for :${name} in ${url}`);
    return value;
  }) + (queryStrings[url] ?? '');
}

async function statementsFor(url: string, as: TestUser = owner): Promise<{ status: number; count: number }> {
  ctx.queries.length = 0;
  const res = await ctx.app.inject({ method: 'GET', url, headers: as.headers });
  return { status: res.statusCode, count: ctx.queries.length };
}

let small: Fixture;
let large: Fixture;

beforeAll(async () => {
  ctx = await createTestContext({ RESPONSE_CACHE_MB: '0' });
  owner = await ctx.createUser();
  player = await ctx.createUser();
  small = await seed({ things: 2, arcs: 2, linksPerArc: 1, types: 0, campaigns: 0, tokens: 0 }, 'small');
  large = await seed({ things: 1200, arcs: 120, linksPerArc: 10, types: 8, campaigns: 40, tokens: 25 }, 'large');
  // What the seeding queued for search indexing, indexed, as the instance does after its writes:
  // the counts are of a search with nothing queued (one statement to see that).
  await indexAllPending(ctx.database);
}, 120_000);
afterAll(() => ctx.close());

describe('statements per request', () => {
  it('are the same for a small and a large campaign on every authenticated GET route', async () => {
    const routes = ctx.app.routeTable.filter((r) => r.method === 'GET' && r.auth !== 'none');
    expect(routes.length).toBeGreaterThanOrEqual(8);
    const report: string[] = [];
    for (const route of routes) {
      const a = await statementsFor(fill(route.url, small));
      const b = await statementsFor(fill(route.url, large));
      report.push(`${route.url}: ${a.count} / ${b.count}`);
      expect(a.status, `${route.url} (small)`).toBe(200);
      expect(b.status, `${route.url} (large)`).toBe(200);
      if (route.url.endsWith('/export')) {
        // An export reads the campaign in pages of 500 records, by design: a statement per page
        // keeps its memory flat. Its count grows with the campaign, a page at a time.
        expect(b.count, route.url).toBeGreaterThanOrEqual(a.count);
        continue;
      }
      if (route.url.endsWith('/changes')) {
        // A feed page takes two more statements when it holds arcs (their neighbours and things),
        // and one more when it holds thing types (their thingCount, one grouped count), whichever
        // page that is; changes.test.ts compares pages with arcs on both sizes.
        expect(Math.max(a.count, b.count), route.url).toBeLessThanOrEqual(5);
        continue;
      }
      expect(b.count, `${route.url}: ${a.count} statements small, ${b.count} large`).toBe(a.count);
      expect(a.count, route.url).toBeLessThanOrEqual(6);
    }
    // The fetchAll list and the 1,000-row page with its Link header are lists too.
    // Markdown renders from the same statements as HTML.
    for (const path of ['/things/thing-0/rendered?format=markdown', '/arcs/arc-0/rendered?format=markdown', '/rendered?format=markdown']) {
      const a = await statementsFor(`/api/campaigns/${small.params.campaignSlug}${path}`);
      const b = await statementsFor(`/api/campaigns/${large.params.campaignSlug}${path}`);
      report.push(`${path}: ${a.count} / ${b.count}`);
      expect([a.status, b.status], path).toEqual([200, 200]);
      expect(b.count, path).toBe(a.count);
    }
    console.log(`statements per request, small / large campaign:\n${report.join('\n')}`);
    // The navigation shapes too (fields=summary, things=none), for a GM and a player.
    const lists = [
      (_: Fixture) => '/things?fetchAll=true',
      (_: Fixture) => '/things?count=1000',
      (f: Fixture) => `/things?typeId=${f.params.thingTypeId}`,
      (_: Fixture) => '/things?fields=summary&fetchAll=true',
      (_: Fixture) => '/things?fields=summary&count=1000&sort=name',
      (_: Fixture) => '/arcs?things=none',
    ];
    for (const as of [owner, player]) {
      for (const query of lists) {
        const a = await statementsFor(`/api/campaigns/${small.params.campaignSlug}${query(small)}`, as);
        const b = await statementsFor(`/api/campaigns/${large.params.campaignSlug}${query(large)}`, as);
        report.push(`${as === owner ? 'GM' : 'player'} ${query(large)}: ${a.count} / ${b.count}`);
        expect([a.status, b.status], query(large)).toEqual([200, 200]);
        expect(b.count, query(large)).toBe(a.count);
      }
    }
    console.log(`statements per request on list variants, small / large campaign:\n${report.slice(-lists.length * 2).join('\n')}`);
  });

  it('are the same for a small and a large campaign on every GET route a player may call', async () => {
    const routes = ctx.app.routeTable.filter((r) => r.method === 'GET' && r.auth === 'campaign' && r.role === 'player');
    expect(routes.length).toBeGreaterThanOrEqual(8);
    const report: string[] = [];
    for (const route of routes) {
      const a = await statementsFor(fill(route.url, small), player);
      const b = await statementsFor(fill(route.url, large), player);
      report.push(`${route.url}: ${a.count} / ${b.count}`);
      expect([a.status, b.status], route.url).toEqual([200, 200]);
      expect(b.count, `${route.url}: ${a.count} statements small, ${b.count} large`).toBe(a.count);
      // One more than a game master's at most: the campaign's GM-only records.
      expect(a.count, route.url).toBeLessThanOrEqual(7);
    }
    console.log(`statements per request as a player, small / large campaign:\n${report.join('\n')}`);
  });

  // A revision is kept in the write's own transaction (CONTRACT "History and trash"): a fixed number
  // of statements whatever the campaign's size, in each of its cases.
  it('are the same for a small and a large campaign on every write that keeps a revision', async () => {
    const report: string[] = [];
    const counts = async (fixture: Fixture, label: string) => {
      const base = `/api/campaigns/${fixture.params.campaignSlug}`;
      const steps: [string, 'PUT' | 'POST', string, unknown][] = [
        // thing-1 and arc-1 have no history yet: their state before is kept with the change.
        ['thing, first change', 'PUT', `${base}/things/thing-1`, { updatedThing: { description: [{ type: 'paragraph', children: [{ text: 'Changed.' }] }] } }],
        ['thing, merged', 'PUT', `${base}/things/thing-1`, { updatedThing: { name: 'Thing one' } }],
        ['thing, identical', 'PUT', `${base}/things/thing-1`, { updatedThing: { name: 'Thing one' } }],
        ['thing, restored', 'POST', `${base}/things/thing-0/revisions/${fixture.revisions.things}/restore`, undefined],
        ['arc, first change', 'PUT', `${base}/arcs/arc-1`, { updatedArc: { hook: [{ type: 'paragraph', children: [{ text: 'Changed.' }] }] } }],
        ['arc, merged', 'PUT', `${base}/arcs/arc-1`, { updatedArc: { name: 'Arc one' } }],
        ['campaign, change', 'PUT', base, { updatedCampaign: { name: `Renamed ${label}` } }],
        ['campaign, merged', 'PUT', base, { updatedCampaign: { name: `Renamed again ${label}` } }],
        ['new thing', 'POST', `${base}/things`, { newThing: { name: 'Fresh', typeId: Number(fixture.params.thingTypeId) } }],
      ];
      const out: { step: string; all: number; revisions: number }[] = [];
      for (const [step, method, url, payload] of steps) {
        ctx.queries.length = 0;
        const res = await ctx.app.inject({ method, url, headers: owner.headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
        expect(res.statusCode, `${step} (${label}): ${res.body}`).toBeLessThan(300);
        out.push({ step, all: ctx.queries.length, revisions: ctx.queries.filter((q) => /"revisions"/.test(q)).length });
      }
      return out;
    };
    const a = await counts(small, 'small');
    const b = await counts(large, 'large');
    for (let i = 0; i < a.length; i++) {
      report.push(`${a[i]!.step}: ${a[i]!.all} / ${b[i]!.all} (revisions: ${a[i]!.revisions})`);
      expect(b[i], a[i]!.step).toEqual(a[i]);
      // One read of the latest revision and at most one write (the restore also reads the revision it restores).
      expect(a[i]!.revisions, a[i]!.step).toBeLessThanOrEqual(a[i]!.step.includes('restored') ? 3 : 2);
    }
    expect(a.find((s) => s.step === 'thing, identical')!.revisions).toBe(1);
    console.log(`statements per write keeping a revision, small / large campaign:\n${report.join('\n')}`);
  });
});

describe('statements per trash write', () => {
  async function counted(method: 'DELETE' | 'POST', url: string): Promise<number> {
    ctx.queries.length = 0;
    const res = await ctx.app.inject({ method, url, headers: owner.headers });
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(method === 'DELETE' ? 204 : 200);
    return ctx.queries.length;
  }
  const idOf = async (url: string) => json<{ id: number }>(await ctx.app.inject({ method: 'GET', url, headers: owner.headers })).id;

  it('deleting and restoring a thing take the same statements in a small and a large campaign', async () => {
    const counts: number[][] = [];
    for (const fixture of [small, large]) {
      const base = `/api/campaigns/${fixture.params.campaignSlug}`;
      // thing-1 is mentioned by every record of the campaign, and linked to arcs.
      const id = await idOf(`${base}/things/thing-1`);
      // Linked in both (a link more or less is a statement more or less, not a matter of size).
      await ctx.app.inject({ method: 'POST', url: `${base}/things/thing-1/arcs`, headers: owner.headers, payload: { arcSlug: 'arc-0' } });
      counts.push([await counted('DELETE', `${base}/things/thing-1`), await counted('POST', `${base}/trash/thing/${id}/restore`)]);
    }
    console.log(`statements to delete / restore a thing, small and large campaign: ${JSON.stringify(counts)}`);
    expect(counts[1]).toEqual(counts[0]);
  });

  it('deleting a thing type takes the same statements whether it has one thing or hundreds', async () => {
    const counts: number[] = [];
    for (const fixture of [small, large]) {
      const base = `/api/campaigns/${fixture.params.campaignSlug}`;
      const type = json<{ id: number }>(await ctx.app.inject({ method: 'POST', url: `${base}/thing-types`, headers: owner.headers, payload: { newThingType: { name: 'Counted Kind' } } }));
      const many = fixture === large ? 300 : 1;
      const now = new Date().toISOString();
      const campaignId = (await ctx.database.kysely.selectFrom('campaigns').select('id').where('slug', '=', fixture.params.campaignSlug!).executeTakeFirstOrThrow()).id;
      await ctx.database.kysely
        .insertInto('things')
        .values(Array.from({ length: many }, (_, i) => ({ campaign_id: campaignId, type_id: type.id, slug: `counted-${i}`, name: `Counted ${i}`, description: null, version: 1, created_at: now, updated_at: now })))
        .execute();
      counts.push(await counted('DELETE', `${base}/thing-types/${type.id}`));
    }
    expect(counts[1], `statements to delete a type of 1 and of 300 things: ${counts.join(', ')}`).toBe(counts[0]);
  });
});

// Records with structure (CONTRACT "Records: properties, tags, aliases"): properties, tags and
// aliases live in the record's row, so the lists, an arc's things, the thing types with their
// thingCount and the tags route take the same statements for one record as for fifty, each with ten
// properties (links to things, arcs and GM-only records among them) and tags.
describe('statements per request with properties', () => {
  async function structured(records: number, label: string): Promise<{ base: string; arcSlug: string; thingSlug: string; typeId: number }> {
    const post = async (url: string, payload: unknown) => {
      const res = await ctx.app.inject({ method: 'POST', url, headers: owner.headers, payload: payload as Record<string, unknown> });
      expect(res.statusCode, res.body).toBeLessThan(300);
      return json<{ id: number; slug: string }>(res);
    };
    const campaign = await post('/api/campaigns', { newCampaign: { name: `Structured ${label}` } });
    const base = `/api/campaigns/${campaign.slug}`;
    await joinCampaign(ctx.app, owner, campaign.slug, player, 'player');
    const typeId = json<{ id: number }[]>(await ctx.app.inject({ method: 'GET', url: `${base}/thing-types`, headers: owner.headers }))[0]!.id;
    await ctx.app.inject({ method: 'PUT', url: `${base}/thing-types/${typeId}`, headers: owner.headers, payload: { updatedThingType: { fields: [{ key: 'level', kind: 'number' }, { key: 'born', kind: 'date' }] } } });
    const hidden = await post(`${base}/things`, { newThing: { name: 'Hidden', typeId, visibility: 'gm', tags: ['secret'] } });
    const anchorArc = await post(`${base}/arcs`, { newArc: { name: 'Anchor arc' } });
    const properties = (i: number) => [
      { key: 'level', value: i },
      { key: 'born', value: '1492-03-01' },
      { key: 'species', value: 'kobold' },
      { key: 'alive', value: i % 2 === 0 },
      { key: 'fate', value: null },
      { key: 'serves', value: { targetType: 'thing', targetId: hidden.id } },
      { key: 'in', value: { targetType: 'arc', targetId: anchorArc.id } },
      { key: 'allies', value: ['Meepo', { targetType: 'thing', targetId: hidden.id }, { targetType: 'arc', targetId: anchorArc.id }] },
      { key: 'secret', value: 'a spy', gmOnly: true },
      { key: 'master', value: { targetType: 'thing', targetId: hidden.id }, gmOnly: true },
    ];
    let first: { slug: string } | undefined;
    let firstArc: { slug: string } | undefined;
    for (let i = 0; i < records; i++) {
      const thing = await post(`${base}/things`, { newThing: { name: `Thing ${i}`, typeId, properties: properties(i), tags: ['kobold', `t${i % 3}`], aliases: [`Alias ${i}`], visibility: i % 10 === 9 ? 'gm' : 'all' } });
      const arc = await post(`${base}/arcs`, { newArc: { name: `Arc ${i}`, properties: properties(i), tags: ['kobold', `a${i % 3}`], aliases: [`Arc alias ${i}`] } });
      first ??= thing;
      firstArc ??= arc;
      await post(`${base}/things/${thing.slug}/arcs`, { arcSlug: firstArc.slug });
    }
    return { base, arcSlug: firstArc!.slug, thingSlug: first!.slug, typeId };
  }

  it('are the same with 1 and with 50 records of 10 properties each, for a GM and a player', async () => {
    const one = await structured(1, 'one');
    const fifty = await structured(50, 'fifty');
    const paths = (f: { arcSlug: string; thingSlug: string; typeId: number }) => [
      '/things',
      '/things?fetchAll=true',
      '/things?count=1000&sort=name',
      '/things?tag=kobold&tag=t0',
      `/things?typeId=${f.typeId}&tag=KOBOLD`,
      '/things?fields=summary&fetchAll=true',
      '/arcs',
      '/arcs?things=none',
      `/arcs/${f.arcSlug}`,
      `/things/${f.thingSlug}`,
      `/things/${f.thingSlug}/arcs`,
      `/things/${f.thingSlug}/backlinks`,
      '/thing-types',
      `/thing-types/${f.typeId}`,
      '/tags',
    ];
    const report: string[] = [];
    const onePaths = paths(one);
    const fiftyPaths = paths(fifty);
    for (const user of [owner, player]) {
      for (let i = 0; i < onePaths.length; i++) {
        const a = await statementsFor(`${one.base}${onePaths[i]!}`, user);
        const b = await statementsFor(`${fifty.base}${fiftyPaths[i]!}`, user);
        report.push(`${user === owner ? 'GM' : 'player'} ${onePaths[i]!}: ${a.count} / ${b.count}`);
        expect([a.status, b.status], onePaths[i]).toEqual([200, 200]);
        expect(b.count, `${onePaths[i]!}: ${a.count} statements with one record, ${b.count} with fifty`).toBe(a.count);
      }
    }
    // The lists really carry the properties: the fifty records' answer is not an empty one.
    const listed = json<{ properties: unknown[] }[]>(await ctx.app.inject({ method: 'GET', url: `${fifty.base}/things?fetchAll=true`, headers: player.headers }));
    expect(listed.length).toBe(45);
    // Ten properties less the GM-only two and the one linking only to a GM-only thing.
    expect(listed.every((thing) => thing.properties.length === 7)).toBe(true);
    console.log(`statements per request with properties, 1 / 50 records:\n${report.join('\n')}`);
  }, 120_000);
});
