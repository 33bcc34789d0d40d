import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';
import type { Notifications } from './notifications.js';

/** PostgreSQL takes notices of up to 8,000 bytes: announcements go in payloads of at most this many characters. */
const PAYLOAD_CHARS = 7000;

/**
 * The content versions this instance's writes committed, sent to every instance as `v:<campaign
 * id>:<version>` notices (several in one payload, separated by spaces) from the listening
 * connection, after the commits (migration 0028 says why not from the write's transaction). Writes
 * committed while a send is on its way share the next one, which carries the latest version of
 * each campaign. While the listening connection is down they go through the pool.
 */
export class Announcements {
  private readonly queued = new Map<number, number>();
  private queuedSend: Promise<void> | undefined;
  private sending: Promise<void> | undefined;

  constructor(
    private readonly notifications: Notifications,
    private readonly channel: string,
    private readonly db: Kysely<DB> | undefined,
  ) {}

  /**
   * Resolves once the notice carrying `contentVersion` is committed, or could not be sent (then
   * the heartbeats of the other instances read the version within their next beat: caller-cache.ts).
   */
  add(campaignId: number, contentVersion: number): Promise<void> {
    this.queued.set(campaignId, Math.max(this.queued.get(campaignId) ?? 0, contentVersion));
    this.queuedSend ??= (this.sending ?? Promise.resolve()).then(() => {
      const items = [...this.queued].map(([id, version]) => `v:${id}:${version}`);
      this.queued.clear();
      this.queuedSend = undefined;
      const send = this.send(items).finally(() => {
        if (this.sending === send) this.sending = undefined;
      });
      this.sending = send;
      return send;
    });
    return this.queuedSend;
  }

  private async send(items: string[]): Promise<void> {
    const payloads: string[] = [];
    for (const item of items) {
      const last = payloads.length - 1;
      if (last >= 0 && payloads[last]!.length + item.length < PAYLOAD_CHARS) payloads[last] += ` ${item}`;
      else payloads.push(item);
    }
    for (const payload of payloads) {
      try {
        await this.notifications.notify(payload);
      } catch {
        if (this.db) await sql`select pg_notify(${this.channel}, ${payload})`.execute(this.db).catch(() => {});
      }
    }
  }
}
