import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What the writes of one request tell its instance's caller cache (db/caller-cache.ts), carried
 * with the request's asynchronous work. A campaign write (repositories/common.ts campaignWrite)
 * that commits reports its campaign here, whose new content_version is announced to every instance
 * after the commit, and whether its transaction sent any notice itself; any other kind of campaign
 * write reports only that it happened. The answer then waits for the announcements, and for the
 * barrier (every notice applied) only when a transaction may have sent a notice of its own.
 */
export interface WriteScope {
  /** A campaign write committed: announce the campaign's content_version; `notified`: its transaction sent notices too. */
  committed(campaignId: number, notified: boolean): void;
  /** A campaign write of another kind ran: it may send notices, so the answer waits for the barrier. */
  unannounced(): void;
}

const scopes = new AsyncLocalStorage<WriteScope>();

/** Runs `fn` (and everything it starts) with `scope` as the current request's. */
export function inWriteScope<T>(scope: WriteScope, fn: () => T): T {
  return scopes.run(scope, fn);
}

/** The scope of the request this code runs for; undefined outside one (SQLite, sweepers, the CLI, tests calling repositories). */
export function currentWriteScope(): WriteScope | undefined {
  return scopes.getStore();
}
