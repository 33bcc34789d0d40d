// The read scenarios of `npm run bench` (the writes are in writes.ts).
import type { SeededCampaign } from '../seed.js';
import type { Api } from '../../toolkit/http.js';

export const SEARCH_QUERY = 'lantern';

export interface ReadScenario {
  name: string;
  path: string;
}

export function readScenarios(campaign: SeededCampaign, withSearch: boolean): ReadScenario[] {
  const base = `/api/campaigns/${campaign.slug}`;
  const scenarios = [
    { name: 'GET /things', path: `${base}/things` },
    { name: 'GET /things?count=100', path: `${base}/things?count=100` },
    { name: 'GET /things?fetchAll=true', path: `${base}/things?fetchAll=true` },
    { name: 'GET /arcs', path: `${base}/arcs` },
    { name: 'GET /arcs/{slug}', path: `${base}/arcs/${campaign.sampleArc.slug}` },
    { name: 'GET /things/{slug}', path: `${base}/things/${campaign.sampleThing.slug}` },
    { name: 'GET /things/{slug}/rendered', path: `${base}/things/${campaign.sampleThing.slug}/rendered` },
    { name: 'GET /things/{slug}/rendered?format=markdown', path: `${base}/things/${campaign.sampleThing.slug}/rendered?format=markdown` },
    { name: 'GET /things/{slug}/backlinks', path: `${base}/things/${campaign.sampleThing.slug}/backlinks` },
  ];
  if (withSearch) scenarios.push({ name: `GET /search?q=${SEARCH_QUERY}`, path: `${base}/search?q=${SEARCH_QUERY}` });
  return scenarios;
}

/** Why search is skipped (its route answers 404 route_not_found until it exists), or undefined. */
export async function probeSearch(api: Api, campaign: SeededCampaign): Promise<string | undefined> {
  const response = await api.request('GET', `/api/campaigns/${campaign.slug}/search?q=${SEARCH_QUERY}`);
  if (response.status === 200) return undefined;
  const code = (response.body as { code?: string } | undefined)?.code;
  if (response.status === 404 && code === 'route_not_found') return 'the search route does not exist yet (404 route_not_found)';
  return `the search route answered ${response.status}${code ? ` ${code}` : ''}, not 200`;
}

export interface Captured {
  url: string;
  contentType: string;
  body: Buffer;
}

/** One GET, which must answer 200: the bytes and content type the baseline will serve. */
export async function capture(origin: string, token: string, requestPath: string): Promise<Captured> {
  const response = await fetch(`${origin}${requestPath}`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(120_000) });
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) throw new Error(`GET ${requestPath}: ${response.status} ${body.toString('utf8').slice(0, 300)}`);
  return { url: requestPath, contentType: response.headers.get('content-type') ?? 'application/json', body };
}
