// A first load's reads, started as the app's entry runs, before the page's code has run (that code
// was fetched beside the entry: src/http/page-code.ts names it in the page's HTML). The campaign,
// the record, its rendering and its first image are asked for as soon as the app can ask. Each read
// starts only when the browser opened the app at its address (campaigns/api.ts `openedAt`), and the
// page's query takes its answer once, in the view it was asked in (`takeEarly`).
import { arcSource } from '../arcs/api';
import { startCampaign } from '../campaigns/api';
import { startCampaignHome, startRecordPage } from '../records/api';
import { thingSource } from '../things/api';

export function startFirstReads(): void {
  startCampaign();
  startCampaignHome();
  startRecordPage('things', (campaignSlug, recordSlug) => thingSource(campaignSlug, recordSlug).load());
  startRecordPage('arcs', (campaignSlug, recordSlug) => arcSource(campaignSlug, recordSlug).load());
}
