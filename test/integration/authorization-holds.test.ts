import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestUser } from '../support/app.js';
import { filesUnder, premiumUser, call, startImageApp, type ImageApp } from '../fixtures/image-app.js';
import { png } from '../fixtures/images.js';

// The security review's findings on "Authorization is checked before the body arrives, never
// again" (issue 23), one regression test each (CONTRACT "Authorization holds for the whole
// request"): what a member could do survives neither their removal, nor their demotion, nor a
// transfer; a game master revokes only their own links; viewing as a player is read-only. The slow
// body races themselves are in authorization-race.test.ts.

let app: ImageApp;
let owner: TestUser;

beforeAll(async () => {
  app = await startImageApp();
  owner = await premiumUser(app.ctx);
});
afterAll(() => app.close());

const api = (path: string) => `${app.base}/api${path}`;

let counter = 0;
async function campaignWithMember(role: 'gm' | 'player'): Promise<{ slug: string; id: number; member: TestUser }> {
  const campaign = (await call(api('/campaigns'), { user: owner, json: { newCampaign: { name: `Holds ${++counter}` } } })).body as { slug: string; id: number };
  const member = await premiumUser(app.ctx);
  await join(campaign.slug, owner, member, role);
  return { ...campaign, member };
}

async function invite(slug: string, by: TestUser, role: 'gm' | 'player'): Promise<{ id: number; token: string }> {
  const res = await call(api(`/campaigns/${slug}/invitations`), { user: by, json: { role } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: number; token: string };
}

async function join(slug: string, by: TestUser, member: TestUser, role: 'gm' | 'player') {
  const { token } = await invite(slug, by, role);
  const res = await call(api('/invitations/accept'), { user: member, json: { token } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

async function memberIds(campaignId: number): Promise<string[]> {
  const rows = await app.ctx.database.kysely.selectFrom('campaign_members').select('user_id').where('campaign_id', '=', campaignId).execute();
  return rows.map((r) => r.user_id).sort();
}

describe('what a member could do ends with their role', () => {
  it('a transfer revokes the previous owner’s gm links, and keeps their player links', async () => {
    const c = await campaignWithMember('gm');
    const gmLink = await invite(c.slug, owner, 'gm');
    const playerLink = await invite(c.slug, owner, 'player');
    expect((await call(api(`/campaigns/${c.slug}/transfer`), { user: owner, json: { userId: c.member.id } })).status).toBe(200);
    const late = await premiumUser(app.ctx);
    const refused = await call(api('/invitations/accept'), { user: late, json: { token: gmLink.token } });
    expect(refused.status).toBe(410);
    expect(refused.body.code).toBe('invitation_unavailable');
    expect((await memberIds(c.id)).includes(late.id)).toBe(false);
    const accepted = await call(api('/invitations/accept'), { user: late, json: { token: playerLink.token } });
    expect(accepted.status).toBe(200);
    expect(accepted.body.role).toBe('player');
  });

  it('a game master may not revoke the owner’s links (403), only their own; the owner revokes any', async () => {
    const c = await campaignWithMember('gm');
    const ownersLink = await invite(c.slug, owner, 'player');
    const gmsLink = await invite(c.slug, c.member, 'player');
    const refused = await call(api(`/campaigns/${c.slug}/invitations/${ownersLink.id}`), { method: 'DELETE', user: c.member });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('role_forbidden');
    const listed = (await call(api(`/campaigns/${c.slug}/invitations`), { user: owner })).body as { id: number }[];
    expect(listed.map((i) => i.id)).toContain(ownersLink.id);
    expect((await call(api(`/campaigns/${c.slug}/invitations/${gmsLink.id}`), { method: 'DELETE', user: c.member })).status).toBe(204);
    const again = await invite(c.slug, c.member, 'player');
    expect((await call(api(`/campaigns/${c.slug}/invitations/${again.id}`), { method: 'DELETE', user: owner })).status).toBe(204);
    expect((await call(api(`/campaigns/${c.slug}/invitations/${ownersLink.id}`), { method: 'DELETE', user: owner })).status).toBe(204);
  });

  it('"View as player" removes no member, changes no role, invites nobody, transfers nothing, and does not leave: 403', async () => {
    const c = await campaignWithMember('gm');
    const player = await premiumUser(app.ctx);
    await join(c.slug, owner, player, 'player');
    const asPlayer = { 'loreforge-view': 'player' };
    const attempts: [TestUser, string, string, unknown?][] = [
      [c.member, 'DELETE', `/campaigns/${c.slug}/members/${player.id}`],
      [c.member, 'DELETE', `/campaigns/${c.slug}/members/${c.member.id}`],
      [owner, 'DELETE', `/campaigns/${c.slug}/members/${c.member.id}`],
      [owner, 'PUT', `/campaigns/${c.slug}/members/${c.member.id}`, { role: 'player' }],
      [owner, 'POST', `/campaigns/${c.slug}/transfer`, { userId: c.member.id }],
      [c.member, 'POST', `/campaigns/${c.slug}/invitations`, { role: 'player' }],
      [player, 'DELETE', `/campaigns/${c.slug}/members/${player.id}`],
    ];
    const before = await memberIds(c.id);
    for (const [user, method, path, json] of attempts) {
      const res = await call(api(path), { method, user, headers: asPlayer, ...(json === undefined ? {} : { json }) });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.code, `${method} ${path}`).toBe('role_forbidden');
    }
    expect(await memberIds(c.id)).toEqual(before);
    const roles = (await call(api(`/campaigns/${c.slug}/members`), { user: owner })).body as { userId: string; role: string }[];
    expect(roles.find((m) => m.userId === c.member.id)?.role).toBe('gm');
    const made = await app.ctx.database.kysely.selectFrom('invitations').select('id').where('campaign_id', '=', c.id).where('created_by', '=', c.member.id).execute();
    expect(made).toEqual([]);
  });

  for (const change of ['removed', 'made a player'] as const) {
    it(`a game master ${change} stores no image through an upload URL they were given`, async () => {
      const c = await campaignWithMember('gm');
      const granted = await call(api(`/campaigns/${c.slug}/assets/upload-url`), { user: c.member, json: { label: 'Map' } });
      expect(granted.status).toBe(200);
      const { uploadURL, imageId } = granted.body as { uploadURL: string; imageId: string };
      const change_ =
        change === 'removed'
          ? await call(api(`/campaigns/${c.slug}/members/${c.member.id}`), { method: 'DELETE', user: owner })
          : await call(api(`/campaigns/${c.slug}/members/${c.member.id}`), { method: 'PUT', user: owner, json: { role: 'player' } });
      expect(change_.status).toBeLessThan(300);
      const put = await call(uploadURL, { method: 'PUT', body: png([1, 2, 3, 255]), headers: { 'content-type': 'image/png' } });
      expect(put.status).toBe(404);
      expect(put.body.code).toBe('upload_url_not_found');
      expect(filesUnder(app.imagesDir).filter((f) => f.includes(imageId))).toEqual([]);
      const grants = await app.ctx.database.kysely.selectFrom('upload_grants').select('id').where('id', '=', imageId).execute();
      expect(grants).toEqual([]);
    });
  }

  it('a game master made a player loses the links they made', async () => {
    const c = await campaignWithMember('gm');
    const link = await invite(c.slug, c.member, 'player');
    expect((await call(api(`/campaigns/${c.slug}/members/${c.member.id}`), { method: 'PUT', user: owner, json: { role: 'player' } })).status).toBe(200);
    const late = await premiumUser(app.ctx);
    expect((await call(api('/invitations/accept'), { user: late, json: { token: link.token } })).status).toBe(410);
  });
});
