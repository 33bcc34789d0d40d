// npm run chaos [-- --kills 25 --writers 8 --db both|sqlite|postgres --seed N]
//
// The long crash test: builds the production bundle, runs it as a separate process with concurrent
// writers (creates, updates, links, unlinks, deletes), SIGKILLs it at random moments, restarts it
// and checks after every restart that each acknowledged write is there and correct, that the
// requests in flight at the kill were applied wholly or not at all, and that the database passes its
// integrity checks. Prints one line per kill and a summary per database; exits 1 on any problem.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createDatabase } from '../src/db/database.js';
import { runChaos, type ChaosReport } from '../test/support/chaos.js';
import { startScriptPostgres } from '../test/support/script-postgres.js';
import { buildServer, killAllStarted } from '../toolkit/server.js';

const { values } = parseArgs({
  options: {
    kills: { type: 'string', default: '25' },
    writers: { type: 'string', default: '8' },
    db: { type: 'string', default: 'both' },
    seed: { type: 'string' },
    'min-ms': { type: 'string', default: '200' },
    'max-ms': { type: 'string', default: '3000' },
  },
});

const kills = Number(values.kills);
const writers = Number(values.writers);
const seed = values.seed === undefined ? Date.now() % 2_147_483_647 : Number(values.seed);
const dialects = values.db === 'both' ? ['sqlite', 'postgres'] : [values.db];
if (!(kills >= 1) || !(writers >= 1) || dialects.some((d) => d !== 'sqlite' && d !== 'postgres')) {
  console.error('usage: npm run chaos -- [--kills N] [--writers N] [--db sqlite|postgres|both] [--seed N]');
  process.exit(2);
}

process.on('exit', killAllStarted);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    killAllStarted();
    process.exit(130);
  });
}

function summary(dialect: string, report: ChaosReport, ms: number): string {
  return [
    `${dialect}: ${report.kills} SIGKILLs survived in ${(ms / 1000).toFixed(0)} s`,
    `  ${report.acknowledgedWrites} acknowledged writes, every one found intact after every restart`,
    `  ${report.recordsVerified} record checks against the writers' models (types, things, arcs, links)`,
    `  requests in flight at a kill: ${report.inFlightApplied} applied whole, ${report.inFlightNotApplied} not applied${report.problems.length === 0 ? ', none half-applied' : ''}`,
    `  records left queued for search indexing at the kills: ${report.searchQueuedAtKill ?? 0}, indexed by each restart before its first request`,
    `  integrity after each restart: ${dialect === 'sqlite' ? 'PRAGMA integrity_check, PRAGMA foreign_key_check' : 'constraints validated'}, orphan and cycle queries, images, the search index equal to a re-index`,
    report.problems.length === 0 ? '  no problems' : `  ${report.problems.length} PROBLEMS:\n    ${report.problems.join('\n    ')}`,
  ].join('\n');
}

const entry = await buildServer({ web: false });
console.log(`chaos: ${kills} kills per database, ${writers} writers, kill ${values['min-ms']}–${values['max-ms']} ms into each round, seed ${seed}`);
const postgres = dialects.includes('postgres') ? await startScriptPostgres() : undefined;
const summaries: string[] = [];
let failed = false;
try {
  for (const dialect of dialects) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-chaos-'));
    const url = dialect === 'postgres' ? await postgres!.newDatabase() : undefined;
    const started = Date.now();
    try {
      const report = await runChaos({
        kills,
        writers,
        env: url ? { DATA_DIR: dataDir, DATABASE_URL: url } : { DATA_DIR: dataDir },
        openDatabase: () => (url ? createDatabase({ url, poolSize: 2 }) : createDatabase({ dataDir })),
        minRunMs: Number(values['min-ms']),
        maxRunMs: Number(values['max-ms']),
        entry,
        seed,
        log: (line) => console.log(`  ${dialect} ${line}`),
      });
      summaries.push(summary(dialect, report, Date.now() - started));
      if (report.problems.length > 0 || report.kills < kills) failed = true;
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
} finally {
  await postgres?.stop();
}
console.log(`\n${summaries.join('\n\n')}`);
process.exit(failed ? 1 : 0);
