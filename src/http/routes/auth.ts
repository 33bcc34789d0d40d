import { Type } from '@sinclair/typebox';
import { isStorableId, parseIdText } from '../../domain/ids.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Transaction } from 'kysely';
import { classifyDatabaseError } from '../../db/errors.js';
import { createSession, createToken, deleteSession, deleteToken, listTokens } from '../../db/repositories/credentials.js';
import { createUser, findUserByEmail, normalizeEmail } from '../../db/repositories/users.js';
import type { DB, UserRow } from '../../db/schema.js';
import { DomainError } from '../../domain/errors.js';
import { InputChecker } from '../../domain/input.js';
import { count, HOUR_MS, isExhausted, limitKeys, MINUTE_MS, reset, takeSlot, type LimitDecision } from '../../domain/rate-limit.js';
import { hashPassword, hashSecret, newSecret, verifyPassword } from '../../domain/secrets.js';
import { addMs, nowIso } from '../../domain/time.js';
import type { AppInstance } from '../app-types.js';
import { callerOf, SESSION_COOKIE, sessionCookieOptions } from '../auth.js';
import { HttpError } from '../errors.js';
import {
  checkEmail,
  checkExpiry,
  checkPassword,
  CreatedToken,
  LoginBody,
  NewTokenBody,
  PASSWORD_MAX_LENGTH,
  presentToken,
  presentUser,
  RegisterBody,
  TokenParams,
  TokenSummary,
  User,
  UserEnvelope,
} from '../schemas/auth.js';
import { problems } from '../schemas/common.js';

// The same sentence for an unknown email and a wrong password, so neither tells which it was.
const INVALID_CREDENTIALS = 'The email address or the password is not correct.';

/** 429 with Retry-After when the decision says so. */
function refuseIfLimited(decision: LimitDecision, what: string): void {
  if (!decision.limited) return;
  const seconds = decision.retryAfterSeconds;
  throw new HttpError('rate_limited', `${what}; try again in ${seconds} second${seconds === 1 ? '' : 's'}.`, undefined, {
    'retry-after': String(seconds),
  });
}

export function authRoutes(app: AppInstance) {
  const { database, config } = app;
  const sessionMs = config.sessionDays * 86_400_000;
  const loginWindowMs = config.loginWindowMinutes * MINUTE_MS;

  // A new session for the user, replacing the one the browser presented, if any: signing in never
  // leaves the previous secret alive. Runs inside the caller's transaction; returns the secret.
  async function startSession(trx: Transaction<DB>, request: FastifyRequest, userId: string, createdAt: string): Promise<string> {
    const secret = newSecret('lfs_');
    const previous = request.cookies[SESSION_COOKIE];
    if (previous) await deleteSession(trx, hashSecret(previous));
    await createSession(trx, { userId, secretHash: hashSecret(secret), now: createdAt, expiresAt: addMs(createdAt, sessionMs) });
    return secret;
  }

  function setSessionCookie(reply: FastifyReply, secret: string) {
    void reply.setCookie(SESSION_COOKIE, secret, sessionCookieOptions(config, sessionMs / 1000));
  }

  app.post(
    '/auth/register',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['auth'],
        summary: 'Create an account and sign in (sets the session cookie)',
        body: RegisterBody,
        response: { 201: UserEnvelope, ...problems(400, 409, 415, 429) },
      },
      // Before the body is validated: every attempt counts, valid or not.
      preValidation: async (request) => {
        refuseIfLimited(
          await takeSlot(database.kysely, { key: limitKeys.registerByIp(request.ip), max: config.registerMaxPerIpPerHour, windowMs: HOUR_MS }),
          'Too many registrations from this address',
        );
      },
    },
    async (request, reply) => {
      const now = new Date();
      const input = request.body;
      const check = new InputChecker();
      const email = checkEmail(check, input.email, '/email');
      const password = checkPassword(check, input.password, '/password');
      const name = input.name === undefined ? (email.split('@')[0] ?? email) : check.name(input.name, '/name');
      check.done();
      if (await findUserByEmail(database.kysely, email)) throw emailTaken();

      const passwordHash = await hashPassword(password);
      const createdAt = nowIso(now);
      let created: { user: UserRow; secret: string };
      try {
        created = await database.kysely.transaction().execute(async (trx) => {
          const user = await createUser(trx, { email, name, passwordHash, now: createdAt });
          return { user, secret: await startSession(trx, request, user.id, createdAt) };
        });
      } catch (error) {
        // Two registrations of one address at the same moment: the unique index decides.
        if (classifyDatabaseError(error) === 'unique') throw emailTaken();
        throw error;
      }
      setSessionCookie(reply, created.secret);
      return reply.code(201).header('location', '/api/auth/me').send({ user: presentUser(created.user, now) });
    },
  );

  app.post(
    '/auth/login',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['auth'],
        summary: 'Sign in (sets the session cookie)',
        body: LoginBody,
        response: { 200: UserEnvelope, ...problems(400, 401, 415, 429) },
      },
    },
    async (request, reply) => {
      const now = new Date();
      const { email, password } = request.body;
      const ipLimit = { key: limitKeys.loginFailuresByIp(request.ip), max: config.loginMaxFailuresPerIp, windowMs: loginWindowMs };
      const accountLimit = {
        key: limitKeys.loginFailuresByAccount(normalizeEmail(email)),
        max: config.loginMaxFailuresPerAccount,
        windowMs: loginWindowMs,
      };
      refuseIfLimited(await isExhausted(database.kysely, ipLimit, now), 'Too many failed sign-ins from this address');
      // The account's slot is taken before the (slow) password check, and the counter cleared on
      // success, so parallel guesses cannot overrun the limit while their hashes are computed.
      refuseIfLimited(await takeSlot(database.kysely, accountLimit, now), 'Too many failed sign-ins for this account');

      // No stored password is that long, so it is wrong without spending a hash on it.
      const tooLong = [...password].length > PASSWORD_MAX_LENGTH;
      const user = tooLong ? undefined : await findUserByEmail(database.kysely, email);
      const valid = !tooLong && (await verifyPassword(user?.password_hash, password));
      if (!valid || !user) {
        await count(database.kysely, ipLimit, now);
        throw new HttpError('invalid_credentials', INVALID_CREDENTIALS);
      }
      await reset(database.kysely, accountLimit);
      const createdAt = nowIso(now);
      setSessionCookie(reply, await database.kysely.transaction().execute((trx) => startSession(trx, request, user.id, createdAt)));
      return { user: presentUser(user, now) };
    },
  );

  app.post(
    '/auth/logout',
    {
      config: { auth: 'user' },
      schema: { tags: ['auth'], summary: 'End the session of this cookie (server-side) and clear the cookie', response: { 204: Type.Null(), ...problems(401, 403) } },
    },
    async (request, reply) => {
      callerOf(request);
      const cookie = request.cookies[SESSION_COOKIE];
      if (cookie) {
        await deleteSession(database.kysely, hashSecret(cookie));
        void reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(config, 0));
      }
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/auth/me',
    {
      config: { auth: 'user' },
      schema: { tags: ['auth'], summary: 'The signed-in user', response: { 200: User, ...problems(401) } },
    },
    (request) => presentUser(callerOf(request).user),
  );

  app.post(
    '/auth/tokens',
    {
      config: { auth: 'user' },
      schema: {
        tags: ['auth'],
        summary: 'Create an API token; the secret is in this response only',
        body: NewTokenBody,
        response: { 201: CreatedToken, ...problems(400, 401, 403, 415, 429) },
      },
    },
    async (request, reply) => {
      const now = new Date();
      const userId = callerOf(request).user.id;
      const check = new InputChecker();
      const name = check.name(request.body.name, '/name');
      const expiresAt = checkExpiry(check, request.body.expiresAt, '/expiresAt', now);
      check.done();
      refuseIfLimited(
        await takeSlot(database.kysely, { key: limitKeys.tokensByUser(userId), max: config.tokensMaxPerUserPerHour, windowMs: HOUR_MS }, now),
        'Too many new API tokens for this account',
      );
      const token = newSecret('lf_');
      const row = await createToken(database.kysely, { userId, name, secretHash: hashSecret(token), now: nowIso(now), expiresAt });
      return reply
        .code(201)
        .header('location', `/api/auth/tokens/${row.id}`)
        // The one response that carries the secret: no cache on the way may keep it.
        .header('cache-control', 'no-store')
        .send({ id: row.id, name: row.name, token, createdAt: row.created_at, expiresAt: row.expires_at });
    },
  );

  app.get(
    '/auth/tokens',
    {
      config: { auth: 'user' },
      schema: { tags: ['auth'], summary: "The caller's API tokens, newest first (never their secrets)", response: { 200: Type.Array(TokenSummary), ...problems(401) } },
    },
    async (request) => (await listTokens(database.kysely, callerOf(request).user.id)).map(presentToken),
  );

  app.delete(
    '/auth/tokens/:id',
    {
      config: { auth: 'user' },
      schema: {
        tags: ['auth'],
        summary: 'Revoke an API token; it stops working at once',
        params: TokenParams,
        response: { 204: Type.Null(), ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const raw = request.params.id;
      const id = parseIdText(raw);
      if (id === undefined) throw new HttpError('invalid_id', 'A token id is a positive whole number.');
      if (!isStorableId(id) || !(await deleteToken(database.kysely, callerOf(request).user.id, id))) {
        throw new DomainError('token_not_found', `You have no API token ${raw}.`);
      }
      return reply.code(204).send(null);
    },
  );
}

function emailTaken() {
  return new DomainError('email_taken', 'An account with this email address already exists.');
}
