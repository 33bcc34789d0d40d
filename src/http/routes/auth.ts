import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { Accounts } from '../../accounts/accounts.js';
import { removeQueuedImages } from '../../images/uploads.js';
import { checkEmail, checkExpiry, checkPassword } from '../../domain/accounts.js';
import { errors } from '../../domain/errors.js';
import { parseIdText } from '../../domain/ids.js';
import { InputChecker } from '../../domain/input.js';
import type { AppInstance } from '../app-types.js';
import { callerOf, SESSION_COOKIE, sessionCookieOptions } from '../auth.js';
import {
  ChangePasswordBody,
  CreatedToken,
  DeleteAccountBody,
  LoginBody,
  NewTokenBody,
  PasswordResetBody,
  presentToken,
  presentUser,
  RegisterBody,
  TokenParams,
  TokenSummary,
  User,
  UserEnvelope,
} from '../schemas/auth.js';
import { problems } from '../schemas/common.js';

/** A token id from the path: malformed is 400 (well-formed but unknown is the service's 404). */
function tokenId(raw: string): number {
  const id = parseIdText(raw);
  if (id === undefined) throw errors.invalidId('a token', raw);
  return id;
}

export function authRoutes(app: AppInstance) {
  const { config } = app;
  const accounts = new Accounts(app.database, config);

  function setSessionCookie(reply: FastifyReply, secret: string, maxAgeSeconds: number) {
    void reply.setCookie(SESSION_COOKIE, secret, sessionCookieOptions(config, maxAgeSeconds));
  }

  app.post(
    '/auth/register',
    {
      config: { auth: 'none', rateLimited: true },
      schema: {
        operationId: 'register',
        summary: 'Create an account and sign in',
        description: 'Creates the account (email unique ignoring case; password 10 to 1024 characters; name optional, else the part of the email before @) and answers 201 `{user}` with the session cookie set. Rate limited per IP (every attempt counts).',
        tags: ['auth'],
        body: RegisterBody,
        responseHeaders: { 201: ['location', 'set-cookie'] },
        response: { 201: UserEnvelope, ...problems(400, 409, 415, 429) },
      },
      // Before the body is validated: every attempt counts, valid or not.
      preValidation: async (request) => {
        await accounts.countRegistration(request.ip);
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
      const session = await accounts.register({ email, password, name }, request.cookies[SESSION_COOKIE], now);
      setSessionCookie(reply, session.secret, session.maxAgeSeconds);
      return reply.code(201).header('location', '/api/auth/me').send({ user: presentUser(session.user, config, now) });
    },
  );

  app.post(
    '/auth/login',
    {
      config: { auth: 'none', rateLimited: true },
      schema: {
        operationId: 'login',
        summary: 'Sign in',
        description: 'Checks the email and password and answers `{user}` with a new session cookie (a session cookie sent along is replaced). A wrong password and an unknown email get the same 401. Rate limited: failed sign-ins per IP and attempts per account.',
        tags: ['auth'],
        body: LoginBody,
        responseHeaders: { 200: ['set-cookie'] },
        response: { 200: UserEnvelope, ...problems(400, 401, 415, 429) },
      },
    },
    async (request, reply) => {
      const now = new Date();
      const { email, password } = request.body;
      const session = await accounts.login({ email, password, ip: request.ip }, request.cookies[SESSION_COOKIE], now);
      setSessionCookie(reply, session.secret, session.maxAgeSeconds);
      return { user: presentUser(session.user, config, now) };
    },
  );

  app.post(
    '/auth/logout',
    {
      config: { auth: 'user' },
      schema: {
        operationId: 'logout',
        summary: 'Sign out',
        description: 'Ends the session of the cookie sent, server-side, and clears the cookie. With a bearer token it ends nothing (tokens are revoked with DELETE /api/auth/tokens/{id}).',
        tags: ['auth'],
        response: { 204: Type.Null(), ...problems(401, 403) },
      },
    },
    async (request, reply) => {
      callerOf(request);
      const cookie = request.cookies[SESSION_COOKIE];
      if (cookie) {
        await accounts.endSession(cookie);
        void reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(config, 0));
      }
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/auth/me',
    {
      config: { auth: 'user' },
      schema: {
        operationId: 'getCurrentUser',
        summary: 'The signed-in user',
        description: 'The caller: id, email, name, whether premium (premiumUntil in the future, or every account when the server sets EVERYONE_PREMIUM=true) and until when, and when the account was created.',
        tags: ['auth'],
        response: { 200: User, ...problems(401) },
      },
    },
    (request) => presentUser(callerOf(request).user, config),
  );

  app.post(
    '/auth/tokens',
    {
      config: { auth: 'user', rateLimited: true },
      schema: {
        operationId: 'createToken',
        summary: 'Create an API token',
        description: 'Creates a token for scripts and apps, sent as `Authorization: Bearer <token>`. Only a session (signed in with the password) may create one: a call with a bearer token is 403 `session_required`, so a leaked token cannot mint more. The secret (`token`) is in this answer only (`Cache-Control: no-store`); only its hash is stored. `expiresAt`: a future date-time with a zone, or null for never. Rate limited per user.',
        tags: ['auth'],
        body: NewTokenBody,
        responseHeaders: { 201: ['location', 'cache-control'] },
        response: { 201: CreatedToken, ...problems(400, 401, 403, 415, 429) },
      },
    },
    async (request, reply) => {
      const now = new Date();
      const caller = callerOf(request);
      if (caller.via !== 'cookie') throw errors.sessionRequired();
      const check = new InputChecker();
      const name = check.name(request.body.name, '/name');
      const expiresAt = checkExpiry(check, request.body.expiresAt, '/expiresAt', now);
      check.done();
      const token = await accounts.createToken(caller.user.id, { name, expiresAt }, now);
      return reply
        .code(201)
        .header('location', `/api/auth/tokens/${token.id}`)
        // The one response that carries the secret: no cache on the way may keep it.
        .header('cache-control', 'no-store')
        .send(token);
    },
  );

  app.get(
    '/auth/tokens',
    {
      config: { auth: 'user' },
      schema: {
        operationId: 'listTokens',
        summary: 'The caller’s API tokens',
        description: 'Every token of the caller, newest first, without secrets; `lastUsedAt` is updated at most once a minute.',
        tags: ['auth'],
        response: { 200: Type.Array(TokenSummary), ...problems(401) },
      },
    },
    async (request) => (await accounts.listTokens(callerOf(request).user.id)).map(presentToken),
  );

  app.get(
    '/auth/tokens/:id',
    {
      config: { auth: 'user' },
      schema: {
        operationId: 'getToken',
        summary: 'One of the caller’s API tokens',
        description: 'The token named by `id` (the `Location` of its creation), without its secret. Another user’s token is 404, like one that does not exist.',
        tags: ['auth'],
        params: TokenParams,
        response: { 200: TokenSummary, ...problems(400, 401, 404) },
      },
    },
    async (request) => presentToken(await accounts.token(callerOf(request).user.id, tokenId(request.params.id))),
  );

  app.delete(
    '/auth/tokens/:id',
    {
      config: { auth: 'user' },
      schema: {
        operationId: 'revokeToken',
        summary: 'Revoke an API token',
        description: 'Deletes the token; it stops working at once. Another user’s token is 404.',
        tags: ['auth'],
        params: TokenParams,
        response: { 204: Type.Null(), ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await accounts.revokeToken(callerOf(request).user.id, tokenId(request.params.id));
      return reply.code(204).send(null);
    },
  );
  app.put(
    '/auth/password',
    {
      config: { auth: 'user', rateLimited: true },
      schema: {
        operationId: 'changePassword',
        summary: 'Change the password',
        description:
          'Checks `currentPassword`, sets `newPassword` (10 to 1024 characters) and ends every other session of the user; the session of this request stays signed in (API tokens stay too). A wrong current password is 400 `invalid_password`, counted as a failed sign-in (per account and address, and per address: 429 with Retry-After beyond the limits).',
        tags: ['auth'],
        body: ChangePasswordBody,
        response: { 204: Type.Null(), ...problems(400, 401, 403, 415, 429) },
      },
    },
    async (request, reply) => {
      const check = new InputChecker();
      const newPassword = checkPassword(check, request.body.newPassword, '/newPassword');
      check.done();
      const caller = callerOf(request);
      await accounts.changePassword(caller, { currentPassword: request.body.currentPassword, newPassword, ip: request.ip });
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/auth/sessions',
    {
      config: { auth: 'user' },
      schema: {
        operationId: 'endAllSessions',
        summary: 'Sign out everywhere',
        description: 'Ends every session of the user, on every device, this one included, and clears the cookie. API tokens are not sessions: they stay until revoked (DELETE /api/auth/tokens/{id}).',
        tags: ['auth'],
        response: { 204: Type.Null(), ...problems(401, 403) },
      },
    },
    async (request, reply) => {
      await accounts.endAllSessions(callerOf(request).user.id);
      if (request.cookies[SESSION_COOKIE]) void reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(config, 0));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/auth/password-reset',
    {
      config: { auth: 'none' },
      schema: {
        operationId: 'resetPassword',
        summary: 'Set a new password with a reset link',
        description:
          'Sets `newPassword` (10 to 1024 characters) for the account of the reset link and ends every session of it. The link comes from the administrator’s `npm run cli -- user reset-password <email>`, which prints the web app’s page `/reset-password#<token>`; it works once, for one hour, and only the newest link of an account works. A used, expired or unknown token is 410 `reset_token_unavailable`.',
        tags: ['auth'],
        body: PasswordResetBody,
        response: { 204: Type.Null(), ...problems(400, 410, 415) },
      },
    },
    async (request, reply) => {
      const check = new InputChecker();
      const newPassword = checkPassword(check, request.body.newPassword, '/newPassword');
      check.done();
      await accounts.resetPassword({ token: request.body.token.trim(), newPassword });
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/auth/me',
    {
      config: { auth: 'user', rateLimited: true },
      schema: {
        operationId: 'deleteAccount',
        summary: 'Delete the account',
        description:
          'Checks `password`, then deletes the account for good: its sessions, API tokens and reset links; the campaigns it owns alone, erased at once with everything in them and their stored images (there is no trash yet); its memberships of other campaigns (images it uploaded there stay with those campaigns, in their owner’s name). ' +
          'A campaign it owns that has other members must be transferred first: 409 `owner_of_shared_campaign`, whose `errors` list those campaigns (`path` `/campaigns/<slug>`, `message` the name), and nothing is deleted. A wrong password is 400 `invalid_password`, counted as a failed sign-in (429 beyond the limits).',
        tags: ['auth'],
        body: DeleteAccountBody,
        response: { 204: Type.Null(), ...problems(400, 401, 403, 409, 415, 429) },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const removals = await accounts.deleteAccount(caller, { password: request.body.password, ip: request.ip });
      // After the commit: a host that fails leaves the bytes queued for the sweeper, never the records.
      await removeQueuedImages(app.database, app.imageHost, removals, request.log);
      if (request.cookies[SESSION_COOKIE]) void reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(config, 0));
      return reply.code(204).send(null);
    },
  );
}
