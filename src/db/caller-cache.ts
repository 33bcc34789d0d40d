import type { CampaignRow, Role, UserRow } from './schema.js';
import { Notifications } from './notifications.js';

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
 * in memory and invalidated by the notices the triggers of migration 0026 send at commit (see
 * there for the payloads). Safety rules:
 * - an entry is used only while the listening connection is up and has been up, without a break,
 *   since the lookup that loaded it started (its epoch); when the connection drops, everything is
 *   dropped and every request goes to the database until it listens again; and only while the
 *   connection has answered within the last 3 s (a heartbeat every 0.5 s: notifications.ts
 *   `fresh`), so a connection that stalls without closing stops serving entries within 3 s;
 * - a lookup during which any notice arrived is not kept (it may have read the state before the
 *   change the notice announces, and the notice has already gone by);
 * - a lookup that found no caller, or not the campaign it was asked for, is never kept: nothing
 *   announces the arrival of a new session, token, campaign slug or membership;
 * - entries are bounded in count and age, and a session or token past its expiry is looked up again.
 */
export class CallerCache {
  private readonly entries = new Map<string, Entry>();
  /** Counts the notices received (and the connection's ups and downs). */
  private generation = 0;
  /** performance.now() when the last notice was applied (tests measure how soon notices arrive). */
  lastNoticeAt = 0;
  readonly notifications: Notifications;

  constructor(
    connect: ConstructorParameters<typeof Notifications>[0],
    private readonly options: CallerCacheOptions = { maxEntries: 10_000, ttlMs: 60_000 },
  ) {
    this.notifications = new Notifications(connect, CALLER_CHANNEL, (payload) => this.invalidate(payload), () => this.clear());
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
      // The kind is part of the key: a session's entry holds what findSessionUser found, a token's findTokenUser.
      if (live && notifications.fresh && entry.epoch === notifications.epoch && nowMs - entry.loadedAt < this.options.ttlMs) return value as V;
      this.entries.delete(key);
    }
    const listening = notifications.listening;
    const epoch = notifications.epoch;
    const generation = this.generation;
    const value = await load();
    const complete = value !== undefined && (slug === undefined || value.campaign !== undefined);
    if (complete && listening && notifications.fresh && notifications.epoch === epoch && this.generation === generation) {
      if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { value: freeze(value), epoch, loadedAt: nowMs });
    }
    return value;
  }

  /** Drops what is kept of one credential (after the request itself wrote to it: a touch, an extension). */
  forget(kind: 'session' | 'token', secretHash: string): void {
    const prefix = `${kind}:${secretHash}:`;
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  /**
   * Waits until every notice committed so far has been applied (Notifications.sync). A write's
   * answer waits for it, so that instance's next request sees the write's effects at once; when
   * the connection is down nothing is kept, and there is nothing to wait for. Writes that finish
   * while a barrier is on its way share the next one (whose NOTIFY is sent after their commits).
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
    this.generation += 1;
    this.entries.clear();
  }

  /** Applies one notice (migration 0026 lists them); one it does not know drops everything. */
  invalidate(payload: string): void {
    this.generation += 1;
    this.lastNoticeAt = performance.now();
    const [kind = '', first = '', second = ''] = payload.split(':');
    const campaignId = Number(first);
    switch (kind) {
      case 'u':
      case 's':
      case 't':
        return this.dropWhere((value) => value.user.id === first);
      case 'c':
        return this.dropWhere((value) => value.campaign?.id === campaignId);
      case 'm':
        return this.dropWhere((value) => value.campaign?.id === campaignId && value.user.id === second);
      case 'v':
        return this.patchContentVersion(campaignId, Number(second));
      default:
        this.entries.clear();
    }
  }

  private dropWhere(test: (value: CallerLookup) => boolean): void {
    for (const [key, entry] of this.entries) if (test(entry.value)) this.entries.delete(key);
  }

  // A write inside the campaign: its content_version (which keys the response cache) moves on.
  private patchContentVersion(campaignId: number, contentVersion: number): void {
    if (!Number.isSafeInteger(contentVersion)) return this.dropWhere((value) => value.campaign?.id === campaignId);
    for (const entry of this.entries.values()) {
      const campaign = entry.value.campaign;
      if (campaign?.id !== campaignId || campaign.content_version >= contentVersion) continue;
      entry.value = freeze({ ...entry.value, campaign: { ...campaign, content_version: contentVersion } });
    }
  }
}

// Kept values are shared by every request that finds them: none may change them.
function freeze<T extends CallerLookup>(value: T): T {
  Object.freeze(value.user);
  if (value.campaign) Object.freeze(value.campaign);
  return Object.freeze(value);
}
