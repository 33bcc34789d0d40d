// Bytes and latency of the navigation answers (CONTRACT "The web app, phase 3": navigation never
// downloads texts): the things list in full and as summaries, the arcs list with and without their
// things, on the bench seed (1,000 things, 100 arcs, 10 links each). The response cache is off, so
// every request is built from the database. Prints figures; asserts nothing about time.
//   npx tsx bench/navigation.ts [--runs 30]
import path from 'node:path';
import { Api, createAccount } from '../toolkit/http.js';
import { buildServer, startServer, stopServer, tempDir } from '../toolkit/server.js';
import { seedCampaign } from './seed.js';

const runsFlag = process.argv.indexOf('--runs');
const RUNS = runsFlag > 0 ? Number(process.argv[runsFlag + 1]) : 30;

const entry = await buildServer({ web: false });
const server = await startServer({ name: 'loreforge', entry, env: { DATA_DIR: path.join(tempDir('loreforge-nav-'), 'data'), LOG_LEVEL: 'warn', RESPONSE_CACHE_MB: '0' } });
try {
  const account = await createAccount(server.base, 'nav');
  const api = new Api(server.base).withToken(account.token);
  const campaign = await seedCampaign(api, 'Navigation', { things: 1000, arcs: 100, linksPerArc: 10 }, 8);
  const base = `/api/campaigns/${campaign.slug}`;
  const urls = ['/things?fetchAll=true', '/things?fetchAll=true&fields=summary', '/arcs', '/arcs?things=none'];
  console.log(`seeded ${campaign.things.length} things, ${campaign.arcs.length} arcs, ${campaign.links} links in ${campaign.seconds.toFixed(1)} s; ${RUNS} runs each, cache off`);
  for (const url of urls) {
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < RUNS + 3; i++) {
      const started = performance.now();
      const res = await api.request('GET', `${base}${url}`, undefined, { 'accept-encoding': 'identity' });
      const elapsed = performance.now() - started;
      if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${res.text.slice(0, 200)}`);
      bytes = Buffer.byteLength(res.text);
      if (i >= 3) times.push(elapsed);
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1);
    console.log(`GET …${url.padEnd(38)} ${(bytes / 1024).toFixed(1).padStart(8)} KiB  p50 ${at(0.5).padStart(6)} ms  p95 ${at(0.95).padStart(6)} ms`);
  }
} finally {
  await stopServer(server);
}
