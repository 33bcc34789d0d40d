// npm run fuzz [-- --runs 2000 --db both|sqlite|postgres --seed N]
//
// The long pass of test/integration/fuzz.test.ts (`npm test` runs 200 cases per route): the same
// fuzzer with FUZZ_RUNS cases per route, on both databases. Prints the per-route table and the
// totals the test file reports; a failure names the route, the case and the seed to replay it with
// (FUZZ_SEED=…). Exits with vitest's exit code.
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { repoRoot } from '../toolkit/server.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: process.env.FUZZ_RUNS ?? '2000' },
    db: { type: 'string', default: 'both' },
    seed: { type: 'string' },
  },
});
const runs = Number(values.runs);
const projects = values.db === 'both' ? ['sqlite', 'postgres'] : [values.db];
if (!(runs >= 1) || projects.some((p) => p !== 'sqlite' && p !== 'postgres')) {
  console.error('usage: npm run fuzz -- [--runs N] [--db sqlite|postgres|both] [--seed N]');
  process.exit(2);
}

const args = ['vitest', 'run', ...projects.flatMap((p) => ['--project', p]), 'test/integration/fuzz.test.ts'];
console.log(`fuzz: ${runs} cases per route on ${projects.join(' and ')}${values.seed ? `, seed ${values.seed}` : ''}`);
const child = spawn('npx', args, {
  cwd: repoRoot,
  stdio: 'inherit',
  env: { ...process.env, FUZZ_RUNS: String(runs), ...(values.seed ? { FUZZ_SEED: values.seed } : {}) },
});
const code = await new Promise<number>((resolve) => child.on('exit', (exitCode) => resolve(exitCode ?? 1)));
process.exit(code);
