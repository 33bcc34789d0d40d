// The write scenarios of `npm run bench`, with a request builder that makes every request
// different, and the capture of what Loreforge answers them, for the baseline to answer the same.
import type { SeededCampaign } from '../seed.js';
import { sizedDescription, type RichText } from './content.js';
import type { LoadRequest } from './load.js';

export interface WriteScenario {
  name: string;
  method: 'POST' | 'PUT';
  path: string;
  requests: LoadRequest[];
  /** The requests whose answers the baseline stores: the first turn of the rotation. */
  samples: { path: string; body: string }[];
}

/** A request sent and its answer, which the baseline serves for the same method, url and body. */
export interface CapturedWrite {
  method: 'POST' | 'PUT';
  url: string;
  requestBody: string;
  status: number;
  contentType: string;
  body: Buffer;
}

const PUT_TARGETS = 8;
const PUT_VARIANTS = 32;

/** POST /things with a new name on every request (the spec's body: name and typeId). */
function postThings(campaign: SeededCampaign): WriteScenario {
  const tag = Date.now().toString(36);
  const path = `/api/campaigns/${campaign.slug}/things`;
  const body = (n: number) => JSON.stringify({ newThing: { name: `Load test thing ${tag} ${n}`, typeId: campaign.typeIds[n % campaign.typeIds.length] } });
  let n = 0;
  const request: LoadRequest = {
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json' },
    setupRequest: (r) => {
      n += 1;
      r.body = body(n);
      return r;
    },
  };
  return { name: 'POST /things', method: 'POST', path, requests: [request], samples: [{ path, body: body(0) }] };
}

/**
 * PUT /things/{slug} over 8 things in turn, each time with another of 32 realistic descriptions of
 * about 2 KiB of JSON: the text changes on every request, as an edit does, without inventing a new
 * word every time (which would grow the search vocabulary on every request, as no real edit does).
 * The rotation repeats every 32 requests (8 divides 32), so 32 captured answers cover it.
 */
function putThings(campaign: SeededCampaign): WriteScenario {
  const bodies = Array.from({ length: PUT_VARIANTS }, (_, i) => JSON.stringify({ updatedThing: { description: sizedDescription(50_000 + i) } }));
  return rotatingPuts(campaign, 'PUT /things/{slug}', bodies);
}

/** PUTs to the first PUT_TARGETS things in turn, the n-th request with the n-th of `bodies` (cycling). */
function rotatingPuts(campaign: SeededCampaign, name: string, bodies: string[]): WriteScenario {
  const targets = campaign.things.slice(0, PUT_TARGETS);
  const at = (n: number) => ({ path: `/api/campaigns/${campaign.slug}/things/${targets[n % targets.length]?.slug ?? ''}`, body: bodies[n % bodies.length] ?? '' });
  let n = 0;
  const request: LoadRequest = {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    setupRequest: (r) => {
      n += 1;
      const next = at(n);
      r.path = next.path;
      r.body = next.body;
      return r;
    },
  };
  return {
    name,
    method: 'PUT',
    path: `/api/campaigns/${campaign.slug}/things/{slug}`,
    requests: [request],
    samples: Array.from({ length: PUT_VARIANTS }, (_, i) => at(i)),
  };
}

const EDIT_WORDS = ['quietly', 'again', 'perhaps', 'lantern', 'northern', 'seventh', 'crimson', 'twice'];

/** `text` with a few words (three, at places set by `variant`) replaced, as a game master's small edit. */
export function editedDescription(text: RichText, variant: number): RichText {
  const copy = structuredClone(text);
  const paragraphs = copy.filter((block) => block.type === 'paragraph');
  for (let k = 0; k < 3; k++) {
    const block = paragraphs[(variant + k) % paragraphs.length];
    const leaf = block?.children.find((child) => 'text' in child && child.text.split(' ').length > 4);
    if (!leaf || !('text' in leaf)) continue;
    const words = leaf.text.split(' ');
    words[(variant * 3 + k) % words.length] = EDIT_WORDS[(variant + k) % EDIT_WORDS.length] ?? 'again';
    leaf.text = words.join(' ');
  }
  return copy;
}

/**
 * PUT /things/{slug} as our editor's autosave sends it (web/src/records/record-state.ts): the
 * changed field only, `{updatedThing: {description}}`, the same 2 KiB text each time with a few
 * words changed. 8 things in turn, each with its own text, 4 edits of it in the rotation of 32.
 * No If-Match: 50 connections writing the same 8 things cannot all hold the current version (the
 * saver sends one; checking it compares two numbers).
 */
function autosaveThings(campaign: SeededCampaign): WriteScenario {
  const texts = campaign.things.slice(0, PUT_TARGETS).map((_, t) => sizedDescription(60_000 + t));
  const bodies = Array.from({ length: PUT_VARIANTS }, (_, i) => JSON.stringify({ updatedThing: { description: editedDescription(texts[i % texts.length] ?? [], i) } }));
  return rotatingPuts(campaign, 'PUT /things/{slug} (autosave edit)', bodies);
}

export function writeScenarios(campaign: SeededCampaign): WriteScenario[] {
  return [postThings(campaign), putThings(campaign), autosaveThings(campaign)];
}

/** Sends each sample once (it must answer 2xx) and keeps the answers. */
export async function captureWrites(origin: string, token: string, scenario: WriteScenario): Promise<CapturedWrite[]> {
  const out: CapturedWrite[] = [];
  for (const sample of scenario.samples) {
    const response = await fetch(`${origin}${sample.path}`, {
      method: scenario.method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: sample.body,
      signal: AbortSignal.timeout(120_000),
    });
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status < 200 || response.status > 299) throw new Error(`${scenario.method} ${sample.path}: ${response.status} ${body.toString('utf8').slice(0, 300)}`);
    out.push({ method: scenario.method, url: sample.path, requestBody: sample.body, status: response.status, contentType: response.headers.get('content-type') ?? 'application/json', body });
  }
  return out;
}
