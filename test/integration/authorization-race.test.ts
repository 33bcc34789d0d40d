import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScaledOutContext, json, type TestContext, type TestUser } from '../support/app.js';
import type { AppInstance } from '../../src/http/app-types.js';

// CONTRACT "Authorization holds for the whole request": the caller's membership and role are
// checked again inside the write's transaction, as they are at commit. The real race: a raw socket
// sends a write's headers and half its body (the route's gate runs on the headers), the member is
// removed or demoted meanwhile (through another app instance on PostgreSQL), then the body completes.

let ctx: TestContext & { apps: AppInstance[] };
let port: number;
let owner: TestUser;

beforeAll(async () => {
  ctx = await createScaledOutContext();
  owner = await ctx.createUser();
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  port = (ctx.app.server.address() as AddressInfo).port;
});
afterAll(() => ctx.close());

/** The other instance where there is one: the membership changes there, not where the write waits. */
const admin = () => ctx.apps[ctx.apps.length - 1]!;

interface Answer {
  status: number;
  body: Record<string, any>;
}

/**
 * Sends a write's head and the first half of its body, and returns once the server has passed its
 * gate (the authentication hook has touched the caller's token: wait for that row to change);
 * `finish` sends the rest and reads the answer.
 */
async function startSlowWrite(user: TestUser, method: string, path: string, payload: unknown): Promise<{ finish(): Promise<Answer> }> {
  const kysely = ctx.database.kysely;
  // The hook writes last_used_at of a token not used for a minute: that write is our signal.
  await kysely.updateTable('api_tokens').set({ last_used_at: null }).where('user_id', '=', user.id).execute();
  const body = Buffer.from(JSON.stringify(payload));
  const half = Math.floor(body.length / 2);
  const socket = net.connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  const closed = new Promise<string>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.write(
    `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${user.headers.authorization ? `Authorization: ${user.headers.authorization}\r\n` : ''}` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
  );
  socket.write(body.subarray(0, half));
  for (;;) {
    const row = await kysely.selectFrom('api_tokens').select('last_used_at').where('user_id', '=', user.id).executeTakeFirstOrThrow();
    if (row.last_used_at !== null) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  // Nothing was answered yet: the request waits for the rest of its body, past its gate.
  expect(chunks).toEqual([]);
  return {
    async finish() {
      // Not end(): a client's half-close makes the server abort the request (httpAllowHalfOpen).
      // With `Connection: close` the server closes the socket once it has answered.
      socket.write(body.subarray(half));
      const text = await closed;
      const [head = '', rest = ''] = text.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
      const bodyText = /transfer-encoding: chunked/i.test(head) ? dechunk(rest) : rest;
      return { status, body: JSON.parse(bodyText) as Record<string, any> };
    },
  };
}

function dechunk(text: string): string {
  let out = '';
  for (let at = 0; ; ) {
    const lineEnd = text.indexOf('\r\n', at);
    const size = Number.parseInt(text.slice(at, lineEnd), 16);
    if (!(size > 0)) return out;
    out += text.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}

let counter = 0;
async function campaignWith(role: 'gm' | 'player'): Promise<{ slug: string; id: number; typeId: number; member: TestUser }> {
  const created = await ctx.app.inject({ method: 'POST', url: '/api/campaigns', headers: owner.headers, payload: { newCampaign: { name: `Race ${++counter}` } } });
  const campaign = json<{ slug: string; id: number }>(created);
  const types = json<{ id: number }[]>(await ctx.app.inject({ method: 'GET', url: `/api/campaigns/${campaign.slug}/thing-types`, headers: owner.headers }));
  const member = await ctx.createUser();
  const invitation = await ctx.app.inject({ method: 'POST', url: `/api/campaigns/${campaign.slug}/invitations`, headers: owner.headers, payload: { role } });
  const accepted = await ctx.app.inject({ method: 'POST', url: '/api/invitations/accept', headers: member.headers, payload: { token: json<{ token: string }>(invitation).token } });
  expect(accepted.statusCode, accepted.body).toBe(200);
  return { slug: campaign.slug, id: campaign.id, typeId: types[0]!.id, member };
}

async function removeMember(slug: string, userId: string) {
  const res = await admin().inject({ method: 'DELETE', url: `/api/campaigns/${slug}/members/${userId}`, headers: owner.headers });
  expect(res.statusCode, res.body).toBe(204);
}

async function demote(slug: string, userId: string) {
  const res = await admin().inject({ method: 'PUT', url: `/api/campaigns/${slug}/members/${userId}`, headers: owner.headers, payload: { role: 'player' } });
  expect(res.statusCode, res.body).toBe(200);
}

async function thingsNamed(campaignId: number, name: string) {
  return ctx.database.kysely.selectFrom('things').select('id').where('campaign_id', '=', campaignId).where('name', '=', name).execute();
}

async function invitationsOf(campaignId: number, userId: string) {
  return ctx.database.kysely.selectFrom('invitations').select('id').where('campaign_id', '=', campaignId).where('created_by', '=', userId).execute();
}

describe('a write whose caller loses the campaign while its body is in flight', () => {
  it('creates no thing for a co-GM removed meanwhile: 404', async () => {
    const c = await campaignWith('gm');
    const write = await startSlowWrite(c.member, 'POST', `/api/campaigns/${c.slug}/things`, { newThing: { name: 'Glasstaff', typeId: c.typeId } });
    await removeMember(c.slug, c.member.id);
    const answer = await write.finish();
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe('campaign_not_found');
    expect(await thingsNamed(c.id, 'Glasstaff')).toEqual([]);
  });

  it('creates no thing for a co-GM made a player meanwhile: 403 role_forbidden', async () => {
    const c = await campaignWith('gm');
    const write = await startSlowWrite(c.member, 'POST', `/api/campaigns/${c.slug}/things`, { newThing: { name: 'Iarno', typeId: c.typeId } });
    await demote(c.slug, c.member.id);
    const answer = await write.finish();
    expect(answer.status).toBe(403);
    expect(answer.body.code).toBe('role_forbidden');
    expect(await thingsNamed(c.id, 'Iarno')).toEqual([]);
  });

  it('creates no invitation for a co-GM removed meanwhile, so they cannot rejoin with it', async () => {
    const c = await campaignWith('gm');
    const write = await startSlowWrite(c.member, 'POST', `/api/campaigns/${c.slug}/invitations`, { role: 'player', maxUses: 5 });
    await removeMember(c.slug, c.member.id);
    const answer = await write.finish();
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe('campaign_not_found');
    expect(answer.body.token).toBeUndefined();
    expect(await invitationsOf(c.id, c.member.id)).toEqual([]);
    const members = await ctx.database.kysely.selectFrom('campaign_members').select('user_id').where('campaign_id', '=', c.id).execute();
    expect(members.map((m) => m.user_id)).toEqual([owner.id]);
  });

  it('creates no invitation for a co-GM made a player meanwhile: 403', async () => {
    const c = await campaignWith('gm');
    const write = await startSlowWrite(c.member, 'POST', `/api/campaigns/${c.slug}/invitations`, { role: 'player' });
    await demote(c.slug, c.member.id);
    const answer = await write.finish();
    expect(answer.status).toBe(403);
    expect(answer.body.code).toBe('role_forbidden');
    expect(await invitationsOf(c.id, c.member.id)).toEqual([]);
  });

  it('lets no one in by the link of a game master removed while the acceptance was in flight: 410', async () => {
    const c = await campaignWith('gm');
    const made = await ctx.app.inject({ method: 'POST', url: `/api/campaigns/${c.slug}/invitations`, headers: c.member.headers, payload: { role: 'player' } });
    expect(made.statusCode, made.body).toBe(201);
    const newcomer = await ctx.createUser();
    const acceptance = await startSlowWrite(newcomer, 'POST', '/api/invitations/accept', { token: json<{ token: string }>(made).token });
    await removeMember(c.slug, c.member.id);
    const answer = await acceptance.finish();
    expect(answer.status).toBe(410);
    expect(answer.body.code).toBe('invitation_unavailable');
    const joined = await ctx.database.kysely.selectFrom('campaign_members').select('user_id').where('campaign_id', '=', c.id).where('user_id', '=', newcomer.id).execute();
    expect(joined).toEqual([]);
  });

  // A save reads and locks its record right behind the write's opening, in the same round trip on
  // PostgreSQL (db/pipeline.ts SentWithNext): the opening must stop it there, before its UPDATE.
  it('saves nothing of a thing for a co-GM removed meanwhile: 404', async () => {
    const c = await campaignWith('gm');
    const made = await ctx.app.inject({ method: 'POST', url: `/api/campaigns/${c.slug}/things`, headers: owner.headers, payload: { newThing: { name: 'Nezznar', typeId: c.typeId } } });
    const thing = json<{ slug: string; version: number }>(made);
    const write = await startSlowWrite(c.member, 'PUT', `/api/campaigns/${c.slug}/things/${thing.slug}`, { updatedThing: { name: 'Renamed by the removed' } });
    await removeMember(c.slug, c.member.id);
    const answer = await write.finish();
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe('campaign_not_found');
    expect(await thingsNamed(c.id, 'Nezznar')).toHaveLength(1);
  });

  it('saves nothing of a thing for a co-GM made a player meanwhile: 403 role_forbidden', async () => {
    const c = await campaignWith('gm');
    const made = await ctx.app.inject({ method: 'POST', url: `/api/campaigns/${c.slug}/things`, headers: owner.headers, payload: { newThing: { name: 'Hamun', typeId: c.typeId } } });
    const thing = json<{ slug: string }>(made);
    const write = await startSlowWrite(c.member, 'PUT', `/api/campaigns/${c.slug}/things/${thing.slug}`, { updatedThing: { name: 'Renamed by the demoted' } });
    await demote(c.slug, c.member.id);
    const answer = await write.finish();
    expect(answer.status).toBe(403);
    expect(answer.body.code).toBe('role_forbidden');
    expect(answer.body.detail).toContain('yours is now player');
    expect(await thingsNamed(c.id, 'Hamun')).toHaveLength(1);
  });

  it('lets a member who stays a game master write as usual', async () => {
    const c = await campaignWith('gm');
    const write = await startSlowWrite(c.member, 'POST', `/api/campaigns/${c.slug}/things`, { newThing: { name: 'Sildar', typeId: c.typeId } });
    const answer = await write.finish();
    expect(answer.status).toBe(201);
    expect(await thingsNamed(c.id, 'Sildar')).toHaveLength(1);
  });
});
