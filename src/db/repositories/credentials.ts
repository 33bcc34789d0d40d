import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../schema.js';

type Db = Kysely<DB> | Transaction<DB>;

const userColumns = [
  'users.id',
  'users.email',
  'users.email_normalized',
  'users.name',
  'users.password_hash',
  'users.premium_until',
  'users.created_at',
] as const;

export async function createSession(db: Db, input: { userId: string; secretHash: string; now: string; expiresAt: string }) {
  await db
    .insertInto('sessions')
    .values({ user_id: input.userId, secret_hash: input.secretHash, created_at: input.now, expires_at: input.expiresAt })
    .execute();
}

/** The user behind a live session, and when the session expires. */
export async function findSessionUser(db: Db, secretHash: string, now: string) {
  const row = await db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select([...userColumns, 'sessions.id as session_id', 'sessions.expires_at as session_expires_at'])
    .where('sessions.secret_hash', '=', secretHash)
    .where('sessions.expires_at', '>', now)
    .executeTakeFirst();
  if (!row) return undefined;
  const { session_id, session_expires_at, ...user } = row;
  return { user: user, sessionId: session_id, expiresAt: session_expires_at };
}

export async function extendSession(db: Db, sessionId: number, expiresAt: string) {
  await db.updateTable('sessions').set({ expires_at: expiresAt }).where('id', '=', sessionId).execute();
}

export async function deleteSession(db: Db, secretHash: string) {
  await db.deleteFrom('sessions').where('secret_hash', '=', secretHash).execute();
}

/** The user behind a live API token, with the token's id and when it was last used. */
export async function findTokenUser(db: Db, secretHash: string, now: string) {
  const row = await db
    .selectFrom('api_tokens')
    .innerJoin('users', 'users.id', 'api_tokens.user_id')
    .select([...userColumns, 'api_tokens.id as token_id', 'api_tokens.last_used_at as token_last_used_at'])
    .where('api_tokens.secret_hash', '=', secretHash)
    .where((eb) => eb.or([eb('api_tokens.expires_at', 'is', null), eb('api_tokens.expires_at', '>', now)]))
    .executeTakeFirst();
  if (!row) return undefined;
  const { token_id, token_last_used_at, ...user } = row;
  return { user: user, tokenId: token_id, lastUsedAt: token_last_used_at };
}

export async function touchToken(db: Db, tokenId: number, now: string) {
  await db.updateTable('api_tokens').set({ last_used_at: now }).where('id', '=', tokenId).execute();
}

export async function createToken(
  db: Db,
  input: { userId: string; name: string; secretHash: string; now: string; expiresAt: string | null },
) {
  return db
    .insertInto('api_tokens')
    .values({
      user_id: input.userId,
      name: input.name,
      secret_hash: input.secretHash,
      created_at: input.now,
      expires_at: input.expiresAt,
      last_used_at: null,
    })
    .returning(['id', 'name', 'created_at', 'expires_at', 'last_used_at'])
    .executeTakeFirstOrThrow();
}

export function listTokens(db: Db, userId: string) {
  return db
    .selectFrom('api_tokens')
    .select(['id', 'name', 'created_at', 'expires_at', 'last_used_at'])
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** Deletes the caller's token; false when the caller has no token with that id. */
export async function deleteToken(db: Db, userId: string, tokenId: number): Promise<boolean> {
  const result = await db.deleteFrom('api_tokens').where('id', '=', tokenId).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
