// Accounts: registration, sign-in and sessions, API tokens, and the rate limits that guard them.
// A service because the work spans stores (users, sessions, tokens, the rate-limit counters) and
// rules (password hashing, limits); the routes (http/routes/auth.ts) only check input and answer.
import type { Transaction } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { classifyDatabaseError } from '../db/errors.js';
import { queueCampaignImageRemovals, queueUserUploadRemovals } from '../db/repositories/assets.js';
import { lockTrashedCampaignRow } from '../db/repositories/trashed-campaigns.js';
import { deleteCampaignChanges } from '../db/repositories/changes.js';
import { beginCampaignWrite } from '../db/repositories/common.js';
import {
  createPasswordReset,
  createSession,
  createToken,
  deleteSession,
  deleteSessionsOfUser,
  deleteToken,
  findToken,
  isPasswordResetLive,
  listTokens,
  takePasswordReset,
} from '../db/repositories/credentials.js';
import { count, isExhausted, reset, takeSlot } from '../db/repositories/rate-limits.js';
import {
  createUser,
  deleteCampaignRecord,
  deleteUser,
  findUserByEmail,
  findUserById,
  handAssetsToOwner,
  listMemberships,
  normalizeEmail,
  setPasswordHash,
} from '../db/repositories/users.js';
import type { DB, ImageRemovalRow, UserRow } from '../db/schema.js';
import { PASSWORD_MAX_LENGTH } from '../domain/accounts.js';
import { errors } from '../domain/errors.js';
import { isStorableId } from '../domain/ids.js';
import { HOUR_MS, limitKeys, MINUTE_MS, type LimitDecision } from '../domain/rate-limit.js';
import { hashPassword, hashSecret, newSecret, verifyPassword } from '../domain/secrets.js';
import { addMs, nowIso } from '../domain/time.js';

type AccountSettings = Pick<
  Config,
  | 'sessionDays'
  | 'loginWindowMinutes'
  | 'loginMaxFailuresPerIp'
  | 'loginMaxFailuresPerAccount'
  | 'registerMaxPerIpPerHour'
  | 'tokensMaxPerUserPerHour'
  | 'publicBaseUrl'
>;

/** The web app's page a reset link opens; the secret travels in the fragment, never to a server log. */
export const PASSWORD_RESET_PAGE = '/reset-password';
export const PASSWORD_RESET_LIFETIME_MS = HOUR_MS;

export interface IssuedReset {
  user: UserRow;
  /** The one-time link to the web app's reset page. */
  url: string;
  expiresAt: string;
}

/** Who asks for an account change: the user and, when signed in by cookie, their session. */
export interface AccountCaller {
  user: UserRow;
  sessionSecretHash?: string | undefined;
}

/** A signed-in user and the secret of the new session (the cookie's value). */
export interface StartedSession {
  user: UserRow;
  secret: string;
  /** Seconds the session lives (the cookie's Max-Age). */
  maxAgeSeconds: number;
}

export interface NewToken {
  id: number;
  name: string;
  /** The secret, returned this once; only its hash is stored. */
  token: string;
  createdAt: string;
  expiresAt: string | null;
}

function refuseIfLimited(decision: LimitDecision, what: string): void {
  if (decision.limited) throw errors.rateLimited(what, decision.resetSeconds);
}

export class Accounts {
  constructor(
    private readonly database: Database,
    private readonly settings: AccountSettings,
  ) {}

  private get sessionMs(): number {
    return this.settings.sessionDays * 86_400_000;
  }

  /** Counts a registration attempt from `ip` (every attempt, valid or not): 429 beyond the limit. */
  async countRegistration(ip: string, now = new Date()): Promise<void> {
    const limit = { key: limitKeys.registerByIp(ip), max: this.settings.registerMaxPerIpPerHour, windowMs: HOUR_MS };
    refuseIfLimited(await takeSlot(this.database.kysely, limit, now), 'Too many registrations from this address');
  }

  /**
   * Creates the account and its first session, replacing the session the browser presented, if any
   * (`previousSecret`). The input is already checked (domain/accounts.ts).
   */
  async register(input: { email: string; password: string; name: string }, previousSecret: string | undefined, now = new Date()): Promise<StartedSession> {
    if (await findUserByEmail(this.database.kysely, input.email)) throw errors.emailTaken();
    const passwordHash = await hashPassword(input.password);
    const createdAt = nowIso(now);
    try {
      return await this.database.write(async (trx) => {
        const user = await createUser(trx, { email: input.email, name: input.name, passwordHash, now: createdAt });
        return { user, ...(await this.startSession(trx, user.id, previousSecret, createdAt)) };
      });
    } catch (error) {
      // Two registrations of one address at the same moment: the unique index decides.
      if (classifyDatabaseError(error) === 'unique') throw errors.emailTaken();
      throw error;
    }
  }

  /**
   * Signs in. The same error, and similar work, for an unknown email and a wrong password. The
   * account's limit slot (per account and address, so one address cannot lock the account for the
   * others) is taken before the (slow) password check and cleared on success, so parallel guesses
   * cannot overrun it while their hashes are computed; the IP counts failures.
   */
  async login(input: { email: string; password: string; ip: string }, previousSecret: string | undefined, now = new Date()): Promise<StartedSession> {
    const windowMs = this.settings.loginWindowMinutes * MINUTE_MS;
    const ipLimit = { key: limitKeys.loginFailuresByIp(input.ip), max: this.settings.loginMaxFailuresPerIp, windowMs };
    const accountLimit = {
      key: limitKeys.loginFailuresByAccountAndIp(normalizeEmail(input.email), input.ip),
      max: this.settings.loginMaxFailuresPerAccount,
      windowMs,
    };
    const db = this.database.kysely;
    refuseIfLimited(await isExhausted(db, ipLimit, now), 'Too many failed sign-ins from this address');
    refuseIfLimited(await takeSlot(db, accountLimit, now), 'Too many failed sign-ins for this account');

    // No stored password is that long, so it is wrong without spending a hash on it.
    const tooLong = [...input.password].length > PASSWORD_MAX_LENGTH;
    const user = tooLong ? undefined : await findUserByEmail(db, input.email);
    const valid = !tooLong && (await verifyPassword(user?.password_hash, input.password));
    if (!valid || !user) {
      await count(db, ipLimit, now);
      throw errors.invalidCredentials();
    }
    await reset(db, accountLimit);
    const createdAt = nowIso(now);
    const session = await this.database.write((trx) => this.startSession(trx, user.id, previousSecret, createdAt));
    return { user, ...session };
  }

  /** Ends the session of this secret (server-side). */
  async endSession(secret: string): Promise<void> {
    await this.database.write((trx) => deleteSession(trx, hashSecret(secret)));
  }

  // Signing in never leaves the previous secret of this browser alive.
  private async startSession(
    trx: Transaction<DB>,
    userId: string,
    previousSecret: string | undefined,
    createdAt: string,
  ): Promise<{ secret: string; maxAgeSeconds: number }> {
    const secret = newSecret('lfs_');
    if (previousSecret) await deleteSession(trx, hashSecret(previousSecret));
    await createSession(trx, { userId, secretHash: hashSecret(secret), now: createdAt, expiresAt: addMs(createdAt, this.sessionMs) });
    return { secret, maxAgeSeconds: this.sessionMs / 1000 };
  }

  /**
   * Checks the password of a signed-in user, rate limited as sign-ins are (the same counters: the
   * account and address pair, and the address). Wrong: 400 invalid_password at `path`.
   */
  private async confirmPassword(user: UserRow, password: string, ip: string, path: string, now: Date): Promise<void> {
    const windowMs = this.settings.loginWindowMinutes * MINUTE_MS;
    const ipLimit = { key: limitKeys.loginFailuresByIp(ip), max: this.settings.loginMaxFailuresPerIp, windowMs };
    const pairLimit = { key: limitKeys.loginFailuresByAccountAndIp(user.email_normalized, ip), max: this.settings.loginMaxFailuresPerAccount, windowMs };
    const db = this.database.kysely;
    refuseIfLimited(await isExhausted(db, ipLimit, now), 'Too many wrong passwords from this address');
    refuseIfLimited(await takeSlot(db, pairLimit, now), 'Too many wrong passwords for this account');
    const tooLong = [...password].length > PASSWORD_MAX_LENGTH;
    // The stored hash as it is now, not as it was when the request was authenticated.
    const current = tooLong ? undefined : await findUserById(db, user.id);
    if (tooLong || !current || !(await verifyPassword(current.password_hash, password))) {
      await count(db, ipLimit, now);
      throw errors.invalidPassword(path);
    }
    await reset(db, pairLimit);
  }

  /** Changes the caller's password; every other session of theirs ends (the caller's own stays). */
  async changePassword(caller: AccountCaller, input: { currentPassword: string; newPassword: string; ip: string }, now = new Date()): Promise<void> {
    await this.confirmPassword(caller.user, input.currentPassword, input.ip, '/currentPassword', now);
    const passwordHash = await hashPassword(input.newPassword);
    await this.database.write(async (trx) => {
      await setPasswordHash(trx, caller.user.id, passwordHash);
      await deleteSessionsOfUser(trx, caller.user.id, caller.sessionSecretHash);
    });
  }

  /** "Sign out everywhere": every session of the user ends, the caller's own included. API tokens stay. */
  async endAllSessions(userId: string): Promise<void> {
    await this.database.write((trx) => deleteSessionsOfUser(trx, userId));
  }

  /** A one-time reset link for the account of `email` (the command line's), valid one hour; undefined: no such account. */
  async issuePasswordReset(email: string, now = new Date()): Promise<IssuedReset | undefined> {
    const user = await findUserByEmail(this.database.kysely, email);
    if (!user) return undefined;
    const secret = newSecret('lfr_');
    const createdAt = nowIso(now);
    const expiresAt = addMs(createdAt, PASSWORD_RESET_LIFETIME_MS);
    await this.database.write((trx) => createPasswordReset(trx, { userId: user.id, secretHash: hashSecret(secret), now: createdAt, expiresAt }));
    return { user, url: `${this.settings.publicBaseUrl}${PASSWORD_RESET_PAGE}#${secret}`, expiresAt };
  }

  /** Sets a new password with a reset link's secret, which is used up; every session ends. Used, expired or unknown: 410. */
  async resetPassword(input: { token: string; newPassword: string }, now = new Date()): Promise<void> {
    const secretHash = hashSecret(input.token);
    // Checked before the (costly) hash, so a stream of guesses costs the server next to nothing;
    // hashed before the write, which then holds the writer for no longer than its statements.
    if (!(await isPasswordResetLive(this.database.kysely, secretHash, nowIso(now)))) throw errors.resetTokenUnavailable();
    const passwordHash = await hashPassword(input.newPassword);
    await this.database.write(async (trx) => {
      const userId = await takePasswordReset(trx, secretHash, nowIso(now));
      if (userId === undefined) throw errors.resetTokenUnavailable();
      await setPasswordHash(trx, userId, passwordHash);
      await deleteSessionsOfUser(trx, userId);
    });
  }

  /**
   * Deletes the caller's account after checking the password: its sessions, tokens and reset links
   * go; campaigns it owns alone are erased with everything in them (their stored images are
   * answered, queued for removal, for the caller to remove after the commit); its memberships of
   * other campaigns end, and the images it uploaded there stay, in the owner's name. A campaign it
   * owns that others share: 409 owner_of_shared_campaign, and nothing changes (unless it is in its
   * trash: then it is erased too).
   */
  async deleteAccount(caller: AccountCaller, input: { password: string; ip: string }, now = new Date()): Promise<ImageRemovalRow[]> {
    await this.confirmPassword(caller.user, input.password, input.ip, '/password', now);
    const userId = caller.user.id;
    return this.database.write(async (trx) => {
      const at = nowIso(now);
      // Each campaign's lock first, in id order (every writer takes them in one order), then the
      // memberships as they are under the locks: nobody joins a campaign while it is erased.
      const locked: number[] = [];
      // A campaign in the owner's trash is locked too: it is erased with the account, shared or not
      // (nobody else can reach it, and no one would be left to restore it).
      const trashed = new Set<number>();
      for (const membership of await listMemberships(trx, userId)) {
        if (await beginCampaignWrite(trx, membership.id)) locked.push(membership.id);
        else if (await lockTrashedCampaignRow(trx, membership.id)) {
          locked.push(membership.id);
          trashed.add(membership.id);
        }
      }
      const memberships = (await listMemberships(trx, userId)).filter((m) => locked.includes(m.id));
      const shared = memberships.filter((m) => m.role === 'owner' && m.members > 1 && !trashed.has(m.id));
      if (shared.length > 0) throw errors.ownerOfSharedCampaign(shared);
      const removals: ImageRemovalRow[] = [];
      for (const membership of memberships) {
        if (membership.role === 'owner') {
          removals.push(...(await queueCampaignImageRemovals(trx, membership.id, at)));
          await deleteCampaignRecord(trx, membership.id);
          await deleteCampaignChanges(trx, membership.id);
        } else {
          await handAssetsToOwner(trx, membership.id, userId);
        }
      }
      removals.push(...(await queueUserUploadRemovals(trx, userId, at)));
      await deleteUser(trx, userId);
      return removals;
    });
  }

  /** A new API token for the user (rate limited per user); its secret is in the answer only. */
  async createToken(userId: string, input: { name: string; expiresAt: string | null }, now = new Date()): Promise<NewToken> {
    const limit = { key: limitKeys.tokensByUser(userId), max: this.settings.tokensMaxPerUserPerHour, windowMs: HOUR_MS };
    refuseIfLimited(await takeSlot(this.database.kysely, limit, now), 'Too many new API tokens for this account');
    const token = newSecret('lf_');
    const row = await this.database.write((trx) =>
      createToken(trx, { userId, name: input.name, secretHash: hashSecret(token), now: nowIso(now), expiresAt: input.expiresAt }),
    );
    return { id: row.id, name: row.name, token, createdAt: row.created_at, expiresAt: row.expires_at };
  }

  listTokens(userId: string) {
    return listTokens(this.database.kysely, userId);
  }

  /** One of the user's tokens (never its secret); token_not_found for any other id. */
  async token(userId: string, id: number) {
    const row = isStorableId(id) ? await findToken(this.database.kysely, userId, id) : undefined;
    if (!row) throw errors.tokenNotFound(id);
    return row;
  }

  /** Revokes one of the user's tokens: it stops working at once. */
  async revokeToken(userId: string, id: number): Promise<void> {
    const deleted = isStorableId(id) && (await this.database.write((trx) => deleteToken(trx, userId, id)));
    if (!deleted) throw errors.tokenNotFound(id);
  }
}
