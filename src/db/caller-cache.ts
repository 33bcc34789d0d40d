import type pg from 'pg';
import type { Kysely } from 'kysely';
import { Announcements, noticesOf } from './announcements.js';
import type { CampaignRow, DB, Role, UserRow } from './schema.js';
import { Notifications } from './notifications.js';
import type { WriteScope } from './write-scope.js';

/** What the per-request lookup finds (db/repositories/credentials.ts), as far as the cache cares. */
export interface CallerLookup {
  user: UserRow;
  campaign: CampaignRow | undefined;
  role: Role | undefined;
  /** When the session or token stops working (null: a token that never expires). */
  expiresAt: string | null;
}

interface Entry {
  value: CallerLookup;
  /** The listening connection's epoch when the lookup started: the entry is good only within it. */
  epoch: number;
  loadedAt: number;
}

export interface CallerCacheOptions {
  maxEntries: number;
  /** A backstop, not the mechanism: notices invalidate entries; none lives longer than this. */
  ttlMs: number;
}

export const CALLER_CHANNEL = 'loreforge_callers';

/**
 * PostgreSQL only: the lookups of caller, campaign and membership that authenticate requests, kept
 * in memory and invalidated by the notices the triggers of migrations 0026, 0028 and 0033 send at
 * commit (see there for the payloads), and by the content versions the instances announce after
 * their writes commit (announce). Safety rules:
 * - an entry is used only while the listening connection is up and has been up, without a break,
 *   since the lookup that loaded it started (its epoch); when the connection drops, everything is
 *   dropped and every request goes to the database until it listens again; and only while the
 *   connection has answered within the last 3 s (a heartbeat every 0.5 s: notifications.ts
 *   `fresh`), so a connection that stalls without closing stops serving entries within 3 s;
 * - a lookup during which a notice about its user or its campaign arrived is not kept (it may have
 *   read the state before the change the notice announces, and the notice has already gone by);
 *   notices about other users and campaigns do not matter to it; a content version announced
 *   meanwhile is applied to it as it is kept;
 * - a lookup that found no caller, or not the campaign it was asked for, is never kept: nothing
 *   announces the arrival of a new session, token, campaign slug or membership;
 * - the heartbeat reads back the content versions of the campaigns kept, so a write whose
 *   announcement never went out (its instance died right after the commit, or could not reach the
 *   database) is seen within 0.5 s;
 * - entries are bounded in count and age, and a session or token past its expiry is looked up again;
 * - the bookkeeping (which user, campaign and membership was noticed when; the versions announced)
 *   is bounded too: past maxEntries the oldest record is forgotten, one at a time, and a lookup
 *   that started before it was noticed is not kept (it may have been about that one).
 */
export class CallerCache {
  private readonly entries = new Map<string, Entry>();
  /** Counts the notices received; each user and campaign remembers the count at its last notice. */
  private seq = 0;
  /** Notices up to this count are no longer known one by one: lookups that started before are not kept. */
  private forgottenAt = 0;
  private readonly userNoticedAt = new Map<string, number>();
  private readonly campaignNoticedAt = new Map<number, number>();
  private readonly memberNoticedAt = new Map<string, number>();
  /** The latest content_version announced of each campaign, and the count when it was. */
  private readonly versions = new Map<number, { version: number; at: number }>();
  /** performance.now() when the last notice was applied (tests measure how soon notices arrive). */
  lastNoticeAt = 0;
  readonly notifications: Notifications;
  private readonly announcements: Announcements;

  constructor(
    connect: ConstructorParameters<typeof Notifications>[0],
    private readonly options: CallerCacheOptions = { maxEntries: 10_000, ttlMs: 60_000 },
    /** Announces through the pool while the listening connection is down. */
    db?: Kysely<DB>,
  ) {
    this.notifications = new Notifications(connect, CALLER_CHANNEL, (payload) => this.invalidate(payload), () => this.clear(), undefined, (client) => this.probe(client));
    this.announcements = new Announcements(this.notifications, CALLER_CHANNEL, db);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The lookup of `kind` `secretHash` for campaign `slug`, from memory when safe, else by `load`. */
  async lookup<V extends CallerLookup>(kind: 'session' | 'token', secretHash: string, slug: string | undefined, nowMs: number, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const key = `${kind}:${secretHash}:${slug ?? ''}`;
    const notifications = this.notifications;
    const entry = this.entries.get(key);
    if (entry) {
      const { value } = entry;
      const live = value.expiresAt === null || Date.parse(value.expiresAt) > nowMs;
      this.entries.delete(key);
      // The kind is part of the key: a session's entry holds what findSessionUser found, a token's findTokenUser.
      if (live && notifications.fresh && entry.epoch === notifications.epoch && nowMs - entry.loadedAt < this.options.ttlMs) {
        // Put back last: when full, the least recently used entry goes first.
        this.entries.set(key, entry);
        return value as V;
      }
    }
    const listening = notifications.listening;
    const epoch = notifications.epoch;
    const seq = this.seq;
    const value = await load();
    if (value === undefined || (slug !== undefined && value.campaign === undefined)) return value;
    if (!listening || !notifications.fresh || notifications.epoch !== epoch || !this.untouchedSince(seq, value)) return value;
    if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value: freeze(this.withKnownVersion(value)), epoch, loadedAt: nowMs });
    return value;
  }

  /** Drops what is kept of one credential (after the request itself wrote to it: a touch, an extension). */
  forget(kind: 'session' | 'token', secretHash: string): void {
    const prefix = `${kind}:${secretHash}:`;
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  /** Follows the writes of one request (write-scope.ts); `settled()` is what its answer waits for. */
  requestWrites(): WriteScope & { settled(): Promise<void> } {
    const announcements: Promise<boolean>[] = [];
    let notices = false;
    return {
      committed: (campaignId, notified) => {
        notices ||= notified;
        announcements.push(this.announce(campaignId));
      },
      unannounced: () => {
        notices = true;
      },
      // Without any announced write, the request may have written in other ways: the barrier.
      // With a campaign erased right after its write committed, the erasure's notice is awaited too.
      settled: async () => {
        const sent = await Promise.all(announcements);
        if (notices || sent.length === 0 || sent.includes(false)) await this.settle();
      },
    };
  }

  /**
   * A write of this instance committed in the campaign (its transaction sent no notice of it:
   * migration 0028): announced to every instance (announcements.ts) with the content_version read
   * after the commit, and applied here. Resolves once the announcement is committed: true, or false
   * when the campaign no longer exists. When it could not be sent, what is kept of the campaign here
   * is dropped (its version is not known), and the other instances' heartbeats read it.
   */
  async announce(campaignId: number): Promise<boolean> {
    const announced = await this.announcements.add(campaignId);
    if (announced === 'gone') return false;
    if (announced === 'unsent') this.apply(`c:${campaignId}`);
    else this.applyVersion(campaignId, announced.version);
    return true;
  }

  /**
   * Waits until every notice committed so far has been applied (Notifications.sync). The answer of
   * a write that may have sent notices waits for it, so that instance's next request sees the
   * write's effects at once; when the connection is down nothing is kept, and there is nothing to
   * wait for. Writes that finish while a barrier is on its way share the next one.
   */
  settle(): Promise<void> {
    if (!this.notifications.listening) return Promise.resolve();
    if (this.nextBarrier) return this.nextBarrier;
    if (!this.barrier) return this.startBarrier();
    const next = this.barrier.then(() => {
      this.nextBarrier = undefined;
      return this.startBarrier();
    });
    this.nextBarrier = next;
    return next;
  }

  private barrier: Promise<void> | undefined;
  private nextBarrier: Promise<void> | undefined;

  private startBarrier(): Promise<void> {
    const barrier: Promise<void> = this.notifications
      .sync()
      .catch(() => {})
      .finally(() => {
        if (this.barrier === barrier) this.barrier = undefined;
      });
    this.barrier = barrier;
    return barrier;
  }

  clear(): void {
    this.dropAll();
    this.versions.clear();
  }

  /** Applies one notice, or several (announcements.ts noticesOf); one it does not know drops everything. */
  invalidate(payload: string): void {
    this.lastNoticeAt = performance.now();
    for (const notice of noticesOf(payload)) this.apply(notice);
  }

  private apply(notice: string): void {
    this.seq += 1;
    const [kind = '', first = '', second = ''] = notice.split(':');
    const campaignId = Number(first);
    switch (kind) {
      case 'u':
      case 's':
      case 't':
        this.noticed(this.userNoticedAt, first);
        return this.dropWhere((value) => value.user.id === first);
      case 'c':
        this.noticed(this.campaignNoticedAt, campaignId);
        return this.dropWhere((value) => value.campaign?.id === campaignId);
      case 'm':
        this.noticed(this.memberNoticedAt, `${campaignId}:${second}`);
        return this.dropWhere((value) => value.campaign?.id === campaignId && value.user.id === second);
      case 'v':
        if (Number.isSafeInteger(Number(second))) return this.applyVersion(campaignId, Number(second));
        this.noticed(this.campaignNoticedAt, campaignId);
        return this.dropWhere((value) => value.campaign?.id === campaignId);
      default:
        this.dropAll();
    }
  }

  private dropAll(): void {
    this.seq += 1;
    this.forgottenAt = this.seq;
    this.entries.clear();
    this.userNoticedAt.clear();
    this.campaignNoticedAt.clear();
    this.memberNoticedAt.clear();
  }

  private noticed<K>(map: Map<K, number>, key: K): void {
    this.remember(map, key, this.seq, (at) => at);
  }

  // Sets `key` last in `map` (its order is that of the counts); past maxEntries forgets the first,
  // the oldest: lookups that started before its count are not kept any more (untouchedSince).
  private remember<K, T>(map: Map<K, T>, key: K, value: T, countOf: (value: T) => number): void {
    map.delete(key);
    map.set(key, value);
    if (map.size <= this.options.maxEntries) return;
    const [oldest, record] = map.entries().next().value!;
    map.delete(oldest);
    this.forgottenAt = Math.max(this.forgottenAt, countOf(record));
  }

  /** No notice about the lookup's user, campaign or membership, and none forgotten, since `seq`. */
  private untouchedSince(seq: number, value: CallerLookup): boolean {
    if (this.forgottenAt > seq || (this.userNoticedAt.get(value.user.id) ?? 0) > seq) return false;
    const campaign = value.campaign;
    return campaign === undefined || ((this.campaignNoticedAt.get(campaign.id) ?? 0) <= seq && (this.memberNoticedAt.get(`${campaign.id}:${value.user.id}`) ?? 0) <= seq);
  }

  private dropWhere(test: (value: CallerLookup) => boolean): void {
    for (const [key, entry] of this.entries) if (test(entry.value)) this.entries.delete(key);
  }

  // A write inside the campaign: its content_version (which keys the response cache) moves on. It
  // only ever moves forward, whichever of an announcement and a heartbeat's reading comes first.
  private applyVersion(campaignId: number, contentVersion: number): void {
    if (contentVersion <= (this.versions.get(campaignId)?.version ?? 0)) return;
    this.seq += 1;
    this.remember(this.versions, campaignId, { version: contentVersion, at: this.seq }, (record) => record.at);
    for (const entry of this.entries.values()) {
      const campaign = entry.value.campaign;
      if (campaign?.id !== campaignId || campaign.content_version >= contentVersion) continue;
      entry.value = freeze({ ...entry.value, campaign: { ...campaign, content_version: contentVersion } });
    }
  }

  private withKnownVersion<V extends CallerLookup>(value: V): V {
    const campaign = value.campaign;
    const known = campaign && this.versions.get(campaign.id)?.version;
    return campaign && known !== undefined && known > campaign.content_version ? { ...value, campaign: { ...campaign, content_version: known } } : value;
  }

  // The heartbeat: reads back the content versions of the campaigns kept (see the class comment).
  private async probe(client: pg.Client): Promise<void> {
    const ids = new Set<number>();
    for (const { value } of this.entries.values()) if (value.campaign) ids.add(value.campaign.id);
    if (ids.size === 0) {
      await client.query('SELECT 1');
      return;
    }
    const { rows } = await client.query<{ id: number; content_version: number }>('SELECT id, content_version FROM campaigns WHERE id = ANY($1::int[])', [[...ids]]);
    for (const row of rows) this.applyVersion(row.id, Number(row.content_version));
  }
}

// Kept values are shared by every request that finds them: none may change them.
function freeze<T extends CallerLookup>(value: T): T {
  Object.freeze(value.user);
  if (value.campaign) Object.freeze(value.campaign);
  return Object.freeze(value);
}
