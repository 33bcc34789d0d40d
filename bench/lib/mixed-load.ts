// The mixed read/write load of the cluster benchmark, and the record of every write it got an
// answer to, so the verifier can read each one back afterwards.
//
// About 70% reads (lists and single records) and 30% writes (new things, updates of things, links).
// Each connection owns its own share of the things it updates and sends one request at a time, so
// the last update a thing got acknowledged is the value it must hold. A request that got no answer
// (in flight when a run ends, or timed out) may or may not have been applied: its value is
// remembered as "uncertain" and also accepted.
import type { LoadRequest } from './load.js';
import { prng, sizedDescription } from './content.js';
import type { SeededCampaign } from '../seed.js';

export type Kind = 'list' | 'list-100' | 'thing' | 'arc' | 'arcs' | 'types' | 'create' | 'update' | 'link';

const MIX: [Kind, number][] = [
  ['list', 0.25],
  ['thing', 0.2],
  ['arc', 0.1],
  ['arcs', 0.05],
  ['list-100', 0.05],
  ['types', 0.05],
  ['create', 0.12],
  ['update', 0.12],
  ['link', 0.06],
];

// The write-heavy mix (`bench:cluster -- --writes`): mostly updates of things with 2 KiB
// descriptions, new things (half of them with names other connections and instances use too),
// links, and a few reads.
const WRITE_HEAVY_MIX: [Kind, number][] = [
  ['update', 0.6],
  ['create', 0.2],
  ['link', 0.1],
  ['list', 0.05],
  ['thing', 0.05],
];

/** The 2 KiB texts an update of the write-heavy mix appends after its revision token. */
const LONG_TEXTS = Array.from({ length: 32 }, (_, i) => sizedDescription(70_000 + i));

export type Mix = 'mixed' | 'writes';

export const WRITE_KINDS: ReadonlySet<Kind> = new Set(['create', 'update', 'link']);

interface Pending {
  kind: Kind;
  /** create: the name; update: the revision token; link: "thing arc". */
  value: string;
  thingSlug?: string;
}

export interface ProblemSample {
  instance: string;
  kind: Kind;
  status: number;
  body: string;
}

/** Everything the load learnt, across runs and instances. */
export class WriteLog {
  /** slug → name of every thing whose creation was acknowledged. */
  readonly created = new Map<string, string>();
  createdUncertain = 0;
  /** thing slug → the last acknowledged revision token, and every unanswered one. */
  readonly updates = new Map<string, { acked?: string; uncertain: Set<string> }>();
  /** "thingSlug arcSlug" of every acknowledged link. */
  readonly links = new Set<string>();
  linksUncertain = 0;
  /** status counts per instance and kind. */
  readonly statuses = new Map<string, Map<Kind, Map<number, number>>>();
  readonly problems: ProblemSample[] = [];

  countStatus(instance: string, kind: Kind, status: number): void {
    let byKind = this.statuses.get(instance);
    if (!byKind) this.statuses.set(instance, (byKind = new Map<Kind, Map<number, number>>()));
    let byStatus = byKind.get(kind);
    if (!byStatus) byKind.set(kind, (byStatus = new Map<number, number>()));
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  }

  update(slug: string) {
    let entry = this.updates.get(slug);
    if (!entry) this.updates.set(slug, (entry = { uncertain: new Set() }));
    return entry;
  }

  /** A request that never got an answer: it may or may not have been applied. */
  unanswered(pending: Pending): void {
    if (pending.kind === 'create') this.createdUncertain += 1;
    else if (pending.kind === 'update' && pending.thingSlug) this.update(pending.thingSlug).uncertain.add(pending.value);
    else if (pending.kind === 'link') this.linksUncertain += 1;
  }

  answered(instance: string, pending: Pending, status: number, body: string): void {
    this.countStatus(instance, pending.kind, status);
    if (status < 200 || status > 299) {
      if (this.problems.length < 50) this.problems.push({ instance, kind: pending.kind, status, body: body.slice(0, 300) });
      return;
    }
    if (pending.kind === 'create') {
      let slug: unknown;
      try {
        slug = (JSON.parse(body) as { slug?: unknown }).slug;
      } catch {
        slug = undefined;
      }
      if (typeof slug === 'string') this.created.set(slug, pending.value);
      else this.problems.push({ instance, kind: pending.kind, status, body: `unreadable 2xx body: ${body.slice(0, 200)}` });
    } else if (pending.kind === 'update' && pending.thingSlug) {
      this.update(pending.thingSlug).acked = pending.value;
    } else if (pending.kind === 'link') {
      this.links.add(pending.value);
    }
  }

  /** Writes acknowledged so far (for per-step figures). */
  acknowledgedWrites(): number {
    let total = 0;
    for (const byKind of this.statuses.values()) {
      for (const [kind, byStatus] of byKind) {
        if (!WRITE_KINDS.has(kind)) continue;
        for (const [status, count] of byStatus) if (status >= 200 && status <= 299) total += count;
      }
    }
    return total;
  }
}

export interface MixedLoadOptions {
  campaign: SeededCampaign;
  log: WriteLog;
  instance: string;
  /** This connection's slot among the connections of the step that load this campaign, and their number. */
  slot: number;
  slots: number;
  /** Distinguishes the names and revisions of one step (and run) from another's. */
  tag: string;
  /** 'mixed' (the default): ≈70% reads; 'writes': ≈90% writes, updates with 2 KiB descriptions. */
  mix?: Mix;
}

/** The request sequence of one connection: a single entry whose setup draws the next request. */
export function mixedRequests(options: MixedLoadOptions): { requests: LoadRequest[]; flush: () => void } {
  const { campaign, log, instance, slot, slots, tag } = options;
  const writeHeavy = options.mix === 'writes';
  const mix = writeHeavy ? WRITE_HEAVY_MIX : MIX;
  const sharedNames = writeHeavy ? 0.5 : 0.2;
  const base = `/api/campaigns/${campaign.slug}`;
  const random = prng(hash(`${campaign.slug}/${tag}/${slot}`));
  const owned = campaign.things.filter((_, i) => i % slots === slot);
  let pending: Pending | undefined;
  let sequence = 0;
  const anyThing = () => campaign.things[Math.floor(random() * campaign.things.length)] ?? campaign.sampleThing;
  const anyArc = () => campaign.arcs[Math.floor(random() * campaign.arcs.length)] ?? campaign.sampleArc;

  const draw = (): Kind => {
    let r = random();
    for (const [kind, share] of mix) {
      if (r < share) return kind === 'update' && owned.length === 0 ? 'list' : kind;
      r -= share;
    }
    return 'list';
  };

  const setupRequest = (request: LoadRequest): LoadRequest => {
    if (pending) log.unanswered(pending);
    sequence += 1;
    const kind = draw();
    const json = { ...request.headers, 'content-type': 'application/json' };
    switch (kind) {
      case 'list':
        pending = { kind, value: '' };
        return { ...request, method: 'GET', path: `${base}/things` };
      case 'list-100':
        pending = { kind, value: '' };
        return { ...request, method: 'GET', path: `${base}/things?count=100` };
      case 'thing':
        pending = { kind, value: '' };
        return { ...request, method: 'GET', path: `${base}/things/${anyThing().slug}` };
      case 'arc':
        pending = { kind, value: '' };
        return { ...request, method: 'GET', path: `${base}/arcs/${anyArc().slug}` };
      case 'arcs':
        pending = { kind, value: '' };
        return { ...request, method: 'GET', path: `${base}/arcs` };
      case 'types':
        pending = { kind, value: '' };
        return { ...request, method: 'GET', path: `${base}/thing-types` };
      case 'create': {
        // One in five (one in two when write-heavy) takes a name other connections and instances
        // use too, so generated slugs collide across instances and must come out unique anyway.
        const name = random() < sharedNames ? `Shared Name ${Math.floor(random() * 10)}` : `Cluster ${tag} ${slot} ${sequence}`;
        const typeId = campaign.typeIds[sequence % campaign.typeIds.length];
        pending = { kind, value: name };
        return { ...request, method: 'POST', path: `${base}/things`, headers: json, body: JSON.stringify({ newThing: { name, typeId } }) };
      }
      case 'update': {
        const thing = owned[sequence % owned.length] ?? campaign.sampleThing;
        const revision = `rev ${tag} ${slot} ${sequence}`;
        pending = { kind, value: revision, thingSlug: thing.slug };
        // The revision token is the first text of the description, where the verifier reads it.
        const first = { type: 'paragraph', children: [{ text: revision }] };
        const description = writeHeavy ? [first, ...(LONG_TEXTS[sequence % LONG_TEXTS.length] ?? [])] : [first];
        const body = JSON.stringify({ updatedThing: { description } });
        return { ...request, method: 'PUT', path: `${base}/things/${thing.slug}`, headers: json, body };
      }
      case 'link': {
        const thing = anyThing();
        const arc = anyArc();
        pending = { kind, value: `${thing.slug} ${arc.slug}` };
        return { ...request, method: 'POST', path: `${base}/things/${thing.slug}/arcs`, headers: json, body: JSON.stringify({ arcSlug: arc.slug }) };
      }
    }
  };

  const onResponse = (status: number, body: string) => {
    const answered = pending;
    pending = undefined;
    if (answered) log.answered(instance, answered, status, body);
  };

  return {
    requests: [{ method: 'GET', path: `${base}/things`, setupRequest, onResponse }],
    // At the end of a run: the request still in flight got no answer.
    flush: () => {
      if (pending) log.unanswered(pending);
      pending = undefined;
    },
  };
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}
