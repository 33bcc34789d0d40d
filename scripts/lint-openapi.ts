// `npm run lint:openapi` (part of npm test): Redocly's recommended rules (redocly.yaml) on the
// document the server serves. Any problem fails it, warnings included.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { servedDocument } from './openapi-document.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loreforge-openapi-'));
const file = path.join(dir, 'openapi.json');
fs.writeFileSync(file, JSON.stringify(await servedDocument(), null, 2));
try {
  const redocly = path.resolve('node_modules/.bin/redocly');
  const args = ['lint', file, '--config', path.resolve('redocly.yaml'), '--format', 'json'];
  // No telemetry and no update check: this machine reaches nothing but the package registries.
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  let output: string;
  try {
    output = execFileSync(redocly, args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    output = (error as { stdout?: string }).stdout ?? '';
  }
  const report = JSON.parse(output.slice(output.indexOf('{'))) as {
    totals: { errors: number; warnings: number; ignored: number };
    problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
  };
  for (const problem of report.problems) {
    console.error(`${problem.ruleId}: ${problem.message} (${problem.location.map((l) => l.pointer).join(', ')})`);
  }
  const { errors, warnings } = report.totals;
  console.log(`OpenAPI document (Redocly recommended rules): ${errors} errors, ${warnings} warnings.`);
  if (errors + warnings > 0) process.exitCode = 1;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
