// "View as player": while it is on for a campaign, every request the app makes about that campaign
// carries `Loreforge-View: player`, and the server answers exactly what a player of it would get
// (CONTRACT "Members and roles"). Kept per tab (sessionStorage), so a reload keeps the view.
import { api } from './client';

const KEY = 'loreforge.view-as-player';
// Read from the tab's storage when first asked (not when this module loads: code that imports it
// may run where there is no sessionStorage, as the web tests without a DOM do).
let campaign: string | null | undefined;

export function playerViewCampaign(): string | null {
  if (campaign === undefined) campaign = sessionStorage.getItem(KEY);
  return campaign;
}

export function setPlayerView(slug: string, on: boolean): void {
  const current = playerViewCampaign();
  campaign = on ? slug : current === slug ? null : current;
  if (campaign === null) sessionStorage.removeItem(KEY);
  else sessionStorage.setItem(KEY, campaign);
}

api.use({
  onRequest({ request }) {
    const viewed = playerViewCampaign();
    if (viewed === null) return request;
    const path = new URL(request.url).pathname;
    if (path === `/api/campaigns/${viewed}` || path.startsWith(`/api/campaigns/${viewed}/`)) request.headers.set('Loreforge-View', 'player');
    return request;
  },
});
