// The actor of the request being served, carried with its asynchronous work (AsyncLocalStorage), so
// that the one place every campaign write goes through (db/repositories/common.ts) checks it inside the
// transaction without every route and repository passing it along. Database.write runs each
// transaction's function in the context of its caller, also when SQLite's group commit runs it.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Actor } from './policy.js';

const acting = new AsyncLocalStorage<Actor>();

/** Runs `fn` (and everything it starts) on behalf of `actor`. */
export function actingAs<T>(actor: Actor, fn: () => T): T {
  return acting.run(actor, fn);
}

/** The actor of the request this code runs for; undefined outside a campaign write route (sweepers, imports, the CLI). */
export function currentActor(): Actor | undefined {
  return acting.getStore();
}
