import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { Accounts } from '../../accounts/accounts.js';
import { checkEmail, checkExpiry, checkPassword } from '../../domain/accounts.js';
import { errors } from '../../domain/errors.js';
import { parseIdText } from '../../domain/ids.js';
import { InputChecker } from '../../domain/input.js';
import type { AppInstance } from '../app-types.js';
import { callerOf, SESSION_COOKIE, sessionCookieOptions } from '../auth.js';
import {
  CreatedToken,
  LoginBody,
  NewTokenBody,
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
      config: { auth: 'none' },
      schema: {
        tags: ['auth'],
        summary: 'Create an account and sign in (sets the session cookie)',
        body: RegisterBody,
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
      return reply.code(201).header('location', '/api/auth/me').send({ user: presentUser(session.user, now) });
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
      const session = await accounts.login({ email, password, ip: request.ip }, request.cookies[SESSION_COOKIE], now);
      setSessionCookie(reply, session.secret, session.maxAgeSeconds);
      return { user: presentUser(session.user, now) };
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
      const check = new InputChecker();
      const name = check.name(request.body.name, '/name');
      const expiresAt = checkExpiry(check, request.body.expiresAt, '/expiresAt', now);
      check.done();
      const token = await accounts.createToken(callerOf(request).user.id, { name, expiresAt }, now);
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
      schema: { tags: ['auth'], summary: "The caller's API tokens, newest first (never their secrets)", response: { 200: Type.Array(TokenSummary), ...problems(401) } },
    },
    async (request) => (await accounts.listTokens(callerOf(request).user.id)).map(presentToken),
  );

  app.get(
    '/auth/tokens/:id',
    {
      config: { auth: 'user' },
      schema: {
        tags: ['auth'],
        summary: "One of the caller's API tokens (never its secret)",
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
        tags: ['auth'],
        summary: 'Revoke an API token; it stops working at once',
        params: TokenParams,
        response: { 204: Type.Null(), ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await accounts.revokeToken(callerOf(request).user.id, tokenId(request.params.id));
      return reply.code(204).send(null);
    },
  );
}
