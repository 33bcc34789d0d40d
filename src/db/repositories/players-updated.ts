// The players_updated_at column of things, arcs and campaigns (see access/players-see.ts): NULL
// while players see updated_at; the updated_at players last saw while writes change only what they
// cannot see.
import { sql, type RawBuilder } from 'kysely';

/**
 * The value of players_updated_at in an UPDATE that also sets updated_at: NULL when players see the
 * change, else the updated_at they saw (the right-hand side reads the row as it was).
 */
export function playersUpdatedAt(playersSeeIt: boolean): RawBuilder<string | null> | null {
  return playersSeeIt ? null : sql<string | null>`coalesce(players_updated_at, updated_at)`;
}

/** The updated_at players see of a thing row, as an expression (the players' list order; an index holds it). */
export const THINGS_PLAYERS_UPDATED_AT = sql<string>`coalesce(things.players_updated_at, things.updated_at)`;
