import type pg from 'pg';
import { databaseErrorCode } from './errors.js';
import { FollowedBy, isPassedOn, takeMarker, type TransactionPipeline } from './pipeline.js';

// PostgreSQL parses and plans every statement Kysely sends, each time: a save of a thing sends ten,
// and their parsing and planning was about a third of PostgreSQL's CPU (docs/performance.md,
// "PostgreSQL writes"). Here a statement text seen again inside a transaction is sent as a named
// prepared statement: node-postgres parses it once per connection and from then on sends only its
// parameters, and PostgreSQL keeps its plan (a generic one once it estimates it no worse than the
// custom ones).
//
// Inside a transaction only, which is where the writes run: their statements find rows by their
// keys, where a generic plan is the custom one. Reads outside one are planned for their parameters
// each time: searches, sent prepared, took three times as long (PostgreSQL's generic plans for the
// ranking queries are worse than its estimates say; measured in docs/performance.md).
//
// Bounded: only parameterised texts of at most MAX_TEXT characters (long ones are multi-row
// inserts whose row counts vary, so their texts seldom repeat), and at most MAX_NAMED texts a
// process, the first ones seen twice; a connection prepares each at most once, so a server holds
// at most MAX_NAMED statements a connection. The count of texts seen once is cleared past
// MAX_SEEN, so statements whose texts never repeat cost nothing lasting.
//
// A prepared statement whose tables changed shape under it (another instance migrating the schema)
// is re-planned by PostgreSQL; if its result columns changed, the statement fails with 0A000
// ("cached plan must not change result type"): that text is not named again on this process, and
// database.ts runs the write again (isStalePlan).
export const MAX_TEXT = 4096;
export const MAX_NAMED = 400;
const MAX_SEEN = 10_000;

export class StatementNames {
  private readonly names = new Map<string, string>();
  private readonly seen = new Set<string>();
  private readonly stale = new Set<string>();
  /** Names are never reused: a connection may still hold a forgotten one. */
  private given = 0;

  /** The name to prepare `text` under, or undefined to send it unnamed this time. */
  nameFor(text: string): string | undefined {
    const known = this.names.get(text);
    if (known !== undefined) return known;
    if (text.length > MAX_TEXT || this.given >= MAX_NAMED || this.stale.has(text)) return undefined;
    if (!this.seen.has(text)) {
      if (this.seen.size >= MAX_SEEN) this.seen.clear();
      this.seen.add(text);
      return undefined;
    }
    this.seen.delete(text);
    this.given += 1;
    const name = `lf${this.given}`;
    this.names.set(text, name);
    return name;
  }

  /** `text` failed as a prepared statement whose plan went stale: send it unnamed from now on. */
  forget(text: string): void {
    if (this.names.delete(text)) this.stale.add(text);
  }

  get size(): number {
    return this.names.size;
  }
}

/** A PostgreSQL error telling that a prepared statement's result columns changed under it. */
export function isStalePlan(error: unknown): boolean {
  const message = (error as { message?: unknown } | null)?.message;
  return databaseErrorCode(error) === '0A000' && typeof message === 'string' && message.includes('cached plan must not change result type');
}

type Query = pg.Client['query'];

/**
 * Makes `client` send the statements `names` names as prepared ones, inside transactions (called
 * once per new pool client, after pipelineTransactions, whose pipeline tells where they are). Only
 * the form Kysely uses is touched: `query(text, values)` with a non-empty values array.
 */
export function prepareRepeatedStatements(client: pg.PoolClient, names: StatementNames, pipeline: Pick<TransactionPipeline, 'inTransaction'>): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const patched = (...args: unknown[]) => {
    const [text, values] = args;
    // Inside a transaction, its BEGIN sent or held to go with this statement (pipeline.ts).
    if (pipeline.inTransaction && args.length === 2 && typeof text === 'string' && Array.isArray(values) && values.length > 0) {
      // The read written after it (pipeline.ts FollowedBy) is named the same way.
      const marker = takeMarker(values)?.marker;
      if (marker instanceof FollowedBy && marker.values.length > 0) {
        marker.name = names.nameFor(marker.text);
        marker.result.catch((error: unknown) => {
          if (isStalePlan(error) && !isPassedOn(error)) names.forget(marker.text);
        });
      }
      const name = names.nameFor(text);
      if (name !== undefined) {
        // A statement held for the next one (pipeline.ts SentWithNext) is answered at once: its real answer is the marker's.
        if (marker !== undefined && !(marker instanceof FollowedBy)) {
          marker.result.catch((error: unknown) => {
            if (isStalePlan(error)) names.forget(text);
          });
        }
        return (query({ name, text, values }) as Promise<unknown>).catch((error: unknown) => {
          // The transaction has failed: database.ts runs the write again, with the text unnamed.
          // Not for a held statement's error given to this one: this text's plan is not stale.
          if (isStalePlan(error) && !isPassedOn(error)) names.forget(text);
          throw error;
        });
      }
    }
    return query(...args);
  };
  client.query = patched as unknown as Query;
}
