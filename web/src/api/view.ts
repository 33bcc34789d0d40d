// "View as player": while it is on for a campaign, every request the app makes about that campaign
// carries `Loreforge-View: player`, and the server answers exactly what a player of it would get
// (CONTRACT "Members and roles"). Kept per tab (sessionStorage), so a reload keeps the view.
import { api } from './client';

const KEY = 'loreforge.view-as-player';
let campaign: string | null = sessionStorage.getItem(KEY);

export function playerViewCampaign(): string | null {
  return campaign;
}

export function setPlayerView(slug: string, on: boolean): void {
  campaign = on ? slug : campaign === slug ? null : campaign;
  if (campaign === null) sessionStorage.removeItem(KEY);
  else sessionStorage.setItem(KEY, campaign);
}

api.use({
  onRequest({ request }) {
    if (campaign === null) return request;
    const path = new URL(request.url).pathname;
    if (path === `/api/campaigns/${campaign}` || path.startsWith(`/api/campaigns/${campaign}/`)) request.headers.set('Loreforge-View', 'player');
    return request;
  },
});
