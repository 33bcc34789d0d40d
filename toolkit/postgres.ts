// A throwaway PostgreSQL for a benchmark run (test/support/embedded-postgres.ts, as the tests
// start theirs), or the server DATABASE_URL names. The embedded server keeps PostgreSQL's default
// durability (fsync and synchronous_commit on): SQLite runs with synchronous=FULL, so both
// databases pay for durable commits and the figures compare like with like.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from './embedded-postgres.js';
import { onCleanup, processTree } from './processes.js';

export interface PostgresServer {
  /** The database the benchmark runs against. */
  url: string;
  /** The postmaster pid when we started the server (to measure its CPU), else undefined. */
  postmasterPid: number | undefined;
  /** The postmaster and its backends, now. */
  pids(): number[];
  embedded: boolean;
}

/** DATABASE_URL when set (used as it is: the benchmark writes into it), else an embedded server. */
export async function providePostgres(): Promise<PostgresServer> {
  const given = process.env.DATABASE_URL;
  if (given) {
    if (!/^postgres(ql)?:\/\//.test(given)) throw new Error('DATABASE_URL must be a postgres:// URL');
    console.log('PostgreSQL: using DATABASE_URL');
    return { url: given, postmasterPid: undefined, pids: () => [], embedded: false };
  }
  console.log('PostgreSQL: starting a throwaway embedded server…');
  const started = Date.now();
  const server = await startEmbedded();
  console.log(`PostgreSQL: ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return server;
}

async function startEmbedded(): Promise<PostgresServer> {
  // PostgreSQL's default durability, and room for three instances' pools and the verifier.
  const server = await startEmbeddedPostgres({ name: 'loreforge-bench-pg', settings: ['max_connections=200'] });
  onCleanup(server.stop);
  const admin = new pg.Client({ connectionString: server.adminUrl });
  await admin.connect();
  try {
    await admin.query('CREATE DATABASE loreforge_bench');
  } finally {
    await admin.end();
  }
  const url = new URL(server.adminUrl);
  url.pathname = '/loreforge_bench';
  const postmasterPid = readPostmasterPid(server.databaseDir);
  return {
    url: url.toString(),
    postmasterPid,
    pids: () => (postmasterPid === undefined ? [] : processTree(postmasterPid)),
    embedded: true,
  };
}

function readPostmasterPid(databaseDir: string): number | undefined {
  try {
    const first = fs.readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0];
    const pid = Number(first);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Brings the planner's statistics up to date (ANALYZE of the whole database), as autovacuum does
 * on its own within a minute or so of a bulk change (`autovacuum_naptime`, 60 s by default). A
 * benchmark that seeds a campaign and measures at once would otherwise measure the plans of tables
 * never analyzed: PostgreSQL then guesses a handful of rows per campaign, and reads a page of a
 * list by sorting every thing of the campaign rather than walking the index it is ordered by
 * (docs/performance.md, "Benchmarks measure analyzed tables"). Returns the seconds it took.
 */
export async function analyzePostgres(url: string): Promise<number> {
  const started = Date.now();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
  return (Date.now() - started) / 1000;
}
