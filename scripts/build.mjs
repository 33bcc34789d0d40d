// Production build: bundle our TypeScript into dist/, leaving every npm package external
// (native addons such as better-sqlite3 must be loaded from node_modules).
import { build } from 'esbuild';

await build({
  entryPoints: ['src/main.ts'],
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
