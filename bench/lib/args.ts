// Command-line flags: `--name value`, `--name=value`, `--flag`, `--no-flag`.

import { runMain } from '../../toolkit/processes.js';

export type FlagKind = 'string' | 'number' | 'boolean';

export class UsageError extends Error {}

export function parseFlags<S extends Record<string, FlagKind>>(
  argv: string[],
  spec: S,
): { [K in keyof S]?: S[K] extends 'number' ? number : S[K] extends 'boolean' ? boolean : string } {
  const out: Record<string, string | number | boolean> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument "${arg}"`);
    let name = arg.slice(2);
    let value: string | undefined;
    const eq = name.indexOf('=');
    if (eq >= 0) {
      value = name.slice(eq + 1);
      name = name.slice(0, eq);
    }
    const kind = spec[name];
    if (kind === undefined && name.startsWith('no-') && spec[name.slice(3)] === 'boolean') {
      if (value !== undefined) throw new UsageError(`--${name} takes no value`);
      out[name.slice(3)] = false;
      continue;
    }
    if (kind === undefined) throw new UsageError(`unknown flag --${name}`);
    if (kind === 'boolean') {
      if (value !== undefined && value !== 'true' && value !== 'false') throw new UsageError(`--${name} is true or false`);
      out[name] = value !== 'false';
      continue;
    }
    if (value === undefined) {
      value = argv[++i];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
    }
    if (kind === 'number') {
      const n = Number(value);
      if (!Number.isFinite(n) || n < 0) throw new UsageError(`--${name} must be a number of at least 0, got "${value}"`);
      out[name] = n;
    } else {
      out[name] = value;
    }
  }
  return out as { [K in keyof S]?: S[K] extends 'number' ? number : S[K] extends 'boolean' ? boolean : string };
}

/** Runs a benchmark's main (see runMain): a UsageError prints its message and the usage, exit 2. */
export function runCommand(main: () => Promise<number>, usage: string): void {
  runMain(async () => {
    try {
      return await main();
    } catch (error) {
      if (error instanceof UsageError) {
        console.error(`${error.message}\n\n${usage}`);
        return 2;
      }
      throw error;
    }
  });
}
