import type { JoinBuilder, Kysely } from 'kysely';
import { queryTemplate } from '../query-template.js';
import type { Db } from '../database.js';
import type { CampaignRow, DB, Role, UserRow } from '../schema.js';

const userColumns = [
  'users.id',
  'users.email',
  'users.email_normalized',
  'users.name',
  'users.password_hash',
  'users.premium_until',
  'users.created_at',
] as const;

// Campaign columns under a prefix, so one row carries the caller and the campaign side by side.
const campaignColumns = [
  'campaigns.id as campaign_id',
  'campaigns.slug as campaign_slug',
  'campaigns.name as campaign_name',
  'campaigns.description as campaign_description',
  'campaigns.user_id as campaign_user_id',
  'campaigns.version as campaign_version',
  'campaigns.content_version as campaign_content_version',
  'campaigns.default_visibility as campaign_default_visibility',
  'campaigns.created_at as campaign_created_at',
  'campaigns.updated_at as campaign_updated_at',
  'campaigns.players_updated_at as campaign_players_updated_at',
  'campaign_members.role as campaign_role',
] as const;

/** The join condition for the campaign `slug` ('' matches none). */
function campaignBySlug<J extends JoinBuilder<DB, 'users' | 'campaigns'>>(join: J, slug: string) {
  return join.on('campaigns.slug', '=', slug);
}

/** The caller's membership of that campaign: none, and the campaign is not theirs to see. */
function membership<J extends JoinBuilder<DB, 'users' | 'campaigns' | 'campaign_members'>>(join: J) {
  return join.onRef('campaign_members.campaign_id', '=', 'campaigns.id').onRef('campaign_members.user_id', '=', 'users.id');
}

interface CampaignColumns {
  campaign_id: number | null;
  campaign_slug: string | null;
  campaign_name: string | null;
  campaign_description: string | null;
  campaign_user_id: string | null;
  campaign_version: number | null;
  campaign_content_version: number | null;
  campaign_default_visibility: 'all' | 'gm' | null;
  campaign_created_at: string | null;
  campaign_updated_at: string | null;
  campaign_players_updated_at: string | null;
  campaign_role: Role | null;
}

function splitCampaign<R extends UserRow & CampaignColumns>(row: R): { user: UserRow; campaign: CampaignRow | undefined; role: Role | undefined } {
  const user: UserRow = {
    id: row.id,
    email: row.email,
    email_normalized: row.email_normalized,
    name: row.name,
    password_hash: row.password_hash,
    premium_until: row.premium_until,
    created_at: row.created_at,
  };
  if (row.campaign_id === null || row.campaign_role === null) return { user, campaign: undefined, role: undefined };
  const campaign: CampaignRow = {
    id: row.campaign_id,
    slug: row.campaign_slug!,
    name: row.campaign_name!,
    description: row.campaign_description,
    user_id: row.campaign_user_id!,
    version: row.campaign_version!,
    content_version: row.campaign_content_version!,
    default_visibility: row.campaign_default_visibility!,
    created_at: row.campaign_created_at!,
    updated_at: row.campaign_updated_at!,
    players_updated_at: row.campaign_players_updated_at,
    // Found by its slug: a campaign in the trash has none a request can name (`~<id>`).
    deleted_at: null,
    deleted_by: null,
    trashed_slug: null,
  };
  return { user, campaign, role: row.campaign_role };
}

export async function createSession(db: Db, input: { userId: string; secretHash: string; now: string; expiresAt: string }) {
  await db
    .insertInto('sessions')
    .values({ user_id: input.userId, secret_hash: input.secretHash, created_at: input.now, expires_at: input.expiresAt })
    .execute();
}

// Run on every request a session cookie authenticates: built and compiled once per database.
const sessionUserQuery = queryTemplate(['secretHash', 'now', 'campaignSlug'], (db: Kysely<DB>, params) =>
  db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .leftJoin('campaigns', (join) => campaignBySlug(join, params.campaignSlug))
    .leftJoin('campaign_members', (join) => membership(join))
    .select([...userColumns, ...campaignColumns, 'sessions.id as session_id', 'sessions.expires_at as session_expires_at'])
    .where('sessions.secret_hash', '=', params.secretHash)
    .where('sessions.expires_at', '>', params.now),
);

/**
 * The user behind a live session, when the session expires, and — when `campaignSlug` is given —
 * the campaign of that slug and the user's role in it if they are a member: one query for the whole
 * request check.
 */
export async function findSessionUser(db: Db, secretHash: string, now: string, campaignSlug?: string) {
  const row = await sessionUserQuery.executeTakeFirst(db, { secretHash, now, campaignSlug: campaignSlug ?? '' });
  if (!row) return undefined;
  const { session_id, session_expires_at, ...rest } = row;
  const { user, campaign, role } = splitCampaign(rest);
  return { user, campaign, role, sessionId: session_id, expiresAt: session_expires_at };
}

export async function extendSession(db: Db, sessionId: number, expiresAt: string) {
  await db.updateTable('sessions').set({ expires_at: expiresAt }).where('id', '=', sessionId).execute();
}

export async function deleteSession(db: Db, secretHash: string) {
  await db.deleteFrom('sessions').where('secret_hash', '=', secretHash).execute();
}

// Run on every request an API token authenticates: built and compiled once per database.
const tokenUserQuery = queryTemplate(['secretHash', 'now', 'campaignSlug'], (db: Kysely<DB>, params) =>
  db
    .selectFrom('api_tokens')
    .innerJoin('users', 'users.id', 'api_tokens.user_id')
    .leftJoin('campaigns', (join) => campaignBySlug(join, params.campaignSlug))
    .leftJoin('campaign_members', (join) => membership(join))
    .select([...userColumns, ...campaignColumns, 'api_tokens.id as token_id', 'api_tokens.last_used_at as token_last_used_at', 'api_tokens.expires_at as token_expires_at'])
    .where('api_tokens.secret_hash', '=', params.secretHash)
    .where((eb) => eb.or([eb('api_tokens.expires_at', 'is', null), eb('api_tokens.expires_at', '>', params.now)])),
);

/** The user behind a live API token, the token's id, last use and expiry, and the campaign as in findSessionUser. */
export async function findTokenUser(db: Db, secretHash: string, now: string, campaignSlug?: string) {
  const row = await tokenUserQuery.executeTakeFirst(db, { secretHash, now, campaignSlug: campaignSlug ?? '' });
  if (!row) return undefined;
  const { token_id, token_last_used_at, token_expires_at, ...rest } = row;
  const { user, campaign, role } = splitCampaign(rest);
  return { user, campaign, role, tokenId: token_id, lastUsedAt: token_last_used_at, expiresAt: token_expires_at };
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

/** One of the user's tokens, without its secret. */
export function findToken(db: Db, userId: string, tokenId: number) {
  return db
    .selectFrom('api_tokens')
    .select(['id', 'name', 'created_at', 'expires_at', 'last_used_at'])
    .where('id', '=', tokenId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/** Deletes the caller's token; false when the caller has no token with that id. */
export async function deleteToken(db: Db, userId: string, tokenId: number): Promise<boolean> {
  const result = await db.deleteFrom('api_tokens').where('id', '=', tokenId).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Ends every session of the user, but the one whose secret hashes to `keepSecretHash` when given. */
export async function deleteSessionsOfUser(db: Db, userId: string, keepSecretHash?: string): Promise<void> {
  let query = db.deleteFrom('sessions').where('user_id', '=', userId);
  if (keepSecretHash !== undefined) query = query.where('secret_hash', '!=', keepSecretHash);
  await query.execute();
}

/** Stores a new reset link of the user; the links issued before it stop working. */
export async function createPasswordReset(db: Db, input: { userId: string; secretHash: string; now: string; expiresAt: string }): Promise<void> {
  await db.deleteFrom('password_resets').where('user_id', '=', input.userId).execute();
  await db
    .insertInto('password_resets')
    .values({ user_id: input.userId, secret_hash: input.secretHash, created_at: input.now, expires_at: input.expiresAt })
    .execute();
}

/** Whether a reset link's secret is live at `now` (unused, unexpired), without using it. */
export async function isPasswordResetLive(db: Db, secretHash: string, now: string): Promise<boolean> {
  const row = await db.selectFrom('password_resets').select('id').where('secret_hash', '=', secretHash).where('expires_at', '>', now).executeTakeFirst();
  return row !== undefined;
}

/**
 * Uses up the live reset link whose secret hashes to `secretHash` and answers its user's id;
 * undefined when there is none (used, expired, unknown). Two uses at once: one wins.
 */
export async function takePasswordReset(db: Db, secretHash: string, now: string): Promise<string | undefined> {
  const row = await db
    .deleteFrom('password_resets')
    .where('secret_hash', '=', secretHash)
    .where('expires_at', '>', now)
    .returning('user_id')
    .executeTakeFirst();
  return row?.user_id;
}
