import type pg from 'pg';
import { isStalePlan } from './prepared.js';

const SYNC_PREFIX = 'sync:';

/**
 * One dedicated PostgreSQL connection that LISTENs on a channel and hands every payload to
 * `onPayload`, in commit order. `listening` is true only while the connection is up and LISTEN has
 * answered; `epoch` changes whenever that stops or starts again, so a reader can tell whether the
 * connection has been up without a break since some moment. On any error or end of the connection
 * it calls `onDown` (before anything else can run), then reconnects after `retryMs`.
 *
 * `sync()` is a barrier: it NOTIFYs the channel from this very connection and waits for that
 * notice to come back. PostgreSQL delivers a channel's notices in commit order, so when it returns
 * every notice committed before it has been handed to `onPayload`.
 */
export class Notifications {
  listening = false;
  epoch = 0;
  /** When the connection last answered (a notice, a heartbeat, LISTEN itself), in ms since the epoch. */
  private lastHeardAt = 0;
  private client: pg.Client | undefined;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly waiting = new Map<string, { resolve: () => void; reject: (error: Error) => void }>();
  private syncCounter = 0;

  constructor(
    private readonly connect: () => pg.Client,
    private readonly channel: string,
    private readonly onPayload: (payload: string) => void,
    private readonly onDown: () => void,
    private readonly options: { retryMs: number; heartbeatMs: number; freshMs: number; downMs: number } = { retryMs: 1000, heartbeatMs: 500, freshMs: 3000, downMs: 5000 },
    /** The heartbeat's query (any query that answers; default SELECT 1). */
    private readonly probe: (client: pg.Client) => Promise<unknown> = (client) => client.query('SELECT 1'),
  ) {}

  /**
   * Whether what arrived on the connection can be trusted now: it is listening and answered within
   * `freshMs`. A connection that stalls without closing (a network cut, a half-open socket) stops
   * being fresh within `freshMs` of its last answer, whatever the heartbeat's own timeout.
   */
  get fresh(): boolean {
    return this.listening && Date.now() - this.lastHeardAt < this.options.freshMs;
  }

  /** Connects and listens; resolves once listening, or once the first attempt has failed (it retries on its own). */
  async start(): Promise<void> {
    if (this.closed || this.client) return;
    const client = this.connect();
    this.client = client;
    client.on('error', () => this.down(client));
    client.on('end', () => this.down(client));
    client.on('notification', (message) => {
      if (client !== this.client || message.channel !== this.channel || message.payload === undefined) return;
      this.lastHeardAt = Date.now();
      const waiter = this.waiting.get(message.payload);
      if (waiter) {
        this.waiting.delete(message.payload);
        waiter.resolve();
        return;
      }
      // Another instance's barrier: no change to anything.
      if (message.payload.startsWith(SYNC_PREFIX)) return;
      this.onPayload(message.payload);
    });
    try {
      await client.connect();
      // This connection commits only notices (a NOTIFY takes a transaction id): the barriers', and
      // the announced versions of writes already committed: nothing to keep after a crash, so no
      // wait for the WAL to reach the disk.
      await client.query('SET synchronous_commit TO off');
      // Its statements are few and fixed, and look rows up by key (announcements.ts): a prepared
      // one keeps its first plan rather than being planned again for each array of ids.
      await client.query('SET plan_cache_mode TO force_generic_plan');
      await client.query(`LISTEN ${client.escapeIdentifier(this.channel)}`);
      if (client !== this.client) return;
      this.lastHeardAt = Date.now();
      this.epoch += 1;
      this.listening = true;
      this.beat(client);
    } catch {
      this.down(client);
    }
  }

  /** Waits until every notice committed before this call has been handed over (see the class comment). */
  async sync(): Promise<void> {
    const client = this.client;
    if (!client || !this.listening) throw new Error('not listening');
    this.syncCounter += 1;
    const token = `${SYNC_PREFIX}${process.pid}:${this.syncCounter}:${Math.random().toString(36).slice(2)}`;
    const arrived = new Promise<void>((resolve, reject) => this.waiting.set(token, { resolve, reject }));
    // A connection that does not answer in time is taken for down: everything kept is dropped.
    const timeout = setTimeout(() => this.down(client), this.options.downMs);
    try {
      await client.query('SELECT pg_notify($1, $2)', [this.channel, token]);
      await arrived;
    } finally {
      clearTimeout(timeout);
    }
  }

  /**
   * Runs `query` on this connection (its notices go to every listener, this one too); resolves once
   * it is committed. The connection commits without waiting for the disk (see start), so the notice
   * queue's lock, which lets one notifying transaction commit at a time, is held briefly.
   */
  async query<R extends pg.QueryResultRow>(query: pg.QueryConfig): Promise<pg.QueryResult<R>> {
    const client = this.client;
    if (!client || !this.listening) throw new Error('not listening');
    // A connection that does not answer in time is taken for down, as in sync.
    const timeout = setTimeout(() => this.down(client), this.options.downMs);
    try {
      return await client.query<R>(query);
    } catch (error) {
      // A prepared statement whose result type changed under it (a migration of another instance)
      // fails until this connection goes: it goes, and the next one prepares it anew.
      if (isStalePlan(error)) this.down(client);
      throw error;
    } finally {
      clearTimeout(timeout);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiting.values()) waiter.reject(new Error('closed'));
    this.waiting.clear();
    clearTimeout(this.retry);
    clearTimeout(this.heartbeat);
    const client = this.client;
    this.client = undefined;
    this.listening = false;
    this.epoch += 1;
    if (client) await client.end().catch(() => {});
  }

  /** The process id of the listening backend (tests end it to see the cache step aside). */
  async backendPid(): Promise<number> {
    if (!this.client) throw new Error('not connected');
    const result = await this.client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return result.rows[0]!.pid;
  }

  // A connection that died without a word (a network cut) shows as a query that never answers.
  private beat(client: pg.Client): void {
    this.heartbeat = setTimeout(() => {
      const timeout = setTimeout(() => this.down(client), this.options.downMs);
      this.probe(client).then(
        () => {
          clearTimeout(timeout);
          if (client === this.client) this.lastHeardAt = Date.now();
          if (client === this.client && this.listening) this.beat(client);
        },
        () => {
          clearTimeout(timeout);
          this.down(client);
        },
      );
    }, this.options.heartbeatMs);
    this.heartbeat.unref();
  }

  private down(client: pg.Client): void {
    if (client !== this.client) return;
    this.client = undefined;
    this.listening = false;
    this.epoch += 1;
    clearTimeout(this.heartbeat);
    this.onDown();
    for (const waiter of this.waiting.values()) waiter.reject(new Error('the listening connection went down'));
    this.waiting.clear();
    void client.end().catch(() => {});
    if (this.closed) return;
    this.retry = setTimeout(() => void this.start(), this.options.retryMs);
    this.retry.unref();
  }
}
