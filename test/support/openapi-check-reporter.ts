import fs from 'node:fs';
import path from 'node:path';
import type { Reporter } from 'vitest/reporters';
import { countsDir } from './openapi-check.js';

// Prints, at the end of a run, how many responses the integration suites checked against the
// served OpenAPI document (test/support/openapi-check.ts), per database. The test processes are
// forks of this one and leave their counts under a folder named after its pid.
export default class OpenApiCheckReporter implements Reporter {
  private readonly dir = countsDir(process.pid);

  onInit(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  onFinished(): void {
    if (!fs.existsSync(this.dir)) return;
    const totals: string[] = [];
    let all = 0;
    for (const file of fs.readdirSync(this.dir).sort()) {
      const count = fs
        .readFileSync(path.join(this.dir, file), 'utf8')
        .split('\n')
        .filter(Boolean)
        .reduce((sum, line) => sum + Number(line), 0);
      all += count;
      totals.push(`${path.basename(file, '.log')} ${count.toLocaleString('en')}`);
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
    process.stdout.write(`\n Responses checked against the OpenAPI document: ${all.toLocaleString('en')} (${totals.join(', ')})\n`);
  }
}
