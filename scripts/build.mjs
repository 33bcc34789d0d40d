// Production build: bundle our TypeScript into dist/, leaving every npm package external
// (native addons such as better-sqlite3 must be loaded from node_modules), and build the web app
// (web/) with Vite into dist/web, which the server serves at `/`.
//   --no-web         the server only (suites and scripts that use the API alone)
//   --web-out DIR    the web app into DIR instead (a test's private copy, served with WEB_ROOT=DIR)
// The web app's compressible files get .br and .gz copies beside them (scripts/precompress.mjs).
import { build } from 'esbuild';
import { copyFile } from 'node:fs/promises';
import process from 'node:process';
import { build as buildWeb } from 'vite';
import { precompress } from './precompress.mjs';

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
// The worker threads of the Markdown parser and the JSON document reader (plain JavaScript, package
// imports only), next to main.js where src/portability/markdown.ts and json-document/parse.ts look
// for them (`new URL('./…-worker.mjs', import.meta.url)`, beside their module in src/).
await copyFile('src/portability/markdown-worker.mjs', 'dist/markdown-worker.mjs');
await copyFile('src/portability/json-document/json-worker.mjs', 'dist/json-worker.mjs');

const args = process.argv.slice(2);
const webOut = args.includes('--web-out') ? args[args.indexOf('--web-out') + 1] : undefined;
if (!args.includes('--no-web')) {
  // Always the production build of React and the rest, even when run from a test (NODE_ENV=test).
  process.env.NODE_ENV = 'production';
  await buildWeb({
    mode: 'production',
    configFile: 'web/vite.config.ts',
    logLevel: 'warn',
    ...(webOut ? { build: { outDir: webOut, emptyOutDir: true } } : {}),
  });
  await precompress(webOut ?? 'dist/web');
}
