import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const VENDOR = /node_modules\/(react|react-dom|scheduler|react-router|@tanstack|openapi-fetch|get-nonce|use-sync-external-store)\//;
// Radix's dialog and what it brings (focus trap, scroll lock, hiding the page from screen readers):
// its own chunk, loaded with the first dialog (web/src/ui/dialog.tsx), the editor or the quick switcher.
const DIALOG = /node_modules\/(@radix-ui|react-remove-scroll|react-remove-scroll-bar|react-style-singleton|use-callback-ref|use-sidecar|aria-hidden|tslib|detect-node-es)\//;
const COMMON = /web\/src\/(ui|api|campaigns\/(api|access)|records\/(actions|api|properties\/labels-editor)|things\/api|arcs\/api|history\/(trash-api|history-toggle)|search\/(lazy-search-list|pickers))\b/;

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
    // Terser packs the code a little tighter than esbuild (the first visit's JavaScript has a budget).
    minify: 'terser',
    // The page's CSP has no 'unsafe-inline': the module preload helper is bundled, not inlined.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    // Which chunks a page needs (read by test/e2e/bundle-size.test.ts, which keeps the first visit
    // to a thing page within its budget). Written beside index.html, never served (only assets/ is).
    manifest: true,
    rollupOptions: {
      output: {
        // Two chunks every page shares, cached across releases that change only pages: the libraries
        // (React, the router, TanStack Query, the API client) and the app's
        // common code (API client, ui/, the campaign's queries, what every record page shows:
        // actions, tags and aliases, History, the search pickers, whose search list and cmdk load just after the page). Fewer, larger files compress better
        // than a score of small ones. Slate stays in the editor's own chunk, loaded when one opens.
        manualChunks(id) {
          if (VENDOR.test(id)) return 'vendor';
          if (DIALOG.test(id) || id.endsWith('/web/src/ui/dialog-frame.tsx')) return 'dialog';
          if (COMMON.test(id)) return 'common';
          return undefined;
        },
      },
    },
  },
  server: { proxy: { '/api': 'http://127.0.0.1:3000' } },
});
