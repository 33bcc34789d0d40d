// After the cluster load: reads every acknowledged write back through every instance, and checks
// the invariants that must hold however many instances share the database.
import type { SeededCampaign } from '../seed.js';
import { Api, mapLimit } from '../../toolkit/http.js';
import type { WriteLog } from './mixed-load.js';
import type { ServerProcess } from '../../toolkit/server.js';

export interface Check {
  name: string;
  pass: boolean;
  detail: string;
}

interface ListedThing {
  id: number;
  slug: string;
  name: string;
  description: unknown;
}

const SAMPLE = 300;
const CONCURRENCY = 16;

/** The revision token a cluster update wrote into a description (its first text leaf). */
function revisionOf(description: unknown): string | undefined {
  const first = Array.isArray(description) ? (description[0] as { children?: { text?: unknown }[] } | undefined) : undefined;
  const text = first?.children?.[0]?.text;
  return typeof text === 'string' ? text : undefined;
}

class Reader {
  readonly statuses = new Map<number, number>();
  constructor(readonly api: Api) {}

  async get(path: string) {
    const response = await this.api.request('GET', path);
    this.statuses.set(response.status, (this.statuses.get(response.status) ?? 0) + 1);
    return response;
  }

  /** The whole things list, following the Link header from page to page. */
  async fullList(base: string): Promise<{ things: ListedThing[]; pages: number }> {
    const things: ListedThing[] = [];
    let next: string | undefined = `${base}/things?fetchAll=true`;
    let pages = 0;
    while (next !== undefined) {
      if (++pages > 10_000) throw new Error('the things list did not end after 10,000 pages');
      const response = await this.get(next);
      if (response.status !== 200) throw new Error(`GET ${next}: ${response.status} ${response.text.slice(0, 300)}`);
      things.push(...(response.body as ListedThing[]));
      next = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
    }
    return { things, pages };
  }
}

function sample<T>(items: T[], size: number): T[] {
  if (items.length <= size) return items;
  // The most recent third, and an even spread over the rest.
  const recent = items.slice(-Math.floor(size / 3));
  const rest = items.slice(0, items.length - recent.length);
  const step = rest.length / (size - recent.length);
  return [...Array.from({ length: size - recent.length }, (_, i) => rest[Math.floor(i * step)] as T), ...recent];
}

export interface CampaignLoad {
  campaign: SeededCampaign;
  log: WriteLog;
}

/** Every check over every campaign the load wrote to, through every instance. */
export async function verifyCluster(instances: ServerProcess[], token: string, targets: CampaignLoad[]): Promise<Check[]> {
  const checks: Check[] = [];
  const check = (name: string, failures: string[], passDetail: string) =>
    checks.push({ name, pass: failures.length === 0, detail: failures.length === 0 ? passDetail : `${failures.length} problem(s): ${failures.slice(0, 5).join('; ')}` });
  const readers = instances.map((server) => ({ server, reader: new Reader(new Api(server.base).withToken(token)) }));
  const fmt = (n: number) => n.toLocaleString('en-US');

  // What the load itself saw.
  const fiveHundreds: string[] = [];
  const otherNon2xx: string[] = [];
  let answers = 0;
  for (const { log } of targets) {
    for (const [instance, byKind] of log.statuses) {
      for (const [kind, byStatus] of byKind) {
        for (const [status, count] of byStatus) {
          answers += count;
          if (status >= 500) fiveHundreds.push(`${count}× ${status} on ${kind} via ${instance}`);
          else if (status < 200 || status > 299) otherNon2xx.push(`${count}× ${status} on ${kind} via ${instance}`);
        }
      }
    }
  }
  const samples = targets.flatMap(({ log }) => log.problems.slice(0, 3).map((p) => `${p.status} ${p.kind} via ${p.instance}: ${p.body}`));
  check('no 5xx under load', [...fiveHundreds, ...(fiveHundreds.length > 0 ? samples : [])], `${fmt(answers)} answers, none 5xx`);
  check('every request of the mix answered 2xx', [...otherNon2xx, ...(otherNon2xx.length > 0 ? samples : [])], 'all 2xx');

  const uniqueness: string[] = [];
  const sameEverywhere: string[] = [];
  const created: string[] = [];
  const updates: string[] = [];
  const links: string[] = [];
  const totals = { listed: 0, created: 0, createdSampled: 0, createdUnanswered: 0, updated: 0, updatesUnanswered: 0, links: 0, linkedSampled: 0, linksUnanswered: 0 };

  for (const { campaign, log } of targets) {
    const base = `/api/campaigns/${campaign.slug}`;
    const where = (name: string) => `${name}, ${campaign.slug}`;

    // The full list through every instance: unique slugs, the same content everywhere.
    const lists = new Map<string, ListedThing[]>();
    for (const { server, reader } of readers) {
      const { things, pages } = await reader.fullList(base);
      lists.set(server.name, things);
      const slugs = new Set(things.map((t) => t.slug));
      const ids = new Set(things.map((t) => t.id));
      if (slugs.size !== things.length) uniqueness.push(`${where(server.name)}: ${things.length - slugs.size} duplicate slug(s) in ${pages} pages`);
      if (ids.size !== things.length) uniqueness.push(`${where(server.name)}: ${things.length - ids.size} duplicate id(s) (the cursor repeated rows)`);
      const low = campaign.things.length + log.created.size;
      const high = low + log.createdUncertain;
      if (things.length < low || things.length > high) uniqueness.push(`${where(server.name)}: ${things.length} things listed, expected ${low}…${high}`);
    }
    const firstList = lists.get(instances[0]?.name ?? '') ?? [];
    totals.listed += firstList.length;
    const fingerprint = (things: ListedThing[]) => things.map((t) => `${t.id}:${t.slug}:${revisionOf(t.description) ?? ''}`).sort().join('\n');
    const reference = fingerprint(firstList);
    for (const [name, things] of lists) if (fingerprint(things) !== reference) sameEverywhere.push(`${where(name)} differs from ${instances[0]?.name}`);

    // Created things: in every list, and readable one by one.
    for (const [name, things] of lists) {
      const bySlug = new Map(things.map((t) => [t.slug, t]));
      for (const [slug, thingName] of log.created) {
        const found = bySlug.get(slug);
        if (!found) created.push(`${slug} missing from the list of ${where(name)}`);
        else if (found.name !== thingName) created.push(`${slug} is named "${found.name}" on ${where(name)}, not "${thingName}"`);
      }
    }
    const createdSample = sample([...log.created], Math.ceil(SAMPLE / targets.length));
    for (const { server, reader } of readers) {
      await mapLimit(createdSample, CONCURRENCY, async ([slug, thingName]) => {
        const response = await reader.get(`${base}/things/${slug}`);
        const name = (response.body as { name?: string } | undefined)?.name;
        if (response.status !== 200 || name !== thingName) created.push(`GET ${slug} via ${where(server.name)}: ${response.status} ${name ?? ''}`);
      });
    }
    totals.created += log.created.size;
    totals.createdSampled += createdSample.length;
    totals.createdUnanswered += log.createdUncertain;

    // Updates: each thing holds its last acknowledged revision (or one that got no answer).
    const updated = [...log.updates].filter(([, u]) => u.acked !== undefined);
    const accepts = (slug: string, revision: string | undefined) => {
      const entry = log.updates.get(slug);
      return revision !== undefined && (revision === entry?.acked || entry?.uncertain.has(revision) === true);
    };
    for (const [name, things] of lists) {
      const bySlug = new Map(things.map((t) => [t.slug, t]));
      for (const [slug, entry] of updated) {
        const revision = revisionOf(bySlug.get(slug)?.description);
        if (!accepts(slug, revision)) updates.push(`${slug} on ${where(name)} holds "${revision}", last acknowledged "${entry.acked}"`);
      }
    }
    for (const { server, reader } of readers) {
      await mapLimit(updated, CONCURRENCY, async ([slug, entry]) => {
        const response = await reader.get(`${base}/things/${slug}`);
        const revision = revisionOf((response.body as { description?: unknown } | undefined)?.description);
        if (response.status !== 200 || !accepts(slug, revision)) {
          updates.push(`GET ${slug} via ${where(server.name)}: ${response.status} "${revision}", last acknowledged "${entry.acked}"`);
        }
      });
    }
    totals.updated += updated.length;
    totals.updatesUnanswered += [...log.updates.values()].reduce((n, u) => n + u.uncertain.size, 0);

    // Links: in the arcs list, and in the arcs of each thing.
    for (const { server, reader } of readers) {
      const response = await reader.get(`${base}/arcs`);
      const arcs = (response.status === 200 ? response.body : []) as { slug: string; things: { slug: string }[] }[];
      const pairs = new Set(arcs.flatMap((arc) => arc.things.map((t) => `${t.slug} ${arc.slug}`)));
      for (const pair of log.links) if (!pairs.has(pair)) links.push(`${pair} missing from GET /arcs via ${where(server.name)}`);
    }
    const linkedThings = sample([...new Set([...log.links].map((pair) => pair.split(' ')[0] as string))], Math.ceil(100 / targets.length));
    for (const { server, reader } of readers) {
      await mapLimit(linkedThings, CONCURRENCY, async (slug) => {
        const response = await reader.get(`${base}/things/${slug}/arcs`);
        const arcSlugs = new Set(((response.status === 200 ? response.body : []) as { slug: string }[]).map((a) => a.slug));
        for (const pair of log.links) {
          const [thing, arc] = pair.split(' ');
          if (thing === slug && arc !== undefined && !arcSlugs.has(arc)) links.push(`${pair} missing from GET /things/${slug}/arcs via ${where(server.name)}`);
        }
      });
    }
    totals.links += log.links.size;
    totals.linkedSampled += linkedThings.length;
    totals.linksUnanswered += log.linksUncertain;
  }

  const on = `${instances.length} instance${instances.length === 1 ? '' : 's'}, ${targets.length} campaign${targets.length === 1 ? '' : 's'}`;
  check('slugs unique (full lists read with the Link cursor through every instance)', uniqueness, `${fmt(totals.listed)} things, no duplicate slug or id, on each of ${on}`);
  check('every instance lists the same things with the same content', sameEverywhere, 'identical lists');
  check(
    'every acknowledged POST /things readable through every instance',
    created,
    `${fmt(totals.created)} created things in every list; ${fmt(totals.createdSampled)} read one by one through each instance (${fmt(totals.createdUnanswered)} POSTs got no answer)`,
  );
  check(
    'every acknowledged PUT /things/{slug} readable through every instance',
    updates,
    `${fmt(totals.updated)} updated things hold their last acknowledged revision, in the lists and one by one (${fmt(totals.updatesUnanswered)} PUTs got no answer)`,
  );
  check(
    'every acknowledged link readable through every instance',
    links,
    `${fmt(totals.links)} links in GET /arcs of every instance; the arcs of ${fmt(totals.linkedSampled)} things read one by one (${fmt(totals.linksUnanswered)} links got no answer)`,
  );
  const verification5xx: string[] = [];
  for (const { server, reader } of readers) {
    for (const [status, count] of reader.statuses) if (status >= 500) verification5xx.push(`${count}× ${status} via ${server.name}`);
  }
  check('no 5xx while verifying', verification5xx, 'none');
  return checks;
}

/**
 * Failed logins of one account spread over the instances in turn: with a limit of `max` failures,
 * attempt max+1 must be refused (429) whichever instance receives it. Once per instance, each time
 * with a new account, so each instance gets to answer the refused attempt.
 */
export async function verifySharedRateLimit(instances: ServerProcess[], max: number): Promise<Check> {
  const failures: string[] = [];
  const run = Date.now().toString(36);
  for (let round = 0; round < instances.length; round++) {
    const email = `rate-limit-${run}-${round}@example.com`;
    const seen: string[] = [];
    for (let attempt = 0; attempt <= max; attempt++) {
      // The last attempt (index max) lands on instance `round`.
      const target = instances[(((round - max + attempt) % instances.length) + instances.length) % instances.length] as ServerProcess;
      const response = await new Api(target.base).request('POST', '/api/auth/login', { email, password: 'not the password 123' });
      seen.push(`${response.status}@${target.name}`);
      const expected = attempt < max ? 401 : 429;
      if (response.status !== expected) failures.push(`round ${round + 1}, attempt ${attempt + 1} via ${target.name}: ${response.status}, expected ${expected}`);
      if (response.status === 429 && !response.headers.get('retry-after')) failures.push(`429 via ${target.name} without Retry-After`);
    }
    if (failures.length > 0) failures.push(`round ${round + 1}: ${seen.join(' ')}`);
  }
  const last = instances.map((s) => s.name).join(', ');
  return {
    name: `rate-limit counters shared (LOGIN_MAX_FAILURES_PER_ACCOUNT=${max}, failed logins alternating over the instances)`,
    pass: failures.length === 0,
    detail: failures.length === 0 ? `attempts 1–${max} 401, attempt ${max + 1} 429 with Retry-After, the refusal answered in turn by ${last}` : failures.join('; '),
  };
}

