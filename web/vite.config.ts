import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The web app's build: web/ → dist/web (index.html and hashed files under assets/), served by the
// server at `/` (src/http/web-app.ts). No inline scripts, so the page's CSP allows 'self' only.
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react()],
  build: {
    outDir: path.resolve(import.meta.dirname, '../dist/web'),
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    target: 'es2022',
    // The page's CSP has no 'unsafe-inline': the module preload helper is bundled, not inlined.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    // Which chunks a page needs (read by test/e2e/bundle-size.test.ts, which keeps the first visit
    // to a thing page within its budget). Written beside index.html, never served (only assets/ is).
    manifest: true,
  },
  server: { proxy: { '/api': 'http://127.0.0.1:3000' } },
});
