import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';
import type { Notifications } from './notifications.js';

/** PostgreSQL takes notices of up to 8,000 bytes: announcements go in payloads of at most this many characters. */
const PAYLOAD_CHARS = 7000;

/**
 * Begins a payload that holds several notices: `versions v:1:5 v:2:7`. A lone notice goes as it is
 * (`v:1:5`). Why the word: an instance of the release before migration 0028 reads a payload as ONE
 * notice, `kind:first:second` split at every colon, so it would read the bare list `v:1:5 v:2:7`
 * as campaign 1 at version "5 v" (not a number: it drops campaign 1's entries) and never learn of
 * campaign 2's version (its kept lookups would keep the old content_version, which keys the
 * response cache). With the word in front its kind is `versions v`, one it does not know, and it
 * drops everything it keeps instead: safe during a rolling upgrade.
 */
export const LIST_MARK = 'versions';

/** The notices of one payload: a lone notice, a list after LIST_MARK, or a bare list (separated by spaces). */
export function noticesOf(payload: string): string[] {
  const notices = payload.split(' ');
  return notices[0] === LIST_MARK ? notices.slice(1) : notices;
}

/** `items` (notices) in as few payloads as PAYLOAD_CHARS allows, each read safely by older instances (LIST_MARK). */
export function payloadsOf(items: string[]): string[] {
  const lists: string[][] = [];
  let length = 0;
  for (const item of items) {
    const last = lists.at(-1);
    if (last && length + 1 + item.length <= PAYLOAD_CHARS) {
      last.push(item);
      length += 1 + item.length;
    } else {
      lists.push([item]);
      length = LIST_MARK.length + 1 + item.length;
    }
  }
  return lists.map((list) => (list.length === 1 ? list[0]! : `${LIST_MARK} ${list.join(' ')}`));
}

/**
 * The content versions this instance's writes committed, sent to every instance as `v:<campaign
 * id>:<version>` notices (several in one payload: payloadsOf) from the listening
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
    for (const payload of payloadsOf(items)) {
      try {
        await this.notifications.notify(payload);
      } catch {
        if (this.db) await sql`select pg_notify(${this.channel}, ${payload})`.execute(this.db).catch(() => {});
      }
    }
  }
}
