import type { AppInstance } from '../../src/http/app-types.js';
import { json, type TestUser } from './app.js';

/** Makes `member` a member of the campaign `slug` with `role`, through the API: `inviter` invites, `member` accepts. */
export async function joinCampaign(app: AppInstance, inviter: TestUser, slug: string, member: TestUser, role: 'gm' | 'player'): Promise<void> {
  const created = await app.inject({ method: 'POST', url: `/api/campaigns/${slug}/invitations`, headers: inviter.headers, payload: { role } });
  if (created.statusCode !== 201) throw new Error(`invitation: ${created.statusCode} ${created.body}`);
  const accepted = await app.inject({ method: 'POST', url: '/api/invitations/accept', headers: member.headers, payload: { token: json<{ token: string }>(created).token } });
  if (accepted.statusCode !== 200) throw new Error(`accept: ${accepted.statusCode} ${accepted.body}`);
}
