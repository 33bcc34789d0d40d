import { CompiledQuery, type Kysely } from 'kysely';
import type { DB } from './schema.js';
import type { Notifications } from './notifications.js';

/** PostgreSQL takes notices of up to 8,000 bytes: announcements go in payloads of at most this many characters. */
export const PAYLOAD_CHARS = 7000;

/**
 * Campaigns announced in one payload: a notice `v:<id>:<version>` is at most 23 characters (both
 * are PostgreSQL integers, at most 10 digits), so a list of this many, spaces and LIST_MARK
 * included, stays within PAYLOAD_CHARS.
 */
export const CAMPAIGNS_PER_PAYLOAD = 250;

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

/**
 * The statement that announces campaigns `$2` on channel `$1`: it reads their content_version and
 * sends them as one payload (a lone notice as it is, several after LIST_MARK, as noticesOf reads),
 * and returns what it sent. Nothing for a campaign that no longer exists. One statement: the
 * version read after a write's commit and its notice used to be a round trip each.
 */
export const ANNOUNCE_SQL = `select array_agg(id) as ids, array_agg(content_version) as versions,
    pg_notify($1, case when count(*) = 1 then min('v:' || id || ':' || content_version)
      else '${LIST_MARK} ' || string_agg('v:' || id || ':' || content_version, ' ') end) as sent
  from campaigns where id = any($2::int[]) having count(*) > 0`;

/** What became of one campaign's announcement (Announcements.add). */
export type Announced =
  /** Sent to every instance: the campaign's content_version when it was read, after the write's commit. */
  | { version: number }
  /** Not sent: the campaign no longer exists (erased after the write committed). */
  | 'gone'
  /** Not sent: the database could not be reached (the other instances' heartbeats read the version within their next beat). */
  | 'unsent';

/**
 * The content versions this instance's writes committed, read after the commits and sent to every
 * instance as `v:<campaign id>:<version>` notices (ANNOUNCE_SQL), from the listening connection
 * (migration 0028 says why not from the write's transaction). Writes committed while a send is on
 * its way share the next one, which reads the latest version of each campaign. While the listening
 * connection is down they go through the pool.
 */
export class Announcements {
  private readonly queued = new Set<number>();
  private queuedSend: Promise<Map<number, Announced>> | undefined;
  private sending: Promise<unknown> | undefined;

  constructor(
    private readonly notifications: Notifications,
    private readonly channel: string,
    private readonly db: Kysely<DB> | undefined,
  ) {}

  /**
   * Announces the campaign a write of this instance committed in: resolves once the notice carrying
   * a content_version at least as new as that write's is committed, with that version; or with why
   * none was sent.
   */
  async add(campaignId: number): Promise<Announced> {
    this.queued.add(campaignId);
    this.queuedSend ??= (this.sending ?? Promise.resolve()).then(() => {
      const ids = [...this.queued];
      this.queued.clear();
      this.queuedSend = undefined;
      const send = this.send(ids).finally(() => {
        if (this.sending === send) this.sending = undefined;
      });
      this.sending = send;
      return send;
    });
    return (await this.queuedSend).get(campaignId) ?? 'gone';
  }

  private async send(ids: number[]): Promise<Map<number, Announced>> {
    const announced = new Map<number, Announced>();
    for (let start = 0; start < ids.length; start += CAMPAIGNS_PER_PAYLOAD) {
      const chunk = ids.slice(start, start + CAMPAIGNS_PER_PAYLOAD);
      const rows = await this.announce(chunk);
      if (rows === undefined) {
        for (const id of chunk) announced.set(id, 'unsent');
        continue;
      }
      for (const row of rows) row.ids.forEach((id, i) => announced.set(id, { version: Number(row.versions[i]) }));
    }
    return announced;
  }

  private async announce(ids: number[]): Promise<AnnounceRow[] | undefined> {
    try {
      // Prepared once on the listening connection (a new one after a reconnect prepares it again).
      return (await this.notifications.query<AnnounceRow>({ name: 'loreforge_announce', text: ANNOUNCE_SQL, values: [this.channel, ids] })).rows;
    } catch {
      if (!this.db) return undefined;
      try {
        return (await this.db.executeQuery<AnnounceRow>(CompiledQuery.raw(ANNOUNCE_SQL, [this.channel, ids]))).rows;
      } catch {
        return undefined;
      }
    }
  }
}

interface AnnounceRow {
  ids: number[];
  versions: number[];
}
