import { sql } from 'kysely';
import type { Database } from '../../src/db/database.js';
import { emptyRichText } from '../../src/domain/rich-text.js';
import { slugifyName } from '../../src/domain/slugs.js';
import { api, isNetworkError, registerWithToken, type ApiResponse } from '../../toolkit/http.js';
import { integrityProblems } from './integrity.js';
import { startServer, stopServer, type ServerProcess } from '../../toolkit/server.js';

// Crash durability: writers create, update, link, unlink and delete through the real server while it
// is SIGKILLed at random moments and restarted. Each writer owns one campaign and keeps a model of
// what the server acknowledged. After every restart the database must hold exactly the model, or,
// for the one request each writer had in flight when the process died, the model with that request
// wholly applied: never a part of it. No vitest imports: scripts/chaos.ts runs this too.

export interface ChaosOptions {
  kills: number;
  writers: number;
  /** Server environment: DATA_DIR for SQLite, DATABASE_URL for PostgreSQL. */
  env: Record<string, string>;
  /** Opens the server's database for the checks (SQLite file or PostgreSQL URL). */
  openDatabase: () => Database;
  /** The kill comes at a random moment this long after the writers start. */
  minRunMs: number;
  maxRunMs: number;
  /** A production bundle to run (see buildServer); the TypeScript sources through tsx when absent. */
  entry?: string;
  seed?: number;
  log?: (line: string) => void;
}

export interface ChaosReport {
  kills: number;
  /** Writes the server acknowledged with a 2xx, all found intact after the crashes. */
  acknowledgedWrites: number;
  /** Records (things, arcs, types, links) checked against the model after each restart, summed. */
  recordsVerified: number;
  /** Requests in flight at a kill: found wholly applied, or not at all. */
  inFlightApplied: number;
  inFlightNotApplied: number;
  /** Records queued for search indexing and not indexed when a kill came, summed: each restart indexes them before its first request. */
  searchQueuedAtKill?: number;
  problems: string[];
}

interface ThingModel {
  id: number;
  slug: string;
  name: string;
  typeId: number;
  description: string;
  version: number;
}
interface ArcModel {
  id: number;
  slug: string;
  name: string;
  parentId: number | null;
  hook: string;
  version: number;
}
interface Model {
  campaign: { id: number; slug: string; name: string } | null;
  types: Map<number, string>;
  things: Map<number, ThingModel>;
  arcs: Map<number, ArcModel>;
  links: Set<string>;
}

interface Operation {
  label: string;
  method: string;
  path: string;
  json?: unknown;
  headers?: Record<string, string>;
  expect: number;
  /** The model after this operation, from its acknowledged response. */
  acknowledged(model: Model, res: ApiResponse): Model;
  /** The model had the operation been applied, using the database for what the server chose (ids, slugs). */
  appliedIn(model: Model, db: Model): Model | string;
}

const EMPTY = JSON.stringify(emptyRichText());
const canonicalText = (value: unknown) => JSON.stringify(value ?? emptyRichText());
const linkKey = (arcId: number, thingId: number) => `${arcId}:${thingId}`;
// The record's own version: the second number of its ETag, whatever follows it (an arc's answer
// digest `-a…`, the encoding of a compressed answer `-br`/`-gzip`).
const versionOf = (res: ApiResponse) => Number(/^"\d+-(\d+)(?:-[a-z0-9]+)*"$/.exec(res.headers.get('etag') ?? '')?.[1] ?? NaN);

function clone(model: Model): Model {
  return {
    campaign: model.campaign && { ...model.campaign },
    types: new Map(model.types),
    things: new Map([...model.things].map(([id, t]) => [id, { ...t }])),
    arcs: new Map([...model.arcs].map(([id, a]) => [id, { ...a }])),
    links: new Set(model.links),
  };
}

function emptyModel(): Model {
  return { campaign: null, types: new Map(), things: new Map(), arcs: new Map(), links: new Set() };
}

function canonical(model: Model): string {
  const sorted = <T extends { id: number }>(rows: Iterable<T>) => [...rows].sort((a, b) => a.id - b.id);
  return JSON.stringify({
    campaign: model.campaign ? { id: model.campaign.id, name: model.campaign.name } : null,
    types: [...model.types].sort((a, b) => a[0] - b[0]),
    things: sorted(model.things.values()),
    arcs: sorted(model.arcs.values()),
    links: [...model.links].sort(),
  });
}

function describeDifference(expected: Model, found: Model): string {
  const a = JSON.parse(canonical(expected)) as Record<string, unknown>;
  const b = JSON.parse(canonical(found)) as Record<string, unknown>;
  return Object.keys(a)
    .filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]))
    .map((k) => `${k}: expected ${JSON.stringify(a[k]).slice(0, 400)} found ${JSON.stringify(b[k]).slice(0, 400)}`)
    .join('; ');
}

/** What the database holds for one campaign (by id, or by name for a campaign whose creation was in flight). */
async function readModel(database: Database, campaign: { id?: number; name: string }): Promise<Model> {
  const db = database.kysely;
  // A campaign in its owner's trash is gone for every member (its rows stay until it is erased).
  let query = db.selectFrom('campaigns').select(['id', 'slug', 'name']).where('deleted_at', 'is', null);
  query = campaign.id !== undefined ? query.where('id', '=', campaign.id) : query.where('name', '=', campaign.name);
  const rows = await query.execute();
  if (rows.length === 0) return emptyModel();
  if (rows.length > 1) throw new Error(`${rows.length} campaigns named ${campaign.name}`);
  const row = rows[0]!;
  const [types, things, arcs, links] = await Promise.all([
    db.selectFrom('thing_types').select(['id', 'name']).where('campaign_id', '=', row.id).execute(),
    db.selectFrom('things').select(['id', 'slug', 'name', 'type_id', 'description', 'version']).where('campaign_id', '=', row.id).execute(),
    db.selectFrom('arcs').select(['id', 'slug', 'name', 'parent_arc_id', 'hook', 'version']).where('campaign_id', '=', row.id).execute(),
    db.selectFrom('arc_things').select(['arc_id', 'thing_id']).where('campaign_id', '=', row.id).execute(),
  ]);
  return {
    campaign: { id: row.id, slug: row.slug, name: row.name },
    types: new Map(types.map((t) => [t.id, t.name])),
    things: new Map(
      things.map((t) => [
        t.id,
        { id: t.id, slug: t.slug, name: t.name, typeId: t.type_id, description: t.description === null ? EMPTY : canonicalText(JSON.parse(t.description)), version: t.version },
      ]),
    ),
    arcs: new Map(
      arcs.map((a) => [a.id, { id: a.id, slug: a.slug, name: a.name, parentId: a.parent_arc_id, hook: a.hook === null ? EMPTY : canonicalText(JSON.parse(a.hook)), version: a.version }]),
    ),
    links: new Set(links.map((l) => linkKey(l.arc_id, l.thing_id))),
  };
}

/** The one record in `db` named `name` that the model does not have yet. */
function newRecord<T extends { id: number; name: string }>(known: Map<number, unknown>, found: Map<number, T>, name: string): T | string {
  const fresh = [...found.values()].filter((r) => r.name === name && !known.has(r.id));
  if (fresh.length !== 1) return `${fresh.length} new records named "${name}"`;
  return fresh[0]!;
}

function descendants(model: Model, id: number): Set<number> {
  const out = new Set<number>([id]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const arc of model.arcs.values()) {
      if (arc.parentId !== null && out.has(arc.parentId) && !out.has(arc.id)) {
        out.add(arc.id);
        grew = true;
      }
    }
  }
  return out;
}

const DEFAULT_TYPES = ['Items', 'Locations', 'NPCs'];

class Writer {
  model = emptyModel();
  counter = 0;
  acknowledgedWrites = 0;
  /** The operation whose request got no answer in the last round. */
  inFlight: Operation | null = null;
  /** A campaign the server acknowledged whose default types this writer has not read yet. */
  typesUnknown = false;
  /** Campaigns this writer deleted: they must stay gone, with everything in them. */
  deletedCampaigns: number[] = [];

  constructor(
    readonly index: number,
    readonly token: string,
    readonly pick: (n: number) => number,
  ) {}

  private name(kind: string) {
    this.counter += 1;
    // Unique per writer and operation, with some non-ASCII so the slugs are transliterated.
    return `W${this.index} ${kind} ${this.counter} Ærø`;
  }

  private base() {
    return `/api/campaigns/${this.model.campaign!.slug}`;
  }

  private any<T>(items: Iterable<T>): T | undefined {
    const list = [...items];
    return list.length === 0 ? undefined : list[this.pick(list.length)];
  }

  nextOperation(): Operation | 'read-types' {
    const m = this.model;
    if (!m.campaign) return this.createCampaign();
    if (this.typesUnknown) return 'read-types';
    const roll = this.pick(100);
    const thing = this.any(m.things.values());
    const arc = this.any(m.arcs.values());
    if (roll < 28 || !thing) return this.createThing();
    if (roll < 45) return this.updateThing(thing);
    if (roll < 52) return this.deleteThing(thing);
    if (roll < 62 || !arc) return this.createArc();
    if (roll < 72) return this.updateArc(arc);
    if (roll < 76) return this.deleteArc(arc);
    if (roll < 86) {
      const unlinked = [...m.things.values()].flatMap((t) => [...m.arcs.values()].filter((a) => !m.links.has(linkKey(a.id, t.id))).map((a) => ({ t, a })));
      const pair = this.any(unlinked);
      if (pair) return this.link(pair.t, pair.a);
    }
    if (roll < 93) {
      const linked = this.any(m.links);
      if (linked) return this.unlink(linked);
    }
    const custom = [...m.types].filter(([, name]) => !DEFAULT_TYPES.includes(name));
    if (roll < 97 || custom.length === 0) return this.createType();
    if (roll < 99) return this.deleteType(this.any(custom)![0]);
    return this.deleteCampaign();
  }

  private createCampaign(): Operation {
    const name = this.name('campaign');
    return {
      label: 'create campaign',
      method: 'POST',
      path: '/api/campaigns',
      json: { newCampaign: { name } },
      expect: 201,
      acknowledged: (model, res) => {
        const next = emptyModel();
        next.campaign = { id: res.body.id as number, slug: res.body.slug as string, name };
        this.typesUnknown = true;
        void model;
        return next;
      },
      appliedIn: (_model, db) => {
        if (!db.campaign || db.campaign.name !== name) return `campaign "${name}" missing`;
        // Created whole: with its three default types and nothing else.
        const names = [...db.types.values()].sort();
        if (JSON.stringify(names) !== JSON.stringify(DEFAULT_TYPES)) return `the new campaign has the types ${JSON.stringify(names)}`;
        const next = emptyModel();
        next.campaign = { ...db.campaign };
        next.types = new Map(db.types);
        return next;
      },
    };
  }

  private createThing(): Operation {
    const name = this.name('thing');
    const typeId = this.any(this.model.types.keys())!;
    const description = this.pick(2) === 0 ? undefined : [{ type: 'paragraph', children: [{ text: `About ${name}` }] }];
    const expected = (id: number, slug: string, version: number): ThingModel => ({ id, slug, name, typeId, description: description ? canonicalText(description) : EMPTY, version });
    return {
      label: 'create thing',
      method: 'POST',
      path: `${this.base()}/things`,
      json: { newThing: { name, typeId, ...(description ? { description } : {}) } },
      expect: 201,
      acknowledged: (model, res) => {
        const next = clone(model);
        next.things.set(res.body.id as number, expected(res.body.id as number, res.body.slug as string, versionOf(res)));
        return next;
      },
      appliedIn: (model, db) => {
        const found = newRecord(model.things, db.things, name);
        if (typeof found === 'string') return found;
        const next = clone(model);
        // The slug the server must have generated: the name's own, as no other name shares it.
        next.things.set(found.id, expected(found.id, slugifyName(name), 1));
        return next;
      },
    };
  }

  private updateThing(thing: ThingModel): Operation {
    const name = this.name('renamed thing');
    const description = [{ type: 'paragraph', children: [{ text: `Revised ${name}`, bold: true }] }];
    const apply = (model: Model) => {
      const next = clone(model);
      next.things.set(thing.id, { ...thing, name, description: canonicalText(description), version: thing.version + 1 });
      return next;
    };
    return {
      label: 'update thing',
      method: 'PUT',
      path: `${this.base()}/things/${thing.slug}`,
      json: { updatedThing: { name, description } },
      headers: { 'if-match': `"${thing.id}-${thing.version}"` },
      expect: 200,
      acknowledged: (model) => apply(model),
      appliedIn: (model) => apply(model),
    };
  }

  private deleteThing(thing: ThingModel): Operation {
    const apply = (model: Model) => {
      const next = clone(model);
      next.things.delete(thing.id);
      for (const key of [...next.links]) if (key.endsWith(`:${thing.id}`)) next.links.delete(key);
      return next;
    };
    return { label: 'delete thing', method: 'DELETE', path: `${this.base()}/things/${thing.slug}`, expect: 204, acknowledged: apply, appliedIn: apply };
  }

  private createArc(): Operation {
    const name = this.name('arc');
    const parent = this.pick(2) === 0 ? undefined : this.any(this.model.arcs.values());
    const hook = [{ type: 'paragraph', children: [{ text: `Hook of ${name}` }] }];
    const expected = (id: number, slug: string, version: number): ArcModel => ({ id, slug, name, parentId: parent?.id ?? null, hook: canonicalText(hook), version });
    return {
      label: 'create arc',
      method: 'POST',
      path: `${this.base()}/arcs`,
      json: { newArc: { name, hook, ...(parent ? { parentArcId: parent.id } : {}) } },
      expect: 201,
      acknowledged: (model, res) => {
        const next = clone(model);
        next.arcs.set(res.body.id as number, expected(res.body.id as number, res.body.slug as string, versionOf(res)));
        return next;
      },
      appliedIn: (model, db) => {
        const found = newRecord(model.arcs, db.arcs, name);
        if (typeof found === 'string') return found;
        const next = clone(model);
        next.arcs.set(found.id, expected(found.id, slugifyName(name), 1));
        return next;
      },
    };
  }

  private updateArc(arc: ArcModel): Operation {
    const below = descendants(this.model, arc.id);
    const candidates = [...this.model.arcs.values()].filter((a) => !below.has(a.id));
    const reparent = this.pick(2) === 0;
    const parentId = reparent ? (this.any(candidates)?.id ?? null) : arc.parentId;
    const hook = [{ type: 'paragraph', children: [{ text: `Hook ${this.counter++} of W${this.index}` }] }];
    const apply = (model: Model) => {
      const next = clone(model);
      next.arcs.set(arc.id, { ...arc, parentId, hook: reparent ? arc.hook : canonicalText(hook), version: arc.version + 1 });
      return next;
    };
    return {
      label: reparent ? 're-parent arc' : 'update arc',
      method: 'PUT',
      path: `${this.base()}/arcs/${arc.slug}`,
      json: { updatedArc: reparent ? { parentArcId: parentId } : { hook } },
      headers: { 'if-match': `"${arc.id}-${arc.version}"` },
      expect: 200,
      acknowledged: (model) => apply(model),
      appliedIn: (model) => apply(model),
    };
  }

  private deleteArc(arc: ArcModel): Operation {
    const apply = (model: Model) => {
      const next = clone(model);
      next.arcs.delete(arc.id);
      // Its children become top-level; that is a change of theirs, so their version moves.
      for (const child of next.arcs.values()) {
        if (child.parentId === arc.id) {
          child.parentId = null;
          child.version += 1;
        }
      }
      for (const key of [...next.links]) if (key.startsWith(`${arc.id}:`)) next.links.delete(key);
      return next;
    };
    return { label: 'delete arc', method: 'DELETE', path: `${this.base()}/arcs/${arc.slug}`, expect: 204, acknowledged: apply, appliedIn: apply };
  }

  private link(thing: ThingModel, arc: ArcModel): Operation {
    const apply = (model: Model) => {
      const next = clone(model);
      next.links.add(linkKey(arc.id, thing.id));
      return next;
    };
    return { label: 'link', method: 'POST', path: `${this.base()}/things/${thing.slug}/arcs`, json: { arcSlug: arc.slug }, expect: 200, acknowledged: apply, appliedIn: apply };
  }

  private unlink(key: string): Operation {
    const [arcId, thingId] = key.split(':').map(Number) as [number, number];
    const thing = this.model.things.get(thingId)!;
    const arc = this.model.arcs.get(arcId)!;
    const apply = (model: Model) => {
      const next = clone(model);
      next.links.delete(key);
      return next;
    };
    return { label: 'unlink', method: 'DELETE', path: `${this.base()}/things/${thing.slug}/arcs/${arc.slug}`, expect: 204, acknowledged: apply, appliedIn: apply };
  }

  private createType(): Operation {
    const name = this.name('type');
    return {
      label: 'create thing type',
      method: 'POST',
      path: `${this.base()}/thing-types`,
      json: { newThingType: { name } },
      expect: 201,
      acknowledged: (model, res) => {
        const next = clone(model);
        next.types.set(res.body.id as number, name);
        return next;
      },
      appliedIn: (model, db) => {
        const fresh = [...db.types].filter(([id, n]) => n === name && !model.types.has(id));
        if (fresh.length !== 1) return `${fresh.length} new types named "${name}"`;
        const next = clone(model);
        next.types.set(fresh[0]![0], name);
        return next;
      },
    };
  }

  private deleteType(typeId: number): Operation {
    const apply = (model: Model) => {
      const next = clone(model);
      next.types.delete(typeId);
      for (const thing of [...next.things.values()]) {
        if (thing.typeId !== typeId) continue;
        next.things.delete(thing.id);
        for (const key of [...next.links]) if (key.endsWith(`:${thing.id}`)) next.links.delete(key);
      }
      return next;
    };
    return { label: 'delete thing type', method: 'DELETE', path: `${this.base()}/thing-types/${typeId}`, expect: 204, acknowledged: apply, appliedIn: apply };
  }

  private deleteCampaign(): Operation {
    const id = this.model.campaign!.id;
    return {
      label: 'delete campaign',
      method: 'DELETE',
      path: this.base(),
      expect: 204,
      acknowledged: () => {
        this.deletedCampaigns.push(id);
        return emptyModel();
      },
      appliedIn: () => {
        this.deletedCampaigns.push(id);
        return emptyModel();
      },
    };
  }

  /** Writes until the server stops answering; returns problems (unexpected answers). */
  async run(base: string, stop: () => boolean): Promise<string[]> {
    this.inFlight = null;
    const problems: string[] = [];
    while (!stop()) {
      const next = this.nextOperation();
      if (next === 'read-types') {
        try {
          const res = await api(base, 'GET', `${this.base()}/thing-types`, { token: this.token });
          if (res.status !== 200) {
            problems.push(`W${this.index} read types: ${res.status}`);
            return problems;
          }
          this.model.types = new Map((res.body as { id: number; name: string }[]).map((t) => [t.id, t.name]));
          this.typesUnknown = false;
        } catch (error) {
          if (!isNetworkError(error)) throw error;
          return problems;
        }
        continue;
      }
      let res: ApiResponse;
      try {
        res = await api(base, next.method, next.path, { token: this.token, ...(next.json !== undefined ? { json: next.json } : {}), ...(next.headers ? { headers: next.headers } : {}) });
      } catch (error) {
        if (!isNetworkError(error)) throw error;
        // No answer: the server died with this request somewhere between sent and acknowledged.
        this.inFlight = next;
        return problems;
      }
      if (res.status !== next.expect) {
        problems.push(`W${this.index} ${next.label} ${next.method} ${next.path}: expected ${next.expect}, got ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
        return problems;
      }
      this.model = next.acknowledged(this.model, res);
      this.acknowledgedWrites += 1;
    }
    return problems;
  }

  /** Compares the database with the model; resolves the in-flight request (applied wholly, or not at all). */
  async verify(database: Database): Promise<{ problems: string[]; records: number; applied?: boolean }> {
    const op = this.inFlight;
    this.inFlight = null;
    const gone: string[] = [];
    for (const id of this.deletedCampaigns) {
      const left = await readModel(database, { id, name: '' });
      if (left.campaign || left.things.size + left.arcs.size + left.types.size + left.links.size > 0) gone.push(`W${this.index}: deleted campaign ${id} is back`);
    }
    if (gone.length > 0) return { problems: gone, records: 0 };
    const campaign = this.model.campaign ?? (op?.label === 'create campaign' ? { name: (op.json as { newCampaign: { name: string } }).newCampaign.name } : null);
    if (!campaign) return { problems: [], records: 0 };
    const found = await readModel(database, campaign);
    const records = found.types.size + found.things.size + found.arcs.size + found.links.size;
    if (this.typesUnknown && found.campaign) {
      // The campaign was acknowledged but its types not yet read: they must be the three defaults.
      const names = [...found.types.values()].sort();
      if (JSON.stringify(names) !== JSON.stringify(DEFAULT_TYPES) || found.things.size + found.arcs.size > 0) {
        return { problems: [`W${this.index}: a new campaign holds ${JSON.stringify(names)} and ${found.things.size} things`], records };
      }
      this.model.types = new Map(found.types);
      this.typesUnknown = false;
    }
    const asModelled = canonical(this.model) === canonical(found);
    if (!op) {
      return asModelled ? { problems: [], records } : { problems: [`W${this.index}: the database differs from what was acknowledged: ${describeDifference(this.model, found)}`], records };
    }
    if (asModelled) return { problems: [], records, applied: false };
    const applied = op.appliedIn(this.model, found);
    if (typeof applied !== 'string' && canonical(applied) === canonical(found)) {
      this.model = applied;
      if (this.typesUnknown && found.campaign) {
        this.model.types = new Map(found.types);
        this.typesUnknown = false;
      }
      return { problems: [], records, applied: true };
    }
    const why = typeof applied === 'string' ? applied : describeDifference(applied, found);
    return {
      problems: [
        `W${this.index}: the request in flight (${op.label} ${op.method} ${op.path}) is neither absent nor wholly applied: ${why}; versus nothing applied: ${describeDifference(this.model, found)}`,
      ],
      records,
    };
  }
}

function random(seed: number) {
  let state = seed >>> 0 || 1;
  return (n: number) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const log = options.log ?? (() => {});
  const pick = random(options.seed ?? Date.now());
  const report: ChaosReport = { kills: 0, acknowledgedWrites: 0, recordsVerified: 0, inFlightApplied: 0, inFlightNotApplied: 0, problems: [] };
  let server: ServerProcess = await startServer({ env: options.env, ...(options.entry ? { entry: options.entry } : {}) });
  const token = await registerWithToken(server.base, `chaos-${Date.now()}@example.test`);
  const writers = Array.from({ length: options.writers }, (_, i) => new Writer(i, token, random((options.seed ?? Date.now()) + i + 1)));
  const database = options.openDatabase();
  try {
    for (let round = 1; round <= options.kills; round++) {
      let killed = false;
      const running = writers.map((w) => w.run(server.base, () => killed));
      const runMs = options.minRunMs + pick(Math.max(1, options.maxRunMs - options.minRunMs));
      await sleep(runMs);
      server.kill('SIGKILL');
      await server.exited;
      killed = true;
      report.kills += 1;
      for (const problems of await Promise.all(running)) report.problems.push(...problems);
      // What the killed instance had queued for search indexing and not indexed yet (src/db/indexes/search-queue.ts).
      const queuedAtKill = Number((await sql<{ n: number }>`select count(*) as n from search_pending`.execute(database.kysely)).rows[0]?.n ?? 0);
      report.searchQueuedAtKill = (report.searchQueuedAtKill ?? 0) + queuedAtKill;

      server = await startServer({ env: options.env, ...(options.entry ? { entry: options.entry } : {}), port: server.port });
      let inFlight = 0;
      for (const writer of writers) {
        if (writer.inFlight) inFlight += 1;
        const result = await writer.verify(database);
        report.recordsVerified += result.records;
        if (result.applied === true) report.inFlightApplied += 1;
        if (result.applied === false) report.inFlightNotApplied += 1;
        report.problems.push(...result.problems);
      }
      // The restarted instance indexed what was left queued before its first request.
      const queuedAfter = Number((await sql<{ n: number }>`select count(*) as n from search_pending`.execute(database.kysely)).rows[0]?.n ?? 0);
      if (queuedAfter > 0) report.problems.push(`after kill ${round}: ${queuedAfter} records still queued for search indexing after the restart`);
      const integrity = await integrityProblems(database.kysely, database.dialect);
      report.problems.push(...integrity.map((p) => `after kill ${round}: ${p}`));
      report.acknowledgedWrites = writers.reduce((n, w) => n + w.acknowledgedWrites, 0);
      log(`kill ${round}/${options.kills} after ${runMs} ms: ${report.acknowledgedWrites} writes acknowledged so far, ${inFlight} in flight at the kill, database ${report.problems.length === 0 ? 'verified' : `has ${report.problems.length} problems`}`);
      if (report.problems.length > 0) break;
    }
    // The server still works after all that: it answers and serves what it stored.
    const health = await api(server.base, 'GET', '/api/health');
    if (health.status !== 200) report.problems.push(`health after the last restart: ${health.status}`);
    if (database.dialect === 'sqlite') {
      const { rows } = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(database.kysely);
      if (rows[0]?.journal_mode !== 'wal') report.problems.push(`journal_mode is ${rows[0]?.journal_mode}, not wal`);
    }
  } finally {
    await stopServer(server, 'SIGTERM').catch(() => {});
    await database.close();
  }
  return report;
}
